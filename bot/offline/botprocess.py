"""``python -m bot`` in a process of its own, polling a local Bot API server or (``webhook``)
taking its updates on a port of its own: for the kill tests and the load bench (the bot's
latency and memory measured apart from the simulated world)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .localapi import LocalBotApi


class BotProcess:
    """The bot as players' Telegram would meet it: its own process, the README's environment
    (plus the pace and seed knobs), its log in a file next to the database."""

    def __init__(
        self,
        api: LocalBotApi,
        db: Path | str,
        knobs: Mapping[str, str],
        log: Path | None = None,
        *,
        webhook: str | None = None,
        secret: str = "",
        index: int = 0,
    ) -> None:
        """``db``: ``GOUJI_DB`` (a SQLite file, the log beside it; or a PostgreSQL URL, then
        ``log`` says where the log goes). ``webhook``: the URL the process registers with
        setWebhook (``TELEGRAM_WEBHOOK_URL``; a forwarder's, in front of several processes),
        ``secret`` the one every delivery carries; the process listens on a free loopback port
        of its own (:attr:`backend`), the path the URL's. ``index``: ``GOUJI_PROCESS``, which
        process of several it is (in its log)."""
        self.api = api
        if log is None:
            assert isinstance(db, Path), "a database URL needs a log path"
            log = db.with_suffix(".log")
        self.webhook = webhook
        self.port = free_port() if webhook else 0
        hooked = (
            {
                "TELEGRAM_WEBHOOK_URL": webhook,
                "TELEGRAM_WEBHOOK_SECRET": secret,
                "GOUJI_WEBHOOK_LISTEN": "127.0.0.1",
                "GOUJI_WEBHOOK_PORT": str(self.port),
            }
            if webhook
            else {}
        )
        self.env = {
            **os.environ,
            "TELEGRAM_BOT_TOKEN": api.token,
            "TELEGRAM_BASE_URL": api.base_url,
            "GOUJI_DB": str(db),
            "NO_PROXY": "127.0.0.1,localhost",
            "GOUJI_PROCESS": str(index),
            "GOUJI_MEMREPORT": str(log.with_suffix(".mem.json")) if log is not None else "",
            **hooked,
            **knobs,
        }
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.report: dict[str, Any] = {}  # the last memory report (heap)

    @property
    def backend(self) -> str:
        """Where the process takes its webhook's deliveries (``webhook`` mode)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    async def start(self, timeout: float = 60.0) -> None:
        """Start the process and wait until it takes updates: polling, once it registered its
        commands (the last thing a start-up does before polling); by webhook, once its port
        answers (its server starts after the start-up, and keeps what comes until it runs)."""
        ready = self._commands_set()
        if not self.webhook:
            self.api.resume_polls()
        with open(self.log, "ab") as log:  # the child keeps its own copy of the file
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "bot"], env=self.env, stdout=log, stderr=log
            )
        self.starts += 1
        if self.webhook:
            await until(self._listening, timeout)
        else:
            await until(lambda: self._alive() and self._commands_set() > ready, timeout)

    def _alive(self) -> bool:
        """True while the process runs; RuntimeError with its log's tail once it has exited."""
        if self.proc is not None and self.proc.poll() is not None:
            tail = self.log.read_text(errors="replace")[-1500:]
            raise RuntimeError(f"the bot exited ({self.proc.returncode}) as it started:\n{tail}")
        return True

    def _commands_set(self) -> int:
        """Start-ups finished so far: the last thing a start-up does is register commands (a
        single process on the server)."""
        return sum(1 for c in self.api.calls if c.method == "setMyCommands") // 4

    def _listening(self) -> bool:
        assert self._alive()
        with socket.socket() as s:
            s.settimeout(0.2)
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def rss_kb(self) -> int:
        """Resident memory now of the process and its worker processes (Linux)."""
        assert self.proc is not None
        return sum(_rss_kb(pid) for pid in _tree(self.proc.pid))

    def rss_main_kb(self) -> int:
        """Resident memory now of the bot's own process, without its workers (Linux)."""
        assert self.proc is not None
        return _rss_kb(self.proc.pid)

    def cpu_s(self) -> float:
        """CPU seconds the bot's own process has used so far, user and system (Linux)."""
        assert self.proc is not None
        return _cpu_s(self.proc.pid)

    async def heap(self) -> dict[str, int]:
        """Bytes the process holds by owner (bot.memreport), and ``tables``, how many tables
        it holds."""
        assert self.proc is not None
        path = self.log.with_suffix(".mem.json")
        path.unlink(missing_ok=True)
        self.proc.send_signal(signal.SIGUSR1)
        await until(path.exists, 60.0)
        await asyncio.sleep(0.2)  # written whole
        data = json.loads(path.read_text(encoding="utf-8"))
        self.report = data
        return {**data["bytes"], "tables": data["tables"]}

    def memory(self) -> dict[str, int]:
        """The bot's own process now (Linux): ``rss_kb``, of it ``anon_kb`` (the heap, stacks)
        and ``file_kb`` (files mapped: shared libraries, first touched)."""
        assert self.proc is not None
        rollup = _smaps_rollup(self.proc.pid)
        rss = rollup.get("Rss", 0)
        anon = rollup.get("Anonymous", 0)
        return {"rss_kb": rss, "anon_kb": anon, "file_kb": rss - anon}

    def reported(self) -> dict[str, int]:
        """From the last :meth:`heap` report: the heap by owner in all (``heap_kb``), the
        tables held, the process's Python objects and malloc figures (bot.memreport.process,
        read as the report began)."""
        if not self.report:
            return {}
        return {
            "heap_kb": sum(self.report["bytes"].values()) // 1024,
            "tables": self.report["tables"],
            **self.report.get("process", {}),
        }

    async def kill(self) -> None:
        """SIGKILL: gone at once, whatever it was doing."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(self.proc.wait)
        if not self.webhook:
            self.api.release_polls()  # the dead process's parked long poll
        await asyncio.sleep(0.05)

    async def stop(self) -> None:
        """SIGTERM, and wait until it has shut down (its messages sent, storage closed)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            await asyncio.to_thread(self.proc.wait, 30)
            if not self.webhook:
                self.api.release_polls()


async def until(cond: Callable[[], bool], timeout: float) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise TimeoutError("the bot did not come up")
        await asyncio.sleep(0.02)


def free_port() -> int:
    """A loopback port free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _tree(pid: int) -> list[int]:
    """A process and its descendants (Linux)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return [pid]
    return [pid] + [p for child in text.split() for p in _tree(int(child))]


def _cpu_s(pid: int) -> float:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # gone meanwhile
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # after the name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _smaps_rollup(pid: int) -> dict[str, int]:
    """/proc/PID/smaps_rollup's figures in kB (Rss, Anonymous, Shared_Clean, …)."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return {}
    out: dict[str, int] = {}
    for line in lines[1:]:
        name, _, rest = line.partition(":")
        value = rest.split()
        if value and value[0].isdigit():
            out[name] = int(value[0])
    return out


def _rss_kb(pid: int) -> int:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:  # gone meanwhile
        return 0
    for line in lines:
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

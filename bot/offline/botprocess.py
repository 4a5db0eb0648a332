"""``python -m bot`` in a process of its own, polling a local Bot API server: for the kill test
and the load bench (the bot's latency and memory measured apart from the simulated world)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from .localapi import LocalBotApi


class BotProcess:
    """The bot as players' Telegram would meet it: its own process, the README's environment
    (plus the pace and seed knobs), its log in a file next to the database."""

    def __init__(
        self, api: LocalBotApi, db: Path | str, knobs: Mapping[str, str], log: Path | None = None
    ) -> None:
        """``db``: ``GOUJI_DB`` (a SQLite file, the log beside it; or a PostgreSQL URL, then
        ``log`` says where the log goes)."""
        self.api = api
        self.env = {
            **os.environ,
            "TELEGRAM_BOT_TOKEN": api.token,
            "TELEGRAM_BASE_URL": api.base_url,
            "GOUJI_DB": str(db),
            "NO_PROXY": "127.0.0.1,localhost",
            **knobs,
        }
        if log is None:
            assert isinstance(db, Path), "a database URL needs a log path"
            log = db.with_suffix(".log")
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    async def start(self, timeout: float = 60.0) -> None:
        ready = self._ready()
        self.api.resume_polls()
        with open(self.log, "ab") as log:  # the child keeps its own copy of the file
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "bot"], env=self.env, stdout=log, stderr=log
            )
        self.starts += 1
        await until(lambda: self._ready() > ready, timeout)  # up: polling follows at once

    def _ready(self) -> int:
        """Start-ups finished so far: the last thing a start-up does is register commands."""
        return sum(1 for c in self.api.calls if c.method == "setMyCommands") // 4

    def rss_kb(self) -> int:
        """Resident memory now of the process and its worker processes (Linux)."""
        assert self.proc is not None
        return sum(_rss_kb(pid) for pid in _tree(self.proc.pid))

    def rss_main_kb(self) -> int:
        """Resident memory now of the bot's own process, without its workers (Linux)."""
        assert self.proc is not None
        return _rss_kb(self.proc.pid)

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(self.proc.wait)
        self.api.release_polls()  # the dead process's parked long poll
        await asyncio.sleep(0.05)

    async def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            await asyncio.to_thread(self.proc.wait, 30)
            self.api.release_polls()


async def until(cond: Callable[[], bool], timeout: float) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise TimeoutError("the bot did not come up")
        await asyncio.sleep(0.02)


def _tree(pid: int) -> list[int]:
    """A process and its descendants (Linux)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return [pid]
    return [pid] + [p for child in text.split() for p in _tree(int(child))]


def _rss_kb(pid: int) -> int:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:  # gone meanwhile
        return 0
    for line in lines:
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

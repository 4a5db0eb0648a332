"""Several ``python -m bot`` processes on one database, as a deployment that scales out runs
them: each in webhook mode on a loopback port of its own, a round-robin :class:`Forwarder` in
front of them (the address every process registers with setWebhook, so the local server posts
every update there), one webhook secret. Processes die and come back while the others go on::

    async with LocalBotApi() as api, BotCluster(api, url, knobs, 3, tmp) as cluster:
        ...                       # players play; updates reach the three processes in turn
        await cluster.kill(0)     # SIGKILL: the forwarder skips it from now on
        await cluster.restart(0)  # back, and in the forwarder's list again
        await cluster.term(1)     # SIGTERM: taken out of the list first, then shut down
        cluster.forwarder.counts  # updates each process took
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from pathlib import Path

from .botprocess import BotProcess
from .forwarder import Forwarder
from .localapi import LocalBotApi

HOOK_PATH = "/gouji-hook"


class BotCluster:
    """``n`` bot processes on the database at ``db`` (a PostgreSQL URL: one SQLite file takes one
    process only), their logs ``bot-<i>.log`` in ``logs``; process ``i`` has ``GOUJI_PROCESS=i``.
    """

    def __init__(
        self,
        api: LocalBotApi,
        db: str,
        knobs: Mapping[str, str],
        n: int,
        logs: Path,
        *,
        timeout: float = 5.0,
        by_table: bool = False,
    ) -> None:
        """``timeout``: how long the forwarder waits for a process's answer before it hands the
        update to the next one; ``by_table``: a table's updates to one process (else round
        robin: any process takes any update)."""
        self.api = api
        self.forwarder = Forwarder(timeout=timeout, by_table=by_table)
        self.secret = secrets.token_hex(16)
        self.db = db
        self.knobs = dict(knobs)
        self.logs = logs
        self.procs: list[BotProcess] = []
        self.n = n

    @property
    def hook(self) -> str:
        """The webhook URL every process registers: the forwarder's."""
        return self.forwarder.url + HOOK_PATH

    async def start(self) -> None:
        """The forwarder, then every process at once; returns once all take updates."""
        await self.forwarder.start()
        self.procs = [
            BotProcess(
                self.api,
                self.db,
                self.knobs,
                self.logs / f"bot-{i}.log",
                webhook=self.hook,
                secret=self.secret,
                index=i,
            )
            for i in range(self.n)
        ]
        await asyncio.gather(*(self._start(i) for i in range(self.n)))

    async def _start(self, i: int) -> None:
        proc = self.procs[i]
        await proc.start()
        self.forwarder.add(proc.backend)

    async def kill(self, i: int) -> None:
        """SIGKILL process ``i`` (a crash: the forwarder learns of it by a refused connection,
        then the process is taken out of its list, as an orchestrator would)."""
        await self.procs[i].kill()
        self.forwarder.remove(self.procs[i].backend)

    async def term(self, i: int) -> None:
        """SIGTERM process ``i`` after taking it out of the forwarder's list (a rolling update:
        no new update reaches it); waits until it has shut down."""
        self.forwarder.remove(self.procs[i].backend)
        await self.procs[i].stop()

    async def restart(self, i: int) -> None:
        """Process ``i`` started again (stopped first if it still runs), back in the list."""
        if self.procs[i].running:
            await self.term(i)
        await self._start(i)

    async def stop(self) -> None:
        """Every process shut down (SIGTERM), then the forwarder."""
        for proc in self.procs:
            self.forwarder.remove(proc.backend)
        await asyncio.gather(*(proc.stop() for proc in self.procs))
        await self.forwarder.stop()

    async def __aenter__(self) -> BotCluster:
        try:
            await self.start()
        except BaseException:
            await self.stop()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def rss_kb(self) -> int:
        """Resident memory now of every running process and its workers, summed (Linux)."""
        return sum(p.rss_kb() for p in self.procs if p.running)

    def rss_main_kb(self) -> int:
        """Resident memory now of the running bot processes themselves, summed (Linux)."""
        return sum(p.rss_main_kb() for p in self.procs if p.running)

    def cpu_s(self) -> float:
        """CPU seconds the running bot processes have used so far, summed (Linux)."""
        return sum(p.cpu_s() for p in self.procs if p.running)

    async def heap(self) -> dict[str, int]:
        """Bytes held by owner, every running process's summed (BotProcess.heap)."""
        out: dict[str, int] = {}
        for p in self.procs:
            if p.running:
                for k, v in (await p.heap()).items():
                    out[k] = out.get(k, 0) + v
        return out

    def memory(self) -> list[dict[str, int]]:
        """Each running process's :meth:`BotProcess.memory`."""
        return [p.memory() for p in self.procs if p.running]

    def reported(self) -> list[dict[str, int]]:
        """Each running process's :meth:`BotProcess.reported`."""
        return [p.reported() for p in self.procs if p.running]

    def log_text(self) -> str:
        """Every process's log, one after the other."""
        return "".join(
            p.log.read_text(encoding="utf-8", errors="replace")
            for p in self.procs
            if p.log.exists()
        )

    @property
    def starts(self) -> int:
        return sum(p.starts for p in self.procs)

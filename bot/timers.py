"""The service's named timers: AI seats' steps, turn reminders, the lobby's countdown.

One-shot callbacks on the event loop, kept by name: scheduling a name replaces its earlier
timer, and scheduling or cancelling costs the same whatever the number of tables (PTB's
JobQueue finds a job by name by listing every job, which at a few hundred tables cost more than
the press that asked). A table's timers are :class:`Job` objects — data, run by the part
that registered their kind — so that with several processes (:class:`StoredTimers`) they can
be stored as rows and fired by whichever process claims them. One process does not store
them: a restarted bot derives them again from each table's state (``bot.compose.resume``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from .coord import PgCoord

log = logging.getLogger("gouji.timers")
CLAIM_EVERY_S = 0.25  # how often a process looks for due timers (besides its own, on time)


class TimerKind(StrEnum):
    """What a table's timer does (its runner registered by a part: :meth:`LoopTimers.on`)."""

    STEP = "step"  # an AI seat's move, or a human's turn timed out (bot.moves)
    HOLD = "hold"  # a skipped seat's think-time over (bot.moves, bot.hold)
    REMIND = "remind"  # half the turn gone: the asked player reminded (bot.moves)
    COUNTDOWN = "countdown"  # the lobby's pickup countdown over (bot.lobby)
    READY = "ready"  # 再来一局's ready check over (bot.ready)


@dataclass(frozen=True)
class Job:
    """What a timer does, as data: its kind, the table, and what the runner checks (the
    match's version it was set at, …)."""

    kind: TimerKind
    table_id: int
    version: int = 0  # the match's version when it was set (a change since voids it)
    step: int = 0  # a hold's step
    timeout: bool = False  # a human's turn timer (else an AI seat's move)
    left: float = 0.0  # seconds of the turn left (a reminder)

    def args(self) -> dict[str, Any]:
        """Its arguments as stored (several processes: a timer row)."""
        return {
            "version": self.version,
            "step": self.step,
            "timeout": self.timeout,
            "left": self.left,
        }

    @staticmethod
    def stored(kind: str, table_id: int, args: dict[str, Any]) -> Job:
        """A timer row's job (ValueError: a kind this version does not know)."""
        return Job(
            TimerKind(kind),
            table_id,
            int(args.get("version", 0)),
            int(args.get("step", 0)),
            bool(args.get("timeout", False)),
            float(args.get("left", 0.0)),
        )


Runner = Callable[[Job], Awaitable[None]]
# timers set (name, table, kind, args, due) and cancelled (names), put somewhere
Store = Callable[[list[tuple[str, int, str, dict[str, Any], float]], list[str]], Awaitable[None]]


class Scheduler(Protocol):
    """Named one-shot timers, as the parts use them (:class:`LoopTimers`)."""

    def schedule(
        self,
        name: str,
        delay: float,
        job: Job | Callable[[], Awaitable[None]],
        background: bool = False,
    ) -> None: ...

    def cancel(self, name: str) -> None: ...

    def on(self, kind: TimerKind, runner: Callable[[Job], Awaitable[None]]) -> None: ...

    async def flush(self) -> None:
        """Timers set and cancelled so far are stored (several processes; else nothing)."""


class LoopTimers:
    """Named timers on the running event loop (the service's ``Scheduler``)."""

    def __init__(self) -> None:
        self._handles: dict[str, asyncio.TimerHandle] = {}
        self._running: set[asyncio.Task[None]] = set()
        self._background: set[str] = set()  # names set to run in the background, until they fire
        self._cancellable: set[asyncio.Task[None]] = set()  # running ones a close cancels
        self._closed = False
        self._runners: dict[TimerKind, Runner] = {}

    def on(self, kind: TimerKind, runner: Runner) -> None:
        """Jobs of ``kind`` are run by ``runner``."""
        self._runners[kind] = runner

    def runnable(self, job: Job) -> Callable[[], Awaitable[None]]:
        runner = self._runners[job.kind]
        return lambda: runner(job)

    async def flush(self) -> None:
        """Nothing to store: this process's timers are its own."""

    async def write(self, store: Store) -> None:
        """Nothing to store (:meth:`StoredTimers.write`)."""

    def start(self) -> None:
        """Nothing to claim: the event loop fires this process's timers."""

    def schedule(
        self,
        name: str,
        delay: float,
        job: Job | Callable[[], Awaitable[None]],
        background: bool = False,
    ) -> None:
        """Run ``job`` in ``delay`` seconds, instead of whatever ``name`` was set to run.
        ``background``: a long job that a stop cancels instead of waiting for (a 复盘; it is
        done again after the restart)."""
        self.cancel(name)
        if self._closed:
            return
        if background:
            self._background.add(name)
        loop = asyncio.get_running_loop()
        run = self.runnable(job) if isinstance(job, Job) else job
        self._handles[name] = loop.call_later(max(0.0, delay), self._fire, name, run)

    def cancel(self, name: str) -> None:
        """``name`` will not run (a job already running goes on to its end)."""
        handle = self._handles.pop(name, None)
        if handle is not None:
            handle.cancel()
        self._background.discard(name)  # (no name stays for ever: one a finished game)

    def pending(self) -> list[str]:
        """The names waiting to run."""
        return sorted(self._handles)

    def busy(self, soon: float) -> bool:
        """A job is running, or one is due within ``soon`` seconds."""
        if self._running:
            return True
        if not self._handles:
            return False
        now = asyncio.get_running_loop().time()
        return min(h.when() for h in self._handles.values()) - now <= soon

    async def close(self, timeout: float = 10.0) -> None:
        """No timer runs any more; the jobs already running are given ``timeout`` to end (those
        in the background are cancelled)."""
        self._closed = True
        for handle in self._handles.values():
            handle.cancel()
        self._handles.clear()
        for task in self._cancellable:
            task.cancel()
        if self._running:
            await asyncio.wait(set(self._running), timeout=timeout)

    def _fire(self, name: str, job: Callable[[], Awaitable[None]]) -> None:
        self._handles.pop(name, None)
        task = asyncio.get_running_loop().create_task(self._run(name, job), name=f"timer {name}")
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        if name in self._background:
            self._background.discard(name)
            self._cancellable.add(task)
            task.add_done_callback(self._cancellable.discard)

    @staticmethod
    async def _run(name: str, job: Callable[[], Awaitable[None]]) -> None:
        try:
            await job()
        except Exception:
            log.exception("timer %s failed", name)


class StoredTimers(LoopTimers):
    """Several processes on one database: a table's timers (:class:`Job`) are rows with a due
    time (bot.coord); each process claims the due ones nobody alive holds, one at a time
    (``FOR UPDATE SKIP LOCKED``), runs them and deletes them, so each fires once, and a dead
    process's fire in another. What is set and cancelled while a table is held is stored when
    its tenure ends (:meth:`flush`, before the table's lock is let go: timers change in the
    table's order). A job that is not a :class:`Job` (a 复盘) stays this process's own."""

    def __init__(self, coord: PgCoord) -> None:
        super().__init__()
        self.coord = coord
        self._puts: dict[str, Job] = {}
        self._dues: dict[str, float] = {}
        self._drops: set[str] = set()
        self._poke = asyncio.Event()
        # each stored timer's wake-up (claimed when due): one a timer, let go when the timer is
        # set anew or cancelled — not one for every time a timer was ever set until its old due
        self._wakes: dict[str, asyncio.TimerHandle] = {}
        self._claiming: asyncio.Task[None] | None = None
        self._flusher: asyncio.Task[None] | None = None
        self.fired = 0  # stored timers this process ran

    def schedule(
        self,
        name: str,
        delay: float,
        job: Job | Callable[[], Awaitable[None]],
        background: bool = False,
    ) -> None:
        if not isinstance(job, Job):
            super().schedule(name, delay, job, background)
            return
        super().cancel(name)
        if self._closed:
            return
        self._drops.discard(name)
        self._puts[name] = job
        self._dues[name] = time.time() + max(0.0, delay)
        self._poke.set()  # stored soon, even out of a table's tenure (then claimed when due)

    def cancel(self, name: str) -> None:
        super().cancel(name)
        if self._puts.pop(name, None) is not None:
            self._dues.pop(name, None)
        self._drops.add(name)

    async def flush(self) -> None:
        await self.write(self.coord.put_timers)

    async def write(self, store: Store) -> None:
        """The timers set and cancelled so far, given to ``store`` (put in the database, or in
        a table's save: :meth:`bot.coord.PgCoord.write_timers`); kept for the next try if it
        fails."""
        puts, dues, drops = self._puts, self._dues, self._drops
        if not puts and not drops:
            return
        self._puts, self._dues, self._drops = {}, {}, set()
        rows = [(n, j.table_id, str(j.kind), j.args(), dues[n]) for n, j in puts.items()]
        try:
            await store(rows, sorted(drops))
            for n in drops:
                self._unwake(n)
            loop = asyncio.get_running_loop()
            for n, due in dues.items():  # claimed when due, now that they are stored
                self._unwake(n)
                delay = max(0.0, due - time.time()) + 0.002
                self._wakes[n] = loop.call_later(delay, self._woken, n)
        except BaseException:
            for n, j in puts.items():  # kept for the next flush, unless changed meanwhile
                if n not in self._puts and n not in self._drops:
                    self._puts[n], self._dues[n] = j, dues[n]
            self._drops |= {n for n in drops if n not in self._puts}
            raise

    def _unwake(self, name: str) -> None:
        handle = self._wakes.pop(name, None)
        if handle is not None:
            handle.cancel()

    def _woken(self, name: str) -> None:
        self._wakes.pop(name, None)
        self._poke.set()

    def start(self) -> None:
        self._claiming = asyncio.get_running_loop().create_task(self._claim(), name="timers")

    def pending(self) -> list[str]:
        return sorted({*super().pending(), *self._puts})

    async def _claim(self) -> None:
        while not self._closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poke.wait(), CLAIM_EVERY_S)
            self._poke.clear()
            try:
                await self.flush()
                due = await self.coord.claim_timers()
            except Exception:
                log.exception("timers: the database is away; trying again")
                await asyncio.sleep(CLAIM_EVERY_S)
                continue
            for row in due:
                try:
                    job = Job.stored(row.kind, row.table_id, row.args)
                except ValueError:
                    log.error("timer %s of an unknown kind %s", row.name, row.kind)
                    continue
                if job.kind not in self._runners:
                    log.error("timer %s of a kind nobody runs: %s", row.name, job.kind)
                    continue
                self._fire(row.name, self._stored_run(job, row.name, row.due_at))

    def _stored_run(self, job: Job, name: str, due_at: float) -> Callable[[], Awaitable[None]]:
        run = self.runnable(job)

        async def go() -> None:
            try:
                await run()
            finally:
                self.fired += 1
                try:
                    await self.coord.timer_done(name, due_at)
                except Exception:  # the database is away: it is claimed again when found dead
                    log.exception("timer %s not marked done", name)

        return go

    async def stop_claiming(self) -> None:
        """This process still stores the timers it sets, but fires none: the others do."""
        if self._claiming is not None:
            self._claiming.cancel()
            await asyncio.gather(self._claiming, return_exceptions=True)
            self._claiming = None
        self._flusher = asyncio.get_running_loop().create_task(self._flushing(), name="flush")

    async def _flushing(self) -> None:
        while not self._closed:
            await self._poke.wait()
            self._poke.clear()
            try:
                await self.flush()
            except Exception:
                log.exception("timers: the database is away; trying again")
                await asyncio.sleep(CLAIM_EVERY_S)

    async def close(self, timeout: float = 10.0) -> None:
        self._closed = True
        for handle in self._wakes.values():
            handle.cancel()
        self._wakes.clear()
        if self._flusher is not None:
            self._flusher.cancel()
        if self._claiming is not None:
            self._claiming.cancel()
            await asyncio.gather(self._claiming, return_exceptions=True)
        await super().close(timeout)
        try:
            await self.flush()
        except Exception:
            log.exception("timers set at the stop were not stored")

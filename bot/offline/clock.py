"""Timers on a clock a test moves by hand: turn timers, reminders and countdowns fire when the
test says that much time has passed, not after real seconds. A job due now (an AI move with no
delay) runs at once on the loop, as with real timers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from ..timers import Job, LoopTimers

Run = Callable[[], Awaitable[None]]


class ManualTimers(LoopTimers):
    """:class:`LoopTimers` whose later jobs wait for :meth:`advance`."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0  # seconds on the manual clock
        self._later: dict[str, tuple[float, Run]] = {}

    def schedule(self, name: str, delay: float, job: Job | Run, background: bool = False) -> None:
        self.cancel(name)
        if delay <= 0:
            super().schedule(name, 0.0, job, background)
        elif not self._closed:
            self._later[name] = (
                self.now + delay,
                self.runnable(job) if isinstance(job, Job) else job,
            )

    def cancel(self, name: str) -> None:
        super().cancel(name)
        self._later.pop(name, None)

    def pending(self) -> list[str]:
        return sorted([*super().pending(), *self._later])

    def due_in(self, name: str) -> float | None:
        """Seconds until ``name`` fires on the manual clock (None: not set)."""
        entry = self._later.get(name)
        return None if entry is None else entry[0] - self.now

    async def advance(self, seconds: float) -> None:
        """Move the clock on: every job due by then starts, earliest first (each on the loop,
        as a real timer's would); a job they set that falls due meanwhile starts too."""
        target = self.now + seconds
        while True:
            due = sorted((when, name) for name, (when, _) in self._later.items() if when <= target)
            if not due:
                break
            when, name = due[0]
            self.now = when
            _, job = self._later.pop(name)
            super().schedule(name, 0.0, job)
            while name in super().pending():
                await asyncio.sleep(0)  # started (under its table's lock) before the next one
        self.now = target

    async def close(self, timeout: float = 10.0) -> None:
        self._later.clear()
        await super().close(timeout)

"""The service's named timers: AI seats' steps, turn reminders, the lobby's countdown.

One-shot callbacks on the event loop, kept by name: scheduling a name replaces its earlier
timer, and scheduling or cancelling costs the same whatever the number of tables (PTB's
JobQueue finds a job by name by listing every job, which at a few hundred tables cost more than
the press that asked). Timers are not stored: a restarted bot derives them again from each
table's state (``Service.resume``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("gouji.timers")


class LoopTimers:
    """Named timers on the running event loop (the service's ``Scheduler``)."""

    def __init__(self) -> None:
        self._handles: dict[str, asyncio.TimerHandle] = {}
        self._running: set[asyncio.Task[None]] = set()
        self._background: set[str] = set()  # names whose running jobs a close cancels
        self._closed = False

    def schedule(
        self,
        name: str,
        delay: float,
        job: Callable[[], Awaitable[None]],
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
        self._handles[name] = loop.call_later(max(0.0, delay), self._fire, name, job)

    def cancel(self, name: str) -> None:
        """``name`` will not run (a job already running goes on to its end)."""
        handle = self._handles.pop(name, None)
        if handle is not None:
            handle.cancel()

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
        for task in self._running:
            if task.get_name().removeprefix("timer ") in self._background:
                task.cancel()
        if self._running:
            await asyncio.wait(set(self._running), timeout=timeout)

    def _fire(self, name: str, job: Callable[[], Awaitable[None]]) -> None:
        self._handles.pop(name, None)
        task = asyncio.get_running_loop().create_task(self._run(name, job), name=f"timer {name}")
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    @staticmethod
    async def _run(name: str, job: Callable[[], Awaitable[None]]) -> None:
        try:
            await job()
        except Exception:
            log.exception("timer %s failed", name)

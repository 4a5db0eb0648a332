"""CPU work off the event loop: drawing pictures and the hard AI's search.

Both are pure functions of plain data (a view and names in, PNG bytes out; a match in, a
decision out), so they run in worker processes of their own. A thread would share the
interpreter's lock with the event loop: while it draws a picture (about 9 ms, a third of the
bot's CPU at 50 tables) or searches (a quarter of a second), every table's button presses
compete with it for that lock. ``processes=0`` runs the work in threads instead (tests, where
starting processes for every bot would cost more than it saves).

A worker that dies (killed, out of memory) is replaced and the job it held is run again in a
thread, so nothing waits forever; workers leave on their own when the bot's process is gone,
even after a SIGKILL.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

log = logging.getLogger("gouji.workers")
T = TypeVar("T")


def _worker_start(parent: int) -> None:
    """In each worker: Ctrl-C is the bot's to handle, and the worker leaves once its parent is
    gone (a SIGKILLed bot cannot shut its pool down)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _warm() -> int:
    """Load what drawing needs (fonts, the fixed palette) before the first picture is asked."""
    from renderers.png import _palette

    return len(_palette().getpalette() or [])


class Workers:
    """Runs picklable calls in ``processes`` worker processes (0: in threads)."""

    def __init__(self, processes: int = 0) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        if self.processes > 0 and self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_start,
                initargs=(os.getpid(),),
            )
            for _ in range(self.processes):
                self._pool.submit(_warm)

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        pool = self._pool
        if pool is None:
            return await asyncio.to_thread(fn, *args)
        try:
            return await asyncio.wrap_future(pool.submit(fn, *args))
        except BrokenProcessPool:
            log.warning("a worker process died: starting new ones")
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
                self.start()
            return await asyncio.to_thread(fn, *args)

    def close(self) -> None:
        """No more work; the worker processes stop now, a long job (a 复盘) with them: the
        interpreter's exit would otherwise wait for it."""
        pool, self._pool = self._pool, None
        if pool is not None:
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()

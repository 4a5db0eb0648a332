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
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import TypeVar

from .lanes import Reviews, heavy, lower_priority
from .trim import TRIM_EVERY_S, trim

log = logging.getLogger("gouji.workers")
T = TypeVar("T")


def _worker_start(parent: int) -> None:
    """In each worker: Ctrl-C is the bot's to handle, and the worker leaves once its parent is
    gone (a SIGKILLed bot cannot shut its pool down)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        beats = 0
        while os.getppid() == parent:
            time.sleep(1.0)
            beats += 1
            if beats % TRIM_EVERY_S == 0:  # pictures' buffers given back (bot.trim)
                trim()
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _warm() -> int:
    """Load what drawing needs (fonts, the fixed palette) before the first picture is asked."""
    from renderers.png import _palette

    return len(_palette().getpalette() or [])


def _heavy_start(parent: int) -> None:
    """In each worker of the heavy lane (bot.lanes): as any worker, at the lowest priority."""
    _worker_start(parent)
    lower_priority()


class Workers:
    """Runs picklable calls in ``processes`` worker processes (0: in threads), heavy work
    (:func:`bot.lanes.heavy`: 复盘, replays, stats pictures) in a lane of its own: ``heavy``
    processes at the lowest priority (0: as many as ``processes``), or with ``processes=0``
    threads of their own — never in the game's way."""

    def __init__(self, processes: int = 0, heavy: int = 0) -> None:
        self.processes = processes
        self.heavy = heavy or processes
        self._pool: ProcessPoolExecutor | None = None
        self._heavy: ProcessPoolExecutor | None = None
        self._heavy_threads: ThreadPoolExecutor | None = None
        self.reviews = Reviews()  # the 复盘's turn and allowance

    def start(self) -> None:
        if self.processes > 0 and self._pool is None:
            self._pool = self._new_pool(self.processes, _worker_start)
        if self.processes > 0 and self._heavy is None:
            self._heavy = self._new_pool(self.heavy, _heavy_start)

    @staticmethod
    def _new_pool(n: int, init: Callable[[int], None]) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(
            n,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=init,
            initargs=(os.getpid(),),
        )
        for _ in range(n):
            pool.submit(_warm)
        return pool

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        lane = heavy(fn)
        pool = self._heavy if lane else self._pool
        if pool is None and lane:  # threads: their own, so the game's threads stay free
            if self._heavy_threads is None:
                self._heavy_threads = ThreadPoolExecutor(2, thread_name_prefix="heavy")
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._heavy_threads, partial(fn, *args))
        if pool is None:
            return await asyncio.to_thread(fn, *args)
        try:
            return await asyncio.wrap_future(pool.submit(fn, *args))
        except BrokenProcessPool:
            log.warning("a worker process died: starting new ones")
            if pool in (self._pool, self._heavy):
                if pool is self._pool:
                    self._pool = None
                else:
                    self._heavy = None
                pool.shutdown(wait=False, cancel_futures=True)
                self.start()
            return await asyncio.to_thread(fn, *args)

    def close(self) -> None:
        """No more work; the worker processes stop now, a long job (a 复盘) with them: the
        interpreter's exit would otherwise wait for it."""
        for pool in (self._pool, self._heavy):
            if pool is not None:
                processes = list((getattr(pool, "_processes", None) or {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for process in processes:
                    process.terminate()
        self._pool = self._heavy = None
        if self._heavy_threads is not None:
            self._heavy_threads.shutdown(wait=False, cancel_futures=True)
            self._heavy_threads = None

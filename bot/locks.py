"""A lock for each of many objects (tables, chats): lean, and telling how many wait for it.

asyncio's own lock keeps the deque of its waiters (624 bytes) for good once two tasks met at
it, and has no public count of them; this one keeps the deque only while someone waits, has no
``__dict__``, and :attr:`LeanLock.waiting` says how many tasks wait (the registry lets a table
leave memory only when nobody does: bot.tables)."""

from __future__ import annotations

import asyncio
from collections import deque
from types import TracebackType
from typing import Literal


class LeanLock:
    """:class:`asyncio.Lock`'s behaviour (first come, first served; a cancelled waiter passes
    its turn on), without a deque of waiters while nobody waits."""

    __slots__ = ("_held", "_queue")

    def __init__(self) -> None:
        self._held = False
        self._queue: deque[asyncio.Future[None]] | None = None

    def locked(self) -> bool:
        return self._held

    @property
    def waiting(self) -> int:
        """How many tasks wait for the lock now (besides its holder)."""
        return 0 if self._queue is None else len(self._queue)

    async def acquire(self) -> Literal[True]:
        queue = self._queue
        if not self._held and (queue is None or all(f.cancelled() for f in queue)):
            self._held = True
            return True
        if queue is None:
            queue = self._queue = deque()
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(fut)
        try:
            try:
                await fut
            finally:
                queue.remove(fut)
                if not queue and self._queue is queue:
                    self._queue = None
        except asyncio.CancelledError:
            if not self._held:  # woken and cancelled at once: the next one's turn
                self._wake_first()
            raise
        self._held = True
        return True

    def release(self) -> None:
        if not self._held:
            raise RuntimeError("Lock is not acquired.")
        self._held = False
        self._wake_first()

    def _wake_first(self) -> None:
        if self._queue:
            fut = self._queue[0]
            if not fut.done():
                fut.set_result(None)

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

"""A lock for each of many objects (tables): asyncio's own keeps the deque of its waiters (624
bytes) for good once two tasks met at it; this one lets it go as soon as nobody waits."""

from __future__ import annotations

import asyncio
from typing import Literal


class LeanLock(asyncio.Lock):
    """:class:`asyncio.Lock`, without a deque of waiters while nobody waits."""

    async def acquire(self) -> Literal[True]:
        try:
            return await super().acquire()
        finally:
            if self._waiters is not None and not self._waiters:
                self._waiters = None

"""Memory freed goes back to the system: glibc's ``malloc_trim`` now and then (a burst of
pictures or presses otherwise leaves the process as large as its peak for good). A no-op where
there is no glibc."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from functools import cache

TRIM_EVERY_S = 10.0


@cache
def libc_or_none() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def trim() -> None:
    """Free pages of the heap given back to the system (glibc)."""
    libc = libc_or_none()
    if libc is not None:
        libc.malloc_trim(0)


async def trimming(every: float = TRIM_EVERY_S) -> None:
    """:func:`trim` every ``every`` seconds, for as long as the task runs."""
    while True:
        await asyncio.sleep(every)
        trim()

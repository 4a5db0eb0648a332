"""Memory freed goes back to the system: glibc's ``malloc_trim`` now and then (a burst of
pictures or presses otherwise leaves the process as large as its peak for good). A no-op where
there is no glibc.

When: every :data:`TRIM_EVERY_S` seconds, and at once when the process goes quiet (every
message posted is out, looked at every :data:`QUIET_TICK_S` seconds): what a burst freed is given
back as it ends, not up to ten seconds later, so that a bot at rest is no larger than at its
busiest. A trim hands the free pages inside the heap back (madvise) and shortens its top; at a
hundred tables it takes well under a millisecond, so it runs on the event loop."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache

TRIM_EVERY_S = 10.0
QUIET_TICK_S = 1.0  # how often the process is looked at: at most one trim a tick


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


def _never() -> bool:
    return False


async def trimming(
    quiet: Callable[[], bool] = _never, every: float = TRIM_EVERY_S, tick: float = QUIET_TICK_S
) -> None:
    """:func:`trim` every ``every`` seconds, and as soon as ``quiet()`` turns true (the bot's:
    its sender has nothing left to deliver), for as long as the task runs."""
    loop = asyncio.get_running_loop()
    last, was_quiet = loop.time(), True
    while True:
        await asyncio.sleep(tick)
        now, is_quiet = loop.time(), quiet()
        if (is_quiet and not was_quiet) or now - last >= every:
            trim()
            last = now
        was_quiet = is_quiet

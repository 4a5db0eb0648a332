"""A table's tenure: what the parts post while a process holds a table waits for the tenure's
end (several processes: then the table is stored with its messages, bot.deployment.Shared)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from .outbox import Out

# the messages posted during a table's tenure (several processes: sent once it is stored)
_TENURE: ContextVar[list[Out] | None] = ContextVar("tenure", default=None)


class Poster(Protocol):
    """Where messages go (the sender's queues; a list in unit tests)."""

    def post(self, out: Out) -> None: ...


@contextmanager
def tenure() -> Iterator[list[Out]]:
    """Until the block ends, what :class:`TenurePoster` is given is kept in the list."""
    posted: list[Out] = []
    token = _TENURE.set(posted)
    try:
        yield posted
    finally:
        _TENURE.reset(token)


class TenurePoster:
    """The parts' sender. What a part posts while it holds a table in a tenure waits for the
    tenure's end (then each message is stamped with the table's rev: an older edit never
    overwrites a newer one); out of a tenure it goes to ``sender`` at once."""

    def __init__(self, sender: Poster) -> None:
        self.sender = sender

    def post(self, out: Out) -> None:
        held = _TENURE.get()
        if held is not None:
            held.append(out)
        else:
            self.sender.post(out)

"""An AI move computed outside its table's lock (issue 33): the hard AI searches for a
quarter of a second or more in a worker, and a table waiting on the pool while holding its
lock held up every press at that table — and, with the pool busy, every other table's.

:func:`snapshot` takes the match as it stands (under the lock: bytes for the worker, never the
live object a later press changes), :func:`decide_snapshot` decides in the worker, and
:func:`signature` says whether the table is still where it was asked: the move is applied
only if it is (otherwise decided again).
"""

from __future__ import annotations

import pickle
import random

from engine.ai import Decision, decide
from engine.match import Match

from .model import AiLevel
from .table import Table


def snapshot(match: Match) -> bytes:
    """The match as it stands, for a worker (in memory only: never stored)."""
    return pickle.dumps(match, pickle.HIGHEST_PROTOCOL)


def decide_snapshot(
    data: bytes, seat: int, level: AiLevel, rng: random.Random, budget_ms: float | None
) -> Decision:
    """In a worker: the AI's decision on a snapshot this process took (bot.aimove.snapshot)."""
    match = pickle.loads(data)  # bytes from this process's own memory, never from storage
    assert isinstance(match, Match)
    if budget_ms is None:
        return decide(match, seat, level, rng)
    return decide(match, seat, level, rng, budget_ms)


def signature(table: Table) -> tuple[object, ...]:
    """What an AI move depends on: the match's version, who is asked, the seat's level and
    whether the AI plays it (a person taking the seat over changes no version)."""
    m = table.match
    ask = m.asked() if m is not None else None
    seat = ask[0] if ask is not None else None
    s = table.st.seats[seat] if seat is not None else None
    who = (s.level, s.ai_plays, s.user) if s is not None else None
    return (m.version if m is not None else None, ask, who, table.status)

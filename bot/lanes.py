"""Heavy work in its own lane (issue 33): a 复盘, a replay's animation and frames, the /stats
and /top pictures never delay a hand, a table picture or an AI move.

:class:`bot.workers.Workers` sends each call to one of two lanes by what it runs
(:func:`heavy`): the game's lane (table and hand pictures, the hard AI), and the heavy lane —
worker processes of their own at the lowest CPU priority (``nice`` 19: the game's processes
always go first when both want the CPU), or with ``processes=0`` threads of their own.

The 复盘 go one at a time (:class:`Reviews`), each within a chat's daily allowance
(:data:`REVIEWS_PER_DAY`); a game in which no person decided anything (five AI seats and a
player in 托管 throughout) gets a tenth of the budget, a game without people none; after a
restart the backlog goes through the same one-at-a-time turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from functools import partial

REVIEWS_PER_DAY = 24  # 复盘 a chat gets in a day (more games are not reviewed)
QUIET_SHARE = 0.1  # the budget's share for a game without a person's decision
HEAVY_NICE = 19  # the heavy lane's processes: the lowest CPU priority
DAY_S = 86400.0

# the calls that run in the heavy lane, by module and name (the lane is chosen by what runs)
HEAVY: frozenset[tuple[str, str]] = frozenset(
    {
        ("bot.game_end", "review_message"),
        ("renderers.replay", "replay_frame"),
        ("renderers.replay", "replay_step"),
        ("renderers.replay", "animation_caption"),
        ("renderers.replay", "render_replay_animation"),
        ("renderers.stats_image", "render_stats"),
        ("renderers.stats_image", "render_top"),
    }
)


def heavy(fn: Callable[..., object]) -> bool:
    """Whether a call is heavy work (its lane: the heavy one)."""
    while isinstance(fn, partial):
        fn = fn.func
    key = (getattr(fn, "__module__", ""), getattr(fn, "__name__", ""))
    return key in HEAVY


def lower_priority() -> None:
    """In a heavy lane's worker process: the lowest CPU priority."""
    with contextlib.suppress(OSError):  # not allowed here: the lane is still separate
        os.nice(HEAVY_NICE)


def review_budget(budget_s: float, people: bool, decided: bool) -> float | None:
    """A game's 复盘 budget: none for a game without people, a tenth when no person decided
    anything (托管 throughout), else the whole."""
    if not people:
        return None
    return budget_s if decided else budget_s * QUIET_SHARE


class Reviews:
    """The 复盘's turn: one at a time, each chat within its daily allowance (``done_today``
    counts those stored in the last day: across restarts too)."""

    def __init__(self, per_day: int = REVIEWS_PER_DAY) -> None:
        self.per_day = per_day
        self._turn = asyncio.Semaphore(1)
        self.running = 0
        self.waiting = 0
        self.refused = 0

    @property
    def turn(self) -> asyncio.Semaphore:
        return self._turn

    def allowed(self, done_today: int) -> bool:
        ok = done_today < self.per_day
        if not ok:
            self.refused += 1
        return ok

    @staticmethod
    def since() -> float:
        return time.time() - DAY_S

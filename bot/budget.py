"""Flood budgets: how many presses and commands one user, and one chat, may send in a while.

A token bucket per key: ``burst`` at once, then ``per_s`` a second. The router spends one token
of the presser's and one of the chat's for every press or command; an exhausted budget is
answered with a toast (a press) or not at all (a command), never with a message, so a flood
costs the group nothing. Buckets idle long enough to be full are forgotten.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rate:
    per_s: float  # tokens added a second
    burst: int  # tokens at most (what a full bucket allows at once)


USER = Rate(per_s=3.0, burst=10)  # one person's presses and commands, quick taps included
CHAT = Rate(per_s=5.0, burst=30)  # a whole chat's (six players building plays at once)
ROBOTS = Rate(
    per_s=1000.0, burst=1000
)  # simulated players (the demo, tests): no budget to speak of
FORGET = 600.0  # seconds after which an untouched bucket is dropped (it is full anyway)


class Budget:
    """Token buckets by key."""

    def __init__(self, rate: Rate, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.clock = clock
        self._buckets: dict[int, tuple[float, float]] = {}  # key → (tokens, when)
        self._swept = clock()

    def spend(self, key: int) -> bool:
        """One token of ``key``'s budget, if it has one."""
        now = self.clock()
        tokens, when = self._buckets.get(key, (float(self.rate.burst), now))
        tokens = min(float(self.rate.burst), tokens + (now - when) * self.rate.per_s)
        ok = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if ok else tokens, now)
        if now - self._swept > FORGET:
            self._sweep(now)
        return ok

    def _sweep(self, now: float) -> None:
        self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < FORGET}
        self._swept = now


def junk_rate(user: Rate) -> Rate:
    """How many of one person's junk presses are answered: a sixth of their budget's pace,
    half its burst (three at least) — a real player's stale taps are told so, a flooder's
    mostly are not (Telegram stops the spinner by itself)."""
    return Rate(per_s=user.per_s / 6, burst=max(3, user.burst // 2))


class Budgets:
    """A user's and a chat's budgets together: both are spent, or neither counts."""

    def __init__(
        self, user: Rate = USER, chat: Rate = CHAT, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.user = Budget(user, clock)
        self.chat = Budget(chat, clock)
        self.junk_answers = Budget(junk_rate(user), clock)  # answers to junk presses

    def spend(self, user_id: int, chat_id: int | None) -> bool:
        if not self.user.spend(user_id):
            return False
        return chat_id is None or chat_id == user_id or self.chat.spend(chat_id)

    def junk(self, user_id: int) -> bool:
        """A press of junk (data that does not decode, or that its message does not carry):
        charged to its presser alone, never to the chat — three members pressing junk never
        slow a real player's tap. False: the presser is over their budget, or over the junk
        presses of theirs that are answered (:func:`junk_rate`): no answer."""
        return self.user.spend(user_id) and self.junk_answers.spend(user_id)

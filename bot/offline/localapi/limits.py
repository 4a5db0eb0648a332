"""Telegram's flood control as the local server enforces it (:meth:`RateLimits.telegram`:
Telegram's budgets; :meth:`RateLimits.off`: none)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, replace

# Methods that cost a message in the chat's budget: sends, and (as Telegram counts them) edits
# and deletes. answerCallbackQuery and chat actions are never limited.
LIMITED = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "editMessageText",
        "editMessageCaption",
        "editMessageMedia",
        "editMessageReplyMarkup",
        "deleteMessage",
        "deleteMessages",
    }
)


@dataclass(frozen=True)
class RateLimits:
    """Telegram's limits: ~1 message/s per chat with a short burst, ~20/min per group, ~30/s
    overall. ``None`` switches one off. A refused call is told to wait ``retry_after`` (fixed)
    or the time until the budget allows it, at least ``min_retry_after`` s; as with Telegram,
    the chat stays refused until that wait is over (a call before it gets a 429 again)."""

    per_chat_per_s: float | None = None
    per_chat_burst: int = 3
    per_group_per_min: int | None = None
    global_per_s: float | None = None
    retry_after: int | None = None
    min_retry_after: int = 1
    scale: float = 1.0  # the budgets' clock runs this many times as fast as the real one

    @staticmethod
    def telegram() -> RateLimits:
        """As Telegram: a private chat ~1 a second (waits of a few seconds when flooded), a
        group 20 a minute (waits of up to a minute), 30 a second over all chats."""
        return RateLimits(
            per_chat_per_s=1.0,
            per_chat_burst=3,
            per_group_per_min=20,
            global_per_s=30.0,
            min_retry_after=3,
        )

    @staticmethod
    def off() -> RateLimits:
        """No limit at all (a test of something else that floods on purpose)."""
        return RateLimits()

    @property
    def enabled(self) -> bool:
        return any(
            x is not None for x in (self.per_chat_per_s, self.per_group_per_min, self.global_per_s)
        )

    def faster(self, factor: float) -> RateLimits:
        """The same budgets on a clock ``factor`` times as fast, for a test that floods on
        purpose and can't wait Telegram's tens of seconds: ``factor`` times the rates, windows
        and waits a ``factor``-th as long (``retry_after`` still whole seconds, at least 1)."""
        return replace(self, scale=self.scale * factor)


class Limiter:
    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits
        self._tokens: dict[int, tuple[float, float]] = {}  # chat → (tokens, at)
        self._group: dict[int, deque[float]] = {}
        self._global: deque[float] = deque()
        self._refused_until: dict[int, float] = {}  # chat → end of the wait it was told

    def wait(self, chat_id: int, at: float) -> float:
        """Seconds until a message to ``chat_id`` is allowed (0: allowed now)."""
        lim, now = self.limits, at * self.limits.scale
        waits = [self._refused_until.get(chat_id, 0.0) - now]
        if lim.per_chat_per_s:
            tokens = self._chat_tokens(chat_id, now)
            if tokens < 1:
                waits.append((1 - tokens) / lim.per_chat_per_s)
        if lim.per_group_per_min and chat_id < 0:
            window = self._window(self._group.setdefault(chat_id, deque()), now, 60.0)
            if len(window) >= lim.per_group_per_min:
                waits.append(60.0 - (now - window[0]))
        if lim.global_per_s:
            window = self._window(self._global, now, 1.0)
            if len(window) >= math.ceil(lim.global_per_s):
                waits.append(1.0 - (now - window[0]))
        return max(0.0, *waits) / lim.scale

    def refuse(self, chat_id: int, wait: float, at: float) -> int:
        """The ``retry_after`` a refused call is told (``wait``: :meth:`wait`'s answer); the
        chat is refused until it is over."""
        lim = self.limits
        if lim.retry_after is not None:
            after = lim.retry_after
        else:
            after = max(1, math.ceil(max(wait, lim.min_retry_after / lim.scale) - 1e-9))
        until = (at + after) * lim.scale
        self._refused_until[chat_id] = max(self._refused_until.get(chat_id, 0.0), until)
        return after

    def spend(self, chat_id: int, at: float) -> None:
        now = at * self.limits.scale
        if self.limits.per_chat_per_s:
            self._tokens[chat_id] = (self._chat_tokens(chat_id, now) - 1, now)
        if self.limits.per_group_per_min and chat_id < 0:
            self._group.setdefault(chat_id, deque()).append(now)
        if self.limits.global_per_s:
            self._global.append(now)

    def _chat_tokens(self, chat_id: int, now: float) -> float:
        rate, burst = self.limits.per_chat_per_s or 0.0, float(self.limits.per_chat_burst)
        tokens, at = self._tokens.get(chat_id, (burst, now))
        return min(burst, tokens + (now - at) * rate)

    @staticmethod
    def _window(times: deque[float], now: float, span: float) -> deque[float]:
        while times and now - times[0] >= span:
            times.popleft()
        return times

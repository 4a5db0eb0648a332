"""Telegram's flood control as the local server enforces it (off unless a test asks)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

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
    }
)


@dataclass(frozen=True)
class RateLimits:
    """Telegram's limits: ~1 message/s per chat with a short burst, ~20/min per group,
    ~30/s overall. ``None`` switches one off; ``retry_after`` fixes the advertised wait."""

    per_chat_per_s: float | None = None
    per_chat_burst: int = 3
    per_group_per_min: int | None = None
    global_per_s: float | None = None
    retry_after: int | None = None

    @staticmethod
    def telegram() -> RateLimits:
        return RateLimits(per_chat_per_s=1.0, per_group_per_min=20, global_per_s=30.0)


class Limiter:
    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits
        self._tokens: dict[int, tuple[float, float]] = {}  # chat → (tokens, at)
        self._group: dict[int, deque[float]] = {}
        self._global: deque[float] = deque()

    def wait(self, chat_id: int, now: float) -> float:
        """Seconds until a message to ``chat_id`` is allowed (0: allowed now)."""
        lim, waits = self.limits, [0.0]
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
        return max(waits)

    def retry_after(self, wait: float) -> int:
        return self.limits.retry_after or max(1, math.ceil(wait))

    def spend(self, chat_id: int, now: float) -> None:
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

"""One Bot API call, retried as Telegram asks: flood waits (429) waited out, network errors and
timeouts tried again, a chat that refuses the bot reported, a group that became a supergroup
noted for the sender (its messages follow the chat: bot.sender)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from telegram import Message
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    RetryAfter,
    TelegramError,
    TimedOut,
)

log = logging.getLogger("gouji.sender")
MAX_TRIES = 5  # failures (network errors, timeouts, server errors) before a call is given up
# flood waits (429) are Telegram's "not yet", not failures: waited out, this long in all at most
MAX_FLOOD_WAIT_S = 600.0


class Calls:
    """Bot API calls with retries; counts them (``calls``) and those given up (``errors``). A
    chat answering 403 goes to ``on_refused``; a chat that moved is kept in ``moved``. A call
    tried again takes a turn of its own in the budget of calls first (``pace``: the call's
    first turn was the sender's; a retry outside the budget would overrun it, and a 429 from
    Telegram's overall limit hits another chat's call); every call is spent in its chat's
    turn just before it goes out (``spend``: several processes, bot.pacing.SharedPace)."""

    def __init__(
        self,
        on_refused: Callable[[int], Awaitable[None]],
        pace: Callable[[int], Awaitable[None]] | None = None,
        window: Callable[[], Awaitable[None]] | None = None,
        spend: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self.on_refused = on_refused
        self.pace = pace
        self.spend = spend
        self.window = window  # just before each call goes out (bot.pacing.Window)
        self.moved: dict[int, int] = {}  # chat → the id it moved to (met by a call)
        self.calls = 0
        self.errors = 0

    async def call(
        self, chat_id: int, make: Callable[[], Awaitable[object]], once: bool = False
    ) -> Message | bool:
        """One Bot API call with retries: flood waits (429) waited out, network errors retried;
        a chat that refuses (403: a player blocked the bot, or it left a group) is reported
        (False); BadRequest goes to the caller. The sent message, or True for an edit that went
        through. ``once``: a call that makes a new message is not repeated after a timeout
        (it may have arrived: a second try would post it twice)."""
        attempt, waited = 0, 0.0
        while attempt < MAX_TRIES:
            if (attempt or waited) and self.pace is not None:
                await self.pace(chat_id)
            if self.spend is not None:
                await self.spend(chat_id)
            if self.window is not None:
                await self.window()
            try:
                self.calls += 1
                result = await make()
                return result if isinstance(result, Message) else True
            except RetryAfter as e:
                wait = e.retry_after
                seconds = wait.total_seconds() if hasattr(wait, "total_seconds") else float(wait)
                log.warning("flood wait of %.0f s in chat %d", seconds, chat_id)
                if waited + seconds > MAX_FLOOD_WAIT_S:
                    break
                waited += seconds
                await asyncio.sleep(seconds)  # not a failed try: the call goes once allowed
                continue
            except Forbidden:
                if chat_id < 0:
                    log.warning("chat %d refuses the bot's messages", chat_id)
                await self.on_refused(chat_id)  # a private chat blocked, or the bot out of a group
                return False
            except ChatMigrated as e:
                log.warning("chat %d moved to %d", chat_id, e.new_chat_id)
                self.moved[chat_id] = e.new_chat_id  # the chat's messages follow it (sender)
                return False
            except BadRequest:
                raise
            except TimedOut:
                if once:  # sent or not, nobody can tell: better lost than twice
                    self.errors += 1
                    log.warning("a new message to chat %d timed out: not sent again", chat_id)
                    return False
                log.warning("call to chat %d timed out, retrying", chat_id)
            except TelegramError as e:
                # network errors, a server answering 5xx or garbage: try again
                log.warning("call to chat %d failed (%s), retrying", chat_id, type(e).__name__)
            attempt += 1
            await asyncio.sleep(0.5 * attempt)
        self.errors += 1
        log.error("gave up on a call to chat %d after %d tries", chat_id, attempt)
        return False

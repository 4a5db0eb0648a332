"""What the bot is doing right now: updates being handled, messages waiting to be sent, timers
running or about to fire. ``busy()`` is the explicit signal that the bot is idle (tests, the
demo and simulated players wait for it instead of for a stretch of silence)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import SimpleUpdateProcessor

CONCURRENT_UPDATES = 256  # updates handled at once (PTB's default for concurrent_updates=True)


class TrackedUpdates(SimpleUpdateProcessor):
    """PTB's concurrent update processing, counting the updates in hand."""

    def __init__(self) -> None:
        super().__init__(CONCURRENT_UPDATES)
        self.in_hand = 0  # updates whose handlers have not finished
        self.newest = 0  # the newest update_id taken in hand

    def passed(self, update_id: int) -> None:
        """An update answered before PTB read it (bot.intake): handled all the same."""
        self.newest = max(self.newest, update_id)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        self.in_hand += 1
        if isinstance(update, Update):
            self.newest = max(self.newest, update.update_id)
        try:
            await coroutine
        finally:
            self.in_hand -= 1

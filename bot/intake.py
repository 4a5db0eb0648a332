"""Updates looked at as they arrive, before python-telegram-bot reads them (issue 33: a flood
is cheap on the event loop).

A press of junk — data the bot never made, or data the pressed message does not carry (a
forged button, or one its message no longer shows) — is answered here from the update's raw
JSON: no Telegram objects built, no handler looked up, no storage read, no table touched. It
is charged to its presser alone (:meth:`bot.budget.Budgets.junk`); a presser within their
budget gets the toast the router would give ("不是这个桌的按钮" / "已过时"), one over it no
answer at all (Telegram stops the spinner by itself after a few seconds) — junk never costs a
call beyond its presser's budget. Everything else goes on to PTB and the router as before, in
its order; the router makes the same checks again for presses that reach it another way.

Polling: :class:`bot.request.AiohttpRequest`'s ``intake`` sees each getUpdates answer (an
update looked at here is never read twice). Webhook: :mod:`bot.webhook` asks
:meth:`Intake.take` before the update is claimed in storage.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from renderers import t

from .budget import Budgets
from .buttons import BadCallback, Callback

log = logging.getLogger("gouji.intake")
LOG_EVERY = 1000  # junk presses between two log lines (never a line each: a flood's log)

Answer = Callable[[str, str], Coroutine[Any, Any, None]]  # (callback query id, text)


def junk_key(update: dict[str, Any]) -> str | None:
    """The toast's catalog key when ``update`` is a press of junk: ``bot.bad_button`` for data
    that does not decode, ``bot.stale`` for data its message does not carry (or a message the
    bot can no longer see: too old, deleted, inline); None for anything else."""
    query = update.get("callback_query")
    if not isinstance(query, dict):
        return None
    data = query.get("data")
    try:
        Callback.decode(data)
    except BadCallback:
        return "bot.bad_button"
    message = query.get("message")
    if not isinstance(message, dict) or not message.get("date"):  # inaccessible: date 0
        return "bot.stale"
    markup = message.get("reply_markup")
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    if isinstance(rows, list):
        for row in rows:
            if isinstance(row, list):
                for button in row:
                    if isinstance(button, dict) and button.get("callback_data") == data:
                        return None
    return "bot.stale"


def _lang(user: dict[str, Any]) -> str:
    code = user.get("language_code")
    return "en" if isinstance(code, str) and code.lower().startswith("en") else "zh"


class Intake:
    """Junk presses answered from the raw update; the rest handed on."""

    def __init__(self, budgets: Budgets, answer: Answer | None = None) -> None:
        self.budgets = budgets
        self.answer = answer  # None: not yet wired (bot.app sets it)
        self.junk = 0  # junk presses taken here
        self.unanswered = 0  # of them, over their presser's budget: no answer
        self._calls: set[asyncio.Task[None]] = set()

    def take(self, update: dict[str, Any]) -> bool:
        """Whether ``update`` was a press of junk, answered (or not) here: then nothing else
        reads it."""
        key = junk_key(update)
        if key is None:
            return False
        query = update["callback_query"]
        user = query.get("from")
        user = user if isinstance(user, dict) else {}
        user_id, query_id = user.get("id"), query.get("id")
        if not isinstance(user_id, int) or not isinstance(query_id, str):
            return False  # not an update Telegram sends: PTB refuses it as it always did
        self.junk += 1
        if self.junk % LOG_EVERY == 1:
            log.info(
                "%d junk press(es) answered at intake, %d over budget", self.junk, self.unanswered
            )
        if not self.budgets.junk(user_id):  # over the presser's own budget: no call at all
            self.unanswered += 1
            return True
        if self.answer is not None:
            call = asyncio.get_running_loop().create_task(
                self.answer(query_id, t(_lang(user), key))
            )
            self._calls.add(call)
            call.add_done_callback(self._calls.discard)
        return True

    def idle(self) -> bool:
        """No junk press's answer under way."""
        return not self._calls

    def batch(self, updates: list[Any]) -> list[Any]:
        """A getUpdates answer's updates without the junk; the newest update stays (as an
        empty update when it was junk) so that the next getUpdates confirms them all."""
        last = updates[-1] if updates else None
        kept = [u for u in updates if not (isinstance(u, dict) and self.take(u))]
        if isinstance(last, dict) and (not kept or kept[-1] is not last):
            kept.append({"update_id": last.get("update_id")})
        return kept

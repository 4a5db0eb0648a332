"""Updates looked at as they arrive, before python-telegram-bot reads them (issue 33: a flood
is cheap on the event loop).

A press of junk — data the bot never made, or data the pressed message does not carry (a
forged button, or one its message no longer shows) — is answered here from the update's raw
JSON: no Telegram objects built, no handler looked up, no storage read, no table touched. It
is charged to its presser alone (:meth:`bot.budget.Budgets.junk`); a presser within their
budget and their allowance of answered junk (:func:`bot.budget.junk_rate`: a real player's
stale taps) gets the toast the router would give ("这个按钮不认识" / "已过时"), one beyond
them no answer at all (Telegram stops the spinner by itself after a few seconds) — a flood of
junk costs few calls. Everything else goes on to PTB and the router as before, in
its order; the router makes the same checks again for presses that reach it another way.

A story command that would only take the place of the same answer already waiting in the
group's queue (``/replay``, ``/record``, ``/history``, ``/match``, ``/top``: their answer is
the group's, whoever asks) is dropped here, its budgets charged as the router charges them:
a group's flood of them costs a look at the raw JSON each (:class:`bot.storyqueue.StoryQueue`
coalesces the rest).

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
from renderers.i18n import DEFAULT_LANG

from .budget import Budgets
from .buttons import BadCallback, Callback
from .chats import lang_of_code
from .pins import Pins
from .storyqueue import StoryQueue, story_key

log = logging.getLogger("gouji.intake")
LOG_EVERY = 1000  # junk presses between two log lines (never a line each: a flood's log)

Answer = Callable[[str, str], Coroutine[Any, Any, None]]  # (callback query id, text)
# story commands whose answer is the group's whatever the asker (bot.story): a repeat while
# one waits changes nothing
GROUP_ANSWERS = frozenset({"replay", "record", "history", "match", "top"})


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
    return lang_of_code(user.get("language_code")) or DEFAULT_LANG


class Intake:
    """Junk presses answered from the raw update; the rest handed on."""

    def __init__(
        self,
        budgets: Budgets,
        answer: Answer | None = None,
        *,
        stories: StoryQueue | None = None,
        pins: Pins | None = None,
        username: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.budgets = budgets
        self.answer = answer  # None: not yet wired (bot.app sets it)
        self.stories = stories  # the groups' story queues (repeated commands dropped)
        self.pins = pins
        self.username = username  # the bot's (a command may name it: /replay@gouji_bot)
        self.junk = 0  # junk presses taken here
        self.unanswered = 0  # of them, over their presser's budget: no answer
        self.repeats = 0  # story commands dropped: the same answer waited already
        self._calls: set[asyncio.Task[None]] = set()

    def take(self, update: dict[str, Any]) -> bool:
        """Whether ``update`` was a press of junk, answered (or not) here, or a story command
        that changes nothing (:meth:`repeat`): then nothing else reads it."""
        return self.junk_press(update) or self.repeat(update)

    def junk_press(self, update: dict[str, Any]) -> bool:
        """Whether ``update`` was a press of junk, answered (or not) here. Answering it twice
        (the same update delivered again) changes nothing: Telegram refuses the second."""
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

    def repeat(self, update: dict[str, Any]) -> bool:
        """Whether ``update`` is a group's story command whose answer already waits in its
        queue: then charged to the sender's and the group's budgets (bot.router.Router.allow),
        and dropped."""
        if self.stories is None:
            return False
        name, chat_id, user_id, thread = _group_command(update, self.username)
        if name not in GROUP_ANSWERS or chat_id is None or user_id is None:
            return False
        if not self.stories.waits(chat_id, story_key(name, thread)):
            return False
        self.budgets.spend(user_id, chat_id)
        if self.pins is not None:
            self.pins.seen(chat_id)
        self.repeats += 1
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


def _group_command(
    update: dict[str, Any], username: Callable[[], str | None]
) -> tuple[str | None, int | None, int | None, int | None]:
    """A command message in a group, by a person: its name (lower case), chat, sender and
    topic; Nones for anything else (a channel's or an anonymous admin's, a private chat's, a
    command naming another bot), which PTB and the router read as always."""
    nothing = None, None, None, None
    message = update.get("message")
    if not isinstance(message, dict) or "sender_chat" in message:
        return nothing
    chat, user, text = message.get("chat"), message.get("from"), message.get("text")
    entities = message.get("entities")
    if not (isinstance(chat, dict) and isinstance(user, dict) and isinstance(text, str)):
        return nothing
    if chat.get("type") not in ("group", "supergroup") or not isinstance(entities, list):
        return nothing
    first = entities[0] if entities else None
    if not isinstance(first, dict) or first.get("type") != "bot_command" or first.get("offset"):
        return nothing
    length = first.get("length")
    if not isinstance(length, int) or not text.startswith("/"):
        return nothing
    name, _, bot = text[1:length].partition("@")
    if bot and bot.lower() != (username() or "").lower():
        return nothing
    chat_id, user_id = chat.get("id"), user.get("id")
    thread = message.get("message_thread_id") if message.get("is_topic_message") else None
    if not isinstance(chat_id, int) or not isinstance(user_id, int):
        return nothing
    return name.lower(), chat_id, user_id, thread if isinstance(thread, int) else None

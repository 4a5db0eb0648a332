"""A press answered at once, whatever its handler waits for.

Telegram shows a spinner on a pressed button until the bot answers the press
(answerCallbackQuery), and gives up after a few seconds. The handler's answer (a toast, an
alert, a link) is given when the handler is done — usually within milliseconds. When it is
not done within :data:`ANSWER_WITHIN_S` of the press's arrival (the table is held by another
task or another process, the database is slow), the press is answered then, with no text: the
spinner stops, and what the press did shows by the messages it changes (its handler goes on,
and the table's messages are put in place as always). The handler's own answer, when it comes,
is then left out: a press is answered once.

An answer is a call of its own, straight to the Bot API: never in the sender's queues nor in
the budget of calls over all chats (Telegram does not count answers against its limits).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import CallbackQuery

from .outbox import Answer

log = logging.getLogger("gouji.answers")
ANSWER_WITHIN_S = 0.1  # a press its handler has not answered this soon is answered at once
# a press's answering, begun as soon as its update reached the bot: the webhook begins it
# before anything else is done with the update (its claim in storage: bot.seen), so that the
# time spent there counts as well; the handler (bot.app.on_button) gives its answer to it
ANSWERING: contextvars.ContextVar[Answering | None] = contextvars.ContextVar(
    "answering", default=None
)
_CALLS: set[asyncio.Task[None]] = set()  # answers made at once, under way


# a press's answer as a plain call (callback query id, the answer), without PTB's objects
Call = Callable[[str, Answer], Coroutine[Any, Any, None]]


def by_query(query: CallbackQuery, within: float | None, call: Call | None = None) -> Answering:
    """The answering of the press ``query``: its answer straight to the Bot API — by ``call``
    (a plain call: bot.app) when given, else through PTB."""

    async def send(answer: Answer) -> None:
        try:
            if call is not None:
                await call(query.id, answer)
            else:
                text = answer.text[:200] or None
                await query.answer(text, show_alert=answer.alert, url=answer.url)
        except Exception as e:  # a late or repeated answer: the press was handled all the same
            log.info("callback answer failed: %s", type(e).__name__)

    return Answering(send, within)


class Answering:
    """One press's answer: the handler's (:meth:`now` as soon as the handler is done, or
    :meth:`give`), or an empty one at once when the handler is not done ``within`` seconds of
    now (None: never — the handler's, however late). ``send`` makes the call. Never answered
    twice."""

    def __init__(
        self, send: Callable[[Answer], Coroutine[Any, Any, None]], within: float | None
    ) -> None:
        self._send = send
        self.answered = False
        self.early = False  # answered at once, before the handler was done
        self._given: Answer | None = None  # the handler's answer, sent
        self._call: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        if within is not None:
            self._timer = asyncio.get_running_loop().call_later(within, self._at_once)

    def cancel(self) -> None:
        """Not answered here (the update is handled elsewhere, or was already), unless the
        answer went out already."""
        if self._timer is not None:
            self._timer.cancel()
        self.answered = True

    def _start(self, answer: Answer) -> None:
        call = asyncio.get_running_loop().create_task(self._send(answer))
        self._call = call
        _CALLS.add(call)  # kept until done, even if the handler fails meanwhile
        call.add_done_callback(_CALLS.discard)

    def _at_once(self) -> None:
        if not self.answered:
            self.answered = self.early = True
            self._start(Answer())

    def _take(self, answer: Answer) -> bool:
        """Whether ``answer`` is the one to send (the press not answered yet)."""
        if self._timer is not None:
            self._timer.cancel()
        if self.answered:
            if answer.url is not None or answer.alert:
                log.info("a press answered at once: its handler's link or alert left out")
            return False
        self.answered = True
        self._given = answer
        return True

    def now(self, answer: Answer) -> None:
        """The handler's answer, sent now without waiting for the call: while the table is
        still held, its change being stored (bot.router)."""
        if self._take(answer):
            self._start(answer)

    async def give(self, answer: Answer) -> bool:
        """The handler's answer, unless the press was answered already (False: then it is left
        out; a link or an alert is logged, as it was not shown); returns once the answer's
        call is done."""
        if self._given is answer or not self._take(answer):
            if self._call is not None:
                await self._call  # the call made before the handler ends with it
            return self._given is answer
        await self._send(answer)
        return True

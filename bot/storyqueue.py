"""Every chat's queue of story answers bounded (issue 33): ``/replay``, ``/record``,
``/stats``, ``/top``, ``/history``, ``/match``, ``/settings``, ``/rules``, ``/help`` and the
story's buttons are answered one at a time per chat, in the background (never awaited by
the update that asked, never under a table's lock), each after the last one's messages went
out, and after the game's messages (:data:`LATER`: the sender puts them behind).

A chat's queue holds at most :data:`BOUND` of :data:`COSTS` (a ``/replay`` weighs what its
animation costs, a ``/help`` little); a second ``/record`` while one waits replaces it; past
the bound nothing is queued — a command is dropped without a word, a button's presser gets a
toast (``lanes.later``: "⏳ 稍后再试").
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

log = logging.getLogger("gouji.storyqueue")

COSTS: dict[str, int] = {
    "replay": 6,
    "stats": 3,
    "top": 3,
    "record": 3,
    "history": 2,
    "match": 2,
    "settings": 1,
    "rules": 1,
    "help": 1,
}
BOUND = 12  # a chat's queue, running answer included (two /replays, or a /replay and two /stats)
DELIVERY_WAIT_S = 120.0  # at most this long for an answer's messages before the next answer
# how often a chat's queue looks whether its answer's messages went out (a group's messages go
# one per 3 s: a quarter second more is nothing, and a flooded group's queue wakes seldom)
DELIVERY_POLL_S = 0.25


# set while a story answer runs: what it posts goes after the game's messages (bot.sender)
def story_key(name: str, thread: int | None, about: object = "") -> str:
    """The key of a group's story answer in its queue (:meth:`StoryQueue.submit`): a second
    one with the same key while it waits replaces it (``about``: the message it is about)."""
    return f"{name}:{thread}:{about}"


LATER: contextvars.ContextVar[bool] = contextvars.ContextVar("story_later", default=False)

Job = Callable[[], Awaitable[object]]


@dataclass
class _Chat:
    waiting: OrderedDict[str, tuple[int, Job]] = field(default_factory=OrderedDict)
    weight: int = 0  # of the waiting answers and the running one
    worker: asyncio.Task[None] | None = None


class StoryQueue:
    """Story answers per chat: coalesced by key, weighed, bounded, one at a time."""

    def __init__(self, waiting: Callable[[int], int] | None = None, bound: int = BOUND) -> None:
        self.waiting = waiting or (lambda chat_id: 0)  # the chat's story messages unsent
        self.bound = bound
        self._chats: dict[int, _Chat] = {}
        self.refused = 0
        self.coalesced = 0
        self.answered = 0

    def submit(self, chat_id: int, key: str, cost: int, job: Job) -> bool:
        """``job`` queued for the chat (replacing a waiting one of the same key); False, and
        nothing queued, when the chat's queue is full."""
        chat = self._chats.setdefault(chat_id, _Chat())
        if key in chat.waiting:
            old, _ = chat.waiting[key]
            chat.waiting[key] = (cost, job)
            chat.weight += cost - old
            self.coalesced += 1
            return True
        if chat.weight + cost > self.bound:
            self.refused += 1
            log.info("a story answer in chat %d refused: its queue is full", chat_id)
            return False
        chat.waiting[key] = (cost, job)
        chat.weight += cost
        if chat.worker is None or chat.worker.done():
            chat.worker = asyncio.get_running_loop().create_task(self._run(chat_id, chat))
        return True

    def waits(self, chat_id: int, key: str) -> bool:
        """Whether an answer of ``key`` waits in the chat's queue (not yet begun): a second one
        would only take its place."""
        chat = self._chats.get(chat_id)
        return chat is not None and key in chat.waiting

    def pending(self, chat_id: int) -> int:
        chat = self._chats.get(chat_id)
        return chat.weight if chat is not None else 0

    def idle(self) -> bool:
        return all(c.weight == 0 for c in self._chats.values())

    async def _run(self, chat_id: int, chat: _Chat) -> None:
        LATER.set(True)  # this task's posts: story answers
        try:
            while chat.waiting:
                _, (cost, job) = chat.waiting.popitem(last=False)
                try:
                    await job()
                    self.answered += 1
                except Exception:  # one answer's failure never stops the chat's queue
                    log.exception("a story answer in chat %d failed", chat_id)
                try:
                    await self._delivered(chat_id)
                finally:
                    chat.weight -= cost
        finally:
            if not chat.waiting and chat.weight <= 0:
                self._chats.pop(chat_id, None)

    async def _delivered(self, chat_id: int) -> None:
        """Until the answer's messages went out (the queue holds the rest back meanwhile)."""
        end = time.monotonic() + DELIVERY_WAIT_S
        while self.waiting(chat_id) > 0 and time.monotonic() < end:
            await asyncio.sleep(DELIVERY_POLL_S)

    async def close(self) -> None:
        for chat in self._chats.values():
            if chat.worker is not None:
                chat.worker.cancel()
        await asyncio.gather(
            *(c.worker for c in self._chats.values() if c.worker is not None),
            return_exceptions=True,
        )
        self._chats.clear()

"""A chat's queue of messages waiting for the sender: in order, updates of the same message
coalesced (only the newest pending content is sent), a stored message queued once, command
answers giving way first when a chat floods."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .outbox import RETIRE, Out
from .storyqueue import LATER

log = logging.getLogger("gouji.queues")
INFO_WAITING = 3  # command answers a chat's queue holds at once (a flood of /help drops the rest)
QUEUED_KEPT = 256  # stored messages' ids remembered as queued (a stored message queued once)
SWEEP_EVERY = 1024  # posts between two sweeps of the chats that went quiet
QUIET_S = 60.0  # a chat's last call is remembered this long (its pace), then forgotten


@dataclass(slots=True)
class ChatQueue:
    """One chat's waiting messages: it lives while something waits for the chat or is on its
    way there; an emptied queue leaves memory (:meth:`Queues.done`), only the time of its last
    call stays a while (the chat's pace). Compact (a few hundred bytes besides the messages):
    hundreds of chats wait so for the budget of calls at a busy moment."""

    # when the last call to this chat went out: at first, when the sender started, as a process
    # that died a moment ago may have spent the chat's budget (a restart's notice waits a pace)
    last: float
    # the messages, in order (a list: a handful at most, coalesced; a deque takes 600 bytes)
    queue: list[Out] = field(default_factory=list)
    # the sender serves the chat: its pace or a turn awaited, or its worker delivering
    serving: bool = False
    # stored messages queued here already (several processes: read from the outbox, and
    # posted by this process's own change a moment later)
    queued: list[int] | None = None

    def add(self, out: Out) -> list[Out]:
        """``out`` queued, coalesced with what waits (a stored message once); the waiting
        messages it replaces (never sent: out of the outbox)."""
        if out.outbox_id is not None:
            if self.queued is None:
                self.queued = []
            elif out.outbox_id in self.queued:
                return []
            self.queued.append(out.outbox_id)
            if len(self.queued) > QUEUED_KEPT:
                self.queued = sorted(self.queued)[-QUEUED_KEPT // 2 :]
        queue = self.queue
        if out.info:
            waiting = [m for m in queue if m.info]
            if any(m.text == out.text for m in waiting):
                return []  # the same answer is on its way already
            if len(waiting) >= INFO_WAITING:
                queue.remove(waiting[0])  # the oldest answer gives way; the game never
        if out.act:  # bot.pins: a deleted message's waiting contents are moot
            moot = (
                [m for m in queue if m.slot == out.slot and not m.act]
                if out.act == "delete"
                else []
            )
            for m in moot:
                queue.remove(m)
            queue.append(out)
            return moot
        if out.message_id is not None:  # an edit of a message by its id: the newest content
            for i, pending in enumerate(queue):
                if pending.message_id == out.message_id:
                    queue[i] = out
                    return [pending]
        elif out.slot is not None and not out.new:
            for i, pending in enumerate(queue):
                # (never across an act waiting on the message: it must see the content before)
                if pending.slot == out.slot and not any(
                    m.slot == out.slot and m.act for m in list(queue)[i:]
                ):
                    # coalesce: only the newest content of a message (a message about to be
                    # sent anew takes that content with it)
                    queue[i] = replace(out, new=pending.new)
                    return [pending]
        elif out.slot is not None:  # sent anew: edits still waiting for the old one are moot
            # (an older message's retirement is not: that message is gone only then)
            moot = [m for m in queue if m.slot == out.slot and m.act != RETIRE]
            queue[:] = [m for m in queue if m.slot != out.slot or m.act == RETIRE]
            self._append(out)
            return moot
        self._append(out)
        return []

    def _append(self, out: Out) -> None:
        """At the end of the queue — a game message before the story answers waiting there
        (bot.storyqueue: a /replay never holds back the table picture)."""
        if not out.later:
            for i, pending in enumerate(self.queue):
                if pending.later:
                    self.queue.insert(i, out)
                    return
        self.queue.append(out)

    def waiting(self) -> set[int]:
        """What waits now (to tell, after reading the outbox, what was posted meanwhile)."""
        return {id(out) for out in self.queue}

    def refill(self, stored: list[Out], before: set[int]) -> list[Out]:
        """Several processes, this one delivering to the chat: what waits is what the outbox
        holds for it (``stored``: by any process, in the order stored), then what was posted
        here meanwhile, then this process's messages that are not stored (answers to
        commands). A stored message posted here before the outbox was read (``before``:
        :meth:`waiting` then) and no longer in it was delivered by another process. The
        messages replaced."""
        read = {out.outbox_id for out in stored}
        waiting = list(self.queue)
        self.queue.clear()
        if self.queued is not None:  # queued again now, from the outbox
            self.queued = [i for i in self.queued if i not in read]
        replaced: list[Out] = []
        for out in stored:
            replaced += self.add(out)
        for out in waiting:
            if out.outbox_id is None or (id(out) not in before and out.outbox_id not in read):
                replaced += self.add(out)
        return replaced


class Queues:
    """Every chat's queue: where the parts post (``post`` is instant); the sender
    (:class:`bot.sender.Sender`) takes what waits, a chat at a time in its turn."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.chats: dict[int, ChatQueue] = {}
        # the last call to each chat whose queue emptied (its pace goes on from there), kept
        # :data:`QUIET_S`: a float a chat, not its queue
        self._last: dict[int, float] = {}
        self._last_kept = 0  # how many were kept at the last pruning
        self._woken: dict[int, None] = {}  # chats not served with a message waiting
        self._moot: list[int] = []  # stored messages replaced before they were sent
        self._wake = asyncio.Event()
        self.idle = asyncio.Event()
        self.idle.set()
        self.delivering = 0  # messages taken from a queue and not yet delivered
        self._posts = 0
        self.posted: Callable[[Out], None] | None = None  # told each post (bot.sender: hurry)

    def post(self, out: Out) -> None:
        if LATER.get() and not out.later:  # posted by a story answer (bot.storyqueue)
            out = replace(out, later=True)
        chat = self.chats.get(out.chat_id)
        if chat is None:
            self._posts += 1
            if self._posts % SWEEP_EVERY == 0:
                self.sweep()
            last = self._last.pop(out.chat_id, self.started)
            chat = self.chats[out.chat_id] = ChatQueue(last)
        self.moot(chat.add(out))
        if self.posted is not None:
            self.posted(out)
        self.idle.clear()
        if not chat.serving:
            self._woken[out.chat_id] = None
            self._wake.set()

    def sweep(self, now: float | None = None) -> None:
        """Chats quiet for :data:`QUIET_S` (nothing waiting, not served, no call meanwhile)
        forgotten: the map holds the chats being delivered to, not every chat ever met (a
        call this long ago says nothing of the chat's pace)."""
        now = time.monotonic() if now is None else now
        for chat_id, chat in list(self.chats.items()):
            if not chat.serving and not chat.queue and now - chat.last > QUIET_S:
                del self.chats[chat_id]
        self._prune(now)

    def _prune(self, now: float) -> None:
        """The last calls older than :data:`QUIET_S` forgotten."""
        self._last = {c: t for c, t in self._last.items() if now - t <= QUIET_S}
        self._last_kept = len(self._last)

    def last_call(self, chat_id: int) -> float | None:
        """When the last call to the chat went out, as far as the queues remember."""
        chat = self.chats.get(chat_id)
        return chat.last if chat is not None else self._last.get(chat_id)

    def moot(self, outs: list[Out]) -> None:
        """Messages replaced by a newer content: never sent, out of the outbox."""
        self._moot += [o.outbox_id for o in outs if o.outbox_id is not None]

    async def woken(self) -> tuple[list[int], list[int]]:
        """The chats that got a message and are not served, and the stored messages replaced,
        since the last call (waits for one)."""
        await self._wake.wait()
        self._wake.clear()
        chats, moot = list(self._woken), self._moot
        self._woken, self._moot = {}, []
        return chats, moot

    def done(self, chat_id: int | None = None) -> None:
        """The sender stops serving ``chat_id``: its chat's queue, if empty, leaves memory with
        its queued ids, its last call remembered (:data:`QUIET_S`). Idle once no chat has a
        message waiting or on its way (another chat's worker may still be delivering the last
        message it took)."""
        chat = self.chats.get(chat_id) if chat_id is not None else None
        if chat is not None:
            chat.serving = False
        if chat is not None and chat_id is not None and not chat.queue:
            del self.chats[chat_id]
            self._last[chat_id] = chat.last
            if len(self._last) > 2 * self._last_kept + 64:
                self._prune(time.monotonic())
        if not self.delivering and all(not c.queue for c in self.chats.values()):
            self.idle.set()

    def pending(self) -> int:
        return sum(len(c.queue) for c in self.chats.values())

    def later_waiting(self, chat_id: int) -> int:
        """The chat's story answers not yet sent (bot.storyqueue waits for them)."""
        chat = self.chats.get(chat_id)
        return sum(1 for m in chat.queue if m.later) if chat is not None else 0

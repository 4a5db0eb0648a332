"""Keeping the game in sight under family chatter (issue 34 §4), and the acts on a slot's
message that go with it: delete, pin, unpin.

When the bot may pin in the group (an administrator with ``can_pin_messages``, asked once in a
while with getChatMember), the game's trick log is pinned silently when a game is dealt (a new
log page is pinned in its place) and unpinned when the game ends or the table is stopped.
When it may not, the table message is sent anew at the bottom (the old one deleted) once
:data:`REPOST_S` seconds of the game have passed since it was last sent, or once the bot has
seen :data:`REPOST_AFTER` messages in the group meanwhile. Under privacy mode (the default) the
bot sees only commands and presses on its buttons, not the family's chatter: those updates are
what it counts — chatter alone moves the table up only through the time rule.

An act is an :class:`bot.outbox.Out` with ``act`` set, delivered by the sender in the chat's
order (after the messages posted before it): :func:`deliver_act`. Its slot names the message.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from telegram import Bot
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, TelegramError

from .outbox import Out, Slot

log = logging.getLogger("gouji.pins")

DELETE = "delete"
PIN = "pin"
UNPIN = "unpin"
ACTS = (DELETE, PIN, UNPIN)
RIGHTS_KEPT_S = 600.0  # how long a chat's answer about pin rights is believed
REPOST_S = 90.0  # seconds of a game after which the table is sent anew (no pin rights)
REPOST_AFTER = 5  # updates seen in the group after which the table is sent anew (idem)
SIGHT_KEPT_S = 3600.0  # a table not sent anew this long has left memory or ended: forgotten
SWEEP_EVERY = 256  # chats' records made between two sweeps of the stale ones (Pins.sweep)
CHEERS_BELOW = 3  # the bot's cheers below the table after which it is sent anew below them


@dataclass
class _ChatPins:
    may: bool | None = None  # may the bot pin here (None: not known yet)
    asked: float = 0.0  # when getChatMember answered
    pinned: set[int] = field(default_factory=set)  # message ids the bot pinned here


@dataclass
class _TableSight:
    chat_id: int = 0
    sent_at: float = 0.0  # when the table message was last sent anew
    seen_at: int = 0  # the chat's count of updates seen then
    cheers: int = 0  # the bot's cheers sent below it since


class Pins:
    """What the bot knows about pinning in each chat, and when each table is due to be sent
    anew (kept in memory: a restart sends every table anew anyway). One for the bot, made where
    it is composed (bot.compose): the moves ask it what a change shows, the router counts the
    updates it sees, the sender does the acts with it."""

    def __init__(self, bot: Bot | None = None) -> None:
        self.bot = bot
        self.chats: dict[int, _ChatPins] = {}
        self.sight: dict[int, _TableSight] = {}  # table → when its message was sent anew
        self.updates: dict[int, int] = {}  # chat → updates from it the bot has seen
        self.clock: Callable[[], float] = time.monotonic
        self._made = 0  # chats' records made (a sweep every SWEEP_EVERY)

    def chat(self, chat_id: int) -> _ChatPins:
        found = self.chats.get(chat_id)
        if found is None:
            self._made += 1
            if self._made % SWEEP_EVERY == 0:
                self.sweep()
            found = self.chats[chat_id] = _ChatPins()
        return found

    def sweep(self) -> None:
        """A chat's records leave memory once they are worth nothing: its pin rights would be
        asked again anyway (older than :data:`RIGHTS_KEPT_S`), the bot pinned nothing there and
        no table of the chat is in sight (its count of updates then matters no more). A table
        not sent anew for :data:`SIGHT_KEPT_S` (it left memory, was stopped or ended long ago;
        one in play is sent anew at every deal) is out of sight."""
        now = self.clock()
        for table_id, s in list(self.sight.items()):
            if now - s.sent_at >= SIGHT_KEPT_S:
                del self.sight[table_id]
        in_sight = {s.chat_id for s in self.sight.values()}
        for chat_id, c in list(self.chats.items()):
            if not c.pinned and now - c.asked >= RIGHTS_KEPT_S and chat_id not in in_sight:
                del self.chats[chat_id]
        for chat_id in [c for c in self.updates if c not in in_sight and c not in self.chats]:
            del self.updates[chat_id]

    def left(self, table_id: int) -> None:
        """The table is out of sight for good (its game over, or it left memory): its record
        goes, and its chat's count of updates when no other table there is in sight."""
        gone = self.sight.pop(table_id, None)
        if gone is not None and all(s.chat_id != gone.chat_id for s in self.sight.values()):
            self.updates.pop(gone.chat_id, None)

    async def may_pin(self, chat_id: int) -> bool:
        """Whether the bot may pin messages in ``chat_id`` (a group where it is the creator, or
        an administrator with ``can_pin_messages``); asked again after :data:`RIGHTS_KEPT_S`."""
        if chat_id > 0 or self.bot is None:
            return False
        c = self.chat(chat_id)
        now = self.clock()
        if c.may is not None and now - c.asked < RIGHTS_KEPT_S:
            return c.may
        try:
            member: Any = await self.bot.get_chat_member(chat_id, self.bot.id)
        except (TelegramError, RuntimeError) as e:  # RuntimeError: the bot not initialized
            log.warning("pin rights in chat %d unknown (%s)", chat_id, e)
            c.may, c.asked = False, now
            return False
        status = getattr(member, "status", "")
        c.may = status == ChatMemberStatus.OWNER or (
            status == ChatMemberStatus.ADMINISTRATOR
            and bool(getattr(member, "can_pin_messages", False))
        )
        c.asked = now
        return c.may

    def known(self, chat_id: int) -> bool | None:
        """What :meth:`may_pin` last found (None: never asked)."""
        c = self.chats.get(chat_id)
        return None if c is None else c.may

    # -- the table in sight without pins -------------------------------------------------------
    def seen(self, chat_id: int) -> None:
        """An update from a group reached the bot (a command, a press on a button)."""
        if chat_id < 0:
            self.updates[chat_id] = self.updates.get(chat_id, 0) + 1

    def due(self, table_id: int, chat_id: int) -> bool:
        """Whether the table message should be sent anew now (no pin rights)."""
        s = self.sight.get(table_id)
        if s is None:
            self.sent_anew(table_id, chat_id)
            return False
        seen = self.updates.get(chat_id, 0) - s.seen_at
        return seen >= REPOST_AFTER or self.clock() - s.sent_at >= REPOST_S

    def sent_anew(self, table_id: int, chat_id: int) -> None:
        self.sight[table_id] = _TableSight(chat_id, self.clock(), self.updates.get(chat_id, 0))

    def cheered(self, table_id: int, chat_id: int, cheers: int) -> int:
        """``cheers`` more cheers sent below the table: how many are below it now."""
        s = self.sight.get(table_id)
        if s is None:
            self.sent_anew(table_id, chat_id)
            s = self.sight[table_id]
        s.cheers += cheers
        return s.cheers


def act_out(
    chat_id: int, thread_id: int | None, slot: Slot, act: str, message_id: int | None = None
) -> Out:
    """``act`` on the slot's message (on ``message_id`` when given: a table about to be gone,
    whose slots are looked up no more)."""
    assert act in ACTS
    return Out(chat_id, "", None, thread_id, slot, act=act, silent=True, message_id=message_id)


Call = Callable[..., Awaitable[object]]  # Sender._call(chat_id, make)


async def deliver_act(pins: Pins, bot: Bot, call: Call, message_id: int | None, out: Out) -> bool:
    """Do ``out.act`` on message ``message_id`` of ``out.chat_id``; True when the message is
    gone (deleted, or already gone). Refusals are logged, never raised."""
    chat_id = out.chat_id
    if message_id is None:
        return False
    # a chat's record only where the bot pins or asked whether it may (never a private chat's)
    c = pins.chats.get(chat_id)
    try:
        if out.act == DELETE:
            await call(chat_id, lambda: bot.delete_message(chat_id, message_id))
            if c is not None:
                c.pinned.discard(message_id)
            return True
        if out.act == PIN:
            if not await pins.may_pin(chat_id):
                return False
            await call(
                chat_id,
                lambda: bot.pin_chat_message(chat_id, message_id, disable_notification=True),
            )
            pins.chat(chat_id).pinned.add(message_id)
        elif out.act == UNPIN and (
            (c is not None and message_id in c.pinned) or await pins.may_pin(chat_id)
        ):
            # (pinned by this process, or by one that stopped since: it may unpin here)
            pins.chat(chat_id).pinned.discard(message_id)
            await call(chat_id, lambda: bot.unpin_chat_message(chat_id, message_id))
    except BadRequest as e:
        log.info("%s of message %d in chat %d refused (%s)", out.act, message_id, chat_id, e)
        if out.act == PIN and "rights" in e.message.lower():  # taken away meanwhile
            rights = pins.chat(chat_id)
            rights.may, rights.asked = False, pins.clock()
        return out.act == DELETE
    return False


# -- what a table's change shows about its sight -----------------------------------------------
def sight_outs(table: Any, pins: Pins, cheers: int, dealt: bool, page_before: int) -> list[Out]:
    """The table message after a change (``bot.table.Table.table_below``), and the acts that
    keep the game in sight: at a deal the log pinned (when the bot may pin), a new log page
    pinned in place of the last, the table sent anew when it is due (when it may not), or
    once :data:`CHEERS_BELOW` of the bot's ``cheers`` are below it (a line or two under the table
    leaves it in sight: a send and a delete in the group's budget of 20 writes a minute
    would not); at the end of the game the table message deleted — the game-over picture that
    follows says the result once, below the last trick's cheer — and the log unpinned."""
    from engine.vocab import Phase

    from .outbox import SlotKind

    chat, thread = table.chat_id, table.thread_id
    page = table.st.log_page
    log_slot = Slot(table.id, SlotKind.LOG, page)
    m = table.match
    if m is not None and m.phase == Phase.OVER:
        pins.left(table.id)
        delete = act_out(chat, thread, Slot(table.id, SlotKind.TABLE), DELETE)
        return [delete, *unpin_outs(table)]
    outs: list[Out] = []
    may = pins.known(chat)
    if may and (dealt or page != page_before):
        if not dealt:
            outs.append(act_out(chat, thread, Slot(table.id, SlotKind.LOG, page_before), UNPIN))
        outs.append(act_out(chat, thread, log_slot, PIN))
    below = pins.cheered(table.id, chat, cheers) if cheers and not dealt else 0
    out = table.table_below(below >= CHEERS_BELOW)
    if not out.new and may is False and pins.due(table.id, chat):
        out = replace(out, new=True)
    if out.new or dealt:
        pins.sent_anew(table.id, chat)
    return [*outs, out]


def unpin_outs(table: Any) -> list[Out]:
    """The game's log unpinned (the game is over, or the table stopped): its current page
    (a page that filled was unpinned when the next was pinned). No call where the bot may not
    pin; where it may, the page is unpinned even if another process (or the one before a
    restart) pinned it."""
    from .outbox import SlotKind

    slot = Slot(table.id, SlotKind.LOG, table.st.log_page)
    msg = table.st.log_msgs.get(table.st.log_page)
    return [act_out(table.chat_id, table.thread_id, slot, UNPIN, msg)]

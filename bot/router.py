"""The router: the one place a button's kind and op are decoded into a handler, and the one
place the checks every press needs are made; and the table of the bot's commands.

Each part of the bot registers its handlers here (``register(router)``); ``bot.app`` turns the
router's commands into Telegram handlers. A press reaches its handler only when:

- its data decodes to a known kind, op and argument (:mod:`bot.buttons`);
- for a table's button, the table exists and is not abandoned;
- a group button (lobby, game over, vote) was pressed in the table's own chat and topic; a hand
  button in the presser's own private chat, by the player who holds a seat at that table;
- the kind's guard (status and version checks) lets it through;

and the handler runs under the table's lock. Callback data alone never grants anything.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum, Flag, auto
from functools import partial
from typing import Protocol

from renderers import t

from .budget import Budgets
from .buttons import BadCallback, Callback, Kind, Op
from .model import TableStatus
from .outbox import Answer
from .pins import Pins
from .storyqueue import COSTS, StoryQueue, story_key
from .table import Table
from .tables import Tables, UserInfo

log = logging.getLogger("gouji.router")


class Members(Protocol):
    """Who is who in a chat, asked of Telegram (False when it cannot tell)."""

    async def is_admin(self, chat_id: int, user_id: int) -> bool: ...

    async def is_member(self, chat_id: int, user_id: int) -> bool: ...


GROUP_KINDS = frozenset({Kind.LOBBY, Kind.OVER, Kind.VOTE})


@dataclass(frozen=True)
class Press:
    """One button press, as far as a handler needs it."""

    cb: Callback
    user: UserInfo
    chat_id: int  # the chat of the pressed message
    thread_id: int | None  # its forum topic
    members: Members
    seat: int | None = None  # a hand button: the presser's seat at the table
    message_id: int | None = None  # the pressed message

    @property
    def lang(self) -> str:
        return self.user.lang or "zh"


def offered_data(data: str | None, offered: frozenset[str] | None) -> bool:
    """Whether a press's ``data`` is on the pressed message's own keyboard (``offered``, as
    Telegram sends it with the press): a press is valid only on the message that carries it
    — a rules page's button forged on the lobby, a replay step on the game-over picture, an
    old settings button are stale. None: the keyboard is not known (a direct call)."""
    return offered is None or (data is not None and data in offered)


class Where(Enum):
    """Where a command is answered."""

    ANY = "any"
    GROUP = "group"
    PRIVATE = "private"


@dataclass(frozen=True)
class CommandCall:
    """One command message, as far as a handler needs it."""

    chat_id: int
    thread_id: int | None
    user: UserInfo
    args: tuple[str, ...]
    members: Members
    reply_to: UserInfo | None = None  # the person whose message the command answers

    @property
    def private(self) -> bool:
        return self.chat_id > 0


TableHandler = Callable[[Table, Press], Awaitable[Answer]]
ChatHandler = Callable[[Press], Awaitable[Answer]]
Guard = Callable[[Table, Press], Answer | None]
ChatGuard = Callable[[Press], Answer | None]
CommandHandler = Callable[[CommandCall], Awaitable[None]]


class Menu(Flag):
    """The command menus Telegram shows a command in (groups', private chats'), in the order
    the commands are registered."""

    NONE = 0
    GROUP = auto()
    PRIVATE = auto()
    BOTH = GROUP | PRIVATE


@dataclass(frozen=True)
class Command:
    name: str
    handler: CommandHandler
    where: Where
    people_only: bool  # refused to a channel identity or an anonymous admin (they cannot sit)
    menu: Menu = Menu.NONE


class Router:
    """Buttons by (kind, op), guards by kind, and commands by name."""

    def __init__(
        self, tables: Tables, budgets: Budgets | None = None, pins: Pins | None = None
    ) -> None:
        self.tables = tables
        self.budgets = budgets or Budgets()
        self.pins = pins or Pins()  # counts the updates seen in each group (bot.pins)
        self._table: dict[tuple[Kind, Op], TableHandler] = {}
        self._chat: dict[tuple[Kind, Op], ChatHandler] = {}
        self._private_ok: set[tuple[Kind, Op]] = set()  # chat buttons that work in a DM too
        self._guards: dict[Kind, Guard] = {}
        self._chat_guards: dict[Kind, ChatGuard] = {}
        self.commands: dict[str, Command] = {}
        # story answers, per chat: bounded, one at a time, after the game's messages
        waiting = getattr(getattr(tables, "poster", None), "later_waiting", None)
        self.stories = StoryQueue(waiting)

    # -- registering -------------------------------------------------------------------------
    def on(self, kind: Kind, op: Op, handler: TableHandler) -> None:
        """``handler`` answers presses of ``op`` on a table's ``kind`` message."""
        assert (kind, op) not in self._table, (kind, op)
        self._table[(kind, op)] = handler

    def on_chat(self, kind: Kind, op: Op, handler: ChatHandler, private: bool = False) -> None:
        """``handler`` answers presses of ``op`` on a chat's (not a table's) message: a
        group's, or with ``private`` any chat's (turning a page of /rules)."""
        assert (kind, op) not in self._chat, (kind, op)
        self._chat[(kind, op)] = handler
        if private:
            self._private_ok.add((kind, op))

    def guard(self, kind: Kind, guard: Guard) -> None:
        """Checked before every handler of ``kind``: an answer stops the press there."""
        self._guards[kind] = guard

    def chat_guard(self, kind: Kind, guard: ChatGuard) -> None:
        """Checked before every chat handler of ``kind`` (its version): an answer stops it."""
        self._chat_guards[kind] = guard

    def allow(self, call: CommandCall) -> bool:
        """Whether a command fits its sender's and its chat's flood budget (else it is
        dropped without a word)."""
        ok = self.budgets.spend(call.user.id, call.chat_id)
        self.pins.seen(call.chat_id)  # the table kept in sight (bot.pins)
        if not ok:
            log.info("a command from user %d dropped: over its flood budget", call.user.id)
        return ok

    def command(
        self,
        name: str,
        handler: CommandHandler,
        where: Where = Where.ANY,
        *,
        people_only: bool = False,
        menu: Menu = Menu.NONE,
    ) -> None:
        """``handler`` answers ``/name`` (``where``), shown in the ``menu`` Telegram offers."""
        assert name not in self.commands, name
        cost = COSTS.get(name)
        if cost is not None:  # a story answer: in the chat's bounded queue (bot.storyqueue)
            handler = self._queued(name, cost, handler)
        self.commands[name] = Command(name, handler, where, people_only, menu)

    def menu(self, which: Menu) -> list[str]:
        """The commands shown in ``which`` menu, in the order registered."""
        return [c.name for c in self.commands.values() if which in c.menu]

    def _queued(self, name: str, cost: int, handler: CommandHandler) -> CommandHandler:
        async def queued(call: CommandCall) -> None:
            about = call.reply_to.id if name == "stats" and call.reply_to is not None else ""
            key = story_key(name, call.thread_id, about)
            self.stories.submit(call.chat_id, key, cost, partial(handler, call))

        return queued

    def _junk(self, user_id: int, lang: str, key: str) -> Answer:
        """Junk's answer, charged to its presser only: 「点得太快了」 only to one past their own
        budget of presses (as a real press is told), else what the press is — an old message's
        button, or none of the bot's. (Past the junk presses of theirs that are answered,
        bot.intake makes no call at all; a press that reached the router is answered anyway,
        so it says what is true.)"""
        if not self.budgets.user.spend(user_id):
            return Answer(t(lang, "bot.slow_down"))
        return Answer(t(lang, key))

    # -- dispatching -------------------------------------------------------------------------
    async def press(
        self,
        data: str | None,
        user: UserInfo,
        chat_id: int | None,
        thread_id: int | None,
        members: Members,
        message_id: int | None = None,
        offered: frozenset[str] | None = None,
        answered: Callable[[Answer], None] | None = None,
    ) -> Answer:
        """Any button press (of message ``message_id``, whose keyboard carries ``offered``:
        the callback data of its buttons as Telegram sent them with the press; None: not
        known, a direct call); the answer is shown as a toast (or alert, or link).

        Junk (data that does not decode, or that the pressed message does not carry) is
        charged to its presser's budget only: the chat's is spent on presses that count.
        ``answered``: told a table's handler's answer as soon as it is known, before the
        change is stored (several processes: settled) and the table let go (bot.answers)."""
        lang = user.lang or "zh"
        try:
            cb = Callback.decode(data)
        except BadCallback:
            return self._junk(user.id, lang, "bot.bad_button")
        if not offered_data(data, offered):  # not on the pressed message: forged or stale
            log.info("a press of data its message does not carry, by user %d", user.id)
            return self._junk(user.id, lang, "bot.stale")
        if not self.budgets.spend(user.id, chat_id):
            return Answer(t(lang, "bot.slow_down"))
        if chat_id is None:  # a message too old for Telegram to show the bot
            return Answer(t(lang, "bot.stale"))
        self.pins.seen(chat_id)  # the table kept in sight (bot.pins)
        chat_handler = self._chat.get((cb.kind, cb.op))
        if chat_handler is not None:
            if chat_id > 0 and (cb.kind, cb.op) not in self._private_ok:
                return Answer(t(lang, "bot.bad_button"))
            press = Press(cb, user, chat_id, thread_id, members, message_id=message_id)
            chat_guard = self._chat_guards.get(cb.kind)
            stop = chat_guard(press) if chat_guard is not None else None
            return stop if stop is not None else await chat_handler(press)
        handler = self._table.get((cb.kind, cb.op))
        if handler is None:
            return Answer(t(lang, "bot.bad_button"))
        # a group's button: only that chat's table is looked up (bot.tables.Tables.find)
        table = await self.tables.find(cb.table, chat_id if cb.kind in GROUP_KINDS else None)
        if table is None or table.status == TableStatus.ABANDONED:
            return Answer(t(lang, "bot.gone"))
        seat: int | None = None
        if cb.kind in GROUP_KINDS:
            if (chat_id, thread_id) != (table.chat_id, table.thread_id):
                log.info("a button of table %d pressed elsewhere", table.id)
                return Answer(t(lang, "bot.not_here"), alert=True)
        elif chat_id != user.id:  # a hand button: in the presser's own private chat only
            return Answer(t(lang, "bot.not_yours"))
        else:
            seat = table.seat_of(user.id)
            if seat is None:
                return Answer(t(lang, "bot.not_yours"))
        p = Press(cb, user, chat_id, thread_id, members, seat, message_id)
        async with self.tables.locked(table):
            guard = self._guards.get(cb.kind)
            stop = guard(table, p) if guard is not None else None
            if stop is not None:
                return stop
            answer = await handler(table, p)
            if answered is not None:
                answered(answer)
            return answer

"""The table service's core: the registry of tables, storage, message slots, settings.

See :mod:`bot.service` for the whole; :mod:`bot.play` moves matches, :mod:`bot.lobby` seats
players. Each layer builds on the one before it.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Protocol

from engine.events import Event
from engine.match import Match
from engine.matchrecord import FORMAT, parse_entry

from . import storage as S
from .codec import b36
from .model import ChatSettings, TableState
from .outbox import Out
from .table import Table
from .workers import Workers

log = logging.getLogger("gouji.service")


@dataclass(frozen=True)
class UserInfo:
    """The Telegram user behind an update, as far as the bot needs."""

    id: int
    name: str
    lang: str | None = None  # "zh" or "en" when Telegram tells it


@dataclass(frozen=True)
class Config:
    """How the service runs tables (defaults for Telegram; tests and the demo go faster)."""

    bot_username: str = "gouji_bot"
    ai_delay: float = 1.2  # seconds between AI moves, so a table can follow them
    countdown_s: float = 60.0  # the pickup countdown before empty seats fill with AI
    turn_s: float | None = None  # overrides each chat's per-turn timer (tests)
    seed: int | None = None  # deals of every new table (demo, tests); None: the OS's randomness
    hard_budget_ms: float = 250.0
    lang: str = "zh"  # a new chat's language (GOUJI_LANG)


class Sender(Protocol):
    def post(self, out: Out) -> None: ...


class Scheduler(Protocol):
    def schedule(self, name: str, delay: float, job: Callable[[], Awaitable[None]]) -> None: ...

    def cancel(self, name: str) -> None: ...


class Core:
    """Tables, their storage and their messages."""

    def __init__(
        self,
        storage: S.Storage,
        sender: Sender,
        timers: Scheduler,
        cfg: Config,
        workers: Workers | None = None,
    ) -> None:
        self.storage = storage
        self.workers = workers or Workers()  # the hard AI searches there
        self.sender = sender
        self.timers = timers
        self.cfg = cfg
        self.tables: dict[int, Table] = {}
        self.where: dict[tuple[int, int | None], int] = {}  # (chat, topic) → table id
        # a chat's lock lives while someone holds or awaits it: the map does not grow with
        # every chat the bot has ever seen
        self._chat_locks: weakref.WeakValueDictionary[tuple[int, int | None], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    # -- chats and users ---------------------------------------------------------------------
    async def chat_settings(self, chat_id: int, default_lang: str | None = None) -> ChatSettings:
        """A chat's settings; a new chat speaks the bot's default language (GOUJI_LANG)."""
        lang = default_lang or self.cfg.lang
        row = await self.storage.get_chat(chat_id)
        if row is None:
            return ChatSettings(lang=lang)
        return ChatSettings.from_json(row.settings, row.lang or lang)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings) -> None:
        await self.storage.save_chat(S.ChatRow(chat_id, settings.lang, settings.to_json()))

    async def seen_user(self, user: UserInfo, dm_ok: bool | None = None) -> S.UserRow:
        row = await self.storage.get_user(user.id)
        if row is None:
            row = S.UserRow(user.id, user.name, user.lang, bool(dm_ok))
        else:
            row.name = user.name
            row.lang = user.lang or row.lang
            if dm_ok is not None:
                row.dm_ok = dm_ok
        await self.storage.save_user(row)
        return row

    def deep_link(self, table_id: int, seat: int | None = None) -> str:
        payload = f"j{b36(table_id)}" + (f"s{seat}" if seat is not None else "")
        return f"https://t.me/{self.cfg.bot_username}?start={payload}"

    # -- storage -----------------------------------------------------------------------------
    def _row(self, table: Table) -> S.TableRow:
        state = table.st.to_json()
        state["lobby_ver"] = table.lobby_ver
        return S.TableRow(
            table.id,
            table.chat_id,
            table.thread_id,
            table.status,
            table.opener,
            state,
            table.version,
        )

    async def _save(self, table: Table, entries: list[str] | None = None) -> None:
        await self.storage.save_table(self._row(table), entries or [])

    def slot_id(self, table_id: int, slot: str) -> int | None:
        """The message id a slot's message has (for the sender)."""
        table = self.tables.get(table_id)
        if table is None:
            return None
        st = table.st
        if slot == "lobby":
            return st.lobby_msg
        if slot == "table":
            return st.table_msg
        if slot.startswith("log"):
            return st.log_msgs.get(int(slot[3:]))
        if slot.startswith("hand"):
            return st.hand_msgs.get(int(slot[4:]))
        return None

    async def slot_sent(self, table_id: int, slot: str, message_id: int) -> None:
        """The sender put a slot's message at ``message_id``: remember it (stored)."""
        table = self.tables.get(table_id)
        if table is None:
            return
        st = table.st
        if slot == "lobby":
            st.lobby_msg = message_id
        elif slot == "table":
            st.table_msg = message_id
        elif slot.startswith("log"):
            page = int(slot[3:])
            st.log_msgs = {p: m for p, m in st.log_msgs.items() if p >= page - 1}
            st.log_msgs[page] = message_id
        elif slot.startswith("hand"):
            st.hand_msgs[int(slot[4:])] = message_id
        async with table.lock:
            await self._save(table)

    def reply(self, chat_id: int, thread_id: int | None, text: str) -> None:
        """A plain message (command answers), in order with the chat's other messages."""
        self.sender.post(Out(chat_id, text, None, thread_id))

    async def settings_changed(
        self, chat_id: int, thread_id: int | None, settings: ChatSettings
    ) -> None:
        """New chat settings reach the open lobby; a running match keeps its own rules."""
        table = self.table_at(chat_id, thread_id)
        if table is None or table.status != "lobby":
            return
        async with table.lock:
            table.st.settings = settings
            for s in table.st.seats:
                if s is not None and not s.human:
                    s.level = settings.ai_level
            table.lobby_ver += 1
            await self._save(table)
            self.sender.post(table.lobby_out())

    # -- tables ------------------------------------------------------------------------------
    def table_at(self, chat_id: int, thread_id: int | None) -> Table | None:
        tid = self.where.get((chat_id, thread_id))
        return self.tables.get(tid) if tid is not None else None

    def _chat_lock(self, key: tuple[int, int | None]) -> asyncio.Lock:
        return self._chat_locks.setdefault(key, asyncio.Lock())

    def _next_seed(self) -> int | None:
        if self.cfg.seed is None:
            return None
        seed = self.cfg.seed
        self.cfg = replace(self.cfg, seed=seed + 1)
        return seed

    async def _load(self, row: S.TableRow) -> Table:
        assert row.table_id is not None
        st = TableState.from_json(row.state)
        table = Table(row.table_id, row.chat_id, row.thread_id, row.opener, row.status, st)
        lv = row.state.get("lobby_ver") if isinstance(row.state, dict) else None
        table.lobby_ver = lv if isinstance(lv, int) else 0
        entries = await self.storage.load_actions(row.table_id)
        if entries:
            events: list[Event] = []
            doc = {
                "format": FORMAT,
                "rules": st.settings.rules().to_json(),
                "seed": st.seed,
                "actions": [parse_entry(e).to_json() for e in entries],
            }
            table.match = Match.restore(doc, events)
            table.version = table.match.version
            finished, _ = table.feed(events)  # the transcript again; its cheers were said
            table.lines = finished
        return table

    async def _reload(self, table: Table) -> None:
        row = await self.storage.load_table(table.id)
        if row is None:
            return
        fresh = await self._load(row)
        table.match, table.version, table.transcript = fresh.match, fresh.version, fresh.transcript
        table.lines, table.st, table.status = fresh.lines, fresh.st, fresh.status

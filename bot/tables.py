"""The table registry: every table of every chat in memory, its lock, its storage and its
messages' ids (chats' settings and the users the bot has met: :mod:`bot.chats`).

Every other part (:mod:`bot.lobby`, :mod:`bot.play`, :mod:`bot.moves`, :mod:`bot.absence`,
:mod:`bot.chat_settings`) reaches tables and storage only through a :class:`Tables`. Each change
of a table happens under its lock and is **stored before anything about it is sent**.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from engine.events import Event
from engine.match import Match
from engine.matchrecord import FORMAT, BadMatchRecord, parse_entry
from renderers import t

from . import storage as S
from .budget import CHAT, USER, Rate
from .buttons import b36
from .chats import Chats, UserInfo
from .deployment import Deployment
from .locks import LeanLock
from .model import TableState, TableStatus
from .outbox import Out
from .slotstate import take_stored
from .table import Table
from .tenure import Poster, TenurePoster
from .timers import Scheduler, TimerKind

log = logging.getLogger("gouji.tables")
IDLE_S = 600.0  # a table untouched this long leaves memory (back from storage when needed)
SWEEP_S = 60.0  # how often idle tables are looked for
# the named timers a table may have (``timer_name``; a hold runs as its step)
TIMERS = (TimerKind.STEP, TimerKind.REMIND, TimerKind.COUNTDOWN, TimerKind.READY)


@dataclass(frozen=True)
class Config:
    """How tables run (defaults for Telegram; tests and the demo go faster)."""

    bot_username: str = "gouji_bot"
    ai_delay: float = 1.2  # seconds between AI moves, so a table can follow them
    countdown_s: float = 60.0  # the pickup countdown before empty seats fill with AI
    turn_s: float | None = None  # overrides each chat's per-turn timer (tests)
    seed: int | None = None  # deals of every new table (demo, tests); None: the OS's randomness
    hard_budget_ms: float = 250.0  # the hard AI's search time per decision
    # a skipped seat's think-time before the next question (bot.hold): None, a seeded random
    # 1.5–4 s; 0, passes shown at once (tests); a chat's 快速过牌 turns it off too
    pass_think_s: float | None = None
    lang: str = "zh"  # a new chat's language (GOUJI_LANG)
    user_rate: Rate = USER  # presses and commands one person may send (flood budget)
    chat_rate: Rate = CHAT  # … and one chat
    review_budget_s: float | None = 60.0  # the 复盘's work per game (bot.game_end); None: off


def timer_name(kind: TimerKind, table_id: int) -> str:
    assert kind in TIMERS
    return f"{kind}:{table_id}"


@dataclass(frozen=True)
class Parked:
    """A table that left memory idle: where it is, and who sits there."""

    chat_id: int
    thread_id: int | None
    users: tuple[int, ...]


class Tables:
    """Tables by id and by (chat, topic); their storage; chats and users."""

    def __init__(
        self,
        storage: S.Storage,
        sender: Poster,
        deployment: Deployment,
        cfg: Config,
        chats: Chats,
        username: Callable[[], str] | None = None,
    ):
        self.storage = storage
        self.poster = sender  # past the tenure (bot.tenure)
        self.sender = TenurePoster(sender)
        self.deployment = deployment
        self.timers: Scheduler = deployment.timers
        self.cfg = cfg
        self.chats = chats  # a broken table's notice speaks its chat's language
        self.username = username or (lambda: cfg.bot_username)
        self._seeds = itertools.count(cfg.seed) if cfg.seed is not None else None
        # what shows a table again as after a restart, by its status (each part registers its
        # own: bot.lobby, bot.moves)
        self._resumers: dict[TableStatus, Callable[[Table], None]] = {}
        self.by_id: dict[int, Table] = {}
        self.where: dict[tuple[int, int | None], int] = {}  # (chat, topic) → table id
        # tables that left memory idle (evict), by id: their (chat, topic) and seated users
        # (one process: where to find them again; storage has the rest)
        self.parked: dict[int, Parked] = {}
        # a chat's lock lives while someone holds or awaits it (chat_lock): the map does not
        # grow with every chat the bot has ever seen
        self._chat_locks: dict[tuple[int, int | None], LeanLock] = {}

    def on_resume(self, status: TableStatus, show: Callable[[Table], None]) -> None:
        """Tables of ``status`` are shown again (after a restart, or a process that died
        halfway through a change) by ``show``."""
        self._resumers[status] = show

    def resume(self, table: Table) -> None:
        """The table shown again, as after a restart."""
        show = self._resumers.get(table.status)
        if show is not None:
            show(table)

    # -- finding tables ----------------------------------------------------------------------
    def get(self, table_id: int) -> Table | None:
        return self.by_id.get(table_id)

    def at(self, chat_id: int, thread_id: int | None) -> Table | None:
        tid = self.where.get((chat_id, thread_id))
        return self.by_id.get(tid) if tid is not None else None

    def all(self) -> list[Table]:
        return list(self.by_id.values())

    async def find(self, table_id: int, chat_id: int | None = None) -> Table | None:
        """A table by id: in memory, or (several processes) as another process stored it;
        with ``chat_id`` only that chat's — another chat's table is refused before it is
        loaded (a forged id never brings it here, nor moves the chat's open table aside). One
        in memory already is returned as is: the router tells it is not this chat's."""
        return await self.deployment.find(self, table_id, chat_id)

    async def find_at(self, chat_id: int, thread_id: int | None) -> Table | None:
        """The (chat, topic)'s open table: in memory, or (several processes) as stored — one
        opened, closed or ended by another process is seen here."""
        return await self.deployment.find_at(self, chat_id, thread_id)

    @asynccontextmanager
    async def locked(self, table: Table) -> AsyncIterator[Table]:
        """The table, changed by this task alone until the block ends (several processes: by
        this process alone, brought up to date first, and stored with the messages the change
        caused at its end: bot.deployment)."""
        async with table.lock, self.deployment.hold(self, table):
            table.used = time.monotonic()
            yield table
        # several processes: a table another process serves leaves memory after the change it
        # was loaded for (unless another task here waits for it)
        waited = table.lock.waiting
        if self.deployment.leaves(table) and not waited and self.by_id.get(table.id) is table:
            self.drop(table)

    async def of_user(self, user_id: int) -> list[Table]:
        """The open tables where ``user_id`` is seated (or whose seat was theirs): in memory,
        or brought back from storage (one that left memory idle; several processes: one
        another process serves)."""
        ids = [t.id for t in self.by_id.values() if user_id in t.users()]
        ids += [tid for tid, p in self.parked.items() if user_id in p.users]
        ids += await self.deployment.tables_of_user(user_id)
        found = [await self.find(tid) for tid in dict.fromkeys(ids)]
        return [t for t in found if t is not None and user_id in t.users()]

    async def of_chat(self, chat_id: int) -> list[Table]:
        """The chat's open tables in every topic: in memory, or brought back from storage (one
        that left memory idle; several processes: one another process serves)."""
        ids = [tid for (chat, _), tid in self.where.items() if chat == chat_id]
        ids += [tid for tid, p in self.parked.items() if p.chat_id == chat_id]
        ids += await self.deployment.tables_of_chat(chat_id)
        found = [await self.find(tid, chat_id) for tid in dict.fromkeys(ids)]
        return [t for t in found if t is not None and t.chat_id == chat_id]

    def unpark(self, table_id: int) -> bool:
        """The table left memory idle here (it is brought back now)."""
        return self.parked.pop(table_id, None) is not None

    def parked_at(self, chat_id: int, thread_id: int | None) -> int | None:
        for tid, p in self.parked.items():
            if (p.chat_id, p.thread_id) == (chat_id, thread_id):
                return tid
        return None

    async def evict(self, table: Table) -> bool:
        """The table leaves memory (idle: nobody holds it), stored with what it holds besides
        its state and actions; it comes back as it was on its next update (:meth:`find`).
        False if it is in use."""
        if table.lock.locked() or self.by_id.get(table.id) is not table:
            return False
        async with self.locked(table):
            if self.by_id.get(table.id) is not table:
                return False
            if await self.deployment.park(self, table):
                self.parked[table.id] = Parked(table.chat_id, table.thread_id, table.users())
            self.drop(table)
        return True

    async def sweep(self, idle_s: float = IDLE_S, now: float | None = None) -> int:
        """Tables untouched for ``idle_s`` leave memory (:meth:`evict`); how many."""
        now = time.monotonic() if now is None else now
        gone = 0
        for table in list(self.by_id.values()):
            if now - table.used >= idle_s and await self.evict(table):
                gone += 1
        if gone:
            log.info("%d idle table(s) left memory", gone)
        return gone

    async def sweeping(self, every: float = SWEEP_S, idle_s: float = IDLE_S) -> None:
        """:meth:`sweep` every ``every`` seconds for as long as the task runs."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep(idle_s)
            except Exception:  # storage away a moment: the next sweep tries again
                log.exception("idle tables stay in memory")

    @asynccontextmanager
    async def chat_lock(self, chat_id: int, thread_id: int | None) -> AsyncIterator[None]:
        """The lock of a (chat, topic), held until the block ends: while its table is opened or
        closed. It is forgotten when its last holder leaves with nobody waiting (a waiter counts
        from the moment it asks: one lock a key, never two)."""
        key = (chat_id, thread_id)
        lock = self._chat_locks.get(key)
        if lock is None:
            lock = self._chat_locks[key] = LeanLock()
        try:
            await lock.acquire()
        except BaseException:  # cancelled while waiting: forgotten if nobody else needs it
            self._forget_chat_lock(key, lock)
            raise
        try:
            yield
        finally:
            lock.release()
            self._forget_chat_lock(key, lock)

    def _forget_chat_lock(self, key: tuple[int, int | None], lock: LeanLock) -> None:
        if not lock.locked() and not lock.waiting and self._chat_locks.get(key) is lock:
            del self._chat_locks[key]

    def add(self, table: Table) -> None:
        self.parked.pop(table.id, None)
        self.by_id[table.id] = table
        at = (table.chat_id, table.thread_id)
        there = self.by_id.get(self.where.get(at, table.id))
        # an ended table never takes its topic's place from an open one
        if table.status in S.ACTIVE or there is None or there.status not in S.ACTIVE:
            self.where[at] = table.id

    def drop(self, table: Table) -> None:
        """Forgotten here (ended or closed)."""
        self.where.pop((table.chat_id, table.thread_id), None)
        self.by_id.pop(table.id, None)

    def next_seed(self) -> int | None:
        """The seed of the next new table's match (tests, demos), or None (the OS's)."""
        return next(self._seeds) if self._seeds is not None else None

    def deep_link(self, table_id: int, seat: int | None = None) -> str:
        payload = f"j{b36(table_id)}" + (f"s{seat}" if seat is not None else "")
        return f"https://t.me/{self.username()}?start={payload}"

    def reply(self, chat_id: int, thread_id: int | None, text: str) -> None:
        """A command's answer, in order with the chat's other messages (informational: under a
        flood it gives way before the game's own messages)."""
        self.sender.post(Out(chat_id, text, None, thread_id, info=True))

    # -- storage -----------------------------------------------------------------------------
    @staticmethod
    def row(table: Table) -> S.TableRow:
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
            rev=table.rev,
        )

    async def save(
        self,
        table: Table,
        entries: list[str] | None = None,
        outbox: Sequence[bytes | tuple[int, bytes]] = (),
    ) -> list[int]:
        """Store the table (and the match's new log entries, and the messages they caused in
        the outbox: their ids). The caller holds its lock (:meth:`locked`)."""
        return await self.deployment.save(table, self.row(table), entries or [], outbox)

    async def load(self, row: S.TableRow) -> Table:
        """A stored table as it was: its match rebuilt from its actions (BadMatchRecord,
        ValueError: the stored record does not replay)."""
        assert row.table_id is not None
        st = TableState.from_json(row.state)
        take_stored(st, row.slots)
        status = TableStatus(row.status)
        table = Table(row.table_id, row.chat_id, row.thread_id, row.opener, status, st)
        lv = row.state.get("lobby_ver") if isinstance(row.state, dict) else None
        table.lobby_ver = lv if isinstance(lv, int) else 0
        table.rev = row.rev
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
            if not table.took_mem(row.mem):
                finished, _ = table.feed(events)  # the transcript again; its cheers were said
                table.lines = finished
        if table.stored_mem is None:
            table.stored_mem = table.mem()  # what a change compares its memory with
        return table

    async def reload(self, table: Table) -> None:
        """Put the table back as stored (an action whose save failed must not stand)."""
        row = await self.storage.load_table(table.id)
        if row is None:
            return
        fresh = await self.load(row)
        table.match, table.version, table.transcript = fresh.match, fresh.version, fresh.transcript
        table.lines, table.st, table.status = fresh.lines, fresh.st, fresh.status

    async def restore(self) -> list[Table]:
        """Every unfinished table from storage, registered again (a start after a stop)."""
        out: list[Table] = []
        for row in await self.storage.unfinished_tables():
            try:
                table = await self.load(row)
            except (BadMatchRecord, ValueError) as e:
                await self._broken(row, e)
                continue
            self.add(table)
            out.append(table)
        return out

    async def send_outbox(self) -> int:
        """Post the messages stored with their actions that the last run did not deliver (a
        kill between the commit and the send), in order; how many. A message that no longer
        loads (stored by an incompatible version) leaves the outbox unsent."""
        pending = await self.storage.pending_messages()
        for outbox_id, data in pending:
            try:
                out = Out.loads(data, outbox_id)
            except ValueError as e:
                log.error("%s: dropped", e)
                await self.storage.message_delivered(outbox_id)
                continue
            self.sender.post(out)
        if pending:
            log.info("%d stored message(s) sent after the restart", len(pending))
        return len(pending)

    async def _broken(self, row: S.TableRow, error: Exception) -> None:
        """A stored table that does not load (its record does not replay, or its state is not
        ours): kept as it is, but marked broken and set aside (abandoned), so that the chat can
        open a new table; the group is told once."""
        name = type(error).__name__
        log.error("table %s could not be restored (%s): set aside", row.table_id, name)
        state = dict(row.state) if isinstance(row.state, dict) else {}
        state["broken"] = name
        row.state, row.status = state, TableStatus.ABANDONED
        await self.storage.save_table(row)
        lang = (await self.chats.chat_settings(row.chat_id)).lang
        self.sender.post(Out(row.chat_id, t(lang, "bot.broken"), None, row.thread_id))

    # -- a table ends ------------------------------------------------------------------------
    async def abandon(self, table: Table) -> None:
        """The table ends here (/stop, the bot left the group): stored as abandoned, its timers
        cancelled, forgotten by its chat. The caller holds the chat's lock."""
        async with self.locked(table):
            table.status = TableStatus.ABANDONED
            await self.save(table)
            for kind in TIMERS:
                self.timers.cancel(timer_name(kind, table.id))
        self.drop(table)

    async def chat_migrated(self, old: int, new: int) -> None:
        """A group became a supergroup: its tables, settings and games move to the new id."""
        # A basic group has no topics, so (old, None) and (new, None) are the only chat locks
        # concerned: /gouji in either waits until memory and the database agree again.
        async with self.chat_lock(old, None), self.chat_lock(new, None):
            await self.storage.migrate_chat(old, new)
            for (chat, thread), tid in list(self.where.items()):
                if chat != old:
                    continue
                table = self.by_id.get(tid)
                del self.where[(chat, thread)]
                if table is not None:
                    async with self.locked(table):
                        table.chat_id = new
                    self.where[(new, thread)] = tid
        log.info("chat %d migrated to %d", old, new)

    async def bot_removed(self, chat_id: int) -> None:
        """The bot was removed from a group: its tables there end (abandoned, kept stored), in
        every topic — those that left memory idle, and (several processes) those another
        process serves, too (found in storage)."""
        for table in await self.of_chat(chat_id):
            at = (table.chat_id, table.thread_id)
            async with self.chat_lock(*at):  # as in /stop: memory and database agree
                if self.where.get(at) != table.id or self.by_id.get(table.id) is not table:
                    continue
                await self.abandon(table)
            log.info("table %d abandoned: the bot left chat %d", table.id, chat_id)


__all__ = ["Config", "Scheduler", "Tables", "UserInfo", "timer_name"]

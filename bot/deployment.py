"""How the bot is deployed, as one part chosen once where the app is built (bot.compose):
:class:`Single`, one process (SQLite), or :class:`Shared`, several processes on one PostgreSQL
database (bot.coord). The core asks it, and never which one it is, to

- **hold a table for a change** (:meth:`Deployment.hold`; with several processes also against
  the others, the copy brought up to date first, and the change stored with its messages and
  timers at the end),
- **find a table** another process may have opened, and **store** one,
- **deliver to a chat** (:meth:`Deployment.delivering`: with several processes one at a time,
  from the outbox),
- **pace calls** (the budget of calls over all chats: this process's, or all processes'),
- **make timers** (on the event loop, or stored rows any process fires),
- **start and stop**: every unfinished table resumed after a restart, or (several processes)
  loaded, and what dead processes leave taken over.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from typing import Any, Protocol

from engine.actions import IllegalAction
from engine.matchrecord import BadMatchRecord, parse_entry

from . import storage as S
from .coord import Lease, PgCoord
from .model import TableState, TableStatus
from .outbox import Out, Slot, SlotKind
from .pacing import Pace, SharedPace
from .pg_storage import PostgresStorage
from .queues import ChatQueue
from .slotstate import slot_id as kept_id
from .slotstate import take_stored
from .table import Table
from .takeover import Takeover
from .tenure import Poster, tenure
from .timers import LoopTimers, StoredTimers

log = logging.getLogger("gouji.deployment")
AfterRestart = Callable[[list[Table]], Awaitable[None]]


class Registry(Protocol):
    """What a deployment needs of the table registry (:class:`bot.tables.Tables`)."""

    storage: S.Storage
    poster: Poster  # the sender's queues, past the tenure

    def get(self, table_id: int) -> Table | None: ...

    def unpark(self, table_id: int) -> bool: ...

    def parked_at(self, chat_id: int, thread_id: int | None) -> int | None: ...

    @property
    def parked(self) -> Mapping[int, object]: ...

    def row(self, table: Table) -> S.TableRow: ...

    def at(self, chat_id: int, thread_id: int | None) -> Table | None: ...

    def add(self, table: Table) -> None: ...

    def drop(self, table: Table) -> None: ...

    async def load(self, row: S.TableRow) -> Table: ...

    def resume(self, table: Table) -> None: ...

    async def restore(self) -> list[Table]: ...

    async def send_outbox(self) -> int: ...

    def locked(self, table: Table) -> AbstractAsyncContextManager[Table]: ...

    async def find(self, table_id: int) -> Table | None: ...


class Turn(Protocol):
    """A chat's delivery by this process, while it lasts."""

    @property
    def fresh(self) -> bool:
        """Another process delivered to the chat since this one did (what it shows changed)."""

    def outdated(self, out: Out) -> bool:
        """A kept message's content older than what the chat shows (not sent)."""

    async def claim(self, out: Out) -> bool | None:
        """Just before ``out`` is sent: True to send it; False when another process delivered
        it meanwhile; None when this process no longer holds the chat's delivery (its lease
        moved while it was paused: the fencing token, bot.coord) — nothing more is sent."""


Forget = Callable[[int], Awaitable[None]]


class Deployment(Protocol):
    timers: LoopTimers

    def hold(self, tables: Registry, table: Table) -> AbstractAsyncContextManager[None]: ...

    async def slot_id(self, tables: Registry, slot: Slot) -> int | None:
        """The message id of a table's kept message (for the sender)."""

    async def find(
        self, tables: Registry, table_id: int, chat_id: int | None = None
    ) -> Table | None: ...

    async def find_at(
        self, tables: Registry, chat_id: int, thread_id: int | None
    ) -> Table | None: ...

    async def save(
        self,
        table: Table,
        row: S.TableRow,
        entries: Sequence[str],
        outbox: Sequence[bytes | tuple[int, bytes]],
    ) -> list[int]: ...

    def delivering(
        self, chat_id: int, chat: ChatQueue, forget: Forget
    ) -> AbstractAsyncContextManager[Turn]: ...

    def pace(self, per_s: float, burst: int) -> Pace: ...

    def leaves(self, table: Table) -> bool:
        """After a change: the table leaves this process's memory (another process serves it;
        storage has it)."""

    async def park(self, tables: Registry, table: Table) -> bool:
        """The table leaves memory idle: stored with what it holds besides its state (True:
        this process finds it again by its own list of parked tables)."""

    async def tables_of_user(self, user_id: int) -> list[int]:
        """Open tables of ``user_id`` this process may not hold (candidates, from storage)."""

    async def tables_of_chat(self, chat_id: int) -> list[int]:
        """Open tables of a chat, in any topic, this process may not hold (from storage)."""

    async def start(self, tables: Registry, after_restart: AfterRestart) -> int: ...

    async def leave(self) -> None:
        """No more work taken from other processes (a stop begins)."""

    async def stop(self, drained: bool) -> None: ...


class _Alone:
    """A chat's delivery with nobody to share it with."""

    fresh = False

    @staticmethod
    def outdated(out: Out) -> bool:
        return False

    @staticmethod
    async def claim(out: Out) -> bool | None:
        return True


class Single:
    """One process: every lock is the process's own, what it holds in memory is the truth, and
    a restart resumes every table from storage."""

    def __init__(self, storage: S.Storage, timers: LoopTimers | None = None) -> None:
        self.storage = storage
        self.timers = timers if timers is not None else LoopTimers()

    @asynccontextmanager
    async def hold(self, tables: Registry, table: Table) -> AsyncIterator[None]:
        yield

    async def slot_id(self, tables: Registry, slot: Slot) -> int | None:
        """As the table in memory keeps it (brought back if it left memory idle)."""
        table = await self.find(tables, slot.table)
        return None if table is None else kept_id(table.st, SlotKind(slot.kind), slot.index)

    async def find(
        self, tables: Registry, table_id: int, chat_id: int | None = None
    ) -> Table | None:
        """In memory, or brought back from storage if it left memory idle."""
        table = tables.get(table_id)
        if table is not None or table_id not in tables.parked:
            return table
        return await self._back(tables, table_id)

    async def find_at(self, tables: Registry, chat_id: int, thread_id: int | None) -> Table | None:
        table = tables.at(chat_id, thread_id)
        if table is not None:
            return table
        parked = tables.parked_at(chat_id, thread_id)
        return None if parked is None else await self._back(tables, parked)

    async def _back(self, tables: Registry, table_id: int) -> Table | None:
        """A table that left memory idle, as it was (its memory stored with it)."""
        row = await self.storage.load_table(table_id)
        if row is None or row.status not in (*S.ACTIVE, TableStatus.OVER):
            tables.unpark(table_id)
            return None
        try:
            table = await tables.load(row)
        except (BadMatchRecord, ValueError) as e:
            log.error("table %s does not load again (%s)", table_id, type(e).__name__)
            tables.unpark(table_id)
            return None
        known = tables.get(table_id)  # brought back meanwhile by another update
        if known is not None:
            return known
        tables.add(table)
        return table

    async def save(
        self,
        table: Table,
        row: S.TableRow,
        entries: Sequence[str],
        outbox: Sequence[bytes | tuple[int, bytes]],
    ) -> list[int]:
        return await self.storage.save_table(row, entries, outbox)

    @asynccontextmanager
    async def delivering(
        self, chat_id: int, chat: ChatQueue, forget: Forget
    ) -> AsyncIterator[Turn]:
        yield _Alone()

    def pace(self, per_s: float, burst: int) -> Pace:
        return Pace(per_s, burst)

    def leaves(self, table: Table) -> bool:
        return False

    async def park(self, tables: Registry, table: Table) -> bool:
        """Stored with its memory (what a press needs besides the state and the actions)."""
        if table.status not in (*S.ACTIVE, TableStatus.OVER):
            return False
        row = tables.row(table)
        row.mem = table.stored_mem = table.mem()
        await self.storage.save_table(row)
        return True

    async def tables_of_user(self, user_id: int) -> list[int]:
        return []  # every table of this process is in memory or parked

    async def tables_of_chat(self, chat_id: int) -> list[int]:
        return []  # likewise

    async def start(self, tables: Registry, after_restart: AfterRestart) -> int:
        """Every unfinished table rebuilt from storage, what the last run stored and did not
        send sent first, then each table shown again (players' views re-sent, timers
        restarted, the group told the bot is back)."""
        found = await tables.restore()
        await tables.send_outbox()
        for table in found:
            async with tables.locked(table):
                # an OVER table: its game-over message is in the chat (and bot.ready shows
                # its ready check again, if one is open)
                tables.resume(table)
        await after_restart(found)  # facts a kill left unstored, 复盘 not yet posted
        return len(found)

    async def leave(self) -> None:
        return None

    async def stop(self, drained: bool) -> None:
        return None


class _Leased:
    """A chat's delivery held by this process (bot.coord: a lease row)."""

    def __init__(self, lease: Lease, coord: PgCoord) -> None:
        self.lease = lease
        self.coord = coord
        self.lost = False

    async def claim(self, out: Out) -> bool | None:
        """The lease's generation checked where the outbox row is claimed (bot.coord.fence)."""
        held, go = await self.coord.fence(self.lease, out.outbox_id)
        if not held:
            log.warning("the delivery of chat %d moved to another process", self.lease.chat_id)
            self.lost = True
            return None
        return go

    @property
    def fresh(self) -> bool:
        return self.lease.fresh

    def outdated(self, out: Out) -> bool:
        """A kept message's content older than what another process put in place (its table's
        rev) is not sent; a newer one is remembered."""
        if out.slot is None or not out.rev:
            return False
        key = f"{out.slot.table}:{out.slot.kind}:{out.slot.index}"
        if self.lease.shown.get(key, 0) > out.rev:
            return True
        self.lease.shown[key] = out.rev
        return False


class Shared:
    """Several processes on one PostgreSQL database (bot.coord): a table is held by one process
    at a time and brought up to date first, a change is stored with the messages and timers it
    causes, a chat is delivered to by one process at a time, timers are rows any process
    fires, and what a dead process leaves is taken over (bot.takeover)."""

    def __init__(
        self, storage: PostgresStorage, timers: LoopTimers | None = None, process: str = ""
    ) -> None:
        self.storage = storage
        self.coord = PgCoord(storage, process)
        self.timers = timers if timers is not None else StoredTimers(self.coord)
        self.takeover: Takeover | None = None
        # tables loaded from storage and not yet changed here; those another process serves
        # leave memory after the change they were loaded for (:meth:`leaves`)
        self._adopted: set[int] = set()
        self._leaving: set[int] = set()

    # -- tables ---------------------------------------------------------------------------------
    @asynccontextmanager
    async def hold(self, tables: Registry, table: Table) -> AsyncIterator[None]:
        """The table held by this process alone, brought up to date with what the others
        stored first. A change is stored as it is made (the table unsettled meanwhile); at the
        end, in one transaction, the table settled with the messages the change caused (the
        outbox: if this process dies before delivering them, another does) and the timers it
        set; then the messages are sent. A table found unsettled (a process died halfway) is
        shown again first, as after a restart."""
        async with self.coord.table_lock(table.id) as stored:
            # loaded to serve this change only: another process serves the table
            stray = table.id in self._adopted and await self.coord.served_elsewhere(table.id)
            self._adopted.discard(table.id)
            if stored is not None and stored[0] != table.rev:
                await self.catch_up(tables, table)
            table.changes = 0
            with tenure() as posted:
                if stored is not None and not stored[1]:
                    tables.resume(table)  # what the process that died did not show
                yield
            mem = table.mem()  # once a change: compared with the stored one, then stored
            if table.changes or posted or mem != table.stored_mem:
                await self._settle(tables, table, posted, mem)
            else:
                await self.timers.flush()
            if stray:
                self._leaving.add(table.id)

    async def slot_id(self, tables: Registry, slot: Slot) -> int | None:
        """As stored (another process may have sent it anew; the chat's deliveries are one
        process's at a time, so what is stored is the newest), read without holding the table:
        the sender never waits for a press, nor a press for the sender. A slot not stored on
        its own: as the table's state keeps it (a table stored before slots were)."""
        kind = SlotKind(slot.kind)
        for k, index, message_id in await self.storage.load_slots(slot.table):
            if k == kind.value and index == slot.index:
                return message_id
        table = tables.get(slot.table)
        if table is not None:
            return kept_id(table.st, kind, slot.index)
        row = await self.storage.load_table(slot.table)  # (never loaded here only for this)
        return None if row is None else kept_id(TableState.from_json(row.state), kind, slot.index)

    async def _settle(
        self, tables: Registry, table: Table, posted: list[Out], mem: bytes | None = None
    ) -> None:
        """The end of a change: the table settled with its messages and timers, then sent."""
        rev = table.rev + 1  # the settling save's
        outs = [replace(out, rev=rev) for out in posted]
        new = [o for o in outs if o.outbox_id is None]
        coord = self.coord

        async def timers(tx: Any) -> None:
            async def store(
                puts: list[tuple[str, int, str, dict[str, Any], float]], drops: list[str]
            ) -> None:
                await coord.write_timers(tx, puts, drops)

            await self.timers.write(store)

        ids = await self._store(
            table,
            tables.row(table),
            [],
            [(o.chat_id, o.dumps()) for o in new],
            settle=True,
            also=timers,
            mem=mem,
        )
        stored = dict(zip(map(id, new), ids, strict=True))
        for out in outs:
            oid = stored.get(id(out))
            tables.poster.post(out if oid is None else replace(out, outbox_id=oid))

    async def save(
        self,
        table: Table,
        row: S.TableRow,
        entries: Sequence[str],
        outbox: Sequence[bytes | tuple[int, bytes]],
    ) -> list[int]:
        """Stored with what another process needs to go on (``mem``), unsettled until the
        change ends; the stored rev must be the table's (it is, under the lock)."""
        return await self._store(table, row, entries, outbox)

    async def _store(
        self,
        table: Table,
        row: S.TableRow,
        entries: Sequence[str],
        outbox: Sequence[bytes | tuple[int, bytes]],
        settle: bool = False,
        also: Callable[[Any], Awaitable[None]] | None = None,
        mem: bytes | None = None,
    ) -> list[int]:
        row.mem = table.stored_mem = table.mem() if mem is None else mem
        row.settled = settle  # a change's own saves leave it unsettled until its end
        ids = await self.storage.save_table(row, entries, outbox, expect_rev=table.rev, also=also)
        table.rev = row.rev
        table.changes += 1
        return ids

    async def find(
        self, tables: Registry, table_id: int, chat_id: int | None = None
    ) -> Table | None:
        """In memory, or as another process stored it (with ``chat_id``: only that chat's, a
        forged id never brings another chat's table here)."""
        table = tables.get(table_id)
        if table is not None:
            return table
        row = await self.storage.load_table(table_id)
        if row is None or row.status not in (*S.ACTIVE, TableStatus.OVER):
            return None
        if chat_id is not None and row.chat_id != chat_id:
            return None
        return await self._adopt(tables, row)

    async def find_at(self, tables: Registry, chat_id: int, thread_id: int | None) -> Table | None:
        """As stored: one opened, closed or ended by another process is seen here."""
        row = await self.storage.table_for_chat(chat_id, thread_id)
        if row is None:
            table = tables.at(chat_id, thread_id)
            if table is not None and table.status in S.ACTIVE:  # ended or closed elsewhere
                tables.drop(table)
            return None
        assert row.table_id is not None
        known = tables.get(row.table_id)
        return known if known is not None else await self._adopt(tables, row)

    async def _adopt(self, tables: Registry, row: S.TableRow) -> Table | None:
        try:
            table = await tables.load(row)
        except (BadMatchRecord, ValueError) as e:
            log.error("table %s does not load here (%s)", row.table_id, type(e).__name__)
            return None
        known = tables.get(table.id)
        if known is not None:  # loaded meanwhile by another update
            return known
        tables.add(table)
        self._adopted.add(table.id)
        return table

    async def catch_up(self, tables: Registry, table: Table) -> None:
        """The table as another process stored it last (its copy here is older)."""
        row = await self.storage.load_table(table.id)
        if row is None:
            return
        m = table.match
        if m is not None and row.mem is not None and row.version >= table.version:
            # the usual case: the actions since this copy's, replayed on it (a whole replay
            # costs a game's worth of them)
            try:
                new = await self.storage.load_actions(table.id, table.version)
                m.replay_into([parse_entry(e) for e in new])
                table.take_mem(row.mem)
            except (BadMatchRecord, IllegalAction, ValueError) as e:
                log.warning("table %d: caught up by a whole replay (%s)", table.id, e)
            if m.version == row.version:
                st = TableState.from_json(row.state)
                take_stored(st, row.slots)
                lv = row.state.get("lobby_ver")
                table.st, table.status, table.version = st, TableStatus(row.status), m.version
                table.lobby_ver = lv if isinstance(lv, int) else 0
                table.rev = row.rev
                return
        fresh = await tables.load(row)
        for f in dataclasses.fields(Table):
            if f.name not in ("id", "lock"):
                setattr(table, f.name, getattr(fresh, f.name))
        if tables.at(table.chat_id, table.thread_id) is None and table.status in S.ACTIVE:
            tables.add(table)

    # -- chats ----------------------------------------------------------------------------------
    @asynccontextmanager
    async def delivering(
        self, chat_id: int, chat: ChatQueue, forget: Forget
    ) -> AsyncIterator[Turn]:
        """Wait until this process delivers to the chat (one at a time, so that each message
        ends with its newest content); the chat's pace goes on from the last call any process
        made to it, and what waits for it is what the outbox holds for it."""
        while (lease := await self.coord.lease(chat_id)) is None:
            await self.coord.lease_wait(chat_id)  # its holder's notice (bot.coord), no poll
        try:
            chat.last = max(chat.last, time.monotonic() - (time.time() - lease.last_at))
            before = chat.waiting()
            rows = await self.coord.chat_outbox(chat_id)
            stored: list[Out] = []
            for outbox_id, data in rows:
                try:
                    stored.append(Out.loads(data, outbox_id))
                except ValueError as e:
                    log.error("%s: dropped", e)
                    await forget(outbox_id)
            for out in chat.refill(stored, before):
                if out.outbox_id is not None:
                    await forget(out.outbox_id)
            turn = _Leased(lease, self.coord)
            yield turn
        finally:
            lease.last_at = time.time() - (time.monotonic() - chat.last)
            await self.coord.release(lease)  # a lease that moved is another's: left alone

    def pace(self, per_s: float, burst: int) -> Pace:
        return SharedPace(self.coord, per_s, burst)

    def leaves(self, table: Table) -> bool:
        if table.id not in self._leaving:
            return False
        self._leaving.discard(table.id)
        return True

    async def park(self, tables: Registry, table: Table) -> bool:
        return False  # stored with its memory at every change; found in storage again

    async def tables_of_user(self, user_id: int) -> list[int]:
        return await self.storage.tables_of_user(user_id)

    async def tables_of_chat(self, chat_id: int) -> list[int]:
        return await self.storage.tables_of_chat(chat_id)

    # -- life -----------------------------------------------------------------------------------
    async def start(self, tables: Registry, after_restart: AfterRestart) -> int:
        """This process takes part: finished games' facts and 复盘 as after a restart (the
        unfinished tables loaded for it, then left to storage: each process holds only the
        tables it serves, loaded at their next update). Nothing is sent: a table whose last
        writer died is resumed by the takeover, whichever process finds it first; the outbox
        likewise."""
        await self.coord.start()
        found = await tables.restore()
        await after_restart(found)
        for table in found:  # each in storage: loaded by the process that serves it next
            tables.drop(table)
        self.timers.start()
        self.takeover = Takeover(tables, self.coord)
        self.takeover.start()
        log.info("process %s: %d table(s) loaded", self.coord.proc_id, len(found))
        return len(found)

    async def leave(self) -> None:
        if self.takeover is not None:
            await self.takeover.stop()

    async def stop(self, drained: bool) -> None:
        """What this process held is the others' at once (``drained`` False: messages were
        left unsent, so its tables are resumed by the others, as after a kill)."""
        await self.coord.stop(drained)


def deployment_for(
    storage: S.Storage, timers: LoopTimers | None = None, process: str = ""
) -> Single | Shared:
    """Several processes on PostgreSQL (any number of them), one on SQLite; ``timers``: a
    test's manual clock instead of the deployment's own; ``process``: this one's name among
    several (GOUJI_PROCESS)."""
    if isinstance(storage, PostgresStorage):
        return Shared(storage, timers, process)
    return Single(storage, timers)

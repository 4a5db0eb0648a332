"""Several bot processes on one PostgreSQL database (issue "beyond one machine"): what they
agree on through it, so that any process may take any update.

- **Who is alive**: each process beats in ``procs`` every :data:`BEAT_S`; one silent for
  :data:`DEAD_S` is dead, and what it held (tables last written, timers claimed, outbox
  messages, chats being delivered) is taken over by the others.
- **One table, one writer at a time**: a session advisory lock per table, on a connection of
  its own (a dead process's connection closes, and its locks go with it), and under it the
  stored ``rev`` compared with the copy in memory (:meth:`bot.tables.Tables.locked`).
- **Timers** are rows with a due time, claimed with ``FOR UPDATE SKIP LOCKED``: one process
  fires each (:class:`bot.timers.StoredTimers`).
- **A chat's messages** are delivered by one process at a time: a lease row per chat, which
  also keeps when its last call went out (its pace) and which revision of each kept message
  it shows (an older edit never overwrites a newer one).
- **Telegram's budget** of calls a second is one for all processes: a shared next-free time,
  whose turns a process takes several at a time (:class:`bot.pacing.SharedPace`).

The chats' deliveries (leases, fencing, the budget's turns) run on a small pool of connections
of their own: however many messages wait, a press's reads and writes (the table, its lock) never
queue behind them.

:class:`bot.deployment.Single` is the one-process case (SQLite): nothing to agree on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from .pg_storage import LAZY_COMMIT, PostgresStorage, _PgTx, as_it_is

log = logging.getLogger("gouji.coord")
BEAT_S = 1.0  # a process's heartbeat
LEASE_CHANNEL = "gouji_lease"  # a chat's delivery given back: NOTIFY with the chat's id
LEASE_WAIT_S = 0.5  # at most this long between two tries for a held lease (a missed notice)
DEAD_S = 4.0  # silent this long: dead, its work taken over


async def _unlocked(conn: Any) -> None:
    """A table lock's connection given back: its lock let go in the same round trip (a
    connection whose statement failed or was cancelled is closed by asyncpg: its locks go)."""
    await conn.execute("SELECT pg_advisory_unlock_all()")


@dataclass
class Lease:
    """A chat's delivery, held by this process: when the chat's last call went out (epoch s)
    and the revision each of its kept messages shows (slot key → rev)."""

    chat_id: int
    last_at: float
    shown: dict[str, int] = field(default_factory=dict)
    fresh: bool = False  # another process delivered to the chat since this one did
    generation: int = 0  # the fencing token: one more at each taking of the lease


@dataclass(frozen=True)
class TimerRow:
    name: str
    table_id: int
    kind: str
    args: dict[str, Any]
    due_at: float


class PgCoord:
    """The processes' agreements, in the PostgreSQL database of ``storage``."""

    shared = True

    def __init__(
        self,
        storage: PostgresStorage,
        name: str = "",
        lock_pool_size: int = 16,
        delivery_pool_size: int = 4,
    ) -> None:
        self.storage = storage
        host = socket.gethostname()[:20]
        self.proc_id = f"{host}:{os.getpid()}:{name}:{uuid.uuid4().hex[:6]}"
        self.lock_pool_size = lock_pool_size
        self._locks: asyncpg.Pool | None = None  # connections holding table locks
        self.delivery_pool_size = delivery_pool_size
        self._deliveries: asyncpg.Pool | None = None  # chats' deliveries and the budget
        self._beat: asyncio.Task[None] | None = None
        self.last_beat = 0.0
        self._listen: asyncpg.Connection | None = None  # hears leases given back
        self._freed: dict[int, asyncio.Event] = {}  # chat → its waiters' event

    # -- life -----------------------------------------------------------------------------------
    async def start(self) -> None:
        self.storage.owner = self.proc_id
        self._locks = await asyncpg.create_pool(
            self.storage.url, min_size=1, max_size=self.lock_pool_size, reset=_unlocked
        )
        self._deliveries = await asyncpg.create_pool(
            self.storage.url, min_size=1, max_size=self.delivery_pool_size, reset=as_it_is
        )
        await self.beat()
        self._beat = asyncio.get_running_loop().create_task(self._beating(), name="beat")
        try:
            self._listen = await asyncpg.connect(self.storage.url)
            await self._listen.add_listener(LEASE_CHANNEL, self._heard)
        except Exception:  # without notices, a held lease is tried again every LEASE_WAIT_S
            log.exception("lease notices unavailable")
            self._listen = None
        log.info("process %s joined", self.proc_id)

    async def _beating(self) -> None:
        while True:
            await asyncio.sleep(BEAT_S)
            try:
                await self.beat()
            except Exception:  # the database is away a moment: the next beat tries again
                log.exception("heartbeat failed")

    async def beat(self) -> None:
        await self._exec(
            "INSERT INTO procs (proc_id, beat_at) VALUES (?, ?)"
            " ON CONFLICT (proc_id) DO UPDATE SET beat_at = excluded.beat_at",
            self.proc_id,
            time.time(),
        )
        self.last_beat = time.time()

    async def stop(self, drained: bool = True) -> None:
        """A stop (after the timers ended and the sender drained): what this process held is
        free for the others at once, without waiting for it to be found dead. ``drained``
        False: messages were left unsent, so its tables are resumed by the others (their
        writer is gone) as after a kill."""
        if self._beat is not None:
            self._beat.cancel()
        me = self.proc_id
        try:
            async with self.storage._unit() as tx:
                if drained:
                    await tx.execute("UPDATE game_tables SET writer = NULL WHERE writer = ?", (me,))
                await tx.execute("UPDATE timers SET owner = NULL WHERE owner = ?", (me,))
                await tx.execute("UPDATE outbox SET owner = NULL WHERE owner = ?", (me,))
                await tx.execute("UPDATE deliveries SET owner = NULL WHERE owner = ?", (me,))
                await tx.execute("DELETE FROM procs WHERE proc_id = ?", (me,))
        except Exception:
            log.exception("could not hand over at stop (the others take over in %.0f s)", DEAD_S)
        for pool in (self._locks, self._deliveries):
            if pool is not None:
                await pool.close()
        self._locks = self._deliveries = None
        if self._listen is not None:
            await self._listen.close()
            self._listen = None
        log.info("process %s left", me)

    # -- tables ---------------------------------------------------------------------------------
    @asynccontextmanager
    async def table_lock(self, table_id: int) -> AsyncIterator[tuple[int, bool] | None]:
        """The table's lock across processes, held until the block ends; yields the table's
        stored rev and whether it is settled (None: no such table)."""
        assert self._locks is not None, "not started"
        async with self._locks.acquire() as conn:  # (given back: the lock let go, _unlocked)
            await conn.execute("SELECT pg_advisory_lock($1)", table_id)
            row = await conn.fetchrow(
                "SELECT rev, settled FROM game_tables WHERE table_id = $1", table_id
            )
            yield None if row is None else (int(row[0]), bool(row[1]))

    async def orphans(self) -> list[int]:
        """Tables a dead process left unsettled (it stored a change, then died before storing
        the messages and timers the change caused): another process shows them again."""
        rows = await self._rows(
            "SELECT table_id FROM game_tables WHERE settled = 0 AND (writer IS NULL OR writer"
            " NOT IN (SELECT proc_id FROM procs WHERE beat_at > ?)) ORDER BY table_id",
            time.time() - DEAD_S,
        )
        return [int(r[0]) for r in rows]

    async def alive(self, proc_id: str) -> bool:
        rows = await self._rows(
            "SELECT 1 FROM procs WHERE proc_id = ? AND beat_at > ?", proc_id, time.time() - DEAD_S
        )
        return bool(rows)

    async def writer(self, table_id: int) -> str | None:
        rows = await self._rows("SELECT writer FROM game_tables WHERE table_id = ?", table_id)
        return rows[0][0] if rows else None

    async def served_elsewhere(self, table_id: int) -> bool:
        """Whether another process, alive, stored the table's last change (it serves it)."""
        rows = await self._rows(
            "SELECT 1 FROM game_tables t JOIN procs p ON p.proc_id = t.writer"
            " WHERE t.table_id = ? AND t.writer <> ? AND p.beat_at > ?",
            table_id,
            self.proc_id,
            time.time() - DEAD_S,
        )
        return bool(rows)

    async def changed_since(self, since: float) -> list[tuple[int, int]]:
        """Open tables saved since ``since`` (epoch s): (table id, rev)."""
        rows = await self._rows(
            "SELECT table_id, rev FROM game_tables WHERE updated_at >= ?"
            " AND status IN ('lobby', 'playing', 'over')",
            since,
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    # -- timers ---------------------------------------------------------------------------------
    async def put_timers(
        self, puts: list[tuple[str, int, str, dict[str, Any], float]], drops: list[str]
    ) -> None:
        """Timers set (name, table, kind, args, due) and cancelled (names), in one transaction;
        a timer set again is free to be claimed again."""
        async with self.storage._unit() as tx:
            await self.write_timers(tx, puts, drops)

    @staticmethod
    async def write_timers(
        tx: Any, puts: list[tuple[str, int, str, dict[str, Any], float]], drops: list[str]
    ) -> None:
        """:meth:`put_timers` in a unit of work of the caller's (a table's save)."""
        if drops:
            await tx.executemany("DELETE FROM timers WHERE name = ?", [(n,) for n in drops])
        if puts:
            await tx.executemany(
                "INSERT INTO timers (name, table_id, kind, args, due_at, owner)"
                " VALUES (?, ?, ?, ?, ?, NULL) ON CONFLICT (name) DO UPDATE SET"
                " table_id = excluded.table_id, kind = excluded.kind,"
                " args = excluded.args, due_at = excluded.due_at, owner = NULL",
                [(n, tid, k, json.dumps(a), due) for n, tid, k, a, due in puts],
            )

    async def claim_timers(self, limit: int = 32) -> list[TimerRow]:
        """Due timers nobody alive has claimed, now this process's (each claimed by one)."""
        now = time.time()
        async with self.storage._unit() as tx:
            rows = await tx.fetch(
                "SELECT name, table_id, kind, args, due_at FROM timers WHERE due_at <= ?"
                " AND (owner IS NULL OR owner NOT IN"
                " (SELECT proc_id FROM procs WHERE beat_at > ?))"
                " ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED",
                (now, now - DEAD_S, limit),
            )
            if rows:
                await tx.executemany(
                    "UPDATE timers SET owner = ? WHERE name = ?",
                    [(self.proc_id, r[0]) for r in rows],
                )
        return [TimerRow(r[0], int(r[1]), r[2], json.loads(r[3]), float(r[4])) for r in rows]

    async def timer_done(self, name: str, due_at: float) -> None:
        """A claimed timer has run (one set again meanwhile stays)."""
        await self._exec(
            "DELETE FROM timers WHERE name = ? AND due_at = ? AND owner = ?",
            name,
            due_at,
            self.proc_id,
        )

    # -- the outbox -----------------------------------------------------------------------------
    async def adopt_outbox(self) -> list[tuple[int, bytes]]:
        """Messages stored by a process that died (or stopped) before delivering them: now
        this one's to deliver, oldest first."""
        rows = await self._rows(
            "UPDATE outbox SET owner = ? WHERE outbox_id IN (SELECT outbox_id FROM outbox"
            " WHERE owner IS NULL OR owner NOT IN (SELECT proc_id FROM procs WHERE beat_at > ?)"
            " FOR UPDATE SKIP LOCKED) RETURNING outbox_id, message",
            self.proc_id,
            time.time() - DEAD_S,
            write=True,
        )
        return sorted((int(r[0]), bytes(r[1])) for r in rows)

    async def chat_outbox(self, chat_id: int) -> list[tuple[int, bytes]]:
        """The chat's stored messages not yet delivered, whichever process stored them, in the
        order they were stored (for the process delivering to the chat)."""
        rows = await self._delivery(
            "SELECT outbox_id, message FROM outbox WHERE chat_id = ? ORDER BY outbox_id", chat_id
        )
        return [(int(r[0]), bytes(r[1])) for r in rows]

    # -- chats' deliveries ----------------------------------------------------------------------
    async def lease(self, chat_id: int) -> Lease | None:
        """The chat's delivery for this process, unless a live one holds it."""
        now = time.time()
        rows = await self._delivery(
            "WITH old AS (SELECT holder FROM deliveries WHERE chat_id = ?)"
            " INSERT INTO deliveries (chat_id, owner, holder, last_at, shown)"
            " VALUES (?, ?, ?, 0, '{}') ON CONFLICT (chat_id) DO UPDATE"
            " SET owner = excluded.owner, holder = excluded.owner,"
            " generation = deliveries.generation + 1"
            " WHERE deliveries.owner IS NULL OR deliveries.owner = excluded.owner"
            " OR deliveries.owner NOT IN (SELECT proc_id FROM procs WHERE beat_at > ?)"
            " RETURNING last_at, shown, (SELECT holder FROM old), generation",
            chat_id,
            chat_id,
            self.proc_id,
            self.proc_id,
            now - DEAD_S,
        )
        if not rows:
            return None
        last_at, shown, before, generation = rows[0]
        raw = json.loads(shown)
        revs = raw if isinstance(raw, dict) else {}
        fresh = before != self.proc_id  # another process may have changed what it shows
        shows = {str(k): int(v) for k, v in revs.items()}
        return Lease(chat_id, float(last_at), shows, fresh, int(generation))

    async def fence(self, lease: Lease, outbox_id: int | None) -> tuple[bool, bool]:
        """Before a call to the lease's chat: whether this process still holds the lease at
        its generation (the fencing token: a process paused past its lease — another took
        the chat meanwhile — never sends after it), and whether the stored message
        ``outbox_id`` is still there to send (claimed now for this process; gone: another
        delivered it). One statement, where the outbox row is claimed."""
        rows = await self._delivery(
            "WITH fence AS (SELECT 1 AS held FROM deliveries"
            " WHERE chat_id = ? AND owner = ? AND generation = ?),"
            " claim AS (UPDATE outbox SET owner = ? WHERE outbox_id = ?"
            " AND EXISTS (SELECT 1 FROM fence) RETURNING outbox_id)"
            " SELECT (SELECT count(*) FROM fence), (SELECT count(*) FROM claim)",
            lease.chat_id,
            self.proc_id,
            lease.generation,
            self.proc_id,
            -1 if outbox_id is None else outbox_id,
        )
        held, claimed = (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)
        return held > 0, held > 0 and (outbox_id is None or claimed > 0)

    async def release(self, lease: Lease) -> None:
        """The chat's delivery given back, with its pace and what its messages show; the
        processes waiting for it hear so at once (NOTIFY, sent at the commit)."""
        await self._delivery(
            "WITH freed AS (UPDATE deliveries SET owner = NULL, last_at = ?, shown = ?"
            " WHERE chat_id = ? AND owner = ? RETURNING chat_id)"
            " SELECT pg_notify(?, chat_id::text) FROM freed",
            lease.last_at,
            json.dumps(lease.shown),
            lease.chat_id,
            self.proc_id,
            LEASE_CHANNEL,
        )

    async def lease_wait(self, chat_id: int) -> None:
        """Until another process gives the chat's delivery back (its notice), or
        :data:`LEASE_WAIT_S` at most (a notice missed, a holder that died): no polling."""
        event = self._freed.setdefault(chat_id, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), LEASE_WAIT_S)
        except TimeoutError:
            pass
        finally:
            if self._freed.get(chat_id) is event and event.is_set():
                del self._freed[chat_id]

    def _heard(self, conn: object, pid: int, channel: str, payload: object) -> None:
        try:
            chat_id = int(str(payload))
        except ValueError:
            return
        event = self._freed.pop(chat_id, None)
        if event is not None:
            event.set()

    async def pace(self, interval: float, turns: int = 1, after: float = 0.0) -> float:
        """``turns`` turns in a row in the bot's budget of calls over all processes, the first
        ``after`` seconds from now at the soonest: when the first is (epoch s; the others
        follow it ``interval`` apart)."""
        now = time.time() + after
        span = interval * turns
        rows = await self._delivery(
            "INSERT INTO pace (name, next_at) VALUES ('bot', ?) ON CONFLICT (name) DO UPDATE"
            " SET next_at = greatest(pace.next_at, excluded.next_at - ?) + ? RETURNING next_at",
            now + span,
            span,
            span,
            lazy=True,  # the budget's turns: lost in a crash of the database, no harm
        )
        return float(rows[0][0]) - span

    # -- plumbing -------------------------------------------------------------------------------
    async def _rows(self, sql: str, *args: Any, write: bool = False) -> list[tuple[Any, ...]]:
        async with self.storage._unit(write=write) as tx:
            return await tx.fetch(sql, args)

    async def _delivery(self, sql: str, *args: Any, lazy: bool = False) -> list[tuple[Any, ...]]:
        """One statement of the chats' deliveries, in a transaction on their own pool;
        ``lazy``: its commit not awaited on disk (bookkeeping a crash of the database may
        lose)."""
        assert self._deliveries is not None, "not started"
        async with self._deliveries.acquire() as conn:
            tx = _PgTx(conn)
            if not lazy:  # one statement: its own transaction (no BEGIN, COMMIT round trips)
                return await tx.fetch(sql, args)
            async with conn.transaction():
                await tx.execute(LAZY_COMMIT)
                return await tx.fetch(sql, args)

    async def _exec(self, sql: str, *args: Any) -> None:
        """One statement: its own transaction (no BEGIN, COMMIT round trips)."""
        async with self.storage._unit(write=False) as tx:
            await tx.execute(sql, args)


__all__ = ["BEAT_S", "DEAD_S", "Lease", "PgCoord", "TimerRow"]

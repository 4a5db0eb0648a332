"""`Storage` in SQL, once for both backends: every statement is written in the SQL SQLite and
PostgreSQL both accept (``?`` placeholders, ``ON CONFLICT``, ``RETURNING``, row values), run
through a unit of work (:class:`Tx`) that each backend provides — :class:`bot.sqlite_storage.
SqliteStorage` on one aiosqlite connection, :class:`bot.pg_storage.PostgresStorage` on an
asyncpg pool. What differs is said by the backend: the expression of the one-open-table index,
row locks for the version check, and which driver errors are integrity errors.

Table saves that arrive together share one transaction (group commit: one commit per burst),
each still refused or stored on its own.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar, Protocol, Self

from .model import TableStatus
from .small_writes import SmallWrite, settle, wait_for, write_small
from .storage_interface import (
    OVER_KEPT_S,
    STATUSES,
    ChatRow,
    StorageError,
    TableExists,
    TableNotFound,
    TableRow,
    UserRow,
    VersionConflict,
)

OPEN_TABLE_INDEX = "game_tables_active"  # the one-open-table-per-topic index (schema v1)
TABLE_COLUMNS = (
    "table_id, chat_id, thread_id, status, opener, state, version, created_at, updated_at, rev, mem"
)


class Tx(Protocol):
    """One unit of work on a backend's connection: SQL with ``?`` placeholders."""

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Runs one statement; the rows it changed."""

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Runs one statement (a query, or a write with ``RETURNING``); its rows."""


def dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def loads(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise StorageError(f"stored JSON is not an object: {text[:60]!r}")
    return value


def _table(r: Iterable[Any]) -> TableRow:
    tid, chat, thread, status, opener, state, version, created, updated, rev, mem = r
    return TableRow(
        tid,
        chat,
        thread,
        TableStatus(status),
        opener,
        loads(state),
        version,
        created,
        updated,
        rev,
        None if mem is None else bytes(mem),
    )


def _check_status(status: str) -> None:
    if status not in STATUSES or not isinstance(status, str):
        raise ValueError(f"unknown table status {status!r}; expected one of {STATUSES}")


@dataclass
class _Save:
    """One table save waiting for its batch: the row's values as they were when it was asked."""

    table_id: int
    chat_id: int
    thread_id: int | None
    status: str
    state: str  # JSON
    version: int
    base: int  # the version before the new actions
    actions: list[str]
    outbox: list[bytes | tuple[int, bytes]]  # a message, or (its chat, the message)
    now: float
    done: asyncio.Future[list[int]]
    rev: int | None  # the stored rev a shared writer expects (None: not compared)
    mem: bytes | None
    settled: bool
    also: Callable[[Tx], Awaitable[None]] | None
    started: bool = False  # its batch has begun: it will be stored whole or refused
    dropped: bool = False  # cancelled before its batch began: never written


class SqlStorage:
    """The `Storage` methods, on a backend's units of work. A backend sets the class
    attributes and implements `open`, `close`, `_unit` and `_integrity`."""

    thread_key: ClassVar[str]  # the one-open-table index's expression of thread_id
    lock_rows: ClassVar[str]  # appended to the version check's SELECT
    integrity_errors: ClassVar[tuple[type[Exception], ...]]  # the driver's constraint errors
    where: str  # the database, for messages (never a password)
    # the process writing (bot.coord, when several share the database): the tables it saves
    # and the outbox messages it stores are its own
    owner: str | None = None
    # small writes (a slot's message id, a file_id, an outbox row gone) in the group commit
    # rather than a transaction each: where writes queue behind one another (bot.small_writes)
    group_small: ClassVar[bool] = False

    def __init__(self) -> None:
        self._saves: list[_Save] = []  # waiting for the next group commit
        self._small: list[SmallWrite] = []  # small writes waiting for it (group_small)
        self._committer: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- what a backend provides ----------------------------------------------------------------

    async def open(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def _unit(self, write: bool = True) -> AbstractAsyncContextManager[Tx]:
        """One short unit of work: a write unit is one transaction, rolled back on any error
        or cancellation. `StorageError` once the storage is closed."""
        raise NotImplementedError

    def _small_unit(self) -> AbstractAsyncContextManager[Tx]:
        """The unit of a group commit of small writes alone (bot.small_writes)."""
        return self._unit()

    def _bookkeeping(self) -> AbstractAsyncContextManager[Tx]:
        """A write unit of bookkeeping a crash of the database may lose (which updates were
        seen): its commit need not reach the disk before it returns, where the database can
        tell so (PostgreSQL); others see it at once all the same."""
        return self._unit()

    @staticmethod
    def _integrity(e: Exception) -> str | None:
        """Which constraint an integrity error broke: ``"open_table"`` (the one-open-table
        index), ``"foreign_key"``, or None for another."""
        raise NotImplementedError

    # -- reads ------------------------------------------------------------------------------------

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        async with self._unit(write=False) as tx:
            return await tx.fetch(sql, args)

    async def _first(self, sql: str, args: Sequence[Any] = ()) -> Any:
        rows = await self._rows(sql, args)
        return rows[0] if rows else None

    def _open_table_clash(self, e: Exception, message: str) -> Exception:
        """`TableExists` for a clash on the one-open-table index; any other error as is."""
        return TableExists(message) if self._integrity(e) == "open_table" else e

    # -- chats and users --------------------------------------------------------------------------

    async def get_chat(self, chat_id: int) -> ChatRow | None:
        r = await self._first("SELECT lang, settings FROM chats WHERE chat_id = ?", (chat_id,))
        return None if r is None else ChatRow(chat_id, r[0], loads(r[1]))

    async def save_chat(self, row: ChatRow) -> None:
        async with self._unit() as tx:
            await tx.execute(
                "INSERT INTO chats (chat_id, lang, settings, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET lang = excluded.lang,"
                " settings = excluded.settings, updated_at = excluded.updated_at",
                (row.chat_id, row.lang, dumps(row.settings), time.time()),
            )

    async def get_user(self, user_id: int) -> UserRow | None:
        r = await self._first(
            "SELECT name, lang, dm_ok, updated_at FROM users WHERE user_id = ?", (user_id,)
        )
        return None if r is None else UserRow(user_id, r[0], r[1], bool(r[2]), r[3])

    async def save_user(self, row: UserRow) -> None:
        now = time.time()
        async with self._unit() as tx:
            await tx.execute(
                "INSERT INTO users (user_id, name, lang, dm_ok, updated_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, lang = excluded.lang,"
                " dm_ok = excluded.dm_ok, updated_at = excluded.updated_at",
                (row.user_id, row.name, row.lang, int(row.dm_ok), now),
            )
        row.updated_at = now

    # -- tables -----------------------------------------------------------------------------------

    async def create_table(self, row: TableRow) -> TableRow:
        if row.table_id is not None:
            raise ValueError(f"table already created (table_id={row.table_id})")
        _check_status(row.status)
        now, state = time.time(), dumps(row.state)
        try:
            async with self._unit() as tx:
                ((table_id,),) = await tx.fetch(
                    "INSERT INTO game_tables (chat_id, thread_id, status, opener, state, version,"
                    " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?) RETURNING table_id",
                    (row.chat_id, row.thread_id, str(row.status), row.opener, state, now, now),
                )
        except self.integrity_errors as e:
            msg = f"chat {row.chat_id} thread {row.thread_id} already has an open table"
            raise self._open_table_clash(e, msg) from e
        row.table_id, row.version, row.created_at, row.updated_at = int(table_id), 0, now, now
        return row

    async def save_table(
        self,
        row: TableRow,
        new_actions: Sequence[str] = (),
        outbox: Sequence[bytes | tuple[int, bytes]] = (),
        expect_rev: int | None = None,
        also: Callable[[Tx], Awaitable[None]] | None = None,
    ) -> list[int]:
        """Stores the row, its new actions and the messages they caused. Saves that arrive
        while another batch is being committed are committed together (group commit): each is
        still refused or stored on its own, but a burst of presses across many tables costs one
        commit, not one each."""
        if row.table_id is None:
            raise ValueError("save_table needs a created table (table_id is None)")
        if isinstance(new_actions, str):
            raise TypeError("new_actions is a sequence of action strings, not one string")
        _check_status(row.status)
        base = row.version - len(new_actions)
        if base < 0:
            raise ValueError(f"version {row.version} < {len(new_actions)} new actions")
        now = time.time()
        save = _Save(
            row.table_id,
            row.chat_id,
            row.thread_id,
            str(row.status),
            dumps(row.state),
            row.version,
            base,
            list(new_actions),
            list(outbox),
            now,
            asyncio.get_running_loop().create_future(),
            expect_rev,
            row.mem,
            row.settled,
            also,
        )
        self._saves.append(save)
        self._commit_soon()
        try:
            ids = await asyncio.shield(save.done)
        except asyncio.CancelledError:
            # cancelled before its batch began: never written; after: the cancellation waits
            # for the batch's end, so whoever reads next sees the write whole or not at all
            save.dropped = not save.started
            if save.started:
                await asyncio.wait({save.done})
                save.done.exception()  # retrieved: the caller is gone
            raise
        row.updated_at = now
        row.rev = (expect_rev if expect_rev is not None else row.rev) + 1
        return ids

    def _commit_soon(self) -> None:
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_saves())

    async def _write_small(self, sql: str, args: Sequence[Any]) -> None:
        """One statement of a delivery's bookkeeping: in the next group commit where the
        backend says so (:attr:`group_small`), else a unit of work of its own."""
        if not self.group_small:
            async with self._unit() as tx:
                await tx.execute(sql, args)
            return
        write = SmallWrite(sql, tuple(args), asyncio.get_running_loop().create_future())
        self._small.append(write)
        self._commit_soon()
        await wait_for(write)

    async def _commit_saves(self) -> None:
        while self._saves or self._small:
            batch = [s for s in self._saves if not s.dropped]
            small = [w for w in self._small if not w.dropped]
            self._saves, self._small = [], []
            for save in batch:
                save.started = True
            for write in small:
                write.started = True
            if not batch and not small:
                continue
            try:
                async with self._unit() if batch else self._small_unit() as tx:
                    outcomes = await self._write_batch(tx, batch) if batch else []
                    small_outcomes = await write_small(tx, small) if small else []
            except BaseException as e:  # not committed: none of the batch is stored
                for save in batch:
                    if not save.done.done():
                        save.done.set_exception(e)
                settle(small, e)
                if isinstance(e, asyncio.CancelledError):
                    raise
                continue
            settle(small, small_outcomes)
            for save, outcome in zip(batch, outcomes, strict=True):
                if save.done.done():
                    continue
                if isinstance(outcome, list):
                    save.done.set_result(outcome)
                else:
                    save.done.set_exception(outcome)

    async def _write_batch(self, tx: Tx, batch: list[_Save]) -> list[StorageError | list[int]]:
        """A batch in a fixed number of statements, whatever its size: the stored versions
        read at once (and locked, where the backend locks rows), stale writers refused here,
        then all updates and all new actions each in one ``executemany``, under one savepoint.
        A clash on the one-open-table index (a table reopened beside another) undoes the
        batch, which is then written save by save, each under its own savepoint, so only the
        clashing one is refused."""
        await tx.execute("SAVEPOINT batch")
        try:
            outcomes = await self._write_all(tx, batch)
        except self.integrity_errors as e:
            await tx.execute("ROLLBACK TO SAVEPOINT batch")
            await tx.execute("RELEASE SAVEPOINT batch")
            if len(batch) > 1:
                return [(await self._write_batch(tx, [save]))[0] for save in batch]
            save = batch[0]
            msg = f"chat {save.chat_id} thread {save.thread_id} already has an open table"
            clash = self._open_table_clash(e, msg)
            if isinstance(clash, StorageError):
                return [clash]
            raise
        await tx.execute("RELEASE SAVEPOINT batch")
        return outcomes

    async def _write_all(self, tx: Tx, batch: list[_Save]) -> list[StorageError | list[int]]:
        ids = sorted({s.table_id for s in batch})
        marks = ", ".join("?" * len(ids))
        rows = await tx.fetch(
            f"SELECT table_id, version, rev FROM game_tables WHERE table_id IN ({marks})"
            f" ORDER BY table_id{self.lock_rows}",
            ids,
        )
        stored: dict[int, int] = {r[0]: r[1] for r in rows}
        revs: dict[int, int] = {r[0]: r[2] for r in rows}
        outcomes: list[StorageError | list[int]] = []
        updates: list[tuple[Any, ...]] = []
        actions: list[tuple[int, int, str]] = []
        for save in batch:
            at = stored.get(save.table_id)
            if at is None:
                outcomes.append(TableNotFound(f"no table {save.table_id}"))
                continue
            if at != save.base:
                msg = f"table {save.table_id} is at version {at}, the writer expected {save.base}"
                outcomes.append(VersionConflict(msg))
                continue
            if save.rev is not None and revs[save.table_id] != save.rev:
                msg = f"table {save.table_id} is at rev {revs[save.table_id]}, not {save.rev}"
                outcomes.append(VersionConflict(msg))
                continue
            stored[save.table_id] = save.version  # a later save of the same table follows it
            revs[save.table_id] += 1
            outcomes.append([])
            updates.append(
                (
                    save.status,
                    save.state,
                    save.version,
                    save.now,
                    save.mem,
                    self.owner,
                    int(save.settled),
                    save.table_id,
                )
            )
            actions += [(save.table_id, save.base + i, a) for i, a in enumerate(save.actions)]
        if updates:
            await tx.executemany(
                "UPDATE game_tables SET status = ?, state = ?, version = ?, updated_at = ?,"
                " mem = ?, writer = ?, settled = ?, rev = rev + 1 WHERE table_id = ?",
                updates,
            )
        if actions:
            await tx.executemany(
                "INSERT INTO actions (table_id, seq, action) VALUES (?, ?, ?)", actions
            )
        for save, outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, list):  # stored: its messages join the outbox (rare: cheers)
                for message in save.outbox:
                    chat, data = message if isinstance(message, tuple) else (None, message)
                    outcome.append(
                        await self.put_in_outbox(tx, save.table_id, data, save.now, chat)
                    )
                if save.also is not None:
                    await save.also(tx)
        return outcomes

    async def put_in_outbox(
        self, tx: Tx, table_id: int, message: bytes, now: float, chat_id: int | None = None
    ) -> int:
        """A message into the outbox, in the unit of work that caused it (this process
        delivers it), to ``chat_id`` (by default the table's group); its outbox id."""
        ((outbox_id,),) = await tx.fetch(
            "INSERT INTO outbox (table_id, chat_id, owner, message, created_at)"
            " SELECT table_id, coalesce(?, chat_id), ?, ?, ? FROM game_tables"
            " WHERE table_id = ? RETURNING outbox_id",
            (chat_id, self.owner, message, now, table_id),
        )
        return int(outbox_id)

    async def pending_messages(self) -> list[tuple[int, bytes]]:
        rows = await self._rows("SELECT outbox_id, message FROM outbox ORDER BY outbox_id")
        return [(int(r[0]), bytes(r[1])) for r in rows]

    async def message_delivered(self, outbox_id: int) -> None:
        await self._write_small("DELETE FROM outbox WHERE outbox_id = ?", (outbox_id,))

    async def load_table(self, table_id: int) -> TableRow | None:
        r = await self._first(
            f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE table_id = ?", (table_id,)
        )
        return None if r is None else await self._with_slots(_table(r))

    async def table_for_chat(self, chat_id: int, thread_id: int | None = None) -> TableRow | None:
        r = await self._first(
            f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE chat_id = ?"
            f" AND {self.thread_key} = ? AND status IN ('lobby', 'playing')",
            (chat_id, thread_id or 0),
        )
        return None if r is None else await self._with_slots(_table(r))

    async def _with_slots(self, row: TableRow) -> TableRow:
        assert row.table_id is not None
        row.slots = tuple(await self.load_slots(row.table_id))
        return row

    async def save_slot(self, table_id: int, kind: str, index: int, message_id: int) -> None:
        await self._write_small(
            "INSERT INTO slots (table_id, kind, idx, message_id)"
            " SELECT table_id, CAST(? AS TEXT), CAST(? AS INTEGER), CAST(? AS BIGINT)"
            " FROM game_tables WHERE table_id = ?"
            " ON CONFLICT (table_id, kind, idx) DO UPDATE SET message_id = excluded.message_id",
            (kind, index, message_id, table_id),
        )

    async def load_slots(self, table_id: int) -> list[tuple[str, int, int]]:
        rows = await self._rows(
            "SELECT kind, idx, message_id FROM slots WHERE table_id = ? ORDER BY kind, idx",
            (table_id,),
        )
        return [(str(r[0]), int(r[1]), int(r[2])) for r in rows]

    async def load_actions(self, table_id: int, since: int = 0) -> list[str]:
        rows = await self._rows(
            "SELECT action FROM actions WHERE table_id = ? AND seq >= ? ORDER BY seq",
            (table_id, since),
        )
        return [r[0] for r in rows]

    async def unfinished_tables(self) -> list[TableRow]:
        rows = await self._rows(
            f"SELECT {TABLE_COLUMNS} FROM game_tables WHERE status IN ('lobby', 'playing')"
            " OR (status = 'over' AND updated_at > ?) ORDER BY table_id",
            (time.time() - OVER_KEPT_S,),
        )
        return [await self._with_slots(_table(r)) for r in rows]

    async def tables_of_user(self, user_id: int) -> list[int]:
        """The open tables whose stored seats name ``user_id`` (seated, or their seat taken
        over by the AI): a candidate list, each to be checked against its state."""
        rows = await self._rows(
            "SELECT table_id FROM game_tables WHERE (status IN ('lobby', 'playing')"
            " OR (status = 'over' AND updated_at > ?)) AND (state LIKE ? OR state LIKE ?)"
            " ORDER BY table_id",
            (time.time() - OVER_KEPT_S, f'%"user": {int(user_id)}%', f'%"away": {int(user_id)}%'),
        )
        return [int(r[0]) for r in rows]

    async def tables_of_chat(self, chat_id: int) -> list[int]:
        """The chat's open tables, in any topic (as :meth:`unfinished_tables`)."""
        rows = await self._rows(
            "SELECT table_id FROM game_tables WHERE chat_id = ? AND (status IN ('lobby', 'playing')"
            " OR (status = 'over' AND updated_at > ?)) ORDER BY table_id",
            (chat_id, time.time() - OVER_KEPT_S),
        )
        return [int(r[0]) for r in rows]

    # -- finished games ---------------------------------------------------------------------------

    async def save_game(
        self, table_id: int, chat_id: int, number: int, record: dict[str, Any]
    ) -> None:
        try:
            async with self._unit() as tx:
                await tx.execute(
                    "INSERT INTO games (table_id, number, chat_id, record, created_at)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, number) DO NOTHING",
                    (table_id, number, chat_id, dumps(record), time.time()),
                )
        except self.integrity_errors as e:
            if self._integrity(e) != "foreign_key":
                raise
            raise TableNotFound(f"no table {table_id}") from e

    async def games(self, chat_id: int, limit: int = 20) -> list[dict[str, Any]]:
        rows = await self._rows(
            "SELECT record FROM games WHERE chat_id = ?"
            " ORDER BY created_at DESC, table_id DESC, number DESC LIMIT ?",
            (chat_id, limit),
        )
        return [loads(r[0]) for r in rows]

    async def get_upload(self, digest: str) -> str | None:
        row = await self._first("SELECT file_id FROM uploads WHERE digest = ?", (digest,))
        return str(row[0]) if row else None

    async def save_upload(self, digest: str, file_id: str) -> None:
        await self._write_small(
            "INSERT INTO uploads (digest, file_id, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (digest) DO NOTHING",
            (digest, file_id, time.time()),
        )

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        if old_chat_id == new_chat_id:
            return
        try:
            async with self._unit() as tx:
                # the settings move unless the new chat has its own (then those stay)
                await tx.execute(
                    "INSERT INTO chats (chat_id, lang, settings, updated_at)"
                    " SELECT CAST(? AS BIGINT), lang, settings, updated_at FROM chats"
                    " WHERE chat_id = ? ON CONFLICT (chat_id) DO NOTHING",
                    (new_chat_id, old_chat_id),
                )
                await tx.execute("DELETE FROM chats WHERE chat_id = ?", (old_chat_id,))
                for table in ("game_tables", "games", "game_facts", "badges"):
                    await tx.execute(
                        f"UPDATE {table} SET chat_id = ? WHERE chat_id = ?",
                        (new_chat_id, old_chat_id),
                    )
        except self.integrity_errors as e:
            msg = f"chats {old_chat_id} and {new_chat_id} both have an open table in one topic"
            raise self._open_table_clash(e, msg) from e

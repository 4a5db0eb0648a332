"""The bot's storage: one small interface (`Storage`), SQLite now through aiosqlite.

Plain dataclasses go in and out; flexible fields are JSON-able dicts the storage never looks into,
so a PostgreSQL implementation can follow without touching the bot. A table's match is stored as
its action log (one row per action, numbered from 0) beside the table's opaque `state`;
`TableRow.version` counts the stored actions and guards every write (optimistic concurrency).

SQLite specifics (shared/TELEGRAM_NOTES.md, "aiosqlite"): one connection in autocommit mode, WAL,
synchronous=FULL (a lost last action matters), foreign keys on; each unit of work holds an
`asyncio.Lock` and runs in `BEGIN IMMEDIATE … COMMIT`, ROLLBACK on error. Table saves that
arrive together share one transaction (group commit: one disk sync per burst), each still
refused or stored on its own.
The schema is versioned with `PRAGMA user_version`: `MIGRATIONS[i]` takes a database from version
i to i+1, each in its own transaction at open; a later version only appends scripts.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import aiosqlite

from .model import TableStatus

ACTIVE = (TableStatus.LOBBY, TableStatus.PLAYING)  # a (chat, thread) has at most one table so
STATUSES = tuple(TableStatus)
OVER_KEPT_S = 86400.0  # a finished game's 再来一局 still works after a restart within a day


@dataclass
class ChatRow:
    chat_id: int
    lang: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # opaque to storage


@dataclass
class UserRow:
    user_id: int
    name: str
    lang: str | None = None
    dm_ok: bool = False
    updated_at: float = 0.0  # set by the storage on save


@dataclass
class TableRow:
    table_id: int | None  # None until created
    chat_id: int
    thread_id: int | None  # forum topic
    status: TableStatus
    opener: int  # user id
    state: dict[str, Any]  # opaque JSON
    version: int = 0  # number of match actions stored (== len(actions))
    created_at: float = 0.0  # set by the storage
    updated_at: float = 0.0  # set by the storage


class StorageError(Exception):
    """Base of the errors this module raises on purpose."""


class TableExists(StorageError):
    """The chat (topic) already has a lobby or playing table."""


class VersionConflict(StorageError):
    """A writer's version is stale: somebody else stored actions first. Nothing was written."""


class TableNotFound(StorageError, LookupError):
    """No table with that id."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot than this one."""


class Storage(Protocol):
    """What the bot codes against. Rows go in and out as the dataclasses above; the storage sets
    the timestamps (and writes them back on the rows it is given)."""

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def get_chat(self, chat_id: int) -> ChatRow | None: ...
    async def save_chat(self, row: ChatRow) -> None: ...
    async def get_user(self, user_id: int) -> UserRow | None: ...
    async def save_user(self, row: UserRow) -> None: ...

    async def create_table(self, row: TableRow) -> TableRow:
        """Stores a new table (no actions yet): fills in `table_id`, `version` = 0 and the
        timestamps on `row` and returns it. `TableExists` if the chat (topic) has an open one."""

    async def save_table(
        self, row: TableRow, new_actions: Sequence[str] = (), outbox: Sequence[bytes] = ()
    ) -> list[int]:
        """One transaction: appends `new_actions` as seq `row.version - len(new_actions)` …
        `row.version - 1`, stores status, state and version (chat, thread and opener are fixed
        at creation) and puts the messages those actions caused (`outbox`, opaque) in the
        outbox; their outbox ids, in order. `VersionConflict`, nothing written, unless the
        stored version is `row.version - len(new_actions)`; `TableExists` when reopening beside
        an open table."""

    async def pending_messages(self) -> list[tuple[int, bytes]]:
        """The outbox: messages stored with their actions and not yet delivered, oldest first
        (id, message)."""

    async def message_delivered(self, outbox_id: int) -> None:
        """An outbox message was delivered (or can never be): it leaves the outbox."""

    async def load_table(self, table_id: int) -> TableRow | None: ...

    async def table_for_chat(self, chat_id: int, thread_id: int | None = None) -> TableRow | None:
        """The chat's (topic's) lobby or playing table, if any."""

    async def load_actions(self, table_id: int) -> list[str]: ...
    async def unfinished_tables(self) -> list[TableRow]:
        """Lobby and playing tables, and tables whose game ended within ``OVER_KEPT_S`` (their
        再来一局 button carries the match on), oldest first."""
        ...

    async def save_game(
        self, table_id: int, chat_id: int, number: int, record: dict[str, Any]
    ) -> None:
        """Stores game `number` of a table (a RECORDS.md record). Idempotent: the first record
        saved for (table_id, number) stays. `TableNotFound` for an unknown table."""

    async def games(self, chat_id: int, limit: int = 20) -> list[dict[str, Any]]:
        """The chat's game records, newest first."""

    async def get_upload(self, digest: str) -> str | None:
        """The file_id of a picture uploaded before (by the digest of its bytes)."""

    async def save_upload(self, digest: str, file_id: str) -> None:
        """Remember a picture's file_id (the first one stays)."""

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its settings, tables and games move to the new id (a
        settings row the new chat already has is kept). `TableExists`, nothing moved, if both
        chats have an open table in the same topic."""


# Version 1. `ifnull(thread_id, 0)`: a chat without topics is thread 0 (real topic ids are > 1),
# so the partial unique index also holds for NULL threads.
_V1 = """
CREATE TABLE chats (chat_id INTEGER PRIMARY KEY, lang TEXT, settings TEXT NOT NULL,
    updated_at REAL NOT NULL);
CREATE TABLE users (user_id INTEGER PRIMARY KEY, name TEXT NOT NULL, lang TEXT,
    dm_ok INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL);
CREATE TABLE game_tables (
    table_id INTEGER PRIMARY KEY AUTOINCREMENT, chat_id INTEGER NOT NULL, thread_id INTEGER,
    status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'over', 'abandoned')),
    opener INTEGER NOT NULL, state TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
    created_at REAL NOT NULL, updated_at REAL NOT NULL);
CREATE UNIQUE INDEX game_tables_active ON game_tables (chat_id, ifnull(thread_id, 0))
    WHERE status IN ('lobby', 'playing');
CREATE INDEX game_tables_chat ON game_tables (chat_id);
CREATE INDEX game_tables_status ON game_tables (status);
CREATE TABLE actions (
    table_id INTEGER NOT NULL REFERENCES game_tables (table_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL CHECK (seq >= 0), action TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)) WITHOUT ROWID;
CREATE TABLE games (
    table_id INTEGER NOT NULL REFERENCES game_tables (table_id) ON DELETE CASCADE,
    number INTEGER NOT NULL, chat_id INTEGER NOT NULL, record TEXT NOT NULL,
    created_at REAL NOT NULL, PRIMARY KEY (table_id, number));
CREATE INDEX games_chat ON games (chat_id, created_at);
"""

# Version 2: pictures the bot has uploaded, by a digest of their bytes, with the file_id
# Telegram gave them (sent again by file_id, not uploaded again).
_V2 = """
CREATE TABLE uploads (digest TEXT PRIMARY KEY, file_id TEXT NOT NULL, created_at REAL NOT NULL)
    WITHOUT ROWID;
"""

# Version 3: the outbox — the messages an action causes (a cheer, the game-over picture), stored
# in the action's transaction and deleted once delivered, so a kill between the commit and the
# send loses none of them.
_V3 = """
CREATE TABLE outbox (
    outbox_id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL REFERENCES game_tables (table_id) ON DELETE CASCADE,
    message BLOB NOT NULL, created_at REAL NOT NULL);
CREATE INDEX outbox_table ON outbox (table_id);
"""

# Version 4: the evening's story. Per finished game one row per seat: who sat there (a key,
# "u<telegram id>" or "ai:<level>", and the name at the time), when the game ended, and the
# seat's facts (engine.stats.SeatFacts, as integers; ``facts_version`` = FACTS_VERSION when
# they were derived) — the match of a game is its table. Badges earned (once per player per
# chat) and the 复盘 of each game posted (once). All rows derive from the stored records.
_V4 = """
CREATE TABLE game_facts (
    table_id INTEGER NOT NULL, number INTEGER NOT NULL,
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
    chat_id INTEGER NOT NULL, player TEXT NOT NULL, name TEXT NOT NULL,
    finished_at REAL NOT NULL, facts_version INTEGER NOT NULL,
    rank INTEGER NOT NULL, points INTEGER NOT NULL, opened INTEGER NOT NULL,
    foe_opened INTEGER NOT NULL, open_point INTEGER NOT NULL, burns INTEGER NOT NULL,
    counter_burns INTEGER NOT NULL, burn_wins INTEGER NOT NULL,
    counter_burn_wins INTEGER NOT NULL, burn_fails INTEGER NOT NULL,
    burn_breaks INTEGER NOT NULL, burned INTEGER NOT NULL, men_given INTEGER NOT NULL,
    smothered INTEGER NOT NULL, sweep INTEGER NOT NULL, swept INTEGER NOT NULL,
    revolted INTEGER NOT NULL, yaotou INTEGER NOT NULL, declared INTEGER NOT NULL,
    tricks INTEGER NOT NULL,
    PRIMARY KEY (table_id, number, seat),
    FOREIGN KEY (table_id, number) REFERENCES games (table_id, number) ON DELETE CASCADE
) WITHOUT ROWID;
-- the player's games in order, and (covering) the ranks and points /top sums
CREATE INDEX game_facts_player ON game_facts (chat_id, player, finished_at, rank, points);
CREATE INDEX game_facts_chat ON game_facts (chat_id, finished_at, table_id, number);
CREATE TABLE badges (
    chat_id INTEGER NOT NULL, player TEXT NOT NULL, badge TEXT NOT NULL,
    earned_at REAL NOT NULL, table_id INTEGER NOT NULL, number INTEGER NOT NULL,
    PRIMARY KEY (chat_id, player, badge)) WITHOUT ROWID;
CREATE TABLE reviews (
    table_id INTEGER NOT NULL, number INTEGER NOT NULL, review TEXT NOT NULL,
    created_at REAL NOT NULL, PRIMARY KEY (table_id, number),
    FOREIGN KEY (table_id, number) REFERENCES games (table_id, number) ON DELETE CASCADE
) WITHOUT ROWID;
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4)

_TABLE_COLUMNS = (
    "table_id, chat_id, thread_id, status, opener, state, version, created_at, updated_at"
)


def _dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def _loads(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise StorageError(f"stored JSON is not an object: {text[:60]!r}")
    return value


def _table(r: Iterable[Any]) -> TableRow:
    tid, chat, thread, status, opener, state, version, created, updated = r
    return TableRow(
        tid, chat, thread, TableStatus(status), opener, _loads(state), version, created, updated
    )


def _check_status(status: str) -> None:
    if status not in STATUSES or not isinstance(status, str):
        raise ValueError(f"unknown table status {status!r}; expected one of {STATUSES}")


def _open_table_clash(e: sqlite3.IntegrityError, message: str) -> Exception:
    """`TableExists` for a clash on the one-open-table index; any other integrity error as is."""
    return TableExists(message) if "game_tables_active" in str(e) else e


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
    outbox: list[bytes]
    now: float
    done: asyncio.Future[list[int]]


class SqliteStorage:
    """`Storage` on one aiosqlite connection. `async with SqliteStorage(path) as st:` opens and
    always closes it. `migrations` is for tests of the migration machinery."""

    def __init__(self, path: str | Path, migrations: Sequence[str] = MIGRATIONS) -> None:
        self.path = Path(path)
        self.migrations = tuple(migrations)
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._saves: list[_Save] = []  # waiting for the next group commit
        self._committer: asyncio.Task[None] | None = None

    async def __aenter__(self) -> SqliteStorage:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- connection ---------------------------------------------------------------------------

    async def open(self) -> None:
        if self._db is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(self.path, isolation_level=None)
        try:
            await db.execute("PRAGMA busy_timeout = 5000")
            async with db.execute("PRAGMA journal_mode = WAL") as cur:
                mode = await cur.fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                raise StorageError(f"{self.path}: cannot switch to WAL (got {mode!r})")
            await db.execute("PRAGMA synchronous = FULL")
            await self._migrate(db)
        except BaseException:
            await db.close()
            raise
        self._db = db

    async def _migrate(self, db: aiosqlite.Connection) -> None:
        async with db.execute("PRAGMA user_version") as cur:
            found = await cur.fetchone()
        version = int(found[0]) if found else 0
        if version > len(self.migrations):
            raise SchemaTooNew(
                f"{self.path}: database schema version {version} is newer than this bot knows "
                f"({len(self.migrations)}); upgrade the bot or use another database file"
            )
        # Foreign keys are off while migrating (PRAGMA foreign_keys is a no-op in a transaction,
        # and rebuilding a table needs them off); each script must leave them consistent.
        await db.execute("PRAGMA foreign_keys = OFF")
        for target in range(version + 1, len(self.migrations) + 1):
            try:  # one transaction per script; user_version is set inside it
                await db.executescript(f"BEGIN IMMEDIATE;\n{self.migrations[target - 1]}\n;")
                async with db.execute("PRAGMA foreign_key_check") as cur:
                    if broken := list(await cur.fetchall()):
                        raise StorageError(f"migration {target} breaks foreign keys: {broken[:3]}")
                await db.execute(f"PRAGMA user_version = {target}")
                await db.execute("COMMIT")
            except BaseException:
                await db.rollback()
                raise
        await db.execute("PRAGMA foreign_keys = ON")

    async def close(self) -> None:
        """Closes the connection once the unit of work under way, if any, is done."""
        async with self._lock:
            db, self._db = self._db, None
            if db is not None:
                await db.close()

    @asynccontextmanager
    async def _unit(self, write: bool = True) -> AsyncIterator[aiosqlite.Connection]:
        """One short unit of work, serialized by the lock (on the one connection, a read between
        another unit's statements would see its uncommitted writes). A write unit runs in
        `BEGIN IMMEDIATE … COMMIT` and rolls back on any error or cancellation."""
        async with self._lock:
            if (db := self._db) is None:
                raise StorageError("storage is not open")
            if not write:
                yield db
                return
            try:
                await db.execute("BEGIN IMMEDIATE")
                yield db
                await db.execute("COMMIT")
            except BaseException:
                # aiosqlite runs queued statements even when the awaiting task is cancelled: the
                # rollback is queued after them, and is a no-op outside a transaction.
                await db.rollback()
                raise

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        async with self._unit(write=False) as db, db.execute(sql, args) as cur:
            return list(await cur.fetchall())

    async def _first(self, sql: str, args: Sequence[Any] = ()) -> Any:
        rows = await self._rows(sql, args)
        return rows[0] if rows else None

    # -- chats and users ----------------------------------------------------------------------

    async def get_chat(self, chat_id: int) -> ChatRow | None:
        r = await self._first("SELECT lang, settings FROM chats WHERE chat_id = ?", (chat_id,))
        return None if r is None else ChatRow(chat_id, r[0], _loads(r[1]))

    async def save_chat(self, row: ChatRow) -> None:
        async with self._unit() as db:
            await db.execute(
                "INSERT INTO chats (chat_id, lang, settings, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET lang = excluded.lang,"
                " settings = excluded.settings, updated_at = excluded.updated_at",
                (row.chat_id, row.lang, _dumps(row.settings), time.time()),
            )

    async def get_user(self, user_id: int) -> UserRow | None:
        r = await self._first(
            "SELECT name, lang, dm_ok, updated_at FROM users WHERE user_id = ?", (user_id,)
        )
        return None if r is None else UserRow(user_id, r[0], r[1], bool(r[2]), r[3])

    async def save_user(self, row: UserRow) -> None:
        now = time.time()
        async with self._unit() as db:
            await db.execute(
                "INSERT INTO users (user_id, name, lang, dm_ok, updated_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, lang = excluded.lang,"
                " dm_ok = excluded.dm_ok, updated_at = excluded.updated_at",
                (row.user_id, row.name, row.lang, int(row.dm_ok), now),
            )
        row.updated_at = now

    # -- tables -------------------------------------------------------------------------------

    async def create_table(self, row: TableRow) -> TableRow:
        if row.table_id is not None:
            raise ValueError(f"table already created (table_id={row.table_id})")
        _check_status(row.status)
        now, state = time.time(), _dumps(row.state)
        try:
            async with self._unit() as db:
                cur = await db.execute(
                    "INSERT INTO game_tables (chat_id, thread_id, status, opener, state, version,"
                    " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
                    (row.chat_id, row.thread_id, row.status, row.opener, state, now, now),
                )
                table_id = cur.lastrowid
                await cur.close()
        except sqlite3.IntegrityError as e:
            msg = f"chat {row.chat_id} thread {row.thread_id} already has an open table"
            raise _open_table_clash(e, msg) from e
        assert table_id is not None
        row.table_id, row.version, row.created_at, row.updated_at = table_id, 0, now, now
        return row

    async def save_table(
        self, row: TableRow, new_actions: Sequence[str] = (), outbox: Sequence[bytes] = ()
    ) -> list[int]:
        """Stores the row, its new actions and the messages they caused. Saves that arrive
        while another batch is being committed are committed together (group commit): each is
        still refused or stored on its own, but a burst of presses across many tables costs one
        disk sync, not one each."""
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
            row.status,
            _dumps(row.state),
            row.version,
            base,
            list(new_actions),
            list(outbox),
            now,
            asyncio.get_running_loop().create_future(),
        )
        self._saves.append(save)
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_saves())
        # cancelled before its batch began: not written; after: written whole
        ids = await save.done
        row.updated_at = now
        return ids

    async def _commit_saves(self) -> None:
        while self._saves:
            batch = [s for s in self._saves if not s.done.done()]
            self._saves = []
            if not batch:
                continue
            try:
                async with self._unit() as db:
                    outcomes = await self._write_batch(db, batch)
            except BaseException as e:  # not committed: none of the batch is stored
                for save in batch:
                    if not save.done.done():
                        save.done.set_exception(e)
                if isinstance(e, asyncio.CancelledError):
                    raise
                continue
            for save, outcome in zip(batch, outcomes, strict=True):
                if save.done.done():
                    continue
                if isinstance(outcome, list):
                    save.done.set_result(outcome)
                else:
                    save.done.set_exception(outcome)

    async def _write_batch(
        self, db: aiosqlite.Connection, batch: list[_Save]
    ) -> list[StorageError | list[int]]:
        """A batch in a fixed number of statements, whatever its size (each statement is a trip
        to the database thread and back through the event loop, which is slow when the loop is
        busy): the stored versions read at once, stale writers refused here, then all updates
        and all new actions each in one ``executemany``, under one savepoint. A clash on the
        one-open-table index (a table reopened beside another) undoes the batch, which is then
        written save by save, each under its own savepoint, so only the clashing one is
        refused."""
        await db.execute("SAVEPOINT batch")
        try:
            outcomes = await self._write_all(db, batch)
        except sqlite3.IntegrityError as e:
            await db.execute("ROLLBACK TO batch")
            await db.execute("RELEASE batch")
            if len(batch) > 1:
                return [(await self._write_batch(db, [save]))[0] for save in batch]
            save = batch[0]
            msg = f"chat {save.chat_id} thread {save.thread_id} already has an open table"
            clash = _open_table_clash(e, msg)
            if isinstance(clash, StorageError):
                return [clash]
            raise
        await db.execute("RELEASE batch")
        return outcomes

    @staticmethod
    async def _write_all(
        db: aiosqlite.Connection, batch: list[_Save]
    ) -> list[StorageError | list[int]]:
        ids = sorted({s.table_id for s in batch})
        marks = ", ".join("?" * len(ids))
        async with db.execute(
            f"SELECT table_id, version FROM game_tables WHERE table_id IN ({marks})", ids
        ) as cur:
            stored: dict[int, int] = {r[0]: r[1] for r in await cur.fetchall()}
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
            stored[save.table_id] = save.version  # a later save of the same table follows it
            outcomes.append([])
            updates.append((save.status, save.state, save.version, save.now, save.table_id))
            actions += [(save.table_id, save.base + i, a) for i, a in enumerate(save.actions)]
        await db.executemany(
            "UPDATE game_tables SET status = ?, state = ?, version = ?, updated_at = ?"
            " WHERE table_id = ?",
            updates,
        )
        if actions:
            await db.executemany(
                "INSERT INTO actions (table_id, seq, action) VALUES (?, ?, ?)", actions
            )
        for save, outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, list):  # stored: its messages join the outbox (rare: cheers)
                for message in save.outbox:
                    async with db.execute(
                        "INSERT INTO outbox (table_id, message, created_at) VALUES (?, ?, ?)",
                        (save.table_id, message, save.now),
                    ) as cur:
                        assert cur.lastrowid is not None
                        outcome.append(cur.lastrowid)
        return outcomes

    async def pending_messages(self) -> list[tuple[int, bytes]]:
        rows = await self._rows("SELECT outbox_id, message FROM outbox ORDER BY outbox_id")
        return [(int(r[0]), bytes(r[1])) for r in rows]

    async def message_delivered(self, outbox_id: int) -> None:
        async with self._unit() as db:
            await db.execute("DELETE FROM outbox WHERE outbox_id = ?", (outbox_id,))

    async def load_table(self, table_id: int) -> TableRow | None:
        r = await self._first(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE table_id = ?", (table_id,)
        )
        return None if r is None else _table(r)

    async def table_for_chat(self, chat_id: int, thread_id: int | None = None) -> TableRow | None:
        r = await self._first(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE chat_id = ?"
            " AND ifnull(thread_id, 0) = ? AND status IN ('lobby', 'playing')",
            (chat_id, thread_id or 0),
        )
        return None if r is None else _table(r)

    async def load_actions(self, table_id: int) -> list[str]:
        rows = await self._rows(
            "SELECT action FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
        )
        return [r[0] for r in rows]

    async def unfinished_tables(self) -> list[TableRow]:
        rows = await self._rows(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE status IN ('lobby', 'playing')"
            " OR (status = 'over' AND updated_at > ?) ORDER BY table_id",
            (time.time() - OVER_KEPT_S,),
        )
        return [_table(r) for r in rows]

    # -- finished games -----------------------------------------------------------------------

    async def save_game(
        self, table_id: int, chat_id: int, number: int, record: dict[str, Any]
    ) -> None:
        try:
            async with self._unit() as db:
                await db.execute(
                    "INSERT INTO games (table_id, number, chat_id, record, created_at)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, number) DO NOTHING",
                    (table_id, number, chat_id, _dumps(record), time.time()),
                )
        except sqlite3.IntegrityError as e:
            if "FOREIGN KEY" not in str(e):
                raise
            raise TableNotFound(f"no table {table_id}") from e

    async def games(self, chat_id: int, limit: int = 20) -> list[dict[str, Any]]:
        rows = await self._rows(
            "SELECT record FROM games WHERE chat_id = ?"
            " ORDER BY created_at DESC, table_id DESC, number DESC LIMIT ?",
            (chat_id, limit),
        )
        return [_loads(r[0]) for r in rows]

    async def get_upload(self, digest: str) -> str | None:
        row = await self._first("SELECT file_id FROM uploads WHERE digest = ?", (digest,))
        return str(row[0]) if row else None

    async def save_upload(self, digest: str, file_id: str) -> None:
        async with self._unit() as db:
            await db.execute(
                "INSERT OR IGNORE INTO uploads (digest, file_id, created_at) VALUES (?, ?, ?)",
                (digest, file_id, time.time()),
            )

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        if old_chat_id == new_chat_id:
            return
        try:
            async with self._unit() as db:
                await db.execute(
                    "UPDATE OR IGNORE chats SET chat_id = ? WHERE chat_id = ?",
                    (new_chat_id, old_chat_id),
                )
                await db.execute("DELETE FROM chats WHERE chat_id = ?", (old_chat_id,))
                await db.execute(
                    "UPDATE game_tables SET chat_id = ? WHERE chat_id = ?",
                    (new_chat_id, old_chat_id),
                )
                for table in ("games", "game_facts", "badges"):
                    await db.execute(
                        f"UPDATE {table} SET chat_id = ? WHERE chat_id = ?",
                        (new_chat_id, old_chat_id),
                    )
        except sqlite3.IntegrityError as e:
            msg = f"chats {old_chat_id} and {new_chat_id} both have an open table in one topic"
            raise _open_table_clash(e, msg) from e


async def open_storage(path: str | Path) -> SqliteStorage:
    """Opens (creating the file, its directory and schema if missing) the SQLite storage."""
    storage = SqliteStorage(path)
    await storage.open()
    return storage

"""`Storage` on SQLite (the default: a family's bot, one file) through aiosqlite.

shared/TELEGRAM_NOTES.md, "aiosqlite": one connection in autocommit mode, WAL, synchronous=FULL
(a lost last action matters), foreign keys on; each unit of work holds an `asyncio.Lock` (on the
one connection, a read between another unit's statements would see its uncommitted writes) and
runs in `BEGIN IMMEDIATE … COMMIT`, ROLLBACK on error. The schema version is `PRAGMA
user_version`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from .schema import MIGRATIONS
from .sql_storage import OPEN_TABLE_INDEX, SqlStorage
from .storage_interface import SchemaTooNew, StorageError


class _SqliteTx:
    """A unit of work's statements on the aiosqlite connection."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        async with self.db.execute(sql, args) as cur:
            return cur.rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.db.executemany(sql, rows)

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await self.db.execute_fetchall(sql, args)]


class SqliteStorage(SqlStorage):
    """`Storage` on one aiosqlite connection. `async with SqliteStorage(path) as st:` opens and
    always closes it. `migrations` is for tests of the migration machinery."""

    thread_key = "ifnull(thread_id, 0)"  # as the index says it (schema v1), so it is used
    lock_rows = ""  # BEGIN IMMEDIATE holds the database's one write lock already
    integrity_errors = (sqlite3.IntegrityError,)
    group_small = True  # one connection: every write queues behind the others (bot.small_writes)

    def __init__(self, path: str | Path, migrations: Sequence[str] = MIGRATIONS) -> None:
        super().__init__()
        self.path = Path(path)
        self.where = str(self.path)
        self.migrations = tuple(migrations)
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    @staticmethod
    def _integrity(e: Exception) -> str | None:
        if OPEN_TABLE_INDEX in str(e):
            return "open_table"
        return "foreign_key" if "FOREIGN KEY" in str(e) else None

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
    async def _unit(self, write: bool = True) -> AsyncIterator[_SqliteTx]:
        async with self._lock:
            if (db := self._db) is None:
                raise StorageError("storage is not open")
            if not write:
                yield _SqliteTx(db)
                return
            try:
                await db.execute("BEGIN IMMEDIATE")
                yield _SqliteTx(db)
                await db.execute("COMMIT")
            except BaseException:
                # aiosqlite runs queued statements even when the awaiting task is cancelled: the
                # rollback is queued after them, and is a no-op outside a transaction.
                await db.rollback()
                raise

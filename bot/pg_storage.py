"""`Storage` on PostgreSQL through an asyncpg pool (a public bot in many groups; ``GOUJI_DB`` a
``postgresql://`` URL). The statements are :mod:`bot.sql_storage`'s, their ``?`` placeholders
numbered ``$1 …`` here. Reads run on any pooled connection at once; each write unit is one
transaction; the version check of a batch of table saves locks the tables' rows (``FOR
UPDATE``), so a stale writer is refused even when another process wrote first. The schema
version is the one row of :data:`bot.schema.PG_VERSION_TABLE`; migrating holds an advisory lock,
so processes starting together migrate once.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from .schema import MIGRATIONS, PG_VERSION_TABLE, postgres_script
from .sql_storage import OPEN_TABLE_INDEX, SqlStorage
from .storage_interface import SchemaTooNew, StorageError

URL_SCHEMES = ("postgresql://", "postgres://")
Conn: TypeAlias = "asyncpg.Connection[Any] | PoolConnectionProxy[Any]"
LAZY_COMMIT = (
    "SET LOCAL synchronous_commit TO OFF"  # this transaction's commit: not awaited on disk
)
LAZY_POOL = 2  # connections for bookkeeping (PostgresStorage._bookkeeping)
MIGRATION_LOCK = 0x676F756A69  # pg_advisory_xact_lock key while migrating ("gouji")


async def as_it_is(conn: Conn) -> None:
    """A pooled connection given back as it is (asyncpg's default reset runs a statement at
    each release: a round trip a unit of work). Nothing outlives a unit on these pools: a
    setting is the transaction's own (SET LOCAL), no advisory lock, LISTEN or cursor is held
    on them (a transaction left open is rolled back by asyncpg all the same)."""
    return None


def is_postgres_url(db: str) -> bool:
    return db.startswith(URL_SCHEMES)


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """``?`` placeholders as ``$1``, ``$2`` … (none sits inside a quoted literal here)."""
    pieces = sql.split("'")
    n = 0
    for i in range(0, len(pieces), 2):  # outside quotes
        out = []
        for ch in pieces[i]:
            if ch == "?":
                n += 1
                out.append(f"${n}")
            else:
                out.append(ch)
        pieces[i] = "".join(out)
    return "'".join(pieces)


class _PgTx:
    """A unit of work's statements on one pooled connection."""

    def __init__(self, conn: Conn) -> None:
        self.conn = conn

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        status: str = await self.conn.execute(numbered(sql), *args)
        last = status.rsplit(" ", 1)[-1]  # "UPDATE 3", "INSERT 0 1", "SAVEPOINT"
        return int(last) if last.isdigit() else 0

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.conn.executemany(numbered(sql), list(rows))

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await self.conn.fetch(numbered(sql), *args)]


class PostgresStorage(SqlStorage):
    """`Storage` on a pool of asyncpg connections to ``url``. `migrations` (SQLite's dialect,
    as :data:`bot.schema.MIGRATIONS`) is for tests of the migration machinery."""

    thread_key = "coalesce(thread_id, 0)"  # as the index says it (schema v1), so it is used
    lock_rows = " FOR UPDATE"
    integrity_errors = (asyncpg.IntegrityConstraintViolationError,)

    def __init__(
        self, url: str, migrations: Sequence[str] = MIGRATIONS, *, pool_size: int = 10
    ) -> None:
        super().__init__()
        self.url = url
        self.where = redacted(url)
        self.migrations = tuple(postgres_script(s) for s in migrations)
        self.pool_size = pool_size
        self._pool: asyncpg.Pool | None = None
        # bookkeeping (which updates were seen): a statement a transaction, its commit not
        # awaited on disk — one round trip each, not four (BEGIN, SET LOCAL, it, COMMIT)
        self._lazy: asyncpg.Pool | None = None
        self._units = 0  # units of work under way (close waits for them)
        self._idle = asyncio.Event()

    @staticmethod
    def _integrity(e: Exception) -> str | None:
        if isinstance(e, asyncpg.UniqueViolationError):
            return "open_table" if e.constraint_name == OPEN_TABLE_INDEX else None
        return "foreign_key" if isinstance(e, asyncpg.ForeignKeyViolationError) else None

    async def open(self) -> None:
        if self._pool is not None:
            return
        pool = await asyncpg.create_pool(
            self.url, min_size=1, max_size=self.pool_size, reset=as_it_is
        )
        try:
            async with pool.acquire() as conn:
                await self._migrate(conn)
            self._lazy = await asyncpg.create_pool(
                self.url,
                min_size=1,
                max_size=LAZY_POOL,
                reset=as_it_is,
                server_settings={"synchronous_commit": "off"},
            )
        except BaseException:
            await pool.close()
            raise
        self._pool = pool

    async def _migrate(self, conn: Conn) -> None:
        async def version_now() -> int:
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await conn.execute(f"CREATE TABLE IF NOT EXISTS {PG_VERSION_TABLE} (version INTEGER)")
            found = await conn.fetchval(f"SELECT version FROM {PG_VERSION_TABLE}")
            if found is None:
                await conn.execute(f"INSERT INTO {PG_VERSION_TABLE} VALUES (0)")
            return int(found or 0)

        async with conn.transaction():
            version = await version_now()
        if version > len(self.migrations):
            raise SchemaTooNew(
                f"{self.where}: database schema version {version} is newer than this bot knows "
                f"({len(self.migrations)}); upgrade the bot or use another database"
            )
        for target in range(version + 1, len(self.migrations) + 1):
            async with conn.transaction():  # one per script; the version is set inside it
                if await version_now() >= target:
                    continue  # another process migrated meanwhile
                await conn.execute(self.migrations[target - 1])
                await conn.execute(f"UPDATE {PG_VERSION_TABLE} SET version = $1", target)

    async def close(self) -> None:
        """Closes the pool once the units of work under way are done."""
        pool, self._pool = self._pool, None
        lazy, self._lazy = self._lazy, None
        while self._units:
            self._idle.clear()
            await self._idle.wait()
        if pool is not None:
            await pool.close()
        if lazy is not None:
            await lazy.close()

    @asynccontextmanager
    async def _unit(self, write: bool = True) -> AsyncIterator[_PgTx]:
        if (pool := self._pool) is None:
            raise StorageError("storage is not open")
        self._units += 1
        try:
            async with pool.acquire() as conn:
                if not write:
                    yield _PgTx(conn)
                    return
                async with conn.transaction():
                    yield _PgTx(conn)
        finally:
            self._units -= 1
            if not self._units:
                self._idle.set()

    @asynccontextmanager
    async def _bookkeeping(self) -> AsyncIterator[_PgTx]:
        """Statements each its own transaction, committed without waiting for the disk."""
        if (pool := self._lazy) is None or self._pool is None:
            raise StorageError("storage is not open")
        self._units += 1
        try:
            async with pool.acquire() as conn:
                yield _PgTx(conn)
        finally:
            self._units -= 1
            if not self._units:
                self._idle.set()

    async def _write_small(self, sql: str, args: Sequence[Any]) -> None:
        """One statement of a delivery's bookkeeping: its own transaction (no BEGIN and COMMIT
        round trips), durable."""
        async with self._unit(write=False) as tx:
            await tx.execute(sql, args)


async def postgres_problem(url: str) -> str | None:
    """None if the bot can keep its games in the PostgreSQL database at ``url`` (reachable,
    the password right, tables can be made); else one sentence saying what to fix."""
    where, elsewhere = redacted(url), "or point GOUJI_DB elsewhere"
    try:
        conn = await asyncpg.connect(url, timeout=10.0)
    except asyncpg.InvalidPasswordError:
        return f"PostgreSQL refused the password for {where}: fix the URL {elsewhere}"
    except asyncpg.InvalidCatalogNameError:
        return f"the database of {where} does not exist: create it (createdb) {elsewhere}"
    except (TimeoutError, OSError) as e:
        return f"cannot reach PostgreSQL at {where} ({type(e).__name__}): start it {elsewhere}"
    except (asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as e:
        return f"cannot connect to PostgreSQL at {where} ({type(e).__name__}): fix it {elsewhere}"
    try:
        async with conn.transaction():  # a write, rolled back: can the schema be made?
            await conn.execute("CREATE TABLE gouji_write_check (x INTEGER)")
            raise _RolledBack
    except _RolledBack:
        return None
    except asyncpg.PostgresError as e:
        kind = type(e).__name__
        return f"the database {where} cannot be written ({kind}): grant the user {elsewhere}"
    finally:
        await conn.close()


class _RolledBack(Exception):
    """Ends the write check's transaction with a rollback."""

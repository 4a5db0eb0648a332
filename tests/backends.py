"""The storage backends tests run against: SQLite files in the test's folder, and databases on
the session's throwaway PostgreSQL server (``pg_cluster`` in conftest.py). A test asks the
``backend`` fixture for a database by name (the same name, the same database: a reopened
file), opens the storage on it, and reads or writes rows behind the storage's back with
:meth:`Backend.raw` (SQL with ``?`` placeholders, as the storage's own)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from bot.offline.pgcluster import PgCluster
from bot.pg_storage import numbered
from bot.schema import MIGRATIONS, PG_VERSION_TABLE, postgres_script
from bot.storage import PostgresStorage, SqliteStorage, SqlStorage

BACKENDS = ("sqlite", "postgresql")


@dataclass
class Backend:
    name: str  # one of BACKENDS
    folder: Path
    cluster: PgCluster | None = None
    _urls: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.name

    async def db(self, name: str = "gouji.sqlite3") -> str:
        """``GOUJI_DB`` of a database of this backend: a file path under the test's folder, or
        the URL of a new database on the test server (created on first use of ``name``)."""
        if self.cluster is None:
            return str(self.folder / name)
        if name not in self._urls:
            self._urls[name] = await self.cluster.create_database()
        return self._urls[name]

    def storage(self, db: str, migrations: Sequence[str] = MIGRATIONS) -> SqlStorage:
        if self.cluster is None:
            return SqliteStorage(db, migrations=migrations)
        return PostgresStorage(db, migrations=migrations, pool_size=4)

    async def raw(self, db: str, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """One statement on its own connection (another writer, as far as the storage knows)."""
        if self.cluster is None:
            with sqlite3.connect(db) as con:
                rows = con.execute(sql, args).fetchall()
            con.close()
            return rows
        conn = await asyncpg.connect(db)
        try:
            return [tuple(r) for r in await conn.fetch(numbered(sql), *args)]
        finally:
            await conn.close()

    async def build(self, db: str, version: int) -> None:
        """A database at schema ``version``, built by hand (as an older bot left it)."""
        scripts = MIGRATIONS[:version]
        if self.cluster is None:
            with sqlite3.connect(db, isolation_level=None) as con:
                con.executescript("".join(scripts) + f"PRAGMA user_version = {version};")
            con.close()
            return
        conn = await asyncpg.connect(db)
        try:
            for script in scripts:
                await conn.execute(postgres_script(script))
            await conn.execute(f"CREATE TABLE {PG_VERSION_TABLE} (version INTEGER)")
            await conn.execute(f"INSERT INTO {PG_VERSION_TABLE} VALUES ({version})")
        finally:
            await conn.close()

    async def version(self, db: str) -> int:
        """The schema version the database records."""
        if self.cluster is None:
            return int((await self.raw(db, "PRAGMA user_version"))[0][0])
        return int((await self.raw(db, f"SELECT version FROM {PG_VERSION_TABLE}"))[0][0])

    async def schema(self, db: str) -> dict[str, tuple[str, ...]]:
        """Each table's columns, in order, and each index (as ``index:<name>``): what the two
        dialects' schemas must share."""
        out: dict[str, tuple[str, ...]] = {}
        if self.cluster is None:
            names = await self.raw(
                db, "SELECT name, type FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            )
            out.update({f"index:{n}": () for n, kind in names if kind == "index"})
            for n, kind in names:
                if kind == "table":
                    cols = await self.raw(db, f"PRAGMA table_info({n})")
                    out[n] = tuple(c[1] for c in cols)
            return out
        cols = await self.raw(
            db,
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name != ? ORDER BY table_name,"
            " ordinal_position",
            (PG_VERSION_TABLE,),
        )
        for table, column in cols:  # in order
            out[table] = (*out.get(table, ()), column)
        indexes = await self.raw(db, "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")
        out.update({f"index:{n}": () for (n,) in indexes if not re.search(r"_pkey$", n)})
        return out

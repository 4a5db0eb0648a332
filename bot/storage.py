"""The bot's storage: one small interface (`Storage`, :mod:`bot.storage_interface`), two
backends written once in SQL (:mod:`bot.sql_storage`): SQLite through aiosqlite
(:mod:`bot.sqlite_storage`, the default) and PostgreSQL through asyncpg (:mod:`bot.pg_storage`).
``GOUJI_DB`` chooses: a file path is SQLite, a ``postgresql://`` URL PostgreSQL
(:func:`storage_for`). One schema, in numbered versions (:mod:`bot.schema`), migrated at open.
"""

from __future__ import annotations

from pathlib import Path

from .pg_storage import PostgresStorage, is_postgres_url, redacted
from .schema import MIGRATIONS, PG_VERSION_TABLE, postgres_script
from .sql_storage import SqlStorage
from .sqlite_storage import SqliteStorage
from .storage_interface import (
    ACTIVE,
    OVER_KEPT_S,
    STATUSES,
    ChatRow,
    SchemaTooNew,
    Storage,
    StorageError,
    TableExists,
    TableNotFound,
    TableRow,
    UserRow,
    VersionConflict,
)

__all__ = [
    "ACTIVE",
    "MIGRATIONS",
    "OVER_KEPT_S",
    "PG_VERSION_TABLE",
    "STATUSES",
    "ChatRow",
    "PostgresStorage",
    "SchemaTooNew",
    "SqlStorage",
    "SqliteStorage",
    "Storage",
    "StorageError",
    "TableExists",
    "TableNotFound",
    "TableRow",
    "UserRow",
    "VersionConflict",
    "describe",
    "is_postgres_url",
    "open_storage",
    "postgres_script",
    "storage_for",
]


def storage_for(db: str | Path) -> SqlStorage:
    """The storage ``GOUJI_DB`` names, not yet open: a ``postgresql://`` URL (or
    ``postgres://``) is PostgreSQL, anything else a SQLite file path."""
    text = str(db)
    return PostgresStorage(text) if is_postgres_url(text) else SqliteStorage(text)


def describe(db: str | Path) -> str:
    """``GOUJI_DB`` as messages show it (a URL without its password)."""
    return redacted(str(db))


async def open_storage(db: str | Path) -> SqlStorage:
    """Opens the storage ``db`` names (creating a SQLite file, its directory, and the schema if
    missing)."""
    storage = storage_for(db)
    await storage.open()
    return storage

"""``python -m bot backup DEST``: a consistent copy of the bot's SQLite database (``GOUJI_DB``)
while the bot runs. It uses SQLite's online backup API (``sqlite3.Connection.backup``): the copy
is one snapshot read inside one read transaction, writes still in the WAL included, and in WAL
mode the bot's writes go on meanwhile. Copying the file alone can miss the WAL's last pages.

A PostgreSQL database is refused with a pointer to ``pg_dump`` (docs/operations.md, "Backups").
The copy is written beside DEST and renamed into place once checked, so DEST is never half a
database.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from .pg_storage import is_postgres_url
from .storage import describe


class BackupError(Exception):
    """Why no backup was made, in one sentence saying what to do."""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``backup DEST`` among ``python -m bot``'s commands."""
    bp = sub.add_parser("backup", help="a consistent copy of the SQLite database, while it runs")
    bp.add_argument("dest", help="the copy's file, or a folder (named <db>-<UTC time>.sqlite3)")


def destination(db_path: Path, dest: Path, now: datetime) -> Path:
    """The file to write: ``dest``, or in a folder ``<db name>-<UTC time>.sqlite3``."""
    if dest.is_dir():
        return dest / f"{db_path.stem}-{now.astimezone(UTC):%Y%m%dT%H%M%SZ}.sqlite3"
    return dest


def backup(db: str, dest: str | Path, now: datetime | None = None) -> Path:
    """Copies the SQLite database ``db`` to ``dest`` (a file, or a folder to name one in) and
    returns the copy's path; `BackupError` if there is none."""
    if is_postgres_url(db):
        raise BackupError(
            f"{describe(db)} is PostgreSQL: back it up with "
            'pg_dump -Fc -d "$GOUJI_DB" -f gouji.dump (docs/operations.md, Backups)'
        )
    source = Path(db)
    if not source.is_file():
        raise BackupError(f"there is no database at {source}: check GOUJI_DB")
    target = destination(source, Path(dest), now or datetime.now(UTC))
    if target.exists() and target.resolve() == source.resolve():
        raise BackupError(f"{target} is the database itself: give the copy another name")
    partial = target.with_name(target.name + ".partial")
    try:
        _copy(source, partial)
        os.replace(partial, target)
    except sqlite3.DatabaseError as e:
        raise BackupError(f"{source} cannot be copied ({e}): is it a SQLite database?") from e
    except OSError as e:
        raise BackupError(f"cannot write {target} ({e.strerror}): choose another place") from e
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return target


def _copy(source: Path, partial: Path) -> None:
    """The online backup of ``source`` into ``partial``, checked, on disk."""
    partial.unlink(missing_ok=True)
    # read-only: the backup never writes the bot's file (nor creates one at a wrong path)
    src = sqlite3.connect(f"file:{quote(str(source.resolve()))}?mode=ro", uri=True, timeout=10)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)  # every page in one step: one snapshot, the bot's writes go on
            (check,) = dst.execute("PRAGMA quick_check").fetchone()
            if check != "ok":
                raise sqlite3.DatabaseError(f"the copy fails its check: {check}")
        finally:
            dst.close()
    finally:
        src.close()
    with partial.open("rb+") as f:
        os.fsync(f.fileno())


def schema_version(path: Path) -> int:
    db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
    try:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        return int(version)
    finally:
        db.close()


def main(db: str, dest: str) -> int:
    """``python -m bot backup DEST``: one line saying what was copied where (exit 0), or what
    to do instead on standard error (exit 1)."""
    try:
        target = backup(db, dest)
    except BackupError as e:
        print(f"gouji: {e}", file=sys.stderr)
        return 1
    size = target.stat().st_size
    print(
        f"gouji: {describe(db)} copied to {target} "
        f"(schema version {schema_version(target)}, {size / 1024:.0f} kB)"
    )
    return 0

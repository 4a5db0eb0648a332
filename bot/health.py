"""Is the bot fit to run, and is it running? Start-up's checks of the database, and
``python -m bot health`` for a container's HEALTHCHECK: the database writable and the last
successful getUpdates recent (the running bot touches a heartbeat file beside the database, or,
on PostgreSQL, in the temporary folder, named after the database)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from .pg_storage import is_postgres_url, postgres_problem

HEARTBEAT_EVERY = 10.0  # seconds between touches of the heartbeat file
HEARTBEAT_STALE = 120.0  # seconds without a successful getUpdates before the bot is unhealthy
ELSEWHERE = "or point GOUJI_DB elsewhere"


def heartbeat_path(db_path: str, who: str = "") -> Path:
    """The heartbeat file of the bot on ``db_path``; ``who``: which of the processes sharing a
    PostgreSQL database (``Environment.heartbeat_of``)."""
    if is_postgres_url(db_path):  # the container's own file, one per database URL and process
        digest = hashlib.sha256(f"{db_path} {who}".encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"gouji-{digest}.alive"
    return Path(db_path + ".alive")


class Heartbeat:
    """Touches the heartbeat file after a successful getUpdates (at most every few seconds)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last = 0.0

    def beat(self) -> None:
        now = time.monotonic()
        if now - self._last < HEARTBEAT_EVERY:
            return
        self._last = now
        with contextlib.suppress(OSError):  # the database check says what is wrong there
            self.path.touch()


def database_problem(db_path: str) -> str | None:
    """None if the bot can keep its games at ``db_path`` (``GOUJI_DB``: a PostgreSQL database
    it can reach and write, or a file that is a SQLite database, or can be made one, and can be
    written); else one sentence saying what to fix. Not in a running event loop (there:
    :func:`database_problem_async`)."""
    if is_postgres_url(db_path):
        return asyncio.run(postgres_problem(db_path))
    return sqlite_problem(db_path)


async def database_problem_async(db_path: str) -> str | None:
    if is_postgres_url(db_path):
        return await postgres_problem(db_path)
    return sqlite_problem(db_path)


def sqlite_problem(db_path: str) -> str | None:
    path = Path(db_path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"cannot create the folder {folder} ({e.strerror}): create it {ELSEWHERE}"
    if not path.exists() and not os.access(folder, os.W_OK):
        return f"the folder {folder} is not writable by this user: fix its owner {ELSEWHERE}"
    try:
        db = sqlite3.connect(path, timeout=5.0)
    except sqlite3.Error as e:
        return f"cannot open the database {path} ({e}): fix its permissions {ELSEWHERE}"
    try:
        db.execute("PRAGMA schema_version").fetchone()  # reads the header: is it a database?
        db.execute("BEGIN IMMEDIATE")  # a write, rolled back: is it writable?
        db.execute("CREATE TABLE gouji_write_check (x)")
        db.execute("ROLLBACK")
    except sqlite3.DatabaseError as e:
        text = str(e)
        if "readonly" in text or "read-only" in text:
            return f"the database {path} is read-only for this user: fix its owner or permissions"
        if "not a database" in text or "malformed" in text:
            return f"{path} is not a SQLite database (or is damaged): restore a backup {ELSEWHERE}"
        return f"the database {path} cannot be used ({text}): fix it {ELSEWHERE}"
    finally:
        db.close()
    return None


def health(db_path: str, now: float | None = None, who: str = "") -> str | None:
    """None if healthy; else why not, in one sentence (``who``: as for :func:`heartbeat_path`)."""
    problem = database_problem(db_path)
    if problem is not None:
        return problem
    beat = heartbeat_path(db_path, who)
    try:
        age = (time.time() if now is None else now) - beat.stat().st_mtime
    except OSError:
        return "the bot has not fetched updates yet (no heartbeat file)"
    if age > HEARTBEAT_STALE:
        return f"the bot's last successful getUpdates was {age:.0f} s ago"
    return None

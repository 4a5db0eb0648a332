"""``python -m bot backup DEST``: a consistent copy of the SQLite database while the bot has it
open (writes still in the WAL included), never half a file at DEST, PostgreSQL refused with a
pointer to pg_dump."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot import backup as B
from bot.__main__ import main
from bot.storage import MIGRATIONS, SqliteStorage, UserRow


def users_in(path: Path) -> list[tuple[int, str]]:
    db = sqlite3.connect(path)
    try:
        return [(int(u), str(n)) for u, n in db.execute("SELECT user_id, name FROM users")]
    finally:
        db.close()


async def test_the_copy_holds_what_the_running_bot_wrote(tmp_path: Path) -> None:
    db = tmp_path / "gouji.sqlite3"
    async with SqliteStorage(db) as st:  # the bot's own storage, open as while it runs
        await st.save_user(UserRow(111, "老王"))
        assert (tmp_path / "gouji.sqlite3-wal").stat().st_size > 0  # not yet in the main file
        copy = B.backup(str(db), tmp_path / "copy.sqlite3")
        await st.save_user(UserRow(222, "小李"))  # the bot goes on writing
        later = B.backup(str(db), tmp_path / "later.sqlite3")
    assert users_in(copy) == [(111, "老王")]
    assert sorted(users_in(later)) == [(111, "老王"), (222, "小李")]
    assert B.schema_version(copy) == len(MIGRATIONS)
    async with SqliteStorage(copy) as restored:  # a copy the bot opens as its database
        user = await restored.get_user(111)
        await restored.save_user(UserRow(333, "大刘"))
    assert user is not None and user.name == "老王"
    assert (333, "大刘") in users_in(copy)
    assert not list(tmp_path.glob("*.partial"))


async def test_a_folder_gets_a_copy_named_by_the_time(tmp_path: Path) -> None:
    db = tmp_path / "gouji.sqlite3"
    async with SqliteStorage(db) as st:
        await st.save_user(UserRow(111, "老王"))
    folder = tmp_path / "backups"
    folder.mkdir()
    when = datetime(2025, 3, 1, 4, 5, 6, tzinfo=UTC)
    copy = B.backup(str(db), folder, now=when)
    assert copy == folder / "gouji-20250301T040506Z.sqlite3"
    assert users_in(copy) == [(111, "老王")]


def test_postgresql_is_refused_with_pg_dump_named(tmp_path: Path) -> None:
    with pytest.raises(B.BackupError, match="pg_dump") as refused:
        B.backup("postgresql://gouji:s3cret@db:5432/gouji", tmp_path / "x.sqlite3")
    assert "s3cret" not in str(refused.value)
    assert not (tmp_path / "x.sqlite3").exists()


def test_no_database_is_named_and_none_is_made(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.sqlite3"
    with pytest.raises(B.BackupError, match="no database"):
        B.backup(str(missing), tmp_path / "copy.sqlite3")
    assert not missing.exists() and not (tmp_path / "copy.sqlite3").exists()


def test_the_database_itself_is_never_the_destination(tmp_path: Path) -> None:
    db = tmp_path / "gouji.sqlite3"
    sqlite3.connect(db).close()
    with pytest.raises(B.BackupError, match="the database itself"):
        B.backup(str(db), db)


def test_a_file_that_is_no_database_leaves_nothing_at_dest(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database" * 100)
    dest = tmp_path / "copy.sqlite3"
    with pytest.raises(B.BackupError, match="cannot be copied"):
        B.backup(str(junk), dest)
    assert not dest.exists() and not list(tmp_path.glob("*.partial"))


async def test_the_command_says_where_and_exits_by_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "gouji.sqlite3"
    async with SqliteStorage(db) as st:
        await st.save_user(UserRow(111, "老王"))
    monkeypatch.setenv("GOUJI_DB", str(db))
    dest = tmp_path / "copy.sqlite3"
    assert main(["backup", str(dest)]) == 0
    out = capsys.readouterr().out
    assert str(dest) in out and f"schema version {len(MIGRATIONS)}" in out
    assert users_in(dest) == [(111, "老王")]

    monkeypatch.setenv("GOUJI_DB", "postgresql://gouji:s3cret@db/gouji")
    assert main(["backup", str(dest)]) == 1
    err = capsys.readouterr().err
    assert "pg_dump" in err and "s3cret" not in err

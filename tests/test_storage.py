"""Storage: round trips, one open table per topic, version guard, migrations, durability — on
both backends (the ``backend`` fixture: SQLite, PostgreSQL), SQLite's own settings on SQLite."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from backends import BACKENDS, Backend

from bot.model import TableStatus
from bot.offline.pgcluster import PgCluster
from bot.storage import (
    MIGRATIONS,
    OVER_KEPT_S,
    ChatRow,
    SchemaTooNew,
    SqliteStorage,
    SqlStorage,
    Storage,
    StorageError,
    TableExists,
    TableNotFound,
    TableRow,
    UserRow,
    VersionConflict,
    open_storage,
    postgres_script,
)

ROOT = Path(__file__).resolve().parents[1]
STATE = {"seats": [111, None, 222, None, None, None], "names": {"111": "老王", "222": "小李"}}


@pytest.fixture
async def st(backend: Backend) -> AsyncIterator[SqlStorage]:
    async with backend.storage(await backend.db("db/gouji.sqlite3")) as storage:
        yield storage


@pytest.fixture
async def sqlite_st(tmp_path: Path) -> AsyncIterator[SqliteStorage]:
    async with SqliteStorage(tmp_path / "db" / "gouji.sqlite3") as storage:
        yield storage


def lobby(chat_id: int = -100, thread_id: int | None = None, **kw: Any) -> TableRow:
    return TableRow(None, chat_id, thread_id, TableStatus.LOBBY, 111, dict(STATE), **kw)


def raw(path: Path, sql: str) -> list[Any]:
    with sqlite3.connect(path) as con:
        rows = con.execute(sql).fetchall()
    con.close()
    return rows


async def test_conforms_to_the_protocol(st: SqlStorage) -> None:
    storage: Storage = st  # mypy checks the structural match; here: it is usable as one
    assert await storage.get_chat(1) is None


async def test_chat_round_trip_with_chinese_text(st: SqlStorage, backend: Backend) -> None:
    settings = {
        "preset": "standard",
        "switches": {"bie3": False},
        "timer": 30,
        "note": "够级 烧 闷",
    }
    await st.save_chat(ChatRow(-100, "zh", settings))
    assert await st.get_chat(-100) == ChatRow(-100, "zh", settings)
    await st.save_chat(ChatRow(-100, None, {}))  # a second save replaces
    assert await st.get_chat(-100) == ChatRow(-100, None, {})
    db = await backend.db("db/gouji.sqlite3")
    stored = await backend.raw(db, "SELECT settings FROM chats")
    assert stored == [("{}",)]
    await st.save_chat(ChatRow(-100, "zh", settings))
    (text,) = (await backend.raw(db, "SELECT settings FROM chats"))[0]
    assert "够级 烧 闷" in text and '"preset"' in text.split('"switches"')[0]  # readable, in order


async def test_user_round_trip(st: SqlStorage) -> None:
    row = UserRow(7, "张三 🀄", "en", True)
    await st.save_user(row)
    assert row.updated_at > 0
    assert await st.get_user(7) == row
    row.dm_ok, row.name = False, "Zhang"
    await st.save_user(row)
    got = await st.get_user(7)
    assert got == row and got.dm_ok is False


async def test_unknown_ids_are_none_or_empty(st: SqlStorage) -> None:
    assert await st.get_chat(5) is None
    assert await st.get_user(5) is None
    assert await st.load_table(5) is None
    assert await st.table_for_chat(5) is None
    assert await st.load_actions(5) == []
    assert await st.unfinished_tables() == []
    assert await st.games(5) == []
    with pytest.raises(TableNotFound):
        await st.save_table(
            TableRow(5, -100, None, TableStatus.PLAYING, 111, {}, version=1), ["0 pass"]
        )
    with pytest.raises(TableNotFound):
        await st.save_game(5, -100, 1, {"rules": "standard"})


async def test_table_round_trip(st: SqlStorage) -> None:
    row = lobby(thread_id=42)
    same = await st.create_table(row)
    assert same is row and row.table_id is not None and row.created_at == row.updated_at > 0
    assert await st.load_table(row.table_id) == row
    assert await st.table_for_chat(-100, 42) == row
    assert await st.table_for_chat(-100) is None  # another topic

    row.status, row.version = TableStatus.PLAYING, 2
    row.state["hand_messages"] = {"0": 9001}
    await st.save_table(row, ["0 play QQQ", "3 pass"])
    assert await st.load_table(row.table_id) == row
    assert await st.load_actions(row.table_id) == ["0 play QQQ", "3 pass"]
    assert await st.unfinished_tables() == [row]

    row.status = TableStatus.OVER
    await st.save_table(row)  # a state change without actions keeps the version
    assert await st.table_for_chat(-100, 42) is None
    assert await st.unfinished_tables() == [row]  # over today: its 再来一局 still works
    row.status = TableStatus.ABANDONED
    await st.save_table(row)
    assert await st.unfinished_tables() == []
    assert (await st.load_table(row.table_id)) == row


async def test_one_open_table_per_topic(st: SqlStorage) -> None:
    first = await st.create_table(lobby())
    with pytest.raises(TableExists):
        await st.create_table(lobby())
    other_topic = await st.create_table(lobby(thread_id=7))
    other_chat = await st.create_table(lobby(chat_id=-200))
    assert {t.table_id for t in await st.unfinished_tables()} == {
        first.table_id,
        other_topic.table_id,
        other_chat.table_id,
    }
    first.status = TableStatus.ABANDONED
    await st.save_table(first)
    second = await st.create_table(lobby())  # the topic is free again
    first.status = TableStatus.LOBBY
    with pytest.raises(TableExists):  # and the old one cannot be reopened beside it
        await st.save_table(first)
    assert await st.table_for_chat(-100) == second


async def test_saves_arriving_together_are_each_stored_or_refused_alone(st: SqlStorage) -> None:
    """A burst of saves across tables is committed together (group commit), yet a stale writer
    or a second open table in a chat is refused on its own and the rest are stored."""
    rows = [await st.create_table(lobby(chat_id=-1000 - k)) for k in range(30)]
    old = await st.create_table(lobby(chat_id=-7))
    old.status = TableStatus.ABANDONED
    await st.save_table(old)
    await st.create_table(lobby(chat_id=-7))  # the chat has a new open table
    old.status = TableStatus.PLAYING  # reopening the old one beside it must fail
    for row in rows:
        row.version += 2
    stale = TableRow(**{**rows[5].__dict__, "version": 1})  # a writer one action behind
    results = await asyncio.gather(
        *(st.save_table(r, [f"{r.version - 2} play 3", f"{r.version - 1} pass"]) for r in rows),
        st.save_table(stale, ["0 play 4"]),
        st.save_table(old),
        return_exceptions=True,
    )
    assert results[:30] == [[]] * 30  # stored, no outbox messages
    assert isinstance(results[30], VersionConflict)
    assert isinstance(results[31], TableExists)
    for row in rows:
        assert row.table_id is not None
        assert await st.load_actions(row.table_id) == ["0 play 3", "1 pass"]
        assert (await st.load_table(row.table_id)) == row
    assert old.table_id is not None
    stored_old = await st.load_table(old.table_id)
    assert stored_old is not None and stored_old.status == "abandoned"
    # without a clash, in one batch: two saves of one table in order, a stale and a lost table
    first, second = TableRow(**rows[0].__dict__), rows[0]
    first.version, second.version = 3, 4
    gone = TableRow(**{**rows[1].__dict__, "table_id": 10_000})
    again = await asyncio.gather(
        st.save_table(first, ["2 play 5"]),
        st.save_table(second, ["3 pass"]),
        st.save_table(TableRow(**{**rows[2].__dict__, "version": 2}), ["1 play 4"]),
        st.save_table(gone),
        st.save_table(rows[3]),
        return_exceptions=True,
    )
    assert again[0] == [] and again[1] == [] and again[4] == []
    assert isinstance(again[2], VersionConflict) and isinstance(again[3], TableNotFound)
    assert rows[0].table_id is not None and rows[2].table_id is not None
    assert await st.load_actions(rows[0].table_id) == ["0 play 3", "1 pass", "2 play 5", "3 pass"]
    assert await st.load_actions(rows[2].table_id) == ["0 play 3", "1 pass"]


async def test_concurrent_creates_leave_one_table(st: SqlStorage) -> None:
    results = await asyncio.gather(
        *(st.create_table(lobby()) for _ in range(10)), return_exceptions=True
    )
    assert sum(isinstance(r, TableRow) for r in results) == 1
    assert sum(isinstance(r, TableExists) for r in results) == 9


async def test_stale_writer_gets_version_conflict_and_writes_nothing(st: SqlStorage) -> None:
    row = await st.create_table(lobby())
    assert row.table_id is not None
    row.version = 1
    await st.save_table(row, ["0 play 3"])
    stale = TableRow(**{**row.__dict__, "state": {"stale": True}})
    row.version = 2
    await st.save_table(row, ["1 play 4"])
    stale.version = 2
    with pytest.raises(VersionConflict, match="version 2"):
        await st.save_table(stale, ["1 play 5"])
    with pytest.raises(VersionConflict):  # a state-only save is guarded too
        await st.save_table(TableRow(**{**stale.__dict__, "version": 1}))
    with pytest.raises(VersionConflict):  # skipping an action
        await st.save_table(TableRow(**{**row.__dict__, "version": 4}), ["2 pass"])
    assert await st.load_actions(row.table_id) == ["0 play 3", "1 play 4"]
    loaded = await st.load_table(row.table_id)
    assert loaded is not None and loaded.version == 2 and "stale" not in loaded.state


async def test_many_tables_write_concurrently(st: SqlStorage) -> None:
    """200 tables, 50 actions each, all through one connection; every fifth action two writers
    race for it: exactly one wins, the loser reloads. No action lost, doubled or reordered."""
    tables = [await st.create_table(lobby(chat_id=-1000 - i)) for i in range(200)]
    conflicts = 0

    async def play(row: TableRow) -> None:
        nonlocal conflicts
        assert row.table_id is not None
        seq = 0
        while seq < 50:
            if seq % 5 == 4:
                a = TableRow(**{**row.__dict__, "version": seq + 1})
                b = TableRow(**{**row.__dict__, "version": seq + 1})
                got = await asyncio.gather(
                    st.save_table(a, [f"{seq} a"]),
                    st.save_table(b, [f"{seq} b"]),
                    return_exceptions=True,
                )
                assert sorted(type(g).__name__ for g in got) == ["VersionConflict", "list"]
                conflicts += 1
                fresh = await st.load_table(row.table_id)
                assert fresh is not None and fresh.version == seq + 1
                row = fresh
            else:
                row.version = seq + 1
                row.state["last"] = seq
                await st.save_table(row, [f"{seq} x"])
            seq += 1

    await asyncio.gather(*(play(t) for t in tables))
    assert conflicts == 200 * 10
    for t in tables:
        assert t.table_id is not None
        actions = await st.load_actions(t.table_id)
        assert [int(a.split()[0]) for a in actions] == list(range(50))
        assert all(a.endswith(" x") for i, a in enumerate(actions) if i % 5 != 4)
        loaded = await st.load_table(t.table_id)
        assert loaded is not None and loaded.version == 50


async def test_games_newest_first_and_idempotent(st: SqlStorage) -> None:
    t1 = await st.create_table(lobby())
    assert t1.table_id is not None
    for n in (1, 2, 3):
        await st.save_game(t1.table_id, -100, n, {"rules": "standard", "n": n, "名": "对头"})
    await st.save_game(t1.table_id, -100, 2, {"rules": "standard", "n": 99})  # a retry: no-op
    assert [g["n"] for g in await st.games(-100)] == [3, 2, 1]
    assert [g["n"] for g in await st.games(-100, limit=2)] == [3, 2]
    assert (await st.games(-100))[0]["名"] == "对头"
    assert await st.games(-200) == []


async def test_migrate_chat_moves_everything(st: SqlStorage) -> None:
    await st.save_chat(ChatRow(-100, "en", {"timer": 20}))
    over = await st.create_table(lobby())
    assert over.table_id is not None
    over.status, over.version = TableStatus.OVER, 1
    await st.save_table(over, ["0 play 3"])
    await st.save_game(over.table_id, -100, 1, {"n": 1})
    open_ = await st.create_table(lobby(thread_id=None))
    other = await st.create_table(lobby(chat_id=-300))

    await st.migrate_chat(-100, -100777)
    assert await st.get_chat(-100) is None
    assert await st.get_chat(-100777) == ChatRow(-100777, "en", {"timer": 20})
    moved = await st.table_for_chat(-100777)
    assert moved is not None and moved.table_id == open_.table_id
    assert await st.table_for_chat(-100) is None
    assert [g["n"] for g in await st.games(-100777)] == [1]
    assert await st.games(-100) == []
    assert await st.load_actions(over.table_id) == ["0 play 3"]
    assert await st.table_for_chat(-300) == other


async def test_migrate_chat_keeps_newer_settings_and_refuses_two_open_tables(
    st: SqlStorage,
) -> None:
    await st.save_chat(ChatRow(-1, "en", {"old": True}))
    await st.save_chat(ChatRow(-2, "zh", {"new": True}))
    await st.create_table(lobby(chat_id=-1))
    await st.create_table(lobby(chat_id=-2))
    with pytest.raises(TableExists):
        await st.migrate_chat(-1, -2)
    assert await st.get_chat(-1) == ChatRow(-1, "en", {"old": True})  # nothing moved
    assert (await st.table_for_chat(-1)) is not None
    t = await st.table_for_chat(-2)
    assert t is not None
    t.status = TableStatus.ABANDONED
    await st.save_table(t)
    await st.migrate_chat(-1, -2)
    assert await st.get_chat(-2) == ChatRow(-2, "zh", {"new": True})
    assert await st.get_chat(-1) is None


async def test_reopening_keeps_everything(backend: Backend) -> None:
    db = await backend.db("new/dir/gouji.sqlite3")
    st = await open_storage(db)
    try:
        await st.save_chat(ChatRow(-100, "zh", {"preset": "standard"}))
        await st.save_user(UserRow(111, "老王", "zh", True))
        row = await st.create_table(lobby())
        row.status, row.version = TableStatus.PLAYING, 3
        await st.save_table(row, ["0 play QQQ", "3 pass", "4 yield"])
        assert row.table_id is not None
        await st.save_game(row.table_id, -100, 1, {"rules": "standard"})
    finally:
        await st.close()
    if backend.name == "sqlite":
        assert Path(db).exists()
    async with backend.storage(db) as again:
        assert await again.get_chat(-100) == ChatRow(-100, "zh", {"preset": "standard"})
        user = await again.get_user(111)
        assert user is not None and user.name == "老王" and user.dm_ok
        assert await again.unfinished_tables() == [row]
        assert await again.load_actions(row.table_id) == ["0 play QQQ", "3 pass", "4 yield"]
        assert await again.games(-100) == [{"rules": "standard"}]


async def test_pragmas_and_schema_version(sqlite_st: SqliteStorage) -> None:
    st = sqlite_st
    assert raw(st.path, "PRAGMA journal_mode") == [("wal",)]
    assert raw(st.path, "PRAGMA user_version") == [(len(MIGRATIONS),)]
    db = st._db
    assert db is not None
    for pragma, value in (("synchronous", 2), ("foreign_keys", 1)):
        async with db.execute(f"PRAGMA {pragma}") as cur:
            assert await cur.fetchone() == (value,)


async def test_lookups_use_indexes(sqlite_st: SqliteStorage) -> None:
    st = sqlite_st
    db = st._db
    assert db is not None
    queries = {
        "game_tables_active": "SELECT * FROM game_tables WHERE chat_id = 1"
        " AND ifnull(thread_id, 0) = 0 AND status IN ('lobby', 'playing')",
        "game_tables_status": "SELECT * FROM game_tables WHERE status IN ('lobby', 'playing')",
        "games_chat": "SELECT record FROM games WHERE chat_id = 1 ORDER BY created_at DESC",
        "PRIMARY KEY": "SELECT action FROM actions WHERE table_id = 1 ORDER BY seq",
    }
    for index, sql in queries.items():
        async with db.execute("EXPLAIN QUERY PLAN " + sql) as cur:
            plan = " ".join(str(r[-1]) for r in await cur.fetchall())
        assert index in plan, (sql, plan)
        assert "TEMP B-TREE" not in plan, (sql, plan)


V2 = "ALTER TABLE users ADD COLUMN games_played INTEGER NOT NULL DEFAULT 0;"


async def test_a_v1_database_is_migrated(backend: Backend) -> None:
    db = await backend.db("v1.sqlite3")
    await backend.build(db, 1)  # a version-1 database, built by hand
    await backend.raw(db, "INSERT INTO users VALUES (111, '老王', 'zh', 1, 1.5)")
    async with backend.storage(db, migrations=(*MIGRATIONS, V2)) as st:
        assert await st.get_user(111) == UserRow(111, "老王", "zh", True, 1.5)
        await st.save_user(UserRow(222, "小李"))
    assert await backend.version(db) == len(MIGRATIONS) + 1
    got = await backend.raw(db, "SELECT user_id, games_played FROM users ORDER BY 1")
    assert got == [(111, 0), (222, 0)]

    with pytest.raises(SchemaTooNew, match="newer than this bot knows"):
        await open_storage(db)  # the older code refuses, and leaves no open connection


async def test_both_dialects_make_the_same_schema(tmp_path: Path, pg_cluster: PgCluster) -> None:
    """The numbered versions stay in step: at every version the two backends have the same
    tables, columns (in order) and indexes."""
    for version in range(1, len(MIGRATIONS) + 1):
        shapes = []
        for name in BACKENDS:
            b = Backend(name, tmp_path, pg_cluster if name == "postgresql" else None)
            db = await b.db(f"v{version}.sqlite3")
            await b.build(db, version)
            shapes.append(await b.schema(db))
        assert shapes[0] == shapes[1], version
        assert "game_tables" in shapes[0] and "index:game_tables_active" in shapes[0]


def test_a_migration_using_sqlite_only_features_is_refused_for_postgresql() -> None:
    assert "BIGINT" in postgres_script("CREATE TABLE t (chat_id INTEGER, n INTEGER);")
    assert "n INTEGER" in postgres_script("CREATE TABLE t (chat_id INTEGER, n INTEGER);")
    with pytest.raises(ValueError, match="PRAGMA"):
        postgres_script("PRAGMA foreign_keys = OFF;")


async def test_a_failing_migration_changes_nothing(backend: Backend) -> None:
    db = await backend.db("g.sqlite3")
    async with backend.storage(db) as st:
        await st.save_user(UserRow(1, "a"))
    broken = "CREATE TABLE extra (x INTEGER); INSERT INTO no_such_table VALUES (1);"
    failed = (sqlite3.OperationalError, asyncpg.UndefinedTableError)
    with pytest.raises(failed, match="no_such_table"):
        await backend.storage(db, migrations=(*MIGRATIONS, broken)).open()
    assert await backend.version(db) == len(MIGRATIONS)
    with pytest.raises(failed, match="extra"):  # the script's first table is gone with it
        await backend.raw(db, "SELECT x FROM extra")
    dangling = "INSERT INTO actions VALUES (999, 0, '0 pass');"  # no table 999
    broke = f"migration {len(MIGRATIONS) + 1} breaks foreign keys|foreign key constraint"
    with pytest.raises((StorageError, asyncpg.ForeignKeyViolationError), match=broke):
        await backend.storage(db, migrations=(*MIGRATIONS, dangling)).open()
    async with backend.storage(db) as st:
        assert await st.get_user(1) is not None
        assert await st.load_actions(999) == []


async def test_close_waits_for_the_write_under_way(backend: Backend) -> None:
    db = await backend.db("c.sqlite3")
    st = await open_storage(db)
    row = await st.create_table(lobby())
    assert row.table_id is not None
    row.version = 1
    write = asyncio.create_task(st.save_table(row, ["0 play 3"]))
    await asyncio.sleep(0)  # the write holds the lock
    closing = asyncio.create_task(st.close())
    await asyncio.sleep(0)  # close waits for the write
    late = asyncio.create_task(st.get_chat(1))  # and a read queued behind close
    await closing
    await write
    with pytest.raises(StorageError, match="not open"):  # gets a clear error
        await late
    async with backend.storage(db) as again:
        assert await again.load_actions(row.table_id) == ["0 play 3"]
    with pytest.raises(StorageError, match="not open"):
        await st.get_chat(1)


async def test_cancelled_writers_leave_no_open_transaction(st: SqlStorage) -> None:
    """Cancelled at any point of its unit (waiting for BEGIN, mid-way, at COMMIT), a write is
    either whole or absent, and the connection stays usable."""
    row = await st.create_table(lobby())
    assert row.table_id is not None
    outcomes = set()
    for delay in range(16):
        row.version += 1
        task = asyncio.create_task(st.save_table(row, [f"{row.version - 1} play 3"]))
        await asyncio.sleep(delay * 0.0001)
        task.cancel()
        try:
            await task
            outcomes.add("done")
        except asyncio.CancelledError:
            outcomes.add("cancelled")
        stored = await st.load_actions(row.table_id)
        assert stored == [f"{i} play 3" for i in range(len(stored))]
        assert len(stored) in (row.version - 1, row.version)
        row.version = len(stored)
        row.version += 1
        await st.save_table(row, [f"{row.version - 1} play 3"])  # the next write goes through
    assert "cancelled" in outcomes


KILLED = """
import asyncio, os, sys
from bot.storage import TableRow, open_storage

async def main() -> None:
    st = await open_storage(sys.argv[1])
    row = await st.create_table(TableRow(None, -100, None, "playing", 111, {{"名": "老王"}}))
    for i in range({n}):
        row.version = i + 1
        await st.save_table(row, [f"{{i}} play 3"])
    print(row.table_id, flush=True)
    os._exit(0)  # killed: no close, no checkpoint

asyncio.run(main())
"""


async def test_a_killed_process_keeps_its_committed_actions(backend: Backend) -> None:
    db = await backend.db("killed.sqlite3")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(KILLED.format(n=3)), db],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=20,
        check=True,
    )
    table_id = int(out.stdout)
    if backend.name == "sqlite":
        assert Path(db + "-wal").stat().st_size > 0  # the writes live in the WAL only
    async with backend.storage(db) as st:
        row = await st.load_table(table_id)
        assert row is not None and row.version == 3 and row.state == {"名": "老王"}
        assert await st.load_actions(table_id) == ["0 play 3", "1 play 3", "2 play 3"]


async def test_a_recently_finished_table_is_resumed_an_old_one_is_not(
    st: SqlStorage, backend: Backend
) -> None:
    """再来一局 still works after a restart on the day of the game, not weeks later."""
    recent, old = await st.create_table(lobby(-1)), await st.create_table(lobby(-2))
    for row in (recent, old):
        row.status = TableStatus.OVER
        await st.save_table(row)
    assert {r.table_id for r in await st.unfinished_tables()} == {recent.table_id, old.table_id}
    await backend.raw(  # the same database, as another writer would
        await backend.db("db/gouji.sqlite3"),
        "UPDATE game_tables SET updated_at = ? WHERE table_id = ?",
        (time.time() - OVER_KEPT_S - 60, old.table_id),
    )
    assert [r.table_id for r in await st.unfinished_tables()] == [recent.table_id]


async def test_uploads_are_remembered_by_digest(backend: Backend) -> None:
    db = await backend.db("u.sqlite3")
    async with backend.storage(db) as st:
        assert await st.get_upload("abc") is None
        await st.save_upload("abc", "FILE1")
        await st.save_upload("abc", "FILE2")  # the first file_id stays
        assert await st.get_upload("abc") == "FILE1"
    async with backend.storage(db) as st:  # and survives a restart
        assert await st.get_upload("abc") == "FILE1"


async def test_the_outbox_is_stored_with_its_actions_or_not_at_all(backend: Backend) -> None:
    """Messages an action causes are stored in its transaction, survive a restart until
    delivered, and are never stored for a refused save."""
    db = await backend.db("o.sqlite3")
    async with backend.storage(db) as st:
        row = await st.create_table(lobby())
        assert row.table_id is not None
        row.version = 1
        ids = await st.save_table(row, ["0 play 3"], [b"cheer-1", b"cheer-2"])
        assert len(ids) == 2 and ids[0] < ids[1]
        stale = TableRow(**{**row.__dict__, "version": 1})
        with pytest.raises(VersionConflict):
            await st.save_table(stale, ["0 play 4"], [b"never"])
        assert await st.pending_messages() == [(ids[0], b"cheer-1"), (ids[1], b"cheer-2")]
        await st.message_delivered(ids[0])
        await st.message_delivered(ids[0])  # twice: no harm
    async with backend.storage(db) as st:  # what was not delivered survives a restart
        assert await st.pending_messages() == [(ids[1], b"cheer-2")]
        await st.message_delivered(ids[1])
        assert await st.pending_messages() == []

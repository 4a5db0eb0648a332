"""A delivery's bookkeeping (a slot's message id, a picture's file_id, an outbox row gone) joins
the group commit on SQLite (bot.small_writes): a flood of them costs a commit, not one each, so
a press's table save never queues behind them — each still stored or refused on its own."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest

from bot.model import TableStatus
from bot.sql_storage import Tx
from bot.storage import SqliteStorage, TableRow


@pytest.fixture
async def st(tmp_path: Path) -> AsyncIterator[SqliteStorage]:
    async with SqliteStorage(tmp_path / "gouji.sqlite3") as storage:
        yield storage


def count_commits(st: SqliteStorage, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Write units (each one commit) from now on: its one element counts them."""
    commits = [0]
    unit = st._unit

    def counted(write: bool = True) -> AbstractAsyncContextManager[Tx]:
        commits[0] += write
        return unit(write)

    monkeypatch.setattr(st, "_unit", counted)
    return commits


async def test_a_flood_of_small_writes_and_saves_shares_one_commit(
    st: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        await st.create_table(TableRow(None, -k, None, TableStatus.PLAYING, 1, {})) for k in (1, 2)
    ]
    ids = [r.table_id for r in rows]
    assert None not in ids
    commits = count_commits(st, monkeypatch)
    for r in rows:
        r.version = 1
    await asyncio.gather(
        *(st.save_slot(rows[k % 2].table_id or 0, "hand", k, 100 + k) for k in range(40)),
        *(st.save_upload(f"d{k}", f"file{k}") for k in range(20)),
        *(st.save_table(r, ["0 pass"]) for r in rows),
    )
    assert commits[0] == 1  # everything that arrived together: one commit
    assert len(await st.load_slots(rows[0].table_id or 0)) == 20
    assert await st.get_upload("d19") == "file19"
    assert await st.load_actions(rows[1].table_id or 0) == ["0 pass"]


async def test_a_save_waits_for_at_most_the_commit_under_way(
    st: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """200 deliveries' bookkeeping queued before a press's save: the save is in the next commit
    (not behind 200 of them)."""
    row = await st.create_table(TableRow(None, -1, None, TableStatus.PLAYING, 1, {}))
    commits = count_commits(st, monkeypatch)
    first = asyncio.create_task(st.save_upload("first", "f"))
    await asyncio.sleep(0)  # its commit begins
    flood = [asyncio.create_task(st.save_upload(f"d{k}", f"f{k}")) for k in range(200)]
    row.version = 1
    await st.save_table(row, ["0 pass"])
    assert commits[0] <= 2
    await asyncio.gather(first, *flood)
    assert commits[0] <= 2


async def test_a_failing_small_write_is_refused_alone(st: SqliteStorage) -> None:
    async def bad() -> None:
        await st._write_small(
            "INSERT INTO uploads (digest, file_id, created_at) VALUES (?, NULL, 0)", ("x",)
        )

    results = await asyncio.gather(
        st.save_upload("a", "fa"), bad(), st.save_upload("b", "fb"), return_exceptions=True
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], sqlite3.IntegrityError)
    assert (await st.get_upload("a"), await st.get_upload("b"), await st.get_upload("x")) == (
        "fa",
        "fb",
        None,
    )


async def test_a_cancelled_small_write_is_whole_or_absent(st: SqliteStorage) -> None:
    """Cancelled once its commit began: written all the same; before: never written."""
    begun = [asyncio.create_task(st.save_upload(f"c{k}", "f")) for k in range(12)]
    await asyncio.sleep(0)  # queued: their commit starts next
    late = [asyncio.create_task(st.save_upload(f"late{k}", "f")) for k in range(6)]
    await asyncio.sleep(0)  # the commit has begun with the first twelve; the late ones wait
    for task in (*begun, *late):
        task.cancel()
    results = await asyncio.gather(*begun, *late, return_exceptions=True)
    assert all(isinstance(r, asyncio.CancelledError) for r in results)
    assert [await st.get_upload(f"c{k}") for k in range(12)] == ["f"] * 12
    assert [await st.get_upload(f"late{k}") for k in range(6)] == [None] * 6
    await st.save_upload("next", "f")  # the next write goes through
    assert await st.get_upload("next") == "f"


async def test_after_close_a_small_write_says_so(tmp_path: Path) -> None:
    st = SqliteStorage(tmp_path / "c.sqlite3")
    await st.open()
    await st.close()
    with pytest.raises(Exception, match="not open"):
        await st.save_upload("a", "f")

"""A press is answered at once even while another process holds its table (bot.answers): the
answer never waits for the table's lock; the press takes effect once the table is free."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path

import asyncpg
import pytest
from botkit import World, join_and_start, open_and_seat, people, world

from bot.buttons import LobbyOp
from bot.offline.localapi import SimGroup, SimUser
from bot.offline.localbot import runtime
from bot.offline.pgcluster import PgCluster
from bot.offline.simplayers import button_data, lobby_message
from bot.table import Table

pytestmark = pytest.mark.e2e


async def _one_seated_one_coming(w: World, chat_id: int) -> tuple[SimGroup, SimUser, Table]:
    """A lobby with one player seated, and another in the group who started the bot."""
    group = w.api.group(chat_id, "另一个进程")
    me, you = people(w, 2)
    await open_and_seat(w, group, [me])
    await join_and_start(w, group, you)
    table = runtime(w.app).parts.tables.at(group.id, None)
    assert table is not None
    return group, you, table


async def test_a_press_on_a_table_another_process_holds_is_answered_at_once(
    tmp_path: Path, pg_cluster: PgCluster
) -> None:
    db = await pg_cluster.create_database()
    async with world(tmp_path, seed=3, db=db) as w:
        rt = runtime(w.app)
        # as in production: a press not answered within 100 ms is answered at once
        w.app.bot_data.rt = dataclasses.replace(rt, answer_within=0.1)
        group, you, table = await _one_seated_one_coming(w, -1003)
        other = await asyncpg.connect(db)  # another process, changing the table
        try:
            await other.execute("SELECT pg_advisory_lock($1)", table.id)
            data = button_data(lobby_message(w.api, group), LobbyOp.SIT, 1)
            assert data is not None
            await you.press(lobby_message(w.api, group), data=data)
            for _ in range(100):  # answered while the table is still held elsewhere
                if you.answers():
                    break
                await asyncio.sleep(0.02)
            assert [a.text for a in you.answers()] == [None]  # the spinner stopped, no toast
            assert table.st.seats[1] is None  # the press waits for the table meanwhile
        finally:
            await other.execute("SELECT pg_advisory_unlock($1)", table.id)
            await other.close()
        await w.settle()
        assert table.st.seats[1] is not None  # then it takes its seat
        assert len(you.answers()) == 1  # answered once


async def test_a_table_another_process_serves_leaves_memory_after_the_press(
    tmp_path: Path, pg_cluster: PgCluster
) -> None:
    """Issue 35: a process holds only the tables it serves. A press on a table another live
    process serves (it stored the table's last change) is served here — the table loaded,
    changed, stored — and the table then leaves this process's memory."""
    db = await pg_cluster.create_database()
    async with world(tmp_path, seed=3, db=db) as w:
        rt = runtime(w.app)
        tables = rt.parts.tables
        group, you, table = await _one_seated_one_coming(w, -1004)
        other = await asyncpg.connect(db)  # another process, alive, served the table last
        try:
            await other.execute(
                "INSERT INTO procs (proc_id, beat_at) VALUES ('other', $1)", time.time() + 600
            )
            await other.execute(
                "UPDATE game_tables SET writer = 'other' WHERE table_id = $1", table.id
            )
        finally:
            await other.close()
        tables.drop(table)  # (never loaded here)
        data = button_data(lobby_message(w.api, group), LobbyOp.SIT, 1)
        assert data is not None
        await you.press(lobby_message(w.api, group), data=data)
        await w.settle()
        assert tables.get(table.id) is None  # served, then left to the process serving it
        found = await tables.find(table.id)  # as stored: the press took effect
        assert found is not None and found.st.seats[1] is not None

"""The bot removed from a forum group ends its tables in every topic: those in memory, those
that left memory idle, and (several processes) those another process serves."""

from __future__ import annotations

from pathlib import Path

import pytest
from botkit import people, world
from test_bot_shared import second_process

from bot.offline.localbot import runtime
from bot.offline.pgcluster import PgCluster
from bot.tables import Tables, UserInfo

pytestmark = pytest.mark.e2e  # the bot's parts on the local server

TOPICS = (11, 12)


async def statuses(tables: Tables, ids: list[int]) -> list[str]:
    rows = [await tables.storage.load_table(tid) for tid in ids]
    return [r.status if r is not None else "?" for r in rows]


async def test_removal_ends_the_tables_of_every_topic(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        g = w.api.group(-2401, "话题")
        (opener,) = people(w, 1, base=720)
        await opener.send("/start")
        tables = w.parts.tables
        me = UserInfo(opener.id, "开桌")
        for topic in TOPICS:
            await w.parts.lobby.open_table(g.id, topic, me)
        await w.settle()
        found = [t for topic in TOPICS if (t := tables.at(g.id, topic)) is not None]
        ids = [t.id for t in found]
        assert len(ids) == 2
        assert await tables.evict(found[0]) is True  # idle: it left memory (parked)
        assert tables.get(ids[0]) is None
        await tables.bot_removed(g.id)
        assert await statuses(tables, ids) == ["abandoned", "abandoned"]
        assert all(tables.at(g.id, topic) is None for topic in TOPICS)
        assert not tables.parked and tables.get(ids[1]) is None


async def test_another_process_ends_the_tables_of_every_topic(
    tmp_path: Path, pg_cluster: PgCluster
) -> None:
    """The removal reaches a process that never saw the chat's tables: it finds them in
    storage, in both topics, and ends them."""
    db = await pg_cluster.create_database()
    async with (
        world(tmp_path, db=db) as w,
        second_process(w.api, db, w.cfg, w.pacing) as other,
    ):
        g = w.api.group(-1002401, "话题")
        (opener,) = people(w, 1, base=730)
        me = UserInfo(opener.id, "开桌")
        for topic in TOPICS:
            await w.parts.lobby.open_table(g.id, topic, me)
        await w.settle()
        theirs = runtime(other).parts.tables
        ids = await theirs.deployment.tables_of_chat(g.id)
        assert len(ids) == 2 and not theirs.all()
        await theirs.bot_removed(g.id)
        assert await statuses(theirs, ids) == ["abandoned", "abandoned"]
        assert await theirs.of_chat(g.id) == []
        assert await w.parts.tables.find_at(g.id, TOPICS[0]) is None

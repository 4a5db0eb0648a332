"""Two bot processes on one PostgreSQL database, in one test process: the first takes the
updates, the second only what the database shares — due timers (AI moves) and chats to deliver
to. A whole game moves back and forth between them, and ends as one process would end it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from botkit import open_and_seat, over, people, play_game, start, world

from bot.app import GoujiApp, build_app, post_init, post_shutdown
from bot.buttons import LobbyOp
from bot.offline.localapi import LocalBotApi
from bot.offline.localbot import runtime
from bot.offline.pgcluster import PgCluster
from bot.offline.simplayers import press_lobby
from bot.pacing import Pacing
from bot.storage import storage_for
from bot.tables import Config
from bot.timers import StoredTimers
from engine.record import replay_text

pytestmark = pytest.mark.e2e


@asynccontextmanager
async def second_process(
    api: LocalBotApi, db: str, cfg: Config, pacing: Pacing
) -> AsyncIterator[GoujiApp]:
    """A second bot on the same database that gets no updates of its own."""
    app = build_app(api.token, storage_for(db), cfg, base_url=api.base_url, pacing=pacing)
    async with app:
        await post_init(app)
        try:
            yield app
        finally:
            await post_shutdown(app)


async def test_a_game_moves_between_two_processes(tmp_path: Path, pg_cluster: PgCluster) -> None:
    db = await pg_cluster.create_database()
    async with (
        world(tmp_path, seed=5, db=db, ai_delay=0.05) as w,
        second_process(w.api, db, w.cfg, w.pacing) as other,
    ):
        if True:
            mine = runtime(w.app).timers
            theirs = runtime(other).timers
            assert isinstance(mine, StoredTimers) and isinstance(theirs, StoredTimers)
            await mine.stop_claiming()  # the first stores its timers, the second fires them
            group = w.api.group(-1002, "两个进程")
            (me,) = people(w, 1)
            await open_and_seat(w, group, [me])
            await press_lobby(w.api, group, me, LobbyOp.FILL)
            await start(w, group, me)
            await play_game(w, group, [me], seed=5)
            assert over(w, group)()
            # the presses were the first's, the AI moves the second's: the table went back
            # and forth between them
            assert mine.fired == 0 and theirs.fired > 20, (mine.fired, theirs.fired)
    async with storage_for(db) as storage:
        (record,) = await storage.games(group.id)
    out, status = replay_text(json.dumps(record))
    assert status == 0 and out["result"]["over"] is True

"""``python -m bot`` on PostgreSQL (``GOUJI_DB`` a ``postgresql://`` URL): it runs, plays, and
is healthy; a database it cannot reach is one sentence, the password never shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_bot_startup import one_sentence, run_bot

from bot import health as H
from bot.buttons import LobbyOp
from bot.offline.botprocess import BotProcess, until
from bot.offline.localapi import LocalBotApi
from bot.offline.pgcluster import PgCluster
from bot.offline.simplayers import press_lobby
from bot.storage import storage_for

pytestmark = pytest.mark.e2e


async def test_the_bot_runs_on_postgresql_and_is_healthy(
    tmp_path: Path, pg_cluster: PgCluster
) -> None:
    db = await pg_cluster.create_database()
    code, out = await run_bot({"GOUJI_DB": db}, "health")
    assert code == 1 and "heartbeat" in one_sentence(out)  # the database is fine: not running
    async with LocalBotApi() as api:
        knobs = {"GOUJI_AI_DELAY": "0", "GOUJI_PACE": "0,0"}
        bot = BotProcess(api, db, knobs, log=tmp_path / "bot.log")
        await bot.start()
        try:
            group = api.group(-1001, "群", admins=[api.bot_id])
            me = api.user(100, "老王", language_code="zh")
            group.join_quietly(me)
            await me.send("/start")
            await me.send("/gouji", group)
            await api.idle(quiet=0.3, timeout=60.0)
            await press_lobby(api, group, me, LobbyOp.SIT, 0, timeout=30.0)
            await until(H.heartbeat_path(db).exists, 30.0)
            code, out = await run_bot({"GOUJI_DB": db}, "health")
            assert code == 0, out
        finally:
            await bot.stop()
    async with storage_for(db) as storage:  # the lobby the bot opened is in PostgreSQL
        table = await storage.table_for_chat(group.id)
    assert table is not None and table.opener == me.id and table.version == 0


async def test_a_database_out_of_reach_is_one_sentence_without_the_password(
    pg_cluster: PgCluster,
) -> None:
    wrong = f"postgresql://gouji:s3cret-pw@127.0.0.1:{pg_cluster.port + 1}/gouji"
    code, out = await run_bot({"GOUJI_DB": wrong}, "health")
    sentence = one_sentence(out)
    assert code == 1 and "cannot reach PostgreSQL" in sentence
    assert "s3cret-pw" not in out and "***" in sentence
    code, out = await run_bot({"GOUJI_DB": wrong, "TELEGRAM_BOT_TOKEN": "1:x"}, "run")
    assert code == 1 and "cannot reach PostgreSQL" in one_sentence(out)
    assert "s3cret-pw" not in out

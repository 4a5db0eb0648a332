"""The story's storage (schema version 4), on both backends: facts rows as SeatFacts, sums equal
to the pure aggregation, recomputation from the records, badges and reviews stored (and
announced) once."""

from __future__ import annotations

import json
import random
import sqlite3

from backends import Backend

from bot.storage import MIGRATIONS, SqlStorage, TableRow
from bot.story_storage import FACT_COLUMNS, GameKey, StoryStore
from engine.deal import deal_hands
from engine.game import Game
from engine.playout import play_out
from engine.rules import STANDARD
from engine.stats import PlayerStats, game_facts


def records(n: int, seed: int = 3) -> list[dict[str, object]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        game = Game(STANDARD, deal_hands(rng), rng.randrange(6))
        play_out(game, rng)
        out.append(game.record().to_json())
    return out


async def stored(st: SqlStorage, chat: int, games: list[dict[str, object]]) -> list[GameKey]:
    table = await st.create_table(TableRow(None, chat, None, "lobby", 1, {}))  # type: ignore[arg-type]
    assert table.table_id is not None
    store, keys = StoryStore(st), []
    for n, record in enumerate(games, 1):
        await st.save_game(table.table_id, chat, n, record)
        key = GameKey(table.table_id, n)
        players = [f"u{(n + s) % 4}" if s % 2 == 0 else "ai:normal" for s in range(6)]
        names = [f"p{s}" for s in range(6)]
        assert await store.save_facts(chat, key, players, names, game_facts(record), 1000.0 + n)
        assert not await store.save_facts(chat, key, players, names, game_facts(record))
        keys.append(key)
    return keys


def test_the_schema_holds_every_fact() -> None:
    con = sqlite3.connect(":memory:")
    for script in MIGRATIONS:
        con.executescript(script)
    columns = [r[1] for r in con.execute("PRAGMA table_info(game_facts)")]
    assert columns[columns.index("seat") :][:1] == ["seat"]
    assert set(FACT_COLUMNS) <= set(columns)


async def test_sums_equal_the_pure_totals_and_recomputing_changes_nothing(
    backend: Backend,
) -> None:
    games = records(8)
    async with backend.storage(await backend.db()) as st:
        keys = await stored(st, -5, games)
        store = StoryStore(st)
        for player in ("u0", "u1", "u2", "u3"):
            mine = [
                game_facts(r)[s]
                for n, r in enumerate(games, 1)
                for s in range(0, 6, 2)
                if f"u{(n + s) % 4}" == player
            ]
            assert await store.player_stats(-5, player) == PlayerStats.of(mine)
            top = (await store.group_stats(-5, 1))[player]
            pure = PlayerStats.of(mine, recent=0)
            assert (top.games, top.wins, top.ranks, top.points) == (
                pure.games, pure.wins, pure.ranks, pure.points
            )  # fmt: skip
        assert "ai:normal" not in await store.group_stats(-5, 1)  # people rank, not the AI
        assert await store.recompute_facts() == 0
        for key, record in zip(keys, games, strict=True):
            assert await store.facts(key) == tuple(game_facts(record))
        # a row spoiled by hand is put right from the record
        async with st._unit() as db:
            await db.execute("UPDATE game_facts SET tricks = 99 WHERE number = 2 AND seat = 1")
        assert await store.recompute_facts(-5) == 1
        assert await store.facts(keys[1]) == tuple(game_facts(games[1]))
        page = await store.games(-5, 3)
        assert [g.key.number for g in page] == [8, 7, 6]
        older = await store.games(-5, 3, before=page[-1].key)
        assert [g.key.number for g in older] == [5, 4, 3]
        newer = await store.games(-5, 3, after=older[0].key)
        assert [g.key.number for g in newer] == [8, 7, 6]


async def test_a_badge_and_a_review_are_stored_and_announced_once(backend: Backend) -> None:
    async with backend.storage(await backend.db()) as st:
        (key,) = await stored(st, -6, records(1))
        store = StoryStore(st)
        first = await store.award(-6, "u1", "first_touke", key, b"announce")
        assert first is not None
        assert await store.award(-6, "u1", "first_touke", key, b"announce") is None
        assert await store.badges(-6, "u1") == ["first_touke"]
        review = await store.save_review(key, {"teams": [[], []]}, b"review")
        assert review is not None and await store.reviewed(key)
        assert await store.save_review(key, {}, b"review") is None
        assert [m for _, m in await st.pending_messages()] == [b"announce", b"review"]
        assert await store.unreviewed(0.0) == []
        record = await store.record(key)
        assert record is not None and json.loads(record[1])["rules"]

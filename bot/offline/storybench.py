"""``python -m bot bench --story [--games N] [--seed S]``: the story's queries on a group with N
stored games (10,000 by default) and the bytes a stored game costs; figures printed, the last
line JSON.

The games are synthetic in who played them and when (30 people of one group and the AI, a game
every 20 minutes), real in what was played: a pool of seeded random games (records and their
facts, ``engine.stats.game_facts``) is stored again and again. The file is filled with the
bot's own schema (``SqliteStorage``) and statements; the queries are the bot's own
(:class:`bot.story_storage.StoryStore`), timed from the event loop as the bot runs them.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from engine.deal import deal_hands
from engine.game import Game
from engine.playout import play_out
from engine.rules import STANDARD
from engine.stats import FACTS_VERSION, MIN_GAMES, Order, game_facts, leaderboard

from ..storage import SqliteStorage
from ..story_storage import _INSERT, StoryStore

POOL = 40  # distinct games played
PEOPLE = 30
CHAT = -100123
RUNS = 15


def _pool(seed: int) -> list[tuple[str, list[tuple[int, ...]]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(POOL):
        game = Game(STANDARD, deal_hands(rng), rng.randrange(6))
        play_out(game, rng)
        record = json.dumps(game.record().to_json(), ensure_ascii=False)
        out.append((record, [f.values() for f in game_facts(record)]))
    return out


def fill(path: Path, games: int, seed: int) -> None:
    """Store ``games`` games of one group in the bot's schema (one table per 8 games)."""
    pool = _pool(seed)
    rng = random.Random(seed)
    con = sqlite3.connect(path)
    now = time.time() - games * 1200.0
    with con:
        table_id = 0
        for i in range(games):
            if i % 8 == 0:
                cur = con.execute(
                    "INSERT INTO game_tables (chat_id, thread_id, status, opener, state, version,"
                    " created_at, updated_at) VALUES (?, NULL, 'abandoned', 1, '{}', 0, ?, ?)",
                    (CHAT, now, now),
                )
                table_id = int(cur.lastrowid or 0)
            number = i % 8 + 1
            record, facts = pool[rng.randrange(POOL)]
            at = now + i * 1200.0
            con.execute(
                "INSERT INTO games (table_id, number, chat_id, record, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (table_id, number, CHAT, record, at),
            )
            people = rng.sample(range(PEOPLE), 6)
            ai = rng.random() < 0.3  # some games with AI seats
            players = [
                "ai:normal" if ai and s % 2 else f"u{1000 + p}" for s, p in enumerate(people)
            ]
            con.executemany(
                _INSERT,
                [
                    (
                        table_id,
                        number,
                        CHAT,
                        players[s],
                        f"玩家{people[s]}",
                        at,
                        FACTS_VERSION,
                        *facts[s],
                    )
                    for s in range(6)
                ],
            )
    con.close()


async def _create(path: Path) -> None:
    async with SqliteStorage(path):  # the schema, at the bot's version
        pass


async def _time(make: Callable[[], Awaitable[None]], runs: int = RUNS) -> float:
    """The median milliseconds of ``make()``."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        await make()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


async def _measure(path: Path, games: int) -> dict[str, float]:
    async with SqliteStorage(path) as storage:
        store = StoryStore(storage)
        player = "u1007"

        async def stats() -> None:
            await store.player_stats(CHAT, player)
            await store.badges(CHAT, player)
            await store.names(CHAT, [player])

        async def top() -> None:
            all_stats = await store.group_stats(CHAT, MIN_GAMES)
            shown = {
                s.player
                for order in (Order.POINTS, Order.AVG_RANK)
                for s in leaderboard(all_stats, order)
            }
            await store.names(CHAT, sorted(shown))

        async def history() -> None:
            await store.games(CHAT, 5)

        figures = {
            "stats_ms": await _time(stats),
            "top_ms": await _time(top),
            "history_ms": await _time(history),
        }
        row = await storage._first(
            "SELECT sum(length(record)) FROM games WHERE chat_id = ?", (CHAT,)
        )
        figures["record_bytes_per_game"] = row[0] / games
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = (
        {
            name: n
            for name, n in con.execute(
                "SELECT name, sum(pgsize) FROM dbstat GROUP BY name"
            ).fetchall()
        }
        if _has_dbstat(con)
        else {}
    )
    con.close()
    size = path.stat().st_size
    figures["file_bytes_per_game"] = size / games
    if pages:
        facts = sum(
            v
            for k, v in pages.items()
            if k.startswith(("game_facts", "sqlite_autoindex_game_facts"))
        )
        figures["facts_bytes_per_game"] = facts / games
        figures["games_bytes_per_game"] = (
            sum(
                v
                for k, v in pages.items()
                if k in ("games", "sqlite_autoindex_games_1", "games_chat")
            )
            / games
        )
    return figures


def _has_dbstat(con: sqlite3.Connection) -> bool:
    try:
        con.execute("SELECT 1 FROM dbstat LIMIT 1")
    except sqlite3.OperationalError:
        return False
    return True


def main(games: int = 10_000, seed: int = 1) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "story.sqlite3"
        asyncio.run(_create(path))
        t0 = time.perf_counter()
        fill(path, games, seed)
        print(f"filled {games} games ({POOL} distinct, {PEOPLE} people) in "
              f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
        figures = asyncio.run(_measure(path, games))
    print(f"/stats queries (totals, last {20} games, badges, name): {figures['stats_ms']:.1f} ms")
    print(f"/top queries (totals of every person, names):        {figures['top_ms']:.1f} ms")
    print(f"/history page (5 games):                              {figures['history_ms']:.1f} ms")
    print(f"record: {figures['record_bytes_per_game']:.0f} B/game (JSON text)")
    if "facts_bytes_per_game" in figures:
        print(f"facts rows with their indexes: {figures['facts_bytes_per_game']:.0f} B/game; "
              f"games rows with theirs: {figures['games_bytes_per_game']:.0f} B/game")  # fmt: skip
    print(f"whole file: {figures['file_bytes_per_game']:.0f} B/game")
    print(json.dumps({"games": games, **{k: round(v, 1) for k, v in figures.items()}}))
    return 0

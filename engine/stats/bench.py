"""``python -m engine.stats bench``: how long the statistics take at a group's scale, printed as
figures (the last line is JSON). Games are seeded random playouts (:mod:`engine.playout`); a
group of ``--players`` players sits them in turn, so each player has many games.

What the bot needs: ``/stats`` and ``/top`` answered within 200 ms with 10,000 stored games.
"""

from __future__ import annotations

import json
import random
import sqlite3
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine.deal import deal_hands
from engine.game import Game
from engine.playout import play_out
from engine.rules import STANDARD

from .aggregate import (
    SQL_SUMS,
    Order,
    PlayerStats,
    TableGame,
    group_stats,
    leaderboard,
    pair_records,
)
from .badges import PlayerGame, badges_of
from .facts import SeatFacts, game_facts


def random_records(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` finished random games under the standard rules, as game records (RECORDS.md)."""
    out = []
    for k in range(n):
        rng = random.Random(seed * 7919 + k)
        game = Game(STANDARD, deal_hands(rng), rng.randrange(6))
        play_out(game, rng)
        out.append(game.record().to_json())
    return out


def group_games(
    facts: list[list[SeatFacts]], games: int, players: int, seed: int
) -> list[TableGame]:
    """``games`` games of a group of ``players`` people, one a minute, eight a match: the first
    player sits every game (the worst case for ``/stats``), five others are drawn for each."""
    rng = random.Random(seed)
    keys = [f"u{100000 + i}" for i in range(players)]
    out = []
    for i in range(games):
        seated = [keys[0], *rng.sample(keys[1:], 5)]
        rng.shuffle(seated)
        out.append(TableGame(tuple(seated), tuple(facts[i % len(facts)]), 60.0 * i, str(i // 8)))
    return out


def _ms(fn: Callable[[], object], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


def run(games: int = 10_000, players: int = 30, seed: int = 1, runs: int = 5) -> dict[str, Any]:
    records = random_records(40, seed)
    texts = [json.dumps(r, separators=(",", ":")) for r in records]
    facts = [game_facts(t) for t in texts]
    k = iter(range(10**9))
    facts_ms = _ms(lambda: game_facts(texts[next(k) % len(texts)]), 3 * len(texts))
    rows = [json.dumps(f.to_json(), separators=(",", ":")) for g in facts for f in g]
    table = group_games(facts, games, players, seed)
    player = "u100000"
    own = [g.facts[g.players.index(player)] for g in table if player in g.players]
    own_rows = [json.dumps(f.to_json(), separators=(",", ":")) for f in own]
    all_rows = [
        (key, json.dumps(f.to_json(), separators=(",", ":")))
        for g in table
        for key, f in zip(g.players, g.facts, strict=True)
    ]
    played = [PlayerGame(f, g.finished_at, g.match) for g, f in zip(table, own, strict=True)]

    def stats_from_rows() -> PlayerStats:
        return PlayerStats.of(SeatFacts.from_json(json.loads(r)) for r in own_rows)

    def top_from_rows() -> None:
        by: dict[str, list[SeatFacts]] = {}
        for key, r in all_rows:
            by.setdefault(key, []).append(SeatFacts.from_json(json.loads(r)))
        stats = {key: PlayerStats.of(fs) for key, fs in by.items()}
        leaderboard(stats, Order.POINTS)
        leaderboard(stats, Order.AVG_RANK)

    def top_from_facts() -> None:
        stats = group_stats(table)
        leaderboard(stats, Order.POINTS)
        leaderboard(stats, Order.AVG_RANK)

    db = seat_table(table)
    sums = ", ".join(SQL_SUMS)

    def stats_by_sql() -> PlayerStats:
        row = db.execute(f"SELECT {sums} FROM seats WHERE player = ?", (player,)).fetchone()
        last = db.execute(
            "SELECT points FROM seats WHERE player = ? ORDER BY finished_at DESC LIMIT 20",
            (player,),
        ).fetchall()
        return PlayerStats.from_sums(row, [p for (p,) in reversed(last)])

    def top_by_sql() -> None:
        rows = db.execute(f"SELECT player, {sums} FROM seats GROUP BY player").fetchall()
        stats = {r[0]: PlayerStats.from_sums(r[1:]) for r in rows}
        leaderboard(stats, Order.POINTS)
        leaderboard(stats, Order.AVG_RANK)

    assert stats_by_sql() == PlayerStats.of(own)
    one_game = json.dumps([f.to_json() for f in facts[0]], separators=(",", ":"))
    return {
        "facts_of_one_game_ms": facts_ms,
        "record_bytes_mean": round(statistics.mean(len(t) for t in texts)),
        "facts_bytes_one_game": len(one_game.encode()),
        "facts_bytes_per_seat_mean": round(statistics.mean(len(r) for r in rows), 1),
        "group_games": games,
        "group_players": players,
        "player_games": len(own),
        "player_stats_from_facts_ms": _ms(lambda: PlayerStats.of(own), runs),
        "player_stats_from_json_rows_ms": _ms(stats_from_rows, runs),
        "player_pairs_ms": _ms(lambda: pair_records(table, player), runs),
        "player_badges_ms": _ms(lambda: badges_of(played), runs),
        "top_from_facts_ms": _ms(top_from_facts, runs),
        "top_from_json_rows_ms": _ms(top_from_rows, runs),
        "player_stats_by_sql_ms": _ms(stats_by_sql, runs),
        "top_by_sql_ms": _ms(top_by_sql, runs),
    }


def seat_table(games: list[TableGame]) -> sqlite3.Connection:
    """An in-memory SQLite table of one row per seat per game, columns SeatFacts.columns(), with
    the indexes a bot would keep (measuring only: the engine itself never stores anything)."""
    cols = SeatFacts.columns()
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE seats (player TEXT, finished_at REAL, {', '.join(cols)})")
    db.execute("CREATE INDEX seats_player ON seats (player, finished_at)")
    marks = ", ".join("?" * (len(cols) + 2))
    db.executemany(
        f"INSERT INTO seats VALUES ({marks})",
        (
            (key, g.finished_at, *f.values())
            for g in games
            for key, f in zip(g.players, g.facts, strict=True)
        ),
    )
    return db

"""A player's totals, pairs and the leaderboard (engine/stats/aggregate.py) from hand-made facts;
the SQL sums give the same totals as the Python ones."""

from __future__ import annotations

import sqlite3

import pytest

from engine.stats import (
    SQL_SUMS,
    Order,
    PlayerStats,
    SeatFacts,
    TableGame,
    best_partners,
    favourite_victims,
    group_stats,
    leaderboard,
    pair_records,
    player_facts,
    toughest_opponents,
)

GAMES = [
    SeatFacts(0, 1, 6, opened=True, open_point=True, burns=1, burn_wins=1, men_given=2),
    SeatFacts(3, 6, -12, open_point=True, smothered=True, swept=True),
    SeatFacts(2, 3, 12, sweep=True, counter_burns=1, burn_fails=1, tricks=4),
    SeatFacts(5, 4, 0, revolted=True, burn_breaks=2),
]


def test_player_totals() -> None:
    s = PlayerStats.of(GAMES)
    assert (s.games, s.wins, s.losses) == (4, 2, 1)
    assert s.ranks == (1, 0, 1, 1, 0, 1) and s.touke == 1 and s.daluo == 1
    assert s.avg_rank == (1 + 6 + 3 + 4) / 4
    assert (s.points, s.points_won) == (6, 18)
    assert s.win_rate == 0.5
    assert (s.opened, s.open_games, s.open_rate) == (1, 2, 0.5)
    assert (s.burns_tried, s.burn_wins, s.burn_fails, s.counter_burns) == (2, 1, 1, 1)
    assert (s.burn_breaks, s.men_given, s.smothered) == (2, 2, 1)
    assert (s.sweeps, s.swept, s.revolts) == (1, 1, 1)
    assert s.recent == (6, -12, 12, 0) and s.recent_points == 6


def test_recent_window_and_empty() -> None:
    many = [SeatFacts(0, 1 + i % 6, i) for i in range(50)]
    s = PlayerStats.of(many, recent=20)
    assert s.recent == tuple(range(30, 50)) and s.games == 50
    empty = PlayerStats.of([])
    assert (empty.games, empty.avg_rank, empty.win_rate, empty.open_rate) == (0, 0.0, 0.0, None)
    with pytest.raises(ValueError, match="unfinished"):
        PlayerStats.of([SeatFacts(0, 0, 0)])


def test_sql_sums_match_python_totals() -> None:
    db = sqlite3.connect(":memory:")
    cols = SeatFacts.columns()
    db.execute(f"CREATE TABLE seats (player TEXT, {', '.join(cols)})")
    rows = [("a", *f.values()) for f in GAMES] + [("b", *SeatFacts(1, 2, 4).values())]
    db.executemany(f"INSERT INTO seats VALUES ({', '.join('?' * (len(cols) + 1))})", rows)
    got = db.execute(f"SELECT {', '.join(SQL_SUMS)} FROM seats WHERE player = 'a'").fetchone()
    assert PlayerStats.from_sums(got, [6, -12, 12, 0]) == PlayerStats.of(GAMES)
    with pytest.raises(ValueError):
        PlayerStats.from_sums(got[:-1])


def table(players: str, ranks: tuple[int, ...], finished_at: float = 0.0) -> TableGame:
    """A game of the players named by letters, seat order, with its ranks (points per §10)."""
    pts = {1: 4, 2: 2, 3: 0, 4: 0, 5: -2, 6: -4}
    diff = sum(pts[r] for r in ranks[0::2]) - sum(pts[r] for r in ranks[1::2])
    facts = tuple(SeatFacts(s, r, diff if s % 2 == 0 else -diff) for s, r in enumerate(ranks))
    return TableGame(tuple(players), facts, finished_at)


GROUP = [
    table("abcdef", (1, 4, 2, 5, 3, 6)),  # a, c, e sweep
    table("abcdef", (6, 1, 5, 2, 4, 3)),  # b, d, f sweep
    table("badcfe", (1, 2, 3, 4, 5, 6)),  # b, d, f win 2
    table("acebdf", (1, 2, 3, 4, 5, 6)),  # a, e, d win; c, b, f lose
]


def test_player_facts_and_group_stats() -> None:
    assert [f.rank for f in player_facts(GROUP, "a")] == [1, 6, 2, 1]
    stats = group_stats(GROUP)
    assert set(stats) == set("abcdef")
    assert stats["a"] == PlayerStats.of(player_facts(GROUP, "a"))
    assert sum(s.points for s in stats.values()) == 0  # signed margins are zero-sum


def test_leaderboard_orders_with_a_minimum() -> None:
    stats = {
        "x": PlayerStats.of([SeatFacts(0, 1, 6)] * 12),
        "y": PlayerStats.of([SeatFacts(0, 2, 6)] * 12),
        "z": PlayerStats.of([SeatFacts(0, 1, 12)] * 9),  # the most points, too few games
        "w": PlayerStats.of([SeatFacts(0, 3, 8)] * 12),
    }
    by_points = leaderboard(stats, Order.POINTS, min_games=10)
    assert [(s.place, s.player) for s in by_points] == [(1, "w"), (2, "x"), (3, "y")]
    by_rank = leaderboard(stats, Order.AVG_RANK, min_games=10)
    assert [s.player for s in by_rank] == ["x", "y", "w"]
    assert [s.player for s in leaderboard(stats, min_games=1, limit=2)] == ["z", "w"]
    tied = {"p": PlayerStats.of([SeatFacts(0, 2, 4)] * 10), "q": stats["x"]}
    tied["r"] = tied["p"]
    assert [s.place for s in leaderboard(tied, Order.AVG_RANK)] == [1, 2, 2]


def test_pairs_with_and_against() -> None:
    pairs = pair_records(GROUP, "a")
    assert set(pairs) == set("bcdef")
    c = pairs["c"]  # teammates in games 1–3 (won the first), opponents in game 4 (a won)
    assert (c.with_games, c.with_wins, c.against_games, c.against_wins) == (3, 1, 1, 1)
    d = pairs["d"]  # opponents in games 1–3, teammates in game 4 (won)
    assert (d.with_games, d.with_wins, d.against_games, d.against_wins) == (1, 1, 3, 1)
    assert [r.other for r in best_partners(pairs, min_games=1, limit=1)] == ["d"]
    assert toughest_opponents(pairs, min_games=3)[0].against_rate == 1 / 3
    assert favourite_victims(pairs, min_games=10) == []

"""Statistics of finished games: per-seat facts of a game record (:mod:`.facts`), a player's
totals, pairs and a group's leaderboard (:mod:`.aggregate`), badges (:mod:`.badges`), and
``python -m engine.stats bench`` (:mod:`.bench`). Pure: facts in, numbers out."""

from .aggregate import (
    MIN_GAMES,
    RECENT,
    SQL_SUMS,
    Order,
    PairRecord,
    PlayerStats,
    Standing,
    TableGame,
    best_partners,
    favourite_victims,
    group_stats,
    leaderboard,
    pair_records,
    player_facts,
    toughest_opponents,
)
from .badges import BADGES, EVENING_GAP, Badge, PlayerGame, badges_of, evening, new_badges
from .facts import FACTS_VERSION, GameNotOver, SeatFacts, game_facts

__all__ = [
    "BADGES",
    "EVENING_GAP",
    "FACTS_VERSION",
    "MIN_GAMES",
    "RECENT",
    "SQL_SUMS",
    "Badge",
    "GameNotOver",
    "Order",
    "PairRecord",
    "PlayerGame",
    "PlayerStats",
    "SeatFacts",
    "Standing",
    "TableGame",
    "badges_of",
    "best_partners",
    "evening",
    "favourite_victims",
    "game_facts",
    "group_stats",
    "leaderboard",
    "new_badges",
    "pair_records",
    "player_facts",
    "toughest_opponents",
]

"""Badges: memorable moments of a player's games in a group, each earned once (per player per
group) and named by a stable id, detected from the facts of the games alone.

Every badge rests on what the whole table saw (ranks, burns, 闷, 开点, 革命, 要头); none tells
anything about a hand. An **evening** is a run of a player's games with no pause longer than
:data:`EVENING_GAP` between one game's end and the next's, or games of one match (the bot's
table), whatever their pauses.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .facts import SeatFacts

__all__ = ["BADGES", "EVENING_GAP", "Badge", "PlayerGame", "badges_of", "evening", "new_badges"]

EVENING_GAP = 3 * 3600.0  # seconds: a longer pause between two games ends an evening
STREAK = 5  # games in a row for the streak badges
MEN_EVENING = 3  # 闷 given in one evening
CENTURY = 100  # games played


class Badge(StrEnum):
    """The badges, in the order they are shown. Values are stored: never rename one."""

    FIRST_TOUKE = "first_touke"  # the first 头科 (§10)
    TOUKE_STREAK = "touke_streak"  # 头科 five games in a row
    FIRST_BURN = "first_burn"  # the first burn carried to the end (烧成, §7)
    COUNTER_BURN = "counter_burn"  # a 反烧 carried to the end (§7)
    BURN_BREAK = "burn_break"  # the first 解烧 (§7)
    SWEEP = "sweep"  # 串三户 with the team (§10)
    MEN_EVENING = "men_evening"  # three 闷 given in one evening (§8)
    COMEBACK = "comeback"  # 头科 in the game after a 大落
    REVOLUTION_WIN = "revolution_win"  # 革命 and the team still won (§5.4)
    YAOTOU_OPEN = "yaotou_open"  # chose 要头 and opened (§5.4, §9)
    WIN_STREAK = "win_streak"  # five wins in a row
    CENTURY = "century"  # the 100th game


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """One of a player's games: the player's facts, when it ended (seconds since the epoch, the
    caller's clock) and its match (the bot's table id; "" when unknown)."""

    facts: SeatFacts
    finished_at: float
    match: str = ""


def evening(games: Sequence[PlayerGame], i: int) -> Iterator[PlayerGame]:
    """The games of the evening of ``games[i]`` up to it, latest first: it and the games before
    it linked by the same match or by a pause of at most :data:`EVENING_GAP`."""
    k = i
    yield games[k]
    while k > 0:
        earlier, later = games[k - 1], games[k]
        same_match = bool(later.match) and earlier.match == later.match
        if not same_match and later.finished_at - earlier.finished_at > EVENING_GAP:
            return
        k -= 1
        yield earlier


def _men_evening(games: Sequence[PlayerGame], i: int) -> bool:
    """:data:`MEN_EVENING` 闷 given in the evening of ``games[i]``, one of them in it."""
    if not games[i].facts.men_given:
        return False
    given = 0
    for game in evening(games, i):
        given += game.facts.men_given
        if given >= MEN_EVENING:
            return True
    return False


def _streak(games: Sequence[PlayerGame], i: int, holds: Callable[[SeatFacts], bool]) -> bool:
    """``holds`` for :data:`STREAK` games in a row ending with ``games[i]``."""
    return i >= STREAK - 1 and all(holds(games[k].facts) for k in range(i - STREAK + 1, i + 1))


# Each rule: is ``games[i]`` (the player's games, oldest first) the badge's moment?
Rule = Callable[[Sequence[PlayerGame], int], bool]
_RULES: dict[Badge, Rule] = {
    Badge.FIRST_TOUKE: lambda g, i: g[i].facts.rank == 1,
    Badge.TOUKE_STREAK: lambda g, i: _streak(g, i, lambda f: f.rank == 1),
    Badge.FIRST_BURN: lambda g, i: g[i].facts.burn_wins > 0,
    Badge.COUNTER_BURN: lambda g, i: g[i].facts.counter_burn_wins > 0,
    Badge.BURN_BREAK: lambda g, i: g[i].facts.burn_breaks > 0,
    Badge.SWEEP: lambda g, i: g[i].facts.sweep,
    Badge.MEN_EVENING: _men_evening,
    Badge.COMEBACK: lambda g, i: g[i].facts.rank == 1 and i > 0 and g[i - 1].facts.rank == 6,
    Badge.REVOLUTION_WIN: lambda g, i: g[i].facts.revolted and g[i].facts.won,
    Badge.YAOTOU_OPEN: lambda g, i: g[i].facts.yaotou and g[i].facts.opened,
    Badge.WIN_STREAK: lambda g, i: _streak(g, i, lambda f: f.won),
    Badge.CENTURY: lambda g, i: i + 1 == CENTURY,
}
BADGES: tuple[Badge, ...] = tuple(Badge)
assert set(_RULES) == set(BADGES)


def _moments(games: Sequence[PlayerGame], i: int, skip: Collection[str] = ()) -> list[Badge]:
    """Every badge not in ``skip`` whose moment ``games[i]`` is."""
    return [b for b in BADGES if b not in skip and _RULES[b](games, i)]


def badges_of(games: Sequence[PlayerGame]) -> list[tuple[Badge, int]]:
    """Each badge the player earned over ``games`` (oldest first), with the index of the game
    that earned it, in the order earned (for a backfill or a recomputation)."""
    earned: dict[Badge, int] = {}
    for i in range(len(games)):
        for b in _moments(games, i, earned):
            earned[b] = i
        if len(earned) == len(BADGES):
            break
    return sorted(earned.items(), key=lambda item: (item[1], BADGES.index(item[0])))


def new_badges(
    history: Sequence[PlayerGame],
    new_game: PlayerGame,
    earned: Collection[str] | None = None,
) -> list[Badge]:
    """The badges ``new_game`` earns the player (the group's earlier games of the player in
    ``history``, oldest first). ``earned``: the ids the player holds already (stored by the
    bot); None to work them out from ``history``."""
    have = {str(b) for b, _ in badges_of(history)} if earned is None else set(earned)
    games = [*history, new_game]
    return _moments(games, len(history), have)

"""A player's numbers over many games (``/stats``), how they fare with and against others, and a
group's leaderboard (``/top``), all from :class:`~engine.stats.facts.SeatFacts`.

Players are opaque keys chosen by the caller (the bot: ``"u<telegram id>"`` for people,
``"ai:<level>"`` for AI seats); an AI seat is its own player, never the person it replaced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .facts import SeatFacts

__all__ = [
    "MIN_GAMES",
    "RECENT",
    "SQL_SUMS",
    "Order",
    "PairRecord",
    "PlayerStats",
    "Standing",
    "TableGame",
    "best_partners",
    "favourite_victims",
    "group_stats",
    "leaderboard",
    "pair_records",
    "player_facts",
    "toughest_opponents",
]

RECENT = 20  # games in the "last games" chart and sum
MIN_GAMES = 10  # games a player needs to stand on the leaderboard
MIN_PAIR_GAMES = 3  # games together before a partner or opponent is named


@dataclass(frozen=True, slots=True)
class TableGame:
    """One stored game of a group: who sat where (six keys, seat order) and each seat's facts."""

    players: tuple[str, ...]
    facts: tuple[SeatFacts, ...]
    finished_at: float = 0.0  # seconds since the epoch (the caller's clock)
    match: str = ""  # the match (the bot's table) the game belongs to


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's totals over a run of games, oldest first (docs/rules.md § per field in
    :class:`SeatFacts`)."""

    games: int = 0
    wins: int = 0
    losses: int = 0
    ranks: tuple[int, ...] = (0, 0, 0, 0, 0, 0)  # games at 头科 … 大落
    points: int = 0  # signed margins summed: the leaderboard's points
    points_won: int = 0  # what the player's team recorded in games it won (§10)
    opened: int = 0
    open_games: int = 0  # games played with 开点 on: the base of the 开点 rate
    foe_opened: int = 0
    burns_tried: int = 0  # 烧牌 and 反烧 started
    burn_wins: int = 0
    burn_fails: int = 0
    counter_burns: int = 0
    burn_breaks: int = 0
    burned: int = 0
    men_given: int = 0
    smothered: int = 0
    sweeps: int = 0
    swept: int = 0
    revolts: int = 0
    yaotou: int = 0
    recent: tuple[int, ...] = ()  # points of the last :data:`RECENT` games, oldest first

    @staticmethod
    def of(facts: Iterable[SeatFacts], recent: int = RECENT) -> PlayerStats:
        """The totals of ``facts`` (one player's games, oldest first); ``ValueError`` for the
        facts of an unfinished game."""
        ranks = [0] * 6
        games = wins = losses = points = won = 0
        opened = open_games = foe_opened = tried = bwin = bfail = counter = breaks = 0
        burned = men = smothered = sweeps = swept = revolts = yaotou = 0
        tail: list[int] = []
        for f in facts:
            if not 1 <= f.rank <= 6:
                raise ValueError(f"facts of an unfinished game (seat {f.seat}, rank {f.rank})")
            games += 1
            ranks[f.rank - 1] += 1
            p = f.points
            points += p
            if p > 0:
                wins += 1
                won += p
            elif p < 0:
                losses += 1
            opened += f.opened
            open_games += f.open_point
            foe_opened += f.foe_opened
            tried += f.burns + f.counter_burns
            bwin += f.burn_wins
            bfail += f.burn_fails
            counter += f.counter_burns
            breaks += f.burn_breaks
            burned += f.burned
            men += f.men_given
            smothered += f.smothered
            sweeps += f.sweep
            swept += f.swept
            revolts += f.revolted
            yaotou += f.yaotou
            tail.append(p)
            if len(tail) > 2 * recent:
                del tail[:recent]
        return PlayerStats(
            games, wins, losses, tuple(ranks), points, won, opened, open_games, foe_opened,
            tried, bwin, bfail, counter, breaks, burned, men, smothered, sweeps, swept, revolts,
            yaotou, tuple(tail[-recent:]) if recent else (),
        )  # fmt: skip

    @staticmethod
    def from_sums(sums: Sequence[int | float | None], recent: Sequence[int] = ()) -> PlayerStats:
        """The stats of one row of :data:`SQL_SUMS` (a database's aggregate of the columns of
        :meth:`SeatFacts.columns`) and the points of the player's last games, oldest first."""
        n = [int(v or 0) for v in sums]
        if len(n) != len(SQL_SUMS):
            raise ValueError(f"{len(n)} sums, not {len(SQL_SUMS)}")
        args: list[Any] = [n[0], n[1], n[2], tuple(n[3:9]), *n[9:], tuple(recent)]
        return PlayerStats(*args)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def avg_rank(self) -> float:
        """1.0 (头科 every game) … 6.0 (大落 every game); 0.0 with no games."""
        if not self.games:
            return 0.0
        return sum((r + 1) * n for r, n in enumerate(self.ranks)) / self.games

    @property
    def touke(self) -> int:
        return self.ranks[0]

    @property
    def daluo(self) -> int:
        return self.ranks[5]

    @property
    def open_rate(self) -> float | None:
        """开点 per game played with 开点 on (§9); None when there was none."""
        return self.opened / self.open_games if self.open_games else None

    @property
    def recent_points(self) -> int:
        return sum(self.recent)


# One SQL expression per field of PlayerStats but ``recent``, in order, over a table whose
# columns are SeatFacts.columns(): ``SELECT player, {", ".join(SQL_SUMS)} … GROUP BY player``
# (SQLite; max(a, b) is its two-argument scalar), read back with PlayerStats.from_sums.
SQL_SUMS: tuple[str, ...] = (
    "count(*)",
    "sum(points > 0)",
    "sum(points < 0)",
    *(f"sum(rank = {r})" for r in range(1, 7)),
    "sum(points)",
    "sum(max(points, 0))",
    "sum(opened)",
    "sum(open_point)",
    "sum(foe_opened)",
    "sum(burns + counter_burns)",
    "sum(burn_wins)",
    "sum(burn_fails)",
    "sum(counter_burns)",
    "sum(burn_breaks)",
    "sum(burned)",
    "sum(men_given)",
    "sum(smothered)",
    "sum(sweep)",
    "sum(swept)",
    "sum(revolted)",
    "sum(yaotou)",
)


def player_facts(games: Iterable[TableGame], player: str) -> list[SeatFacts]:
    """The player's facts in ``games`` (in their order); a player seated twice in one game (the
    caller's keys should prevent it) counts once, at the first seat."""
    out = []
    for g in games:
        for seat, key in enumerate(g.players):
            if key == player:
                out.append(g.facts[seat])
                break
    return out


def group_stats(games: Iterable[TableGame], recent: int = RECENT) -> dict[str, PlayerStats]:
    """Every player's :class:`PlayerStats` over a group's games (oldest first), in one pass."""
    by_player: dict[str, list[SeatFacts]] = {}
    for g in games:
        for key, facts in zip(g.players, g.facts, strict=True):
            by_player.setdefault(key, []).append(facts)
    return {key: PlayerStats.of(facts, recent) for key, facts in by_player.items()}


class Order(StrEnum):
    """How the leaderboard is ordered."""

    POINTS = "points"  # most points first; ties by better average rank
    AVG_RANK = "avg_rank"  # best (lowest) average rank first; ties by points


@dataclass(frozen=True, slots=True)
class Standing:
    place: int  # 1-based; equal keys share a place
    player: str
    stats: PlayerStats


def leaderboard(
    stats: Mapping[str, PlayerStats],
    order: Order = Order.POINTS,
    min_games: int = MIN_GAMES,
    limit: int = 10,
) -> list[Standing]:
    """The best ``limit`` players with at least ``min_games`` games, by ``order``; ties share a
    place (then more games first, then the key, so the list is stable)."""

    def key(item: tuple[str, PlayerStats]) -> tuple[float, float, int, str]:
        p, s = item
        if order == Order.POINTS:
            return (-s.points, s.avg_rank, -s.games, p)
        return (s.avg_rank, -s.points, -s.games, p)

    ranked = sorted(((p, s) for p, s in stats.items() if s.games >= min_games), key=key)
    out: list[Standing] = []
    for i, (p, s) in enumerate(ranked[:limit]):
        same = out and key((p, s))[:2] == key((out[-1].player, out[-1].stats))[:2]
        out.append(Standing(out[-1].place if same else i + 1, p, s))
    return out


@dataclass(frozen=True, slots=True)
class PairRecord:
    """A player's games with one other player: as teammates (same 联邦) and as opponents."""

    other: str
    with_games: int = 0
    with_wins: int = 0
    against_games: int = 0
    against_wins: int = 0  # games the player won against ``other``

    @property
    def with_rate(self) -> float:
        return self.with_wins / self.with_games if self.with_games else 0.0

    @property
    def against_rate(self) -> float:
        return self.against_wins / self.against_games if self.against_games else 0.0


def pair_records(games: Iterable[TableGame], player: str) -> dict[str, PairRecord]:
    """How ``player`` fared with and against each other player of ``games``."""
    tally: dict[str, list[int]] = {}
    for g in games:
        try:
            seat = g.players.index(player)
        except ValueError:
            continue
        won = g.facts[seat].points > 0
        for other_seat, other in enumerate(g.players):
            if other == player:
                continue
            t = tally.setdefault(other, [0, 0, 0, 0])
            k = 0 if other_seat % 2 == seat % 2 else 2
            t[k] += 1
            t[k + 1] += won
    return {o: PairRecord(o, *t) for o, t in tally.items()}


def best_partners(
    pairs: Mapping[str, PairRecord], min_games: int = MIN_PAIR_GAMES, limit: int = 3
) -> list[PairRecord]:
    """Teammates the player wins most with (win rate, then games together)."""
    fit = [r for r in pairs.values() if r.with_games >= min_games]
    return sorted(fit, key=lambda r: (-r.with_rate, -r.with_games, r.other))[:limit]


def toughest_opponents(
    pairs: Mapping[str, PairRecord], min_games: int = MIN_PAIR_GAMES, limit: int = 3
) -> list[PairRecord]:
    """Opponents the player wins least against (win rate, then games against)."""
    fit = [r for r in pairs.values() if r.against_games >= min_games]
    return sorted(fit, key=lambda r: (r.against_rate, -r.against_games, r.other))[:limit]


def favourite_victims(
    pairs: Mapping[str, PairRecord], min_games: int = MIN_PAIR_GAMES, limit: int = 3
) -> list[PairRecord]:
    """Opponents the player wins most against."""
    fit = [r for r in pairs.values() if r.against_games >= min_games]
    return sorted(fit, key=lambda r: (-r.against_rate, -r.against_games, r.other))[:limit]

"""What one finished game says about each seat: the facts ``/stats``, ``/top`` and badges are
made of, derived from the game record alone (shared RECORDS.md) by replaying it with the engine.

A fact is public: it follows from what the table saw (plays, burns, 闷, ranks, 开点), never
from a hand. Facts are recomputed from the stored records whenever this module changes
(:data:`FACTS_VERSION`), so nothing here is state.

Points: a game record holds ranks, and the engine scores them (docs/rules.md §10, 计分: 头科 +4,
二科 +2, 三科 0, 四科 0, 二落 −2, 大落 −4; a team's score is its sum minus the other's; only the
winner records it, 串三户 = 12). A seat's ``points`` is its team's margin, signed: what its
team recorded when it won, the negative of what the other team recorded when it lost, 0 for a
tie. A player's total is then zero-sum across a group, so it ranks players fairly however many
games each played (the positive part alone, "points won", is kept by the aggregation too).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from engine.actions import IllegalAction
from engine.game import Game
from engine.ranking import chuan_team, score
from engine.record import parse_record, read_json
from engine.seats import opposite, team
from engine.vocab import EventType

__all__ = ["FACTS_VERSION", "GameNotOver", "SeatFacts", "game_facts"]

FACTS_VERSION = 1  # bump when a fact's meaning changes: stored rows are then recomputed
E = EventType


class GameNotOver(ValueError):
    """The record is legal but its game has not ended (no ranks to count)."""


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """One seat's facts of one game (docs/rules.md § in each comment). ``rank`` is 0 only in the
    facts of an unfinished game (:func:`game_facts` with ``partial=True``)."""

    seat: int  # 0–5; team A = 0, 2, 4 (§1)
    rank: int  # 1 = 头科 … 6 = 大落 (§10)
    points: int  # the team's signed margin (§10; see the module's doc)
    opened: bool = False  # 开点 by the game's end (§9; a revolutionary's 对头 from the start)
    foe_opened: bool = False  # the 对头 opened (§9: who owes 点贡 to whom)
    open_point: bool = False  # the table played with 开点 (§13 ``open_point``): the rate's base
    burns: int = 0  # 烧牌 started (§7)
    counter_burns: int = 0  # 反烧 made (§7)
    burn_wins: int = 0  # burns (or 反烧) carried to the end: 烧成 (§7)
    counter_burn_wins: int = 0  # of those, ones that began as 反烧 (烧贡 2)
    burn_fails: int = 0  # 诈烧 (§7)
    burn_breaks: int = 0  # 解烧 made (§7, §12)
    burned: int = 0  # own 够级 plays burned to the end: 烧贡 owed (§7)
    men_given: int = 0  # players this seat smothered (闷, §8)
    smothered: bool = False  # was smothered (§8)
    sweep: bool = False  # the team made 串三户 (§10)
    swept: bool = False  # the other team made 串三户
    revolted: bool = False  # 革命 (§5.4)
    yaotou: bool = False  # chose 要头 (§5.4)
    declared: bool = False  # declared 宣点 (§5.5)
    tricks: int = 0  # tricks won (§6.5)

    @property
    def team(self) -> int:
        return team(self.seat)

    @property
    def won(self) -> bool:
        return self.points > 0

    @property
    def lost(self) -> bool:
        return self.points < 0

    @property
    def burns_tried(self) -> int:
        """烧牌 and 反烧 together: every burn this seat started."""
        return self.burns + self.counter_burns

    @staticmethod
    def columns() -> tuple[str, ...]:
        """The field names, in order: the columns of a table holding one row per seat per
        game (then :data:`engine.stats.aggregate.SQL_SUMS` aggregates it)."""
        return tuple(f.name for f in fields(SeatFacts))

    def values(self) -> tuple[int, ...]:
        """The fields as integers (flags 0 or 1), in :meth:`columns`' order."""
        return tuple(int(getattr(self, name)) for name in SeatFacts.columns())

    def to_json(self) -> dict[str, int]:
        """A compact row: short keys, false and zero fields left out (a row of a typical game is
        about 40 bytes as JSON), and the version of the facts."""
        out = {"v": FACTS_VERSION, "s": self.seat, "r": self.rank, "p": self.points}
        for name, short, _ in _COLUMNS:
            value = getattr(self, name)
            if value:
                out[short] = int(value)
        return out

    @staticmethod
    def from_json(row: dict[str, Any]) -> SeatFacts:
        """The facts of :meth:`to_json`'s row; ``ValueError`` for a row of another version."""
        if row.get("v") != FACTS_VERSION:
            raise ValueError(f"facts of version {row.get('v')!r}, not {FACTS_VERSION}: recompute")
        get = row.get
        rest: list[Any] = [
            bool(get(short, 0)) if flag else int(get(short, 0)) for _, short, flag in _COLUMNS
        ]
        return SeatFacts(int(row["s"]), int(row["r"]), int(row["p"]), *rest)


_SHORT = {
    "opened": "o",
    "foe_opened": "fo",
    "open_point": "op",
    "burns": "b",
    "counter_burns": "cb",
    "burn_wins": "bw",
    "counter_burn_wins": "cw",
    "burn_fails": "bf",
    "burn_breaks": "bb",
    "burned": "bd",
    "men_given": "mg",
    "smothered": "m",
    "sweep": "sw",
    "swept": "sd",
    "revolted": "rv",
    "yaotou": "yt",
    "declared": "d",
    "tricks": "t",
}


def game_facts(record_json: str | bytes | dict[str, Any], partial: bool = False) -> list[SeatFacts]:
    """The six seats' facts of a game record (RECORDS.md; a dict as ``Record.to_json`` gives,
    or its JSON text), seat order. ``ValueError`` for a malformed record or an illegal action
    (:class:`engine.record.BadRecord`, :class:`engine.actions.IllegalAction`),
    :class:`GameNotOver` for a game that has not ended — unless ``partial``, then unranked seats
    have rank 0 and points 0."""
    obj = read_json(record_json) if isinstance(record_json, str | bytes) else record_json
    record = parse_record(obj)
    game = Game.from_record(record)
    count: dict[str, list[int]] = {name: [0] * 6 for name in _COUNTED}
    for action in record.actions:
        try:
            events = game.apply(action)
        except IllegalAction as e:
            raise ValueError(f"illegal action {action}: {e.message}") from None
        for ev in events:
            _count(ev.type, ev.seat, ev.by, ev.tribute, ev.victim, count)
    if not game.over and not partial:
        raise GameNotOver("the game has not ended")
    a, b = score(game.ranks) if game.over else (0, 0)
    margin = (a - b, b - a)
    chuan = chuan_team(game.ranks) if game.over else None
    return [
        SeatFacts(
            seat=s,
            rank=game.ranks[s] or 0,
            points=margin[team(s)],
            opened=game.opened[s],
            foe_opened=game.opened[opposite(s)],
            open_point=record.rules.open_point,
            burns=count["burns"][s],
            counter_burns=count["counter_burns"][s],
            burn_wins=count["burn_wins"][s],
            counter_burn_wins=count["counter_burn_wins"][s],
            burn_fails=count["burn_fails"][s],
            burn_breaks=count["burn_breaks"][s],
            burned=count["burned"][s],
            men_given=count["men_given"][s],
            smothered=bool(count["smothered"][s]),
            sweep=chuan == team(s),
            swept=chuan is not None and chuan != team(s),
            revolted=s in record.revolted,
            yaotou=s in record.yaotou,
            declared=s in record.declared,
            tricks=count["tricks"][s],
        )
        for s in range(6)
    ]


# (field, its key in a stored row, whether it is a flag) for every field after ``points``
_COLUMNS = tuple(
    (f.name, _SHORT[f.name], f.type == "bool") for f in fields(SeatFacts) if f.name in _SHORT
)

_COUNTED = (
    "burns",
    "counter_burns",
    "burn_wins",
    "counter_burn_wins",
    "burn_fails",
    "burn_breaks",
    "burned",
    "men_given",
    "smothered",
    "tricks",
)
_BY_TYPE = {
    E.BURN: "burns",
    E.COUNTER_BURN: "counter_burns",
    E.BURN_FAIL: "burn_fails",
    E.BURN_BREAK: "burn_breaks",
    E.SMOTHERED: "smothered",
    E.TRICK_WON: "tricks",
}


def _count(
    kind: EventType,
    seat: int | None,
    by: int | None,
    tribute: int | None,
    victim: int | None,
    count: dict[str, list[int]],
) -> None:
    """Add one event (RECORDS.md's table) to the per-seat counts."""
    if seat is None:
        return
    name = _BY_TYPE.get(kind)
    if name is not None:
        count[name][seat] += 1
    if kind == E.SMOTHERED and by is not None:
        count["men_given"][by] += 1  # §8: the player whose play beat the penultimate play
    elif kind == E.BURN_SUCCESS:
        count["burn_wins"][seat] += 1
        if tribute == 2:  # §7: a burn that began as 反烧 is paid double
            count["counter_burn_wins"][seat] += 1
        if victim is not None:
            count["burned"][victim] += 1

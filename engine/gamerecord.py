"""A game record (shared RECORDS.md): a starting position and its actions, read and checked.

Records are data: the game writes them (:meth:`engine.game.Game.record`) and starts from them
(:meth:`engine.game.Game.from_record`); the replay referee is :mod:`engine.record`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import Action
from .cards import BIG, DECK_COUNTS, NRANKS, SMALL, TWO, NotationError, fmt, parse_strict
from .rules import Rules, RulesError
from .seats import opposite
from .vocab import Do

_KEYS = {"rules", "hands", "leader", "revolted", "declared", "yaotou", "actions"}
_ACTION_KEYS = {"seat", "do", "cards"}


class BadRecord(ValueError):
    """A malformed record (exit status 2)."""


@dataclass(frozen=True)
class Record:
    rules: Rules
    hands: tuple[str, ...]
    leader: int
    revolted: tuple[int, ...]
    declared: tuple[int, ...]
    yaotou: tuple[int, ...]
    actions: tuple[Action, ...]

    def to_json(self) -> dict[str, Any]:
        rules: Any = (
            self.rules.preset
            if not self.rules.differences()
            else {
                "preset": self.rules.preset,
                **self.rules.differences(),
            }
        )
        return {
            "rules": rules,
            "hands": list(self.hands),
            "leader": self.leader,
            "revolted": list(self.revolted),
            "declared": list(self.declared),
            "yaotou": list(self.yaotou),
            "actions": [a.to_json() for a in self.actions],
        }


def _seat(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 5:
        raise BadRecord(f"{what} must be a seat number from 0 to 5")
    return value


def _seats(obj: dict[str, Any], key: str) -> tuple[int, ...]:
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise BadRecord(f"{key} must be a list of seats")
    seats = tuple(_seat(v, f"each of {key}") for v in value)
    if len(set(seats)) != len(seats):
        raise BadRecord(f"a seat is listed twice in {key}")
    return seats


def parse_record(obj: Any) -> Record:
    """Check a record's shape and values (RECORDS.md) and build it; :class:`BadRecord` if not."""
    if not isinstance(obj, dict):
        raise BadRecord("a record is a JSON object")
    unknown = set(obj) - _KEYS
    if unknown:
        raise BadRecord(f"unknown field {sorted(unknown)[0]!r}")
    try:
        rules = Rules.from_json(obj.get("rules", "standard"))
    except RulesError as e:
        raise BadRecord(str(e)) from None
    hands_raw = obj.get("hands")
    if not isinstance(hands_raw, list) or len(hands_raw) != 6:
        raise BadRecord("hands must list six hands, seat 0 to 5")
    total = [0] * NRANKS
    hands: list[str] = []
    for i, h in enumerate(hands_raw):
        if not isinstance(h, str):
            raise BadRecord(f"hand {i} must be a string of cards")
        try:
            counts = parse_strict(h)
        except NotationError as e:
            raise BadRecord(f"hand {i}: {e}") from None
        if not any(counts):
            raise BadRecord(f"hand {i} is empty")
        total = [a + b for a, b in zip(total, counts, strict=True)]
        hands.append(fmt(counts))
    for r, (have, most) in enumerate(zip(total, DECK_COUNTS, strict=True)):
        if have > most:
            raise BadRecord(
                f"impossible cards: {have} of {fmt(tuple(int(i == r) for i in range(NRANKS)))}"
            )
    leader = _seat(obj.get("leader"), "leader")
    revolted = _seats(obj, "revolted")
    declared = _seats(obj, "declared")
    yaotou = _seats(obj, "yaotou")
    if revolted and not rules.revolution:
        raise BadRecord("revolted is given but the revolution switch is off")
    if len(revolted) >= 2:
        raise BadRecord("two or more revolutions void the deal (流局)")
    for s in revolted:
        c = parse_strict(hands[s])
        if c[TWO] or c[SMALL] or c[BIG]:
            raise BadRecord(f"seat {s} revolted holding a 2 or a joker")
    if declared and not rules.declare_point:
        raise BadRecord("declared is given but the declare_point switch is off")
    for s in declared:
        if s in revolted:
            raise BadRecord(f"seat {s} revolted, so it cannot declare 宣点")
    if yaotou and not rules.yaotou:
        raise BadRecord("yaotou is given but the yaotou switch is off")
    for s in yaotou:
        if opposite(s) not in revolted:
            raise BadRecord(f"seat {s} chose 要头 but its 对头 did not revolt")
    acts_raw = obj.get("actions", [])
    if not isinstance(acts_raw, list):
        raise BadRecord("actions must be a list")
    acts: list[Action] = []
    for k, a in enumerate(acts_raw):
        if not isinstance(a, dict):
            raise BadRecord(f"action {k} must be an object")
        if set(a) - _ACTION_KEYS:
            raise BadRecord(f"action {k}: unknown field {sorted(set(a) - _ACTION_KEYS)[0]!r}")
        seat = _seat(a.get("seat"), f"action {k}'s seat")
        do = a.get("do")
        if do not in (Do.PLAY, Do.PASS, Do.YIELD):
            raise BadRecord(f"action {k}: do must be play, pass or yield")
        cards = ""
        if do == Do.PLAY:
            raw = a.get("cards")
            if not isinstance(raw, str):
                raise BadRecord(f"action {k}: a play needs its cards")
            cards = raw
            try:
                parse_strict(cards)
            except NotationError as e:
                raise BadRecord(f"action {k}: {e}") from None
        elif "cards" in a:
            raise BadRecord(f"action {k}: a {do} takes no cards")
        acts.append(Action(seat, Do(do), cards))
    return Record(rules, tuple(hands), leader, revolted, declared, yaotou, tuple(acts))

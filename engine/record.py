"""Game records and the replay referee (shared RECORDS.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import actions as A
from .actions import Action, IllegalAction
from .cards import DECK_COUNTS, NRANKS, NotationError, fmt, parse
from .events import Event
from .game import Game
from .rules import Rules, RulesError
from .view import opposite

_KEYS = {"rules", "hands", "leader", "revolted", "declared", "yaotou", "actions"}


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

    def start(self) -> Game:
        return Game.from_position(
            self.rules, self.hands, self.leader, self.revolted, self.declared, self.yaotou
        )

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
            "actions": [
                {"seat": a.seat, "do": a.do, **({"cards": a.cards} if a.do == A.PLAY else {})}
                for a in self.actions
            ],
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
            counts = parse(h)
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
        c = parse(hands[s])
        if c[12] or c[13] or c[14]:
            raise BadRecord(f"seat {s} revolted holding a 2 or a joker")
    if declared and not rules.declare_point:
        raise BadRecord("declared is given but the declare_point switch is off")
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
        seat = _seat(a.get("seat"), f"action {k}'s seat")
        do = a.get("do")
        if do not in (A.PLAY, A.PASS, A.YIELD):
            raise BadRecord(f"action {k}: do must be play, pass or yield")
        cards = ""
        if do == A.PLAY:
            raw = a.get("cards")
            if not isinstance(raw, str):
                raise BadRecord(f"action {k}: a play needs its cards")
            cards = raw
            try:
                parse(cards)
            except NotationError as e:
                raise BadRecord(f"action {k}: {e}") from None
        acts.append(Action(seat, do, cards))
    return Record(rules, tuple(hands), leader, revolted, declared, yaotou, tuple(acts))


def game_json(game: Game) -> tuple[dict[str, Any], dict[str, Any]]:
    """RECORDS.md's ``state`` and ``result`` for a game."""
    ask = game.asked()
    top = game.top
    state = {
        "phase": game.phase,
        "to_act": ask[0] if ask else None,
        "top": {"seat": top.seat, "cards": str(top.play)} if top else None,
        "burning": game.burning,
        "counts": game.counts(),
    }
    a, b = game.score()
    result = {
        "over": game.over,
        "ranks": list(game.ranks),
        "opened": list(game.opened),
        "tributes": [d.to_json() for d in game.tributes()],
        "score": {"A": a, "B": b},
    }
    return state, result


def replay(record: Record) -> tuple[dict[str, Any], int]:
    """Replay a record: (the output object, exit status 0 or 1)."""
    game = record.start()
    events: list[Event] = []
    error: dict[str, Any] | None = None
    for k, action in enumerate(record.actions):
        try:
            events.extend(game.apply(action))
        except IllegalAction as e:
            error = {"index": k, "code": e.code, "message": e.message}
            break
    state, result = game_json(game)
    out: dict[str, Any] = {"ok": error is None}
    if error is not None:
        out["error"] = error
    out.update(events=[e.to_json() for e in events], state=state, result=result)
    return out, 0 if error is None else 1


def replay_text(text: str) -> tuple[dict[str, Any], int]:
    """Replay a record given as JSON text: (output, exit status 0, 1 or 2)."""
    try:
        obj = json.loads(text)
        record = parse_record(obj)
    except (json.JSONDecodeError, BadRecord) as e:
        return {"ok": False, "error": {"code": "bad_record", "message": str(e)}}, 2
    return replay(record)

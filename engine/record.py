"""Game records and the replay referee (shared RECORDS.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .actions import Action, IllegalAction
from .cards import BIG, DECK_COUNTS, NRANKS, SMALL, TWO, NotationError, fmt, parse_strict
from .events import Event
from .game import Game
from .matchrecord import BadMatchRecord, MatchRecord
from .rules import Rules, RulesError
from .seats import opposite
from .vocab import Do, EventType

_KEYS = {"rules", "hands", "leader", "revolted", "declared", "yaotou", "actions"}
_ACTION_KEYS = {"seat", "do", "cards"}
MAX_INPUT = 4_000_000  # bytes of a record file
MAX_DEPTH = 64  # JSON nesting; a record needs 4


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
            error = {"index": k, "code": str(e.code), "message": e.message}
            break
    state, result = game_json(game)
    out: dict[str, Any] = {"ok": error is None}
    if error is not None:
        out["error"] = error
    out.update(events=[e.to_json() for e in events], state=state, result=result)
    return out, 0 if error is None else 1


def read_json(data: bytes | str) -> Any:
    """Parse a record's text safely: UTF-8 only, bounded size, nesting and number lengths, so a
    hostile file ends in :class:`BadRecord`, never in a traceback."""
    if isinstance(data, bytes):
        if len(data) > MAX_INPUT:
            raise BadRecord("the record is too large")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise BadRecord(f"the record is not UTF-8 text (byte {e.start})") from None
    if len(data) > MAX_INPUT:
        raise BadRecord("the record is too large")
    depth = most = 0
    in_string = escaped = False
    for ch in data:  # nesting depth, counted outside strings, before the parser recurses
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            most = max(most, depth)
            if most > MAX_DEPTH:
                raise BadRecord("the record is nested too deeply")
        elif ch in "]}":
            depth -= 1

    def small_int(text: str) -> int:
        if len(text) > 30:
            raise BadRecord("a number in the record is too large")
        return int(text)

    def small_float(text: str) -> float:
        if len(text) > 40:
            raise BadRecord("a number in the record is too large")
        return float(text)

    def no_constant(text: str) -> Any:
        raise BadRecord(f"{text} is not JSON")

    try:
        return json.loads(
            data, parse_int=small_int, parse_float=small_float, parse_constant=no_constant
        )
    except (json.JSONDecodeError, RecursionError, ValueError) as e:
        if isinstance(e, BadRecord):
            raise
        raise BadRecord(f"not JSON: {e}") from None


def replay_match(obj: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Referee a match record (MATCH_RECORDS.md): every game, each in RECORDS.md's output form
    with its deal-phase events first; exit status 0, or 1 at the first illegal action."""
    from .match import Match  # a match record is replayed by the match itself

    try:
        rec = MatchRecord.from_json(obj)
    except BadMatchRecord as e:
        raise BadRecord(str(e)) from None
    match = Match(rec.rules, rec.seed)
    games: list[dict[str, Any]] = []
    error: dict[str, Any] | None = None

    def step(_k: int, events: list[Event]) -> None:
        if events and events[0].type == EventType.DEALT:
            games.append({"events": []})
        games[-1]["events"].extend(e.to_json() for e in events)

    try:
        match.replay_into(rec.entries, on_step=step)
    except IllegalAction as e:
        error = {"index": e.params["index"], "code": str(e.code), "message": e.message}
    except BadMatchRecord as e:
        raise BadRecord(str(e)) from None
    for g, summary in zip(games, _game_results(match), strict=True):
        g.update(summary)
    out: dict[str, Any] = {"ok": error is None}
    if error is not None:
        out["error"] = error
    out["games"] = games
    out["match"] = {
        "games": match.number,
        "score": {"A": match.totals[0], "B": match.totals[1]},
        "version": match.version,
    }
    return out, 0 if error is None else 1


def _game_results(match: Any) -> list[dict[str, Any]]:
    """``result`` of each finished game; ``state`` and ``result`` of the current one."""
    out: list[dict[str, Any]] = []
    for h in match.history:
        a, b = h.score
        tributes = [d.to_json() for d in h.tributes]
        out.append(
            {
                "result": {
                    "over": True,
                    "ranks": list(h.ranks),
                    "tributes": tributes,
                    "score": {"A": a, "B": b},
                }
            }
        )
    if match.setup is not None:
        g = match.game
        if g is None:
            ask = match.asked()
            current: dict[str, Any] = {"state": {"phase": "setup", "to_act": ask and ask[0]}}
        else:
            state, result = game_json(g)
            current = {"state": state, "result": result}
        out[len(out) - 1 if len(out) == match.number else len(out) :] = [current]
    return out


def replay_text(text: bytes | str) -> tuple[dict[str, Any], int]:
    """Referee a game record, or a match record, given as JSON text: (output, exit status 0, 1
    or 2). Never raises for bad input."""
    try:
        obj = read_json(text)
        if isinstance(obj, dict) and "format" in obj:
            return replay_match(obj)
        record = parse_record(obj)
    except BadRecord as e:
        return {"ok": False, "error": {"code": "bad_record", "message": str(e)}}, 2
    return replay(record)

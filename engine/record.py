"""The replay referee (shared RECORDS.md, MATCH_RECORDS.md): a game record or a match record
in, every event, the final state and the result out; ``python -m engine replay``.

It stands above what it replays: the game records (:mod:`engine.gamerecord`, whose names it
passes on), the games and matches that play them.
"""

from __future__ import annotations

import json
from typing import Any

from .actions import IllegalAction
from .events import Event
from .game import Game
from .gamerecord import BadRecord, Record, parse_record
from .match import Match
from .matchrecord import BadMatchRecord, MatchRecord
from .vocab import EventType

__all__ = [
    "MAX_DEPTH",
    "MAX_INPUT",
    "BadRecord",
    "Record",
    "game_json",
    "parse_record",
    "read_json",
    "replay",
    "replay_match",
    "replay_text",
]

MAX_INPUT = 4_000_000  # bytes of a record file
MAX_DEPTH = 64  # JSON nesting; a record needs 4


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
    game = Game.from_record(record)
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


def _game_results(match: Match) -> list[dict[str, Any]]:
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

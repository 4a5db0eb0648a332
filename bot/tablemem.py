"""A table's memory as data, never code: what its next press needs besides its stored state and
actions (chosen cards, hints, votes, confirmations, a hold, the transcript), written as versioned
JSON with :mod:`bot.stored`'s tags (issue 33: "no code in the database").

It used to be a pickle: anyone who could write the ``mem`` column ran code in every process.
:func:`dumps` writes ``{"v": FORMAT, "mem": {…}}``; :func:`loads` refuses anything else (a
pickle, another version, an unknown field, a type outside the bot's own) with ``ValueError`` —
the table then goes on without it, caught up from its actions.

The transcript is a plain object, not a dataclass: its attributes are written by name (a
language's catalog by the language alone: every process keeps one catalog a language) and read
back only into the attributes a new :class:`~renderers.transcript.Transcript` has.
"""

from __future__ import annotations

import json
from typing import Any

from engine.rules import Rules
from renderers.played import Played
from renderers.transcript import Transcript

from .stored import PICKLE_MARK, decode, encode

FORMAT = 1  # the memory's format version (another is refused: written by another bot)
FIELDS = ("selection", "hinted", "votes", "confirm", "hold", "note", "lines", "transcript")
_NOT_WRITTEN = ("cat",)  # the transcript's catalog: loaded again by its language


def _attrs(obj: object) -> dict[str, Any]:
    return {
        k: encode(frozenset(v) if isinstance(v, set) else v)
        for k, v in vars(obj).items()
        if k not in _NOT_WRITTEN and k != "played"
    }


def _transcript(tr: Transcript | None) -> Any:
    if tr is None:
        return None
    return {"attrs": _attrs(tr), "played": _attrs(tr.played)}


def _put(obj: object, attrs: Any) -> None:
    """``attrs`` set on ``obj``: only attributes it has, sets read back as sets."""
    if not isinstance(attrs, dict):
        raise ValueError("not an object's attributes")
    known = vars(obj)
    if set(attrs) - set(known):
        raise ValueError(
            f"attributes a {type(obj).__name__} does not have: {set(attrs) - set(known)}"
        )
    for k, v in attrs.items():
        value = decode(v)
        if isinstance(known[k], set):
            value = set(value)
        setattr(obj, k, value)


def _transcript_of(data: Any) -> Transcript | None:
    if data is None:
        return None
    if not isinstance(data, dict) or set(data) != {"attrs", "played"}:
        raise ValueError("not a transcript")
    attrs = data["attrs"]
    if not isinstance(attrs, dict):
        raise ValueError("not a transcript")
    names, lang, rules = (decode(attrs.get(k)) for k in ("names", "lang", "rules"))
    if not isinstance(names, tuple) or not isinstance(lang, str) or not isinstance(rules, Rules):
        raise ValueError("not a transcript")
    tr = Transcript([str(n) for n in names], lang, rules)
    _put(tr, attrs)
    played = Played()
    _put(played, data["played"])
    tr.played = played
    return tr


def dumps(mem: dict[str, Any]) -> bytes:
    """``mem`` (:data:`FIELDS` → value) as versioned JSON (TypeError: a value not data)."""
    out = {k: encode(v) for k, v in mem.items() if k not in ("votes", "transcript")}
    out["votes"] = encode({seat: frozenset(users) for seat, users in mem["votes"].items()})
    out["transcript"] = _transcript(mem["transcript"])
    return json.dumps({"v": FORMAT, "mem": out}, ensure_ascii=False, sort_keys=True).encode()


def loads(data: bytes) -> dict[str, Any]:
    """What :func:`dumps` wrote (ValueError: anything else, a pickle above all)."""
    if data[:1] == PICKLE_MARK:
        raise ValueError("a pickled memory: refused (written by an older bot, or forged)")
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError("not a table's memory") from e
    if not isinstance(doc, dict) or doc.get("v") != FORMAT or not isinstance(doc.get("mem"), dict):
        raise ValueError("not a table's memory in this format")
    raw = doc["mem"]
    if set(raw) != set(FIELDS):
        raise ValueError("not a table's memory: its fields differ")
    mem = {k: decode(v) for k, v in raw.items() if k not in ("votes", "transcript")}
    votes = decode(raw["votes"])
    if not isinstance(votes, dict):
        raise ValueError("votes are not a table's")
    mem["votes"] = {seat: set(users) for seat, users in votes.items()}
    mem["transcript"] = _transcript_of(raw["transcript"])
    return mem

"""Stored messages as data, never code: the outbox's rows are versioned JSON, read back only
into the bot's own plain types (issue 33: "no code in the database").

A row used to be a pickle, and ``pickle.loads`` of a row anyone could write ran any code in
every process. Now :func:`dumps` writes ``{"v": FORMAT, "out": …}`` where every value is JSON
or a tagged object:

- ``{"$t": […]}`` a tuple, ``{"$fs": […]}`` a frozenset, ``{"$d": [[k, v], …]}`` a dict
  whose keys are not all strings, ``{"$b": "<base64>"}`` bytes;
- ``{"$e": "module:Name", "v": …}`` a member of an enum, ``{"$c": "module:Name", "f": {…}}``
  a dataclass by its fields — both only of the bot's own modules (``engine``, ``renderers``,
  ``bot``, already loaded: a row never imports anything), built by their constructors from
  data;
- ``{"$p": "name", "a": […]}`` a picture to draw when the message is sent: one of
  :data:`DRAWINGS` by its name (a functools.partial of it with those arguments). No other
  callable is written or read.

:func:`loads` refuses anything else — a pickle, an unknown tag, a type outside those modules,
a drawing not named in :data:`DRAWINGS` — with ``ValueError``; nothing in a row is ever run
but those drawings, with data for arguments.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

FORMAT = 1  # the rows' format version (another is refused: written by another bot)
OWN_MODULES = ("engine.", "renderers.", "bot.")  # types a row may name
PICKLE_MARK = b"\x80"  # a pickle's first byte (protocol 2 and later)


def _drawings() -> dict[str, Callable[..., bytes]]:
    from renderers import render_game_over, render_hand, render_table
    from renderers.hand_image import render_out
    from renderers.replay import render_replay_animation, replay_frame
    from renderers.stats_image import render_stats, render_top

    table: dict[str, Callable[..., bytes]] = {
        "table": render_table,
        "game_over": render_game_over,
        "hand": render_hand,
        "out": render_out,
        "stats": render_stats,
        "top": render_top,
        "replay_frame": replay_frame,
        "replay_animation": render_replay_animation,
        "bytes": bytes,
    }
    return table


_DRAWINGS: dict[str, Callable[..., bytes]] | None = None


def drawings() -> dict[str, Callable[..., bytes]]:
    """The calls a stored message may carry (its picture or file, drawn when sent), by name."""
    global _DRAWINGS
    if _DRAWINGS is None:
        _DRAWINGS = _drawings()
    return _DRAWINGS


def _name_of(fn: object) -> str:
    for name, known in drawings().items():
        if fn is known:
            return name
    raise TypeError(f"{fn!r} is not a drawing a stored message may carry (bot.stored)")


def _qual(cls: type) -> str:
    if not cls.__module__.startswith(OWN_MODULES):
        raise TypeError(f"{cls.__module__}.{cls.__qualname__} is not the bot's own type")
    return f"{cls.__module__}:{cls.__qualname__}"


def encode(value: object) -> Any:
    """``value`` as JSON data (TypeError: not one the format knows)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"$e": _qual(type(value)), "v": encode(value.value)}
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, bytes):
        return {"$b": base64.b64encode(value).decode()}
    if isinstance(value, tuple):
        return {"$t": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, frozenset):
        return {"$fs": [encode(v) for v in value]}
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: encode(v) for k, v in value.items()}
        return {"$d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, partial):
        if value.keywords:
            raise TypeError("a stored drawing takes its arguments in order")
        return {"$p": _name_of(value.func), "a": [encode(a) for a in value.args]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"$c": _qual(type(value)), "f": fields}
    raise TypeError(f"a {type(value).__name__} cannot be stored (bot.stored)")


def _own_type(name: object) -> type:
    if not isinstance(name, str) or ":" not in name:
        raise ValueError(f"not a type name: {name!r}")
    module, _, qual = name.partition(":")
    if not module.startswith(OWN_MODULES) or not qual.replace(".", "").isidentifier():
        raise ValueError(f"not the bot's own type: {name!r}")
    found: object = sys.modules.get(module)  # loaded by the bot already: nothing imported
    if found is None:
        raise ValueError(f"not a module the bot has loaded: {name!r}")
    for part in qual.split("."):
        found = getattr(found, part, None)
    if not isinstance(found, type):
        raise ValueError(f"no such type: {name!r}")
    return found


def decode(data: Any) -> Any:
    """What :func:`encode` wrote (ValueError: anything else)."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        raise ValueError(f"not stored data: {type(data).__name__}")
    tags = [k for k in data if k.startswith("$")]
    if not tags:
        return {k: decode(v) for k, v in data.items()}
    tag = tags[0]
    body = data[tag]
    if tag == "$t" and isinstance(body, list):
        return tuple(decode(v) for v in body)
    if tag == "$fs" and isinstance(body, list):
        return frozenset(decode(v) for v in body)
    if tag == "$d" and isinstance(body, list):
        return {decode(k): decode(v) for k, v in body}
    if tag == "$b" and isinstance(body, str):
        return base64.b64decode(body, validate=True)
    if tag == "$e":
        cls = _own_type(body)
        if not issubclass(cls, enum.Enum):
            raise ValueError(f"not an enum: {body!r}")
        return cls(decode(data.get("v")))
    if tag == "$c":
        cls = _own_type(body)
        fields = data.get("f")
        if not dataclasses.is_dataclass(cls) or not isinstance(fields, dict):
            raise ValueError(f"not a dataclass: {body!r}")
        known = {f.name: f for f in dataclasses.fields(cls)}
        if set(fields) - set(known):
            raise ValueError(f"fields {body!r} does not have")
        args = {k: decode(v) for k, v in fields.items() if known[k].init}
        return cls(**args)
    if tag == "$p" and isinstance(body, str):
        fn = drawings().get(body)
        given = data.get("a")
        if fn is None or not isinstance(given, list):
            raise ValueError(f"not a drawing a stored message may carry: {body!r}")
        called = [decode(a) for a in given]
        if fn is bytes and not (len(called) == 1 and isinstance(called[0], bytes)):
            raise ValueError("a stored file is its bytes")  # never bytes(10**12)
        return partial(fn, *called)
    raise ValueError(f"unknown tag {tag!r}")


def dumps(value: object) -> bytes:
    """A value as a stored row: versioned JSON."""
    return json.dumps({"v": FORMAT, "out": encode(value)}, ensure_ascii=False).encode()


def loads(row: bytes) -> Any:
    """A stored row's value (ValueError: a pickle, another format, or not data of ours)."""
    if row[:1] == PICKLE_MARK:
        raise ValueError("a pickled row is refused (code, not data)")
    try:
        doc = json.loads(row)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"not JSON: {type(e).__name__}") from e
    if not isinstance(doc, dict) or doc.get("v") != FORMAT or "out" not in doc:
        raise ValueError("not a stored row of this format")
    try:
        return decode(doc["out"])
    except ValueError:
        raise
    except (TypeError, LookupError, RecursionError, AttributeError, ImportError) as e:
        raise ValueError(f"not data of ours: {type(e).__name__}") from e

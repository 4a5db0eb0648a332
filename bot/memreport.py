"""What the bot's memory holds, by owner (``python -m bot bench`` asks for it: its figure
``heap_kb_per_table``): the objects reachable from each part, each object counted once, under
the first owner that reaches it, in :data:`OWNERS` order. What every table shares — modules,
classes, functions, a language's catalog, the rules — is nobody's and never counted.

A report is written as JSON to ``GOUJI_MEMREPORT`` when the process gets SIGUSR1 (never
otherwise: walking the heap takes a moment)."""

from __future__ import annotations

import gc
import json
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.rules import Rules
from renderers.i18n import Catalog

if TYPE_CHECKING:
    from .compose import Parts

_SHARED = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
    types.FrameType,
    Catalog,
    Rules,
)


def deep_size(roots: Iterable[object], seen: set[int]) -> int:
    """Bytes of the objects reachable from ``roots`` not in ``seen`` (added to it)."""
    size = 0
    stack = list(roots)
    while stack:
        obj = stack.pop()
        key = id(obj)
        if key in seen or isinstance(obj, _SHARED):
            continue
        seen.add(key)
        size += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return size


def _table_parts(parts: Parts) -> dict[str, Callable[[], Sequence[object]]]:
    tables = parts.tables.all()
    return {
        "match": lambda: [t.match for t in tables],
        "transcript": lambda: [(t.transcript, t.lines) for t in tables],
        "hold": lambda: [t.hold for t in tables],
        "presses": lambda: [(t.selection, t.hinted, t.votes, t.confirm) for t in tables],
        "table": lambda: tables,  # the state, seats, lock, what is left
    }


def report(parts: Parts) -> dict[str, Any]:
    """Bytes by owner, and how many tables this process holds."""
    roots: dict[str, Callable[[], Sequence[object]]] = {
        **_table_parts(parts),
        "registry": lambda: [parts.tables.by_id, parts.tables.where],
        "outbox": lambda: [parts.sender.queues],
        "file_ids": lambda: [parts.sender.uploads],
        "timers": lambda: [parts.deployment.timers],
        "router": lambda: [parts.router],
        "deployment": lambda: [parts.deployment],
        "sender": lambda: [parts.sender],
        "other_parts": lambda: [parts],
    }
    # the shared world (modules' constants, caches every table uses) is nobody's; the parts
    # themselves are never entered from there
    seen = {id(p) for p in (parts, *parts.tables.all(), *vars(parts).values())}
    seen.add(id(parts.tables.by_id))
    modules = [m.__dict__ for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)]
    deep_size([v for d in modules for v in d.values()], seen)
    seen -= {id(p) for p in (parts, *parts.tables.all(), *vars(parts).values())}
    seen.discard(id(parts.tables.by_id))
    out = {name: deep_size(get(), seen) for name, get in roots.items()}
    return {"tables": len(parts.tables.by_id), "bytes": out}


def write(parts: Parts, path: Path) -> None:
    path.write_text(json.dumps(report(parts)), encoding="utf-8")

"""What the bot's memory holds, by owner (``python -m bot bench`` asks for it: its figure
``heap_kb_per_table``): the objects reachable from each part, each object counted once, under
the first owner that reaches it, in :data:`OWNERS` order. What every table shares — modules,
classes, functions, a language's catalog, the rules — is nobody's and never counted.

A report is written as JSON to ``GOUJI_MEMREPORT`` when the process gets SIGUSR1 (never
otherwise: walking the heap takes a moment). With ``GOUJI_TRACEMALLOC`` (a folder) the process
traces its allocations from the moment this module is imported, and each report also writes a
tracemalloc snapshot there (``1.snap``, ``2.snap``, …): what grew between two reports, by file
and line (``python -m bot.memreport A.snap B.snap``)."""

from __future__ import annotations

import ctypes
import gc
import json
import logging
import os
import sys
import threading
import tracemalloc
import types
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.rules import Rules
from renderers.i18n import Catalog

from .trim import libc_or_none, trim

if TYPE_CHECKING:
    from .compose import Parts

log = logging.getLogger("gouji.memreport")

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
    """Bytes by owner, how many tables this process holds, and the process's figures
    (:func:`process`, read before the walk: it needs some MB of its own for a moment)."""
    figures = {**process(), "connections": connections(parts)}
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
    # plain modules only: a look into some others' ``__dict__`` makes them (cffi's ``lib``
    # builds every symbol of its library: 170 KB the report itself would add to the process)
    modules = [m.__dict__ for m in list(sys.modules.values()) if type(m) is types.ModuleType]
    deep_size([v for d in modules for v in d.values()], seen)
    seen -= {id(p) for p in (parts, *parts.tables.all(), *vars(parts).values())}
    seen.discard(id(parts.tables.by_id))
    out = {name: deep_size(get(), seen) for name, get in roots.items()}
    return {"tables": len(parts.tables.by_id), "bytes": out, "process": figures}


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def connections(parts: Parts) -> int:
    """Database connections the process holds open now (PostgreSQL's pools: storage's,
    the table locks', the deliveries'; 0 on SQLite)."""
    try:
        from asyncpg import Pool
    except ImportError:  # pragma: no cover - asyncpg is a dependency
        return 0
    dep = parts.deployment
    holders = [dep, getattr(dep, "coord", None), getattr(dep, "storage", None)]
    return sum(
        v.get_size()
        for h in holders
        if h is not None and hasattr(h, "__dict__")
        for v in vars(h).values()
        if isinstance(v, Pool)
    )


def process() -> dict[str, int]:
    """The process's memory beyond the objects by owner: Python's objects in all
    (``objects``: gc-tracked ones; ``blocks``: the allocator's blocks in use), and glibc's
    malloc (``malloc_kb``: in use, ``malloc_free_kb``: held free in its heaps, resident or
    not, ``mmap_kb``: big blocks mapped on their own, ``malloc_heap_rss_kb``: the main heap's
    resident part, :func:`heap_rss_kb`) — where the resident figure's growth sits. What is
    resident beyond these is Python's own small-object arenas (1 MiB mappings)."""
    out = {"objects": len(gc.get_objects()), "blocks": sys.getallocatedblocks()}
    libc = libc_or_none()
    fn = getattr(libc, "mallinfo2", None) if libc is not None else None
    if fn is not None:
        fn.restype = _Mallinfo2
        info = fn()
        out["malloc_kb"] = (info.uordblks + info.hblkhd) // 1024
        out["malloc_free_kb"] = info.fordblks // 1024
        out["mmap_kb"] = info.hblkhd // 1024
        out["malloc_heap_rss_kb"] = heap_rss_kb()
    return out


def heap_rss_kb(smaps: str = "/proc/self/smaps") -> int:
    """Resident KB of the main heap (the event loop's malloc arena; Linux): of what malloc holds
    free, only this part costs memory — the rest was handed back (bot.trim) and is address
    space only."""
    try:
        with open(smaps, encoding="ascii", errors="replace") as lines:
            in_heap = False
            for line in lines:
                if not line[0].isupper():  # a mapping's first line: address range, …, name
                    in_heap = line.rstrip().endswith("[heap]")
                elif in_heap and line.startswith("Rss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


_TRACE = os.environ.get("GOUJI_TRACEMALLOC", "")
if _TRACE and not tracemalloc.is_tracing():
    tracemalloc.start(int(os.environ.get("GOUJI_TRACEMALLOC_FRAMES", "1")))


def write(parts: Parts, path: Path) -> None:
    """The report (:func:`report`) written to ``path`` as JSON, whole (renamed into place).
    Where the system can fork, the heap is walked in a child process: the bot's loop goes on
    meanwhile, and the walk's memory — tens of MB for a moment, and Python's arenas it would
    leave held (some 2 MB at a hundred tables, for good) — is never the bot's."""
    if _TRACE:
        folder = Path(_TRACE) / os.environ.get("GOUJI_PROCESS", "")  # several: one each
        folder.mkdir(parents=True, exist_ok=True)
        n = len(list(folder.glob("*.snap"))) + 1
        gc.collect()
        tracemalloc.take_snapshot().dump(str(folder / f"{n}.snap"))
    fork = getattr(os, "fork", None)
    if fork is None:  # pragma: no cover - not POSIX
        _dump(parts, path)
        gc.collect()
        trim()  # the walk's memory given back at once, not at the next trim
        return
    collecting = gc.isenabled()
    gc.disable()  # from the fork on: the child only reads the parent's objects (no finalizer)
    try:
        pid = fork()
        if pid == 0:  # the child
            code = 1
            try:
                _dump(parts, path)
                code = 0
            except BaseException:
                log.exception("the memory report was not written")
            finally:
                os._exit(code)
    finally:
        if collecting:
            gc.enable()
    threading.Thread(target=os.waitpid, args=(pid, 0), name="memreport", daemon=True).start()


def _dump(parts: Parts, path: Path) -> None:
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(report(parts)), encoding="utf-8")
    part.replace(path)


def growth(before: Path, after: Path, top: int = 40, key: str = "lineno") -> list[str]:
    """What grew between two snapshots, the largest first (lines to print)."""
    a = tracemalloc.Snapshot.load(str(before))
    b = tracemalloc.Snapshot.load(str(after))
    return [str(stat) for stat in b.compare_to(a, key)[:top]]


if __name__ == "__main__":
    args = sys.argv[1:]
    how = args.pop() if args and args[-1] in ("lineno", "filename", "traceback") else "lineno"
    print(*growth(Path(args[0]), Path(args[1]), key=how), sep="\n")

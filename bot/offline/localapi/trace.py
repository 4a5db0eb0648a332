"""Where the local server's flood waits come from (a developer's aid): with
``GOUJI_API_TRACE=<path>`` set, each 429 the server answers is written to ``path`` as a JSON
line — the chat, the refused call, the chat's calls before it (method, how long before, status,
which bot process sent it: ``GOUJI_PROCESS`` of the process whose socket it came by) and how
many calls the server let through in the second before (Telegram's overall limit)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import deque
from typing import Protocol

from .limits import LIMITED

TRACE_ENV = "GOUJI_API_TRACE"
KEPT = 4096  # the last calls remembered (the chat's recent ones are among them)
BEFORE = 6  # the chat's calls shown before a refused one
TICK_S = 0.01  # the server's loop watched this often
STALL_S = 0.03  # late by this much: a stall worth telling


class Call(Protocol):
    """What the trace reads of a call (bot.offline.localapi.server.ApiCall)."""

    @property
    def method(self) -> str: ...

    @property
    def chat_id(self) -> int | None: ...

    @property
    def time(self) -> float: ...

    @property
    def status(self) -> int: ...

    @property
    def peer(self) -> int: ...

    @property
    def params(self) -> dict[str, str]: ...


class Trace:
    """Told of every call (a listener of the server): writes each 429 with its context."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._calls: deque[Call] = deque(maxlen=KEPT)
        # the server's own event loop stalled (it shares it with the simulated players): when
        # and how long — the calls that came meanwhile are handled together after it, as if
        # they had come at once
        self._stalls: deque[tuple[float, float]] = deque(maxlen=256)
        self._ticking: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(TICK_S)
            late = time.monotonic() - before - TICK_S
            if late >= STALL_S:
                self._stalls.append((time.monotonic(), late))

    def close(self) -> None:
        if self._ticking is not None:
            self._ticking.cancel()
            self._ticking = None

    def __call__(self, call: Call) -> None:
        if self._ticking is None:
            self._ticking = asyncio.get_running_loop().create_task(self._tick())
        if call.method not in LIMITED or call.chat_id is None:
            return
        if call.status == 429:
            self._write(call)
        self._calls.append(call)

    def _write(self, call: Call) -> None:
        calls = [c for c in self._calls if c.chat_id == call.chat_id][-BEFORE:]
        last = [c for c in self._calls if c.status == 200 and call.time - c.time < 1.0]
        procs = _processes({c.peer for c in [*calls, *last]} | {call.peer})
        second = len(last)
        line = {
            "at": round(time.time(), 3),
            "chat": call.chat_id,
            "call": _shown(call, call.time, procs),
            "before": [_shown(c, call.time, procs) for c in calls],
            "overall_last_1s": second,
            # the server's stalls that ended in the second before: how long before, how long
            "server_stalls": [
                (round(call.time - at, 3), round(late, 3))
                for at, late in self._stalls
                if call.time - at < 1.0
            ],
            # the calls of that second: how long before the refused one, by which process
            "last_1s": [
                (round(call.time - c.time, 3), procs.get(c.peer, str(c.peer))) for c in last
            ],
        }
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def _shown(call: Call, at: float, procs: dict[int, str]) -> dict[str, object]:
    text = call.params.get("text") or call.params.get("caption") or ""
    return {
        "method": call.method,
        "ago_s": round(at - call.time, 3),
        "status": call.status,
        "proc": procs.get(call.peer, f"port {call.peer}"),
        "message_id": call.params.get("message_id", ""),
        "text": text[:40],
    }


def _processes(ports: set[int]) -> dict[int, str]:
    """Which process (its ``GOUJI_PROCESS``, else its pid) holds the client socket of each
    local port (Linux: /proc)."""
    inodes: dict[str, int] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                for row in f.readlines()[1:]:
                    cols = row.split()
                    port = int(cols[1].rsplit(":", 1)[1], 16)
                    if port in ports:
                        inodes[cols[9]] = port
        except OSError:
            continue
    found: dict[int, str] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        for link in _links(pid):
            inode = link[8:-1] if link.startswith("socket:[") else ""
            if inode in inodes:
                found[inodes[inode]] = _name(pid)
    return found


def _links(pid: str) -> list[str]:
    """What the process's file descriptors point at (one closed meanwhile left out: the
    listing's own, in this process)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return []
    links = []
    for fd in fds:
        try:
            links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return links


def _name(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
    except OSError:
        return f"pid {pid}"
    index = env.get(b"GOUJI_PROCESS")
    return f"proc {index.decode()}" if index is not None else f"pid {pid}"


def trace_from_env() -> Trace | None:
    path = os.environ.get(TRACE_ENV)
    return Trace(path) if path else None

"""Each webhook update handled once, across restarts and processes: its ``update_id`` stored
when its handling starts (``updates_seen``, schema version 6) and marked done when it ends.

Telegram (or a proxy trying the next process) delivers an update again when no answer came:
a second delivery of an update handled to its end is answered at once and not handled again
(``/replay`` and ``/record`` never post twice); one still being handled elsewhere is answered
"try later" (503), so that a process killed while handling it loses nothing. A claim says
its process (schema version 7): one left by a process that is dead — it beats no more in
``procs`` (bot.coord), or, one process on SQLite, it was an earlier run — is taken over at once
(else the chat would get none of its updates until then: a killed process froze its players'
chats for a minute); any claim once older than :data:`CLAIM_S`. Ids are forgotten after
:data:`KEPT_S`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from enum import Enum
from typing import Protocol

from .coord import DEAD_S  # a process silent this long in `procs` is dead
from .sql_storage import SqlStorage

KEPT_S = 86400.0  # an update's id is remembered a day (Telegram gives up long before)
CLAIM_S = 60.0  # a claim older than this, not done, was its process's last act: taken over
PRUNE_EVERY = 1000  # claims between two prunings


class Seen(Enum):
    NEW = "new"  # handle it (this process's claim now)
    DONE = "done"  # handled already: answer it, do nothing
    BUSY = "busy"  # being handled elsewhere: answer "try later"


class UpdateLog(Protocol):
    async def claim(self, update_id: int) -> Seen: ...

    async def done(self, update_id: int) -> None: ...

    async def release(self, update_id: int) -> None: ...


class StoredUpdates:
    """:class:`UpdateLog` in the bot's database (SQLite or PostgreSQL)."""

    def __init__(self, storage: SqlStorage, clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.clock = clock
        self._claims = 0
        self._run = f"run:{uuid.uuid4().hex[:12]}"  # this run's, when no coord names the process

    @property
    def owner(self) -> str:
        """Who claims: the process as bot.coord names it (several on PostgreSQL), else this run."""
        return self.storage.owner or self._run

    async def claim(self, update_id: int) -> Seen:
        now = self.clock()
        async with self.storage._bookkeeping() as tx:
            rows = await tx.fetch(
                "INSERT INTO updates_seen (update_id, seen_at, done, owner) VALUES (?, ?, 0, ?)"
                " ON CONFLICT (update_id) DO UPDATE"
                " SET seen_at = excluded.seen_at, owner = excluded.owner"
                " WHERE updates_seen.done = 0 AND (updates_seen.seen_at < ?"
                " OR updates_seen.owner IS NOT NULL AND updates_seen.owner <> excluded.owner"
                " AND NOT EXISTS (SELECT 1 FROM procs p"
                " WHERE p.proc_id = updates_seen.owner AND p.beat_at > ?))"
                " RETURNING update_id",
                (update_id, now, self.owner, now - CLAIM_S, time.time() - DEAD_S),
            )
            if not rows:
                found = await tx.fetch(
                    "SELECT done FROM updates_seen WHERE update_id = ?", (update_id,)
                )
                return Seen.DONE if found and found[0][0] else Seen.BUSY
        self._claims += 1
        if self._claims % PRUNE_EVERY == 1:
            await self.prune(now)
        return Seen.NEW

    async def done(self, update_id: int) -> None:
        async with self.storage._bookkeeping() as tx:
            await tx.execute("UPDATE updates_seen SET done = 1 WHERE update_id = ?", (update_id,))

    async def release(self, update_id: int) -> None:
        """Its handling failed: the next delivery handles it again."""
        async with self.storage._unit() as tx:
            await tx.execute(
                "DELETE FROM updates_seen WHERE update_id = ? AND done = 0", (update_id,)
            )

    async def prune(self, now: float | None = None) -> None:
        at = (self.clock() if now is None else now) - KEPT_S
        async with self.storage._unit() as tx:
            await tx.execute("DELETE FROM updates_seen WHERE seen_at < ?", (at,))


class MemoryUpdates:
    """:class:`UpdateLog` in memory (a storage that is not SQL)."""

    def __init__(self) -> None:
        self._seen: dict[int, bool] = {}

    async def claim(self, update_id: int) -> Seen:
        if update_id in self._seen:
            return Seen.DONE if self._seen[update_id] else Seen.BUSY
        self._seen[update_id] = False
        if len(self._seen) > 100_000:
            for key in list(self._seen)[:50_000]:
                del self._seen[key]
        return Seen.NEW

    async def done(self, update_id: int) -> None:
        self._seen[update_id] = True

    async def release(self, update_id: int) -> None:
        self._seen.pop(update_id, None)


def update_log(storage: object) -> UpdateLog:
    return StoredUpdates(storage) if isinstance(storage, SqlStorage) else MemoryUpdates()

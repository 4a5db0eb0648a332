"""Several processes on one database: what a dead process leaves is taken over by the others
(bot.coord). Every :data:`EVERY_S` each process looks for

- **messages** a dead (or stopped) process stored in the outbox and did not deliver: it
  delivers them, each once;
- **tables** a dead process saved last: what it was about to show and the timers it had not
  stored are lost with it, so the table is resumed here as after a restart — the group told,
  every player's view sent again, the asked player asked again, its timers set again.

Timers a dead process had claimed are claimed again by the others (bot.timers.StoredTimers),
and the chats it was delivering to are free for them (bot.sender).
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from . import storage as S
from .coord import PgCoord
from .outbox import Out
from .table import Table
from .tenure import Poster

log = logging.getLogger("gouji.takeover")
EVERY_S = 1.0


class Tables(Protocol):
    """What the takeover needs of the table registry (:class:`bot.tables.Tables`)."""

    storage: S.Storage
    poster: Poster  # the sender's queues, past the tenure

    def get(self, table_id: int) -> Table | None: ...

    async def find(self, table_id: int) -> Table | None: ...

    def locked(self, table: Table) -> AbstractAsyncContextManager[Table]: ...


class Takeover:
    def __init__(self, tables: Tables, coord: PgCoord) -> None:
        self.tables = tables
        self.coord = coord
        self.tables_resumed = 0
        self.messages_adopted = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch(), name="takeover")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(EVERY_S)
            try:
                await self.once()
            except Exception:
                log.exception("takeover: the database is away; trying again")

    async def once(self) -> None:
        """One look for what dead processes left."""
        sender = self.tables.poster
        for outbox_id, data in await self.coord.adopt_outbox():
            try:
                out = Out.loads(data, outbox_id)
            except ValueError as e:
                log.error("%s: dropped", e)
                await self.tables.storage.message_delivered(outbox_id)
                continue
            self.messages_adopted += 1
            sender.post(out)
        for table_id in await self.coord.orphans():
            await self._resume(table_id)
        # (the tables the others serve stay theirs: a player's /hand finds them in storage)

    async def _resume(self, table_id: int) -> None:
        """Held, an unsettled table is shown again (bot.deployment.Shared.hold)."""
        tables = self.tables
        table = await tables.find(table_id)
        if table is None:
            return
        async with tables.locked(table):
            pass
        log.info("table %d, left unsettled by a process that died, shown again", table_id)
        self.tables_resumed += 1

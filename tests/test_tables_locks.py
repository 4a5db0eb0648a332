"""The registry's locks: a table another process serves leaves memory after a change only when
no other task here waits for it (bot.locks counts them), and a chat's lock lives only while
someone holds or awaits it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.chats import Chats
from bot.deployment import Single
from bot.model import TableState, TableStatus
from bot.outbox import Out
from bot.storage import SqliteStorage
from bot.table import Table
from bot.tables import Config, Tables


class Nowhere:
    def post(self, out: Out) -> None:
        pass


class Elsewhere(Single):
    """Every table is served by another process: it leaves memory after each change."""

    def leaves(self, table: Table) -> bool:
        return True


def registry(tmp_path: Path, deployment: Single | None = None) -> Tables:
    store = SqliteStorage(str(tmp_path / "t.db"))
    return Tables(store, Nowhere(), deployment or Single(store), Config(), Chats(store, "zh"))


async def test_a_table_leaves_memory_only_when_nobody_here_waits_for_it(tmp_path: Path) -> None:
    tables = registry(tmp_path, Elsewhere(SqliteStorage(str(tmp_path / "t.db"))))
    table = Table(7, -100, None, 1, TableStatus.LOBBY, TableState())
    tables.add(table)
    present: list[bool] = []

    async def change(k: int) -> None:
        async with tables.locked(table):
            present.append(tables.get(7) is table)
            await asyncio.sleep(0.001)

    await asyncio.gather(*(change(k) for k in range(3)))
    # the first two changes left it for the next waiting one; the last one let it go
    assert present == [True, True, True]
    assert tables.get(7) is None and tables.at(-100, None) is None

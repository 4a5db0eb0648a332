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


async def test_a_thousand_chats_passing_leave_no_chat_locks(tmp_path: Path) -> None:
    """Each (chat, topic) lock is forgotten once nobody holds or awaits it — with several
    tasks meeting at it, and one giving up while it waits — and it is one lock a key while it
    lives: never two tasks inside for one (chat, topic)."""
    tables = registry(tmp_path)
    inside: dict[tuple[int, int | None], int] = {}
    most = 0

    async def opens(chat: int, topic: int | None) -> None:
        nonlocal most
        async with tables.chat_lock(chat, topic):
            inside[chat, topic] = inside.get((chat, topic), 0) + 1
            most = max(most, inside[chat, topic])
            await asyncio.sleep(0)
            inside[chat, topic] -= 1

    async def gives_up(chat: int) -> None:
        waiting = asyncio.create_task(opens(chat, None))
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)

    work = []
    for chat in range(-1000, 0):
        work += [opens(chat, None), opens(chat, None), opens(chat, 5), gives_up(chat)]
    await asyncio.gather(*work)
    assert most == 1
    assert len(tables._chat_locks) == 0
    # a waiter that gives up as the holder leaves: the lock goes with the last of them
    async with tables.chat_lock(-1, None):
        late = asyncio.create_task(opens(-1, None))
        await asyncio.sleep(0)
    late.cancel()  # woken, cancelled before it ran
    await asyncio.gather(late, return_exceptions=True)
    assert len(tables._chat_locks) == 0

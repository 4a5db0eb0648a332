"""One press, one write of the table's row: delivering the messages a press causes (a kept
message sent anew included) stores their ids apart (bot.slots), never the whole table again."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from backends import Backend
from botkit import open_and_seat, people, start, world

from bot.buttons import LobbyOp
from bot.model import TableState, TableStatus
from bot.offline.simplayers import SimPlayer, press_lobby
from bot.slotstate import take_stored
from bot.storage import TableRow


@pytest.mark.e2e  # the bot end to end, through the local server
@pytest.mark.parametrize("humans", [6, 1], ids=["human-next", "ai-next"])
async def test_a_press_writes_the_table_row_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, humans: int
) -> None:
    """Each action (the press's, and the AI's it sets off) writes the row once."""
    async with world(tmp_path) as w:
        g = w.api.group(-4401, "一写")
        users = people(w, humans, base=900)
        await open_and_seat(w, g, users)
        if humans < 6:
            await press_lobby(w.api, g, users[0], LobbyOp.FILL)
        await start(w, g, users[0])
        storage = w.parts.tables.storage
        writes = {"rows": 0, "slots": 0}
        save_table, save_slot = storage.save_table, storage.save_slot

        async def counted_table(*args: Any, **kw: Any) -> list[int]:
            writes["rows"] += 1
            return await save_table(*args, **kw)

        async def counted_slot(*args: Any, **kw: Any) -> None:
            writes["slots"] += 1
            await save_slot(*args, **kw)

        monkeypatch.setattr(storage, "save_table", counted_table)
        monkeypatch.setattr(storage, "save_slot", counted_slot, raising=False)
        players = [SimPlayer(w.api, u, random.Random(i), follow=True) for i, u in enumerate(users)]
        table = w.table(g)
        actions = 0
        new_messages = 0
        for _ in range(60):
            before, writes["rows"], writes["slots"] = table.version, 0, 0
            stepped = False
            for p in players:
                if await p.step():
                    stepped = True
                    break
            await w.settle()
            if not stepped:
                break
            if table.version == before:
                assert writes["rows"] <= 1  # a hint or a choice: at most the table's memory
                continue
            done = table.version - before  # the press's action, and the AI's after it
            actions += done
            new_messages += writes["slots"]
            print(f"press: {done} actions, {writes['rows']} row writes, {writes['slots']} slots")
            assert writes["rows"] == done, f"{done} actions wrote the row {writes['rows']} times"
            if actions >= 12:
                break
        assert actions >= 3
        assert new_messages > 0  # some press sent a kept message anew (its id stored apart)


async def test_kept_ids_stored_apart_win_over_the_rows_and_old_rows_still_load(
    backend: Backend,
) -> None:
    """A table stored before the ids were kept apart keeps its state's; one sent anew since
    is the stored one, in the loaded table (log pages before the one before dropped)."""
    state = TableState()
    state.lobby_msg, state.table_msg, state.log_msgs = 11, 12, {0: 20, 1: 21}
    async with backend.storage(await backend.db("db/gouji.sqlite3")) as st:
        row = await st.create_table(TableRow(None, -7, None, TableStatus.LOBBY, 1, state.to_json()))
        assert row.table_id is not None
        await st.save_slot(row.table_id, "table", 0, 99)
        await st.save_slot(row.table_id, "log", 2, 22)
        await st.save_slot(row.table_id, "table", 0, 100)  # sent anew again: one row a slot
        await st.save_slot(row.table_id + 1, "lobby", 0, 5)  # no such table: nothing
        loaded = await st.load_table(row.table_id)
        assert loaded is not None and loaded.version == 0
        assert loaded.slots == (("log", 2, 22), ("table", 0, 100))
        got = TableState.from_json(loaded.state)
        take_stored(got, loaded.slots)
        assert (got.lobby_msg, got.table_msg, got.log_msgs) == (11, 100, {1: 21, 2: 22})
        assert await st.load_slots(row.table_id + 1) == []

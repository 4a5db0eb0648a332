"""A table's memory is stored as data (versioned JSON, issue 33 "no code in the database"): it
round-trips, and a pickled row — written by an older bot or forged — is refused, never run."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import pytest
from botkit import over, world
from test_memory import _midgame

from bot.handkeys import Pending
from bot.hold import Hold, plan
from bot.model import TableState, TableStatus
from bot.offline.simplayers import play_until
from bot.outbox import Out
from bot.table import Table
from engine.ai import decide
from engine.match import Match
from engine.rules import STANDARD
from renderers import Transcript

NAMES = ["甲", "乙", "丙", "丁", "戊", "己"]


def _busy_table() -> Table:
    """A table mid-game with everything its memory holds: a transcript fed every event, a hold
    of automatic passes, chosen cards, a hint, votes and confirmations."""
    table = Table(1, -1, None, 1, TableStatus.PLAYING, TableState())
    match = Match(STANDARD, seed=5)
    table.transcript = Transcript(NAMES, "zh", STANDARD)
    table.transcript.feed(match.new_game())
    rng = random.Random(2)
    hold: Hold | None = None
    for _ in range(400):
        asked = match.asked()
        if asked is None:
            break
        before = match.view(None)
        events = match.apply(decide(match, asked[0], "normal", rng).action)
        table.transcript.feed(events)
        table.lines.extend(table.transcript.take_finished())
        hold = plan(before, match.view(None), events, lambda seat: 1.5) or hold
        if hold is not None and len(table.lines) > 3:
            break
    assert hold is not None, "no automatic pass in the game"
    hold.later.append(Out(-1, "好！", None))
    table.hold = hold
    table.selection = {2: (1, 0, 2) + (0,) * 12}
    table.hinted = {2: "提示：对5"}
    table.votes = {3: {10, 11}}
    table.confirm = {1: Pending.auto(7), 4: Pending.play(9, "2A")}
    table.note = "乙 回来了"
    return table


def test_a_tables_memory_round_trips_as_json() -> None:
    table = _busy_table()
    data = table.mem()
    doc = json.loads(data)
    assert doc["v"] == 1 and set(doc["mem"]) == set(Table.MEM)
    back = Table(1, -1, None, 1, TableStatus.PLAYING, TableState())
    back.take_mem(data)
    assert back.mem() == data
    for k in ("selection", "hinted", "votes", "confirm", "hold", "note", "lines"):
        assert getattr(back, k) == getattr(table, k), k
    assert isinstance(back.votes[3], set)
    assert table.transcript is not None and back.transcript is not None
    assert back.transcript.cat is table.transcript.cat  # named, not copied
    assert back.transcript.current() == table.transcript.current()
    assert back.transcript.played.trick == table.transcript.played.trick
    assert back.transcript.cheers() == table.transcript.cheers()


class _Boom:
    ran = False

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (_Boom.mark, ())

    @staticmethod
    def mark() -> None:
        _Boom.ran = True


def test_a_pickled_memory_is_refused_not_run() -> None:
    crafted = pickle.dumps({k: _Boom() for k in Table.MEM})
    table = Table(1, -1, None, 1, TableStatus.PLAYING, TableState())
    with pytest.raises(ValueError, match="pickle"):
        table.take_mem(crafted)
    assert not _Boom.ran
    assert table.selection == {} and table.transcript is None  # nothing of it taken
    for junk in (b"", b"[]", b'{"v": 99, "mem": {}}', b'{"v": 1, "mem": {"note": "x"}}'):
        with pytest.raises(ValueError):
            table.take_mem(junk)
    forged = json.loads(_busy_table().mem())
    forged["mem"]["hold"] = {"$c": "os:system", "f": {}}  # not the bot's own type
    with pytest.raises(ValueError):
        table.take_mem(json.dumps(forged).encode())
    forged = json.loads(_busy_table().mem())
    forged["mem"]["transcript"]["attrs"]["__class__"] = "x"  # an attribute it does not have
    with pytest.raises(ValueError):
        table.take_mem(json.dumps(forged).encode())


@pytest.mark.e2e
async def test_a_parked_table_with_a_pickled_memory_comes_back_without_it(tmp_path: Path) -> None:
    """A stored memory that is a pickle (forged, or from an older bot) is left out when the
    table comes back: nothing of it runs, and the game goes on from the stored actions."""
    async with world(tmp_path, pass_think_s=0.0) as w:
        tables = w.parts.tables
        table, players, group = await _midgame(w)
        version = table.version
        table.used -= 10_000
        assert await tables.sweep(idle_s=600) == 1
        row = await tables.storage.load_table(table.id)
        assert row is not None and row.mem is not None and row.mem[:1] == b"{"
        row.mem = pickle.dumps({k: _Boom() for k in Table.MEM})
        await tables.storage.save_table(row)
        back = await tables.find_at(table.chat_id, table.thread_id)
        assert back is not None and back.version == version and back.transcript is not None
        assert not _Boom.ran
        await play_until(w.api, players, over(w, group), settle=w.settle)
        again = tables.get(table.id)
        assert again is not None and again.status == TableStatus.OVER

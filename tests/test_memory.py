"""Memory per table: idle tables leave memory and come back from storage as they were; a
table's stored memory names its catalog instead of copying it; the sender forgets quiet chats."""

from __future__ import annotations

import gc
import random
import tracemalloc
from pathlib import Path

import pytest
from botkit import World, open_and_seat, over, people, play_game, start, world
from test_bot_shared import second_process

from bot.buttons import LobbyOp
from bot.model import TableState, TableStatus
from bot.offline.botprocess import until
from bot.offline.localapi import RateLimits, SimGroup
from bot.offline.localbot import runtime
from bot.offline.pgcluster import PgCluster
from bot.offline.simplayers import SimPlayer, button_data, lobby_message, play_until, press_lobby
from bot.outbox import Out
from bot.pacing import Pacing
from bot.queues import QUIET_S, ChatQueue, Queues
from bot.table import Table
from bot.timers import StoredTimers
from engine.match import Match
from engine.rules import STANDARD
from renderers import Transcript


def _shown(table: Table) -> tuple[object, ...]:
    """What the table shows and holds: the group's table, every hand, the log, the choices."""
    hands = tuple(
        (o.text, o.keyboard) if (o := table.hand_out(s)) is not None else None for s in range(6)
    )
    out = table.table_out()
    return (
        table.version,
        table.status,
        out.text,
        out.photo_key,
        hands,
        tuple(table.lines),
        table.transcript.current() if table.transcript else None,
        dict(table.selection),
        table.st.to_json(),
    )


def test_mem_names_the_catalog() -> None:
    table = Table(1, -1, None, 1, TableStatus.PLAYING, TableState())
    match = Match(STANDARD, seed=3)
    table.transcript = Transcript(["甲", "乙", "丙", "丁", "戊", "己"], "zh", STANDARD)
    table.transcript.feed(match.new_game())
    data = table.mem()
    assert len(data) < 4000  # not the catalog's 35 KB
    back = Table(1, -1, None, 1, TableStatus.PLAYING, TableState())
    back.take_mem(data)
    assert back.transcript is not None and back.transcript.cat is table.transcript.cat


def test_quiet_chats_forgotten() -> None:
    queues = Queues()
    queues.post(Out(5, "hi", None))
    chat = queues.chats[5]
    chat.queue.clear()
    chat.last = 100.0
    queues.sweep(now=100.0 + QUIET_S / 2)
    assert 5 in queues.chats  # called lately: its pace still counts
    queues.sweep(now=100.0 + QUIET_S + 1)
    assert 5 not in queues.chats


def test_an_emptied_queue_leaves_memory() -> None:
    """A chat's queue, its set of queued ids and its worker go once its worker ends with nothing
    waiting; only its last call stays (its pace), and that too once quiet for QUIET_S."""
    queues = Queues()
    for k in range(5):
        queues.post(Out(7, f"m{k}", None, outbox_id=k))
    chat = queues.chats[7]
    assert len(chat.queue) == 5 and set(chat.queued or ()) == {0, 1, 2, 3, 4}
    chat.queue.clear()  # delivered
    chat.last = 123.0
    queues.done(7)
    assert 7 not in queues.chats and queues.last_call(7) == 123.0
    queues.post(Out(7, "again", None))
    assert queues.chats[7].last == 123.0  # its pace goes on from its last call
    queues.chats[7].queue.clear()
    queues.done(7)
    queues.sweep(now=123.0 + QUIET_S + 1)
    assert queues.last_call(7) is None and not queues.chats


def test_delivered_messages_leave_little_behind() -> None:
    """Hundreds of messages to hundreds of chats, delivered: what stays is the time of each
    chat's last call (its pace), some 100 bytes a chat — not a queue, a set and a task."""
    queues = Queues()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for k in range(800):
            queues.post(Out(1000 + k % 400, f"消息{k}", None, outbox_id=k))
        for chat_id in list(queues.chats):
            queues.chats[chat_id].queue.clear()  # delivered
            queues.done(chat_id)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert not queues.chats
    assert grown / 400 < 200


def test_a_queue_with_messages_stays() -> None:
    queues = Queues()
    queues.post(Out(8, "waiting", None))
    queues.done(8)  # a worker that stopped with a message left (its lease moved)
    assert len(queues.chats[8].queue) == 1


def test_small_records_have_no_dict() -> None:
    assert not hasattr(ChatQueue(0.0), "__dict__")


def _has_lobby(w: World, group: SimGroup) -> bool:
    try:
        lobby_message(w.api, group)
    except LookupError:
        return False
    return True


async def _midgame(w: World) -> tuple[Table, list[SimPlayer], SimGroup]:
    group = w.api.group(-500, "桌")
    users = people(w)
    await open_and_seat(w, group, users)
    await start(w, group, users[0])
    players = [SimPlayer(w.api, u, random.Random(i)) for i, u in enumerate(users)]
    table = w.table(group)
    await play_until(w.api, players, lambda: table.version >= 25, settle=w.settle)
    await w.settle()
    return table, players, group


@pytest.mark.e2e
async def test_idle_table_leaves_memory_and_plays_on(tmp_path: Path) -> None:
    async with world(tmp_path, pass_think_s=0.0) as w:
        tables = w.parts.tables
        table, players, group = await _midgame(w)
        # everything delivered: no chat's queue, set or worker is left in memory
        assert not w.parts.sender.queues.chats
        before = _shown(table)
        table.used -= 10_000  # untouched for hours
        assert await tables.sweep(idle_s=600) == 1
        assert tables.get(table.id) is None and table.id in tables.parked
        assert tables.at(table.chat_id, table.thread_id) is None
        back = await tables.find_at(table.chat_id, table.thread_id)
        assert back is not None and back is not table
        assert _shown(back) == before  # as it was: state, match, log, hands, choices
        assert tables.get(table.id) is back and not tables.parked
        # parked again: a player's press (by the table's id) brings it back, and the game
        # goes on to its end
        back.used -= 10_000
        assert await tables.sweep(idle_s=600) == 1
        await play_until(w.api, players, over(w, group), settle=w.settle)
        again = tables.get(table.id)
        assert again is not None and again.status == TableStatus.OVER


@pytest.mark.e2e
async def test_hand_finds_a_table_out_of_memory(tmp_path: Path) -> None:
    async with world(tmp_path, pass_think_s=0.0) as w:
        tables = w.parts.tables
        table, _, _ = await _midgame(w)
        user = w.users[2]
        table.used -= 10_000
        await tables.sweep(idle_s=600)
        sent = {m.message_id for m in w.api.messages(user.id)}
        await user.send("/hand")
        await w.settle()
        new = {m.message_id for m in w.api.messages(user.id)} - sent
        assert new  # the hand again, as a new message: the table brought back from storage
        assert tables.get(table.id) is not None


@pytest.mark.e2e
async def test_busy_table_stays(tmp_path: Path) -> None:
    async with world(tmp_path, pass_think_s=0.0) as w:
        tables = w.parts.tables
        table, _, group = await _midgame(w)
        assert await tables.sweep(idle_s=600) == 0  # held a moment ago
        await play_game(w, group, w.users[:6])
        assert tables.get(table.id) is table


@pytest.mark.e2e
async def test_a_game_goes_on_across_two_processes(tmp_path: Path, pg_cluster: PgCluster) -> None:
    """Several processes (a chat's delivery handed over by notices, no polling): a game goes
    on across both to its end, stored as over."""
    db = await pg_cluster.create_database()
    async with world(tmp_path, seed=5, db=db, ai_delay=0.05) as w:
        group = w.api.group(-1003, "两个进程")
        (me,) = people(w, 1)
        await open_and_seat(w, group, [me])
        await press_lobby(w.api, group, me, LobbyOp.FILL)
        await start(w, group, me)
        table = w.table(group)
        async with second_process(w.api, db, w.cfg, w.pacing) as other:
            assert runtime(other).parts.tables is not None
            mine = runtime(w.app).timers
            assert isinstance(mine, StoredTimers)
            await mine.stop_claiming()  # the second fires the AI moves from now on
            await play_game(w, group, [me], seed=5)
            assert over(w, group)()
            stored = await w.parts.tables.storage.load_table(table.id)
            assert stored is not None and stored.status == TableStatus.OVER


@pytest.mark.e2e
async def test_a_press_is_answered_while_the_budget_is_spent(tmp_path: Path) -> None:
    """The calls budget over all chats spent for many seconds to come: a press is answered at
    once all the same (answerCallbackQuery is not paced); the lobby's edit waits its turn."""
    slow = Pacing(group_s=0.0, private_s=0.0, overall_per_s=2.0, burst=1)
    async with world(tmp_path, rate=RateLimits.off(), pacing=slow) as w:
        group = w.api.group(-700, "慢")
        users = people(w, 2)
        for u in users:
            group.join_quietly(u)
        await users[0].send("/gouji", group)
        await until(lambda: _has_lobby(w, group), 30.0)
        for k in range(40):  # twenty seconds of the budget spent on others' messages
            w.parts.sender.post(Out(900 + k, f"消息{k}", None))
        lobby = lobby_message(w.api, group)
        data = button_data(lobby, LobbyOp.SIT, 0)
        assert data is not None
        answered = len(w.api.answer_latency())
        await users[1].press(lobby, data=data)
        await until(lambda: len(w.api.answer_latency()) > answered, 5.0)
        assert w.api.answer_latency()[-1] < 1.0  # not behind the twenty seconds of messages
        assert w.parts.sender.pending() > 20  # the budget is still spent meanwhile

"""Chats waiting for the budget of calls hold no task (bot/pacing.py ``Pace.want``): at a busy
moment hundreds of chats wait so, and what each holds is its queue and its newest message —
a few hundred bytes besides the message (3.6 KB with a worker task each; glibc keeps such a
peak: issue 35's memory a table on PostgreSQL)."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc

from test_bot_pace import FakeBot, Slots, sender_of

from bot.outbox import Out, Slot, SlotKind
from bot.pacing import GROUP, PRIVATE, QUESTION, Pace, Pacing

WAITING = 1000


async def test_a_waiting_chat_holds_no_task_and_little_memory() -> None:
    bot = FakeBot()
    ids = {Slot(k, SlotKind.HAND, 0): 100 + k for k in range(WAITING)}
    # one call a second: everything but the first waits for its turn
    sender = sender_of(bot, Slots(ids), pacing=Pacing(0.0, 0.0, 1.0, burst=1))
    outs = [
        Out(k + 1, f"hand {k}", slot=Slot(k, SlotKind.HAND, 0), outbox_id=k + 1)
        for k in range(WAITING)
    ]
    await asyncio.sleep(0.01)
    tasks = len(asyncio.all_tasks())
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for out in outs:
            sender.queues.post(out)
        for _ in range(20):
            await asyncio.sleep(0)  # the chats served: each waits for its turn
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert sender.pending() == WAITING - 1 and len(bot.calls) <= 1
    assert len(asyncio.all_tasks()) <= tasks + 1  # (the first chat's delivery)
    assert grown / WAITING < 600, grown / WAITING  # bytes a waiting chat, its message aside
    await sender.close()


async def test_wanted_turns_go_in_order_within_each_level() -> None:
    """A chat's wanted turn is granted by a call (no task waits): questions first, then
    private messages, then groups (every fourth turn theirs while they wait); a question
    posted to a waiting chat hurries it."""
    pace = Pace(per_s=200.0, burst=1)
    got: list[int] = []
    done = asyncio.Event()

    def granted(chat_id: int) -> None:
        got.append(chat_id)
        if len(got) == 9:
            done.set()

    pace.granted = granted
    for chat_id in (1, 2, 3, 4):
        pace.want(chat_id, PRIVATE)
    for chat_id in (-1, -2):
        pace.want(chat_id, GROUP)
    pace.want(5, QUESTION)
    pace.want(6, PRIVATE)
    pace.want(3, PRIVATE)  # wanted already: one turn
    pace.hurry(4)  # a question posted to chat 4 meanwhile
    pace.want(7, PRIVATE)
    assert pace.wants(4) == QUESTION and pace.wants(8) is None
    await asyncio.wait_for(done.wait(), 2.0)
    # the first at once (the burst); then the questions; every fourth turn after it a group's
    assert got == [1, 5, 4, 2, -1, 3, 6, 7, -2], got
    assert pace.wants(7) is None and pace._waiting == 0


async def test_a_sender_closed_leaves_no_turn_wanted() -> None:
    bot = FakeBot()
    sender = sender_of(bot, pacing=Pacing(0.0, 0.0, 1.0, burst=1))
    for chat_id in range(1, 6):
        sender.post(Out(chat_id, "hi"))
    await asyncio.sleep(0.01)
    assert sender.pace.wants(5) == PRIVATE
    await sender.close()
    assert sender.pace.wants(5) is None and sender.pace._waiting == 0

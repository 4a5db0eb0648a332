"""bot.pacing.Beat wakes when something can go: while the table's beat is open and the log's
own beat long past, a waiting table and log edit once woke the flush at once again and again
(a busy loop: the bot's CPU ×3.5 in the noisy-neighbour bench)."""

from __future__ import annotations

import asyncio

from bot.outbox import Out, Slot, SlotKind
from bot.pacing import Beat


async def test_a_waiting_table_and_log_wake_once_at_the_beats_end() -> None:
    flushes = [0]

    async def flush(table_id: int) -> None:
        flushes[0] += 1
        beat.take(table_id)

    beat = Beat(0.2, flush)  # the log's beat: 0.6 s
    table, log = Slot(1, SlotKind.TABLE, 0), Slot(1, SlotKind.LOG, 0)

    def out(slot: Slot) -> Out:
        return Out(-5, "x", None, None, slot=slot)

    beat.sort(1, -5, False, [out(log)])  # a new log page: the log's beat starts
    await asyncio.sleep(0.7)  # … and ends
    beat.sort(1, -5, True, [out(table)])  # the table's beat opens
    await asyncio.sleep(0.05)
    beat.sort(1, -5, True, [out(table), out(log)])  # both edits wait for its end
    await asyncio.sleep(0.3)
    assert flushes[0] == 1

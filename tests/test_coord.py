"""What several processes agree on through PostgreSQL (bot.coord), each agreement tested
with two (or three) coordinators on one database, as two processes would hold them."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator

import pytest

from bot.coord import DEAD_S, PgCoord
from bot.model import TableStatus
from bot.offline.pgcluster import PgCluster
from bot.pacing import GROUP, QUESTION, SharedPace
from bot.pg_storage import PostgresStorage
from bot.storage import TableRow, VersionConflict
from bot.timers import Job, StoredTimers, TimerKind


@pytest.fixture
async def two(pg_cluster: PgCluster) -> AsyncIterator[tuple[PgCoord, PgCoord]]:
    url = await pg_cluster.create_database()
    a, b = PostgresStorage(url), PostgresStorage(url)
    await a.open()
    await b.open()
    ca, cb = PgCoord(a), PgCoord(b)
    await ca.start()
    await cb.start()
    try:
        yield ca, cb
    finally:
        for c in (ca, cb):
            await c.stop()
            await c.storage.close()


async def _table(c: PgCoord, chat: int = -1) -> TableRow:
    row = TableRow(None, chat, None, TableStatus.PLAYING, 1, {})
    return await c.storage.create_table(row)


async def _die(c: PgCoord) -> None:
    """The process stops beating, as if killed: its row ages past the dead line."""
    assert c._beat is not None
    c._beat.cancel()
    async with c.storage._unit() as tx:
        await tx.execute(
            "UPDATE procs SET beat_at = ? WHERE proc_id = ?", (time.time() - DEAD_S - 1, c.proc_id)
        )


async def test_a_table_is_held_by_one_process_at_a_time(two: tuple[PgCoord, PgCoord]) -> None:
    a, b = two
    row = await _table(a)
    assert row.table_id is not None
    order: list[str] = []

    async def hold(c: PgCoord, name: str) -> None:
        assert row.table_id is not None
        async with c.table_lock(row.table_id) as stored:
            assert stored == (0, True)  # rev 0, settled
            order.append(f"{name} in")
            await asyncio.sleep(0.1)
            order.append(f"{name} out")

    await asyncio.gather(hold(a, "a"), hold(b, "b"))
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])


async def test_a_stale_writer_is_refused_by_the_rev(two: tuple[PgCoord, PgCoord]) -> None:
    a, b = two
    row = await _table(a)
    await a.storage.save_table(row, expect_rev=0)
    assert row.rev == 1
    stale = TableRow(row.table_id, row.chat_id, None, TableStatus.PLAYING, 1, {"x": 1})
    with pytest.raises(VersionConflict):
        await b.storage.save_table(stale, expect_rev=0)  # b's copy is older than a's save
    await b.storage.save_table(stale, expect_rev=1)
    loaded = await a.storage.load_table(row.table_id or 0)
    assert loaded is not None and loaded.rev == 2 and loaded.state == {"x": 1}


async def test_each_due_timer_fires_once_whoever_claims(two: tuple[PgCoord, PgCoord]) -> None:
    a, b = two
    due = time.time() - 0.01
    await a.put_timers([(f"step:{i}", i, "step", {"v": i}, due) for i in range(40)], [])
    claimed = await asyncio.gather(a.claim_timers(), b.claim_timers(), a.claim_timers())
    names = [t.name for batch in claimed for t in batch]
    assert sorted(names) == sorted(f"step:{i}" for i in range(40))  # each once, none lost
    assert await a.claim_timers() == [] and await b.claim_timers() == []


async def test_a_dead_process_s_timers_fire_in_another(two: tuple[PgCoord, PgCoord]) -> None:
    a, b = two
    await a.put_timers([("step:1", 1, "step", {}, time.time() - 0.01)], [])
    (mine,) = await a.claim_timers()
    assert await b.claim_timers() == []  # a holds it while it runs
    await _die(a)  # … and dies before it is done
    (theirs,) = await b.claim_timers()
    assert theirs.name == mine.name


async def test_a_timer_set_again_while_it_runs_stays(two: tuple[PgCoord, PgCoord]) -> None:
    a, b = two
    await a.put_timers([("step:1", 1, "step", {"v": 1}, time.time() - 0.01)], [])
    (first,) = await a.claim_timers()
    await b.put_timers([("step:1", 1, "step", {"v": 2}, time.time() - 0.01)], [])  # set anew
    await a.timer_done(first.name, first.due_at)  # the old one's end does not delete it
    (second,) = await b.claim_timers()
    assert second.args == {"v": 2}


async def test_stored_timers_run_their_job_in_one_process(two: tuple[PgCoord, PgCoord]) -> None:
    a, b = two
    ran: list[tuple[str, int]] = []
    timers = [StoredTimers(a), StoredTimers(b)]
    for name, t in zip("ab", timers, strict=True):

        async def run(job: Job, name: str = name) -> None:
            ran.append((name, job.table_id))

        t.on(TimerKind.STEP, run)
        t.start()
    for i in range(10):
        timers[i % 2].schedule(f"step:{i}", 0.05, Job(TimerKind.STEP, i))
    timers[0].schedule("step:99", 0.05, Job(TimerKind.STEP, 99))
    timers[0].cancel("step:99")  # cancelled before it was due: never runs
    await timers[0].flush()
    await timers[1].flush()
    await asyncio.sleep(1.0)
    for t in timers:
        await t.close()
    assert sorted(i for _, i in ran) == list(range(10))


async def test_a_timer_set_again_keeps_one_wake_up(two: tuple[PgCoord, PgCoord]) -> None:
    """A turn's timer set anew at every action: one wake-up for it, not one for every time it
    was set, each kept until its old due (memory a table on PostgreSQL)."""
    a, _ = two
    timers = StoredTimers(a)
    for k in range(20):
        timers.schedule("step:1", 3600.0 + k, Job(TimerKind.STEP, 1))
        await timers.flush()
    assert len(timers._wakes) == 1
    timers.cancel("step:1")
    await timers.flush()
    assert not timers._wakes
    await timers.close()


async def test_a_chat_is_delivered_by_one_process_at_a_time(
    two: tuple[PgCoord, PgCoord],
) -> None:
    a, b = two
    lease = await a.lease(-5)
    assert lease is not None and lease.fresh
    assert await b.lease(-5) is None  # a delivers to the chat now
    lease.last_at, lease.shown = 123.0, {"1:table:0": 7}
    await a.release(lease)
    taken = await b.lease(-5)
    assert taken is not None and taken.fresh  # a delivered last: b's memory may be stale
    assert taken.last_at == 123.0 and taken.shown == {"1:table:0": 7}  # the pace and revs
    await b.release(taken)
    again = await b.lease(-5)
    assert again is not None and not again.fresh  # nobody else since
    await _die(b)
    assert await a.lease(-5) is not None  # a dead process's chats are free


async def test_a_dead_process_s_messages_are_adopted_once(two: tuple[PgCoord, PgCoord]) -> None:
    a, b = two
    row = await _table(a)
    await a.storage.save_table(row, outbox=[b"cheer 1", b"cheer 2"])
    assert await b.adopt_outbox() == []  # a is alive: its messages are its own
    await _die(a)
    adopted = await b.adopt_outbox()
    assert [m for _, m in adopted] == [b"cheer 1", b"cheer 2"]
    assert await b.adopt_outbox() == []  # now b's


async def test_a_table_a_dead_process_left_unsettled_is_an_orphan(
    two: tuple[PgCoord, PgCoord],
) -> None:
    a, b = two
    row, settled = await _table(a), await _table(a, chat=-2)
    row.settled = False  # a change stored, its messages and timers not yet
    await a.storage.save_table(row)
    await a.storage.save_table(settled)
    assert await b.orphans() == []  # a is alive: it is settling it
    await _die(a)
    assert await b.orphans() == [row.table_id]
    assert not await b.alive(a.proc_id) and await b.alive(b.proc_id)


async def test_the_budget_of_calls_is_shared(two: tuple[PgCoord, PgCoord]) -> None:
    a, b = two
    turns = sorted(await asyncio.gather(*(c.pace(0.1) for c in (a, b) * 5)))
    gaps = [round(y - x, 3) for x, y in itertools.pairwise(turns)]
    assert all(g >= 0.099 for g in gaps), gaps  # ten turns, a tenth of a second apart


async def test_a_paused_process_never_sends_after_its_lease_moved(
    two: tuple[PgCoord, PgCoord],
) -> None:
    """Issue 33, attack 8: a holds the chat's delivery and pauses past its lease; b takes the
    chat (a new generation, the fencing token). a, awake again, is refused where it would
    claim its next stored message: it sends nothing; b claims and sends it."""
    a, b = two
    row = await _table(a, chat=-7)
    (oid,) = await a.storage.save_table(row, outbox=[b"cheer"])
    held = await a.lease(-7)
    assert held is not None
    assert await a.fence(held, oid) == (True, True)  # a's to send while it holds the lease
    await _die(a)  # paused: no beat for longer than the lease lasts
    taken = await b.lease(-7)
    assert taken is not None and taken.generation > held.generation
    assert await a.fence(held, oid) == (False, False)  # fenced off: a sends nothing
    assert await a.fence(held, None) == (False, False)  # nor an unstored answer
    assert await b.fence(taken, oid) == (True, True)
    await b.storage.message_delivered(oid)
    assert await b.fence(taken, oid) == (True, False)  # delivered: nothing left to send


async def test_a_process_takes_the_turns_wanted_meanwhile_together(
    two: tuple[PgCoord, PgCoord],
) -> None:
    """The budget's turns wanted at once in a process are taken in one statement (never one a
    call), and all processes' turns still come one interval apart."""
    statements: dict[str, list[int]] = {"a": [], "b": []}
    granted: list[float] = []

    def counting(c: PgCoord, name: str) -> None:
        take = c.pace

        async def counted(interval: float, turns: int = 1, after: float = 0.0) -> float:
            statements[name].append(turns)
            first = await take(interval, turns, after)
            granted.extend(first + i * interval for i in range(turns))
            return first

        c.pace = counted  # type: ignore[method-assign]

    for c, name in zip(two, "ab", strict=True):
        counting(c, name)
    pa, pb = (SharedPace(c, 10.0, burst=0) for c in two)
    await asyncio.gather(*(p.turn() for p in (pa, pb) * 5))
    for turns in statements.values():
        assert sum(turns) == 5 and len(turns) <= 2, statements
    gaps = [round(y - x, 3) for x, y in itertools.pairwise(sorted(granted))]
    assert all(g >= 0.099 for g in gaps), gaps  # ten turns, a tenth of a second apart


async def test_a_question_goes_first_in_the_shared_budget_too(
    two: tuple[PgCoord, PgCoord],
) -> None:
    """Issue 35: with several processes, a process's question takes its next turn in the
    shared budget, before the tables' edits asked earlier."""
    pace = SharedPace(two[0], 20.0, burst=0)
    order: list[str] = []

    async def one(name: str, at: int) -> None:
        await pace.turn(at)
        order.append(name)

    asked = [(f"edit {k}", GROUP) for k in range(12)] + [("question", QUESTION)]
    await asyncio.gather(*(one(n, at) for n, at in asked))
    assert order.index("question") <= 1, order

"""The service's named timers (bot/timers.py): a name replaces its earlier timer, a cancelled
timer never runs, a failing job is logged and harms nothing, closing lets running jobs end."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest

from bot.timers import LoopTimers


async def test_a_name_runs_its_newest_job_once_and_cancel_stops_it() -> None:
    timers = LoopTimers()
    ran: list[str] = []

    def job(tag: str) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            ran.append(tag)

        return run

    timers.schedule("step:1", 0.05, job("old"))
    timers.schedule("step:1", 0.01, job("new"))  # replaces the first
    timers.schedule("remind:1", 0.01, job("remind"))
    timers.schedule("step:2", 0.01, job("other"))
    timers.cancel("step:2")
    timers.cancel("never:scheduled")  # harmless
    assert timers.pending() == ["remind:1", "step:1"]
    await asyncio.sleep(0.12)
    assert sorted(ran) == ["new", "remind"]
    assert timers.pending() == []


async def test_a_failing_job_is_logged_and_the_others_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    timers = LoopTimers()
    ran: list[int] = []

    async def boom() -> None:
        raise RuntimeError("the job failed")

    async def fine() -> None:
        ran.append(1)

    timers.schedule("a", 0.0, boom)
    timers.schedule("b", 0.0, fine)
    with caplog.at_level(logging.ERROR, logger="gouji.timers"):
        await asyncio.sleep(0.05)
    assert ran == [1]
    assert any("timer a failed" in r.getMessage() for r in caplog.records)


async def test_close_waits_for_running_jobs_and_drops_pending_ones() -> None:
    timers = LoopTimers()
    events: list[str] = []
    started = asyncio.Event()

    async def slow() -> None:
        started.set()
        await asyncio.sleep(0.05)
        events.append("slow ended")

    async def later() -> None:
        events.append("later ran")

    timers.schedule("slow", 0.0, slow)
    timers.schedule("later", 0.5, later)
    await started.wait()
    timers.cancel("slow")  # already running: goes on to its end
    await timers.close()
    assert events == ["slow ended"]
    timers.schedule("after", 0.0, later)  # closed: nothing is scheduled any more
    assert timers.pending() == []
    await asyncio.sleep(0.6)
    assert events == ["slow ended"]


async def test_a_background_job_is_cancelled_by_close_and_leaves_no_name_behind() -> None:
    timers = LoopTimers()
    events: list[str] = []
    started = asyncio.Event()

    async def quick() -> None:
        events.append("quick ran")

    async def review() -> None:
        started.set()
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            events.append("review cancelled")
            raise

    for game in range(3):  # each game's 复盘, done: no name of theirs stays
        timers.schedule(f"review:{game}", 0.0, quick, background=True)
    timers.schedule("review:9", 5.0, quick, background=True)
    timers.cancel("review:9")
    await asyncio.sleep(0.05)
    assert events == ["quick ran"] * 3
    assert not timers._background and not timers._cancellable
    timers.schedule("review:3", 0.0, review, background=True)
    await started.wait()
    await timers.close()  # a running background job is cancelled, not waited for
    assert events[-1] == "review cancelled"
    assert not timers._cancellable

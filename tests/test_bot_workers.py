"""Worker processes draw the pictures and run the hard AI: the same results as in the bot's own
process, a dead worker replaced without losing the job, no worker left behind by a SIGKILLed
bot."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

from bot.environment import Environment
from bot.workers import Workers
from engine.ai import decide
from engine.match import Match
from engine.rules import STANDARD
from renderers import render_hand
from renderers.png import render_table
from renderers.samples import SAMPLE_HAND, SAMPLE_NAMES, sample_view


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_pictures_and_decisions_in_a_worker_equal_the_direct_ones() -> None:
    workers = Workers(1)
    workers.start()
    try:
        table = partial(render_table, sample_view(), SAMPLE_NAMES, "en")
        assert await workers.run(table) == table()
        assert await workers.run(partial(render_hand, SAMPLE_HAND)) == render_hand(SAMPLE_HAND)
        m = Match(STANDARD, seed=5)
        m.new_game()
        for _ in range(12):
            ask = m.asked()
            assert ask is not None
            m.apply(decide(m, ask[0], "normal", random.Random(1)).action)
        ask = m.asked()
        assert ask is not None
        here = decide(m, ask[0], "hard", random.Random(7), 50.0, samples=8)
        there = await workers.run(
            partial(decide, samples=8), m, ask[0], "hard", random.Random(7), 50.0
        )
        assert there.action == here.action and there.reason == here.reason
    finally:
        workers.close()


async def test_a_killed_worker_is_replaced_and_its_job_still_done() -> None:
    workers = Workers(1)
    workers.start()
    try:
        pid = await workers.run(os.getpid)
        assert pid != os.getpid()
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
        job = partial(render_hand, "BS2")
        assert await workers.run(job) == job()  # the broken pool's job, done in a thread
        new_pid = await workers.run(os.getpid)  # and a new worker serves the next one
        assert new_pid not in (pid, os.getpid())
    finally:
        workers.close()


def test_workers_leave_when_the_bot_is_killed() -> None:
    script = (
        "import os, time\n"
        "from bot.workers import Workers\n"
        "w = Workers(2); w.start()\n"
        "assert w._pool is not None\n"
        "print(*sorted({w._pool.submit(os.getpid).result() for _ in range(20)}), flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )  # its resource tracker warns, rightly, of the semaphores the SIGKILL left
    try:
        assert proc.stdout is not None
        kids = [int(pid) for pid in proc.stdout.readline().split()]
        assert kids and all(_alive(k) for k in kids)
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    end = time.monotonic() + 10.0
    while any(_alive(k) for k in kids) and time.monotonic() < end:
        time.sleep(0.1)
    assert not any(_alive(k) for k in kids)  # each noticed its parent was gone


def test_the_worker_count_comes_from_the_environment() -> None:
    assert Environment.from_env({}).processes == 2
    assert Environment.from_env({"GOUJI_WORKERS": "0"}).processes == 0
    assert Environment.from_env({"GOUJI_WORKERS": "3"}).processes == 3
    assert Environment.from_env({"GOUJI_WORKERS": "many"}).processes == 2

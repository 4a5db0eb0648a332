"""What one table holds stays small (issue 35: 100 KB a table, the bot's process and its heap
together): a match in play, its game and the bot's small records are compact objects, and the
process's shared tables of plays and answers are kept to a working size."""

from __future__ import annotations

import asyncio
import random
import sys
import types

import pytest

from bot.locks import LeanLock
from bot.memreport import deep_size
from bot.model import ChatSettings, Seat, TableState
from bot.outbox import Out, Slot, SlotKind
from engine import legal, plays
from engine.match import Match
from engine.playout import random_action
from engine.rules import STANDARD


def _play(match: Match, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        ask = match.asked()
        if ask is None:
            return
        if match.game is None:
            match.apply(rng.choice(match.choices(ask[0]).options))
        else:
            match.apply(random_action(match.game, rng))


def _shared() -> set[int]:
    """What every table shares (modules' objects): never counted, as bot.memreport."""
    seen: set[int] = set()
    modules = [m.__dict__ for m in list(sys.modules.values()) if type(m) is types.ModuleType]
    deep_size([v for d in modules for v in d.values()], seen)
    return seen


def test_a_match_in_play_is_small() -> None:
    matches = []
    for k in range(12):
        m = Match(STANDARD, seed=100 + k)
        m.new_game()
        _play(m, random.Random(k), 12)
        matches.append(m)
    shared = _shared()
    sizes = [deep_size([m], set(shared)) for m in matches]
    # 9.3 KB before issue 35's work (a generator kept, a deque, the deal's copy of the hands)
    assert sum(sizes) / len(sizes) < 8000


def test_a_game_stays_a_compact_object() -> None:
    """CPython keeps at most 29 attributes of an object without a dict of its own (a 30th
    costs a game 1.3 KB): a game in play, to its end, stays under that."""
    for seed in range(6):
        m = Match(STANDARD, seed=seed)
        m.new_game()
        _play(m, random.Random(seed), 5000)
        assert m.game is not None and m.game.over
        assert len(vars(m.game)) < 30


def test_a_seeded_match_keeps_no_generator() -> None:
    m = Match(STANDARD, seed=9)
    m.new_game()
    assert not [v for v in vars(m).values() if isinstance(v, random.Random)]
    first = m.log[0]
    again = Match(STANDARD, seed=9)
    again.new_game()
    assert again.log[0] == first  # the same deals all the same


def test_small_records_have_no_dict() -> None:
    slot = Slot(1, SlotKind.HAND, 2)
    for obj in (slot, Out(1, "x", slot=slot), Seat("甲"), TableState(), ChatSettings()):
        assert not hasattr(obj, "__dict__"), type(obj).__name__


def test_the_shared_tables_are_kept_to_a_working_size() -> None:
    answers, interned = legal._ANSWERS_LIMIT, plays._INTERN_LIMIT
    try:
        legal.limit_caches(answers=64, plays=128)
        m = Match(STANDARD, seed=4)
        m.new_game()
        _play(m, random.Random(4), 5000)
        assert len(legal._ANSWERS) <= 64 and len(plays._INTERNED) <= 128
    finally:
        legal.limit_caches(answers=answers, plays=interned)


async def test_a_lock_keeps_no_waiters_once_nobody_waits() -> None:
    lock = LeanLock()
    order: list[int] = []
    seen: list[int] = []

    async def hold(k: int) -> None:
        async with lock:
            order.append(k)
            seen.append(lock.waiting)
            await asyncio.sleep(0.001)

    await asyncio.gather(*(hold(k) for k in range(4)))
    assert order == [0, 1, 2, 3] and not lock.locked()
    # the first held it before the others came; each next one saw those still waiting
    assert seen[1:] == [2, 1, 0] and lock.waiting == 0
    assert lock._queue is None  # asyncio.Lock keeps a 624-byte deque for good
    assert not hasattr(lock, "__dict__")
    async with lock:
        waiting = asyncio.create_task(lock.acquire())
        await asyncio.sleep(0)
        assert lock.waiting == 1
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        assert lock.waiting == 0
    assert lock._queue is None and not lock.locked()


async def test_a_cancelled_waiter_passes_its_turn_on() -> None:
    """As asyncio.Lock: a waiter woken and cancelled before it ran lets the next one in."""
    lock = LeanLock()
    await lock.acquire()
    first = asyncio.create_task(lock.acquire())
    second = asyncio.create_task(lock.acquire())
    await asyncio.sleep(0)
    assert lock.waiting == 2
    lock.release()  # wakes the first …
    first.cancel()  # … which is cancelled before it runs
    await asyncio.gather(first, return_exceptions=True)
    assert await asyncio.wait_for(second, 1) is True and lock.locked() and lock.waiting == 0
    lock.release()
    with pytest.raises(RuntimeError):
        lock.release()

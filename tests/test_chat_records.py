"""What the bot keeps about each chat leaves memory: for pins and the table's sight (bot.pins)
never a record for a private chat, a table's when its game ends, a chat's once worth nothing;
PTB's record of the chats and users updates came from (for a persistence not used) none."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from botkit import open_and_seat, people, world

from bot.outbox import Slot, SlotKind
from bot.pins import DELETE, RIGHTS_KEPT_S, SIGHT_KEPT_S, SWEEP_EVERY, Pins, act_out, deliver_act


class _Bot:
    id = 1

    def __init__(self) -> None:
        self.done: list[str] = []

    async def delete_message(self, chat_id: int, message_id: int) -> bool:
        self.done.append(f"delete {chat_id} {message_id}")
        return True


async def _call(chat_id: int, make: Callable[[], Awaitable[object]]) -> object:
    return await make()


def _clock(pins: Pins) -> list[float]:
    now = [1000.0]
    pins.clock = lambda: now[0]
    return now


async def test_a_private_chats_deletes_keep_no_record() -> None:
    pins, bot = Pins(), _Bot()
    out = act_out(501, None, Slot(7, SlotKind.HAND, 2), DELETE)
    bot_: Any = bot
    assert await deliver_act(pins, bot_, _call, 42, out)
    assert bot.done == ["delete 501 42"]
    assert pins.chats == {}


def test_a_tables_sight_leaves_with_its_game_and_its_chats_count_with_the_last() -> None:
    pins = Pins()
    for _ in range(3):
        pins.seen(-100)
    pins.sent_anew(1, -100)
    pins.sent_anew(2, -100)  # two tables in topics of one group
    pins.left(1)
    assert 1 not in pins.sight and pins.updates == {-100: 3}
    pins.left(2)
    assert pins.sight == {} and pins.updates == {}


def test_a_sweep_drops_what_is_worth_nothing_and_keeps_the_rest() -> None:
    pins = Pins()
    now = _clock(pins)
    pins.chat(-1).may = True  # asked now: kept
    pins.chat(-2).pinned.add(5)  # a message pinned there: kept
    pins.chat(-3)  # asked long ago (never): dropped
    pins.sent_anew(9, -4)  # a table in sight: its chat's count kept
    pins.seen(-4)
    pins.seen(-5)  # a group with no table in sight: dropped
    pins.chats[-1].asked = now[0]
    pins.sweep()
    assert set(pins.chats) == {-1, -2} and set(pins.updates) == {-4}
    now[0] += max(RIGHTS_KEPT_S, SIGHT_KEPT_S)  # an hour later, nothing sent anew
    pins.sweep()
    assert set(pins.chats) == {-2} and pins.sight == {} and pins.updates == {}


def test_records_made_sweep_now_and_then() -> None:
    pins = Pins()
    now = _clock(pins)
    for chat in range(SWEEP_EVERY - 1):
        pins.chat(-10 - chat)
    now[0] += RIGHTS_KEPT_S
    pins.chat(-1)  # the SWEEP_EVERY-th: the stale ones go first
    assert set(pins.chats) == {-1}


@pytest.mark.e2e
async def test_ptb_keeps_no_record_of_the_chats_updates_came_from(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1003, "牌友群", admins=[w.api.bot_id])
        await open_and_seat(w, group, people(w, 2))
        await w.settle()
        assert not w.app._chat_ids_to_be_updated_in_persistence
        assert not w.app._user_ids_to_be_updated_in_persistence

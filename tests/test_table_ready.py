"""再来一局 opens a short ready check (issue 34 §7): each seated person taps ✅, or after the
countdown whoever did not plays in 托管; the check survives a restart. Through the local Bot API
server, from the group's view and each seat's."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from botkit import World, button_data, open_and_seat, over, people, start, world

from bot.buttons import LobbyOp, OverOp
from bot.model import TableStatus
from bot.offline.localapi import SentMessage, SimGroup, SimUser
from bot.offline.localbot import runtime
from bot.offline.simplayers import SimPlayer, play_until, press_lobby
from bot.ready import READY_S
from bot.timers import Job, TimerKind

pytestmark = pytest.mark.e2e  # the bot end to end, through the local server


async def first_game(w: World, group: SimGroup, users: list[SimUser]) -> None:
    """Two people (seats 1 and 2) and four computer seats play game 1 to its end."""
    await open_and_seat(w, group, users)
    await press_lobby(w.api, group, users[0], LobbyOp.FILL)
    await start(w, group, users[0])
    players = [SimPlayer(w.api, u, random.Random(i), follow=True) for i, u in enumerate(users)]
    await play_until(w.api, players, over(w, group), settle=w.settle)
    await w.settle()


def newest(w: World, group: SimGroup, op: OverOp) -> SentMessage:
    return [m for m in w.api.messages(group.id) if button_data(m, op)][-1]


async def tap(w: World, group: SimGroup, user: SimUser, op: OverOp) -> None:
    m = newest(w, group, op)
    await user.press(m, data=button_data(m, op))
    await w.settle()


def check_message(w: World, group: SimGroup) -> SentMessage:
    (m,) = [m for m in w.api.messages(group.id) if "✅" in m.plain and "⏳" in m.plain[2:]]
    return m


async def test_again_waits_for_everyone_seated(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1001, "牌友群")
        users = people(w, 2)
        await first_game(w, group, users)
        await tap(w, group, users[1], OverOp.AGAIN)
        table = w.table(group)
        # one tap does not start the next game for everyone: a check, each seat shown
        assert table.status == TableStatus.OVER and table.match is not None
        assert table.match.number == 1
        check = check_message(w, group)
        assert "⏳ 老王" in check.plain and "✅ 小李" in check.plain
        assert not check.disable_notification  # the call to come back buzzes, once
        assert button_data(check, OverOp.READY)
        assert str(int(min(READY_S, w.cfg.countdown_s))) in check.plain
        # tapping again changes nothing; a person not seated cannot answer for the table
        await tap(w, group, users[1], OverOp.READY)
        stranger = w.api.user(900, "路人")
        group.join_quietly(stranger)
        await tap(w, group, stranger, OverOp.READY)
        assert w.table(group).status == TableStatus.OVER
        # the second person taps ✅: the next game of the match starts, nobody in 托管
        await tap(w, group, users[0], OverOp.READY)
        table = w.table(group)
        assert table.status == TableStatus.PLAYING and table.match is not None
        assert table.match.number == 2
        assert not any(s is not None and s.auto for s in table.st.seats)
        done = next(m for m in w.api.messages(group.id) if m.message_id == check.message_id)
        assert not done.buttons and "⏳" not in done.plain  # the check closed, its buttons gone
        # each seat's view: both get their new hand
        for u in users:
            assert any("第2局" in m.plain for m in w.api.messages(u.id))


async def test_after_the_countdown_the_absent_play_in_auto(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1002, "牌友群")
        users = people(w, 2)
        await first_game(w, group, users)
        await tap(w, group, users[0], OverOp.AGAIN)
        table = w.table(group)
        assert table.match is not None and table.st.ready == [0]
        # the countdown runs out (its timer, run now)
        ready = w.parts.ready
        await ready._expired(Job(TimerKind.READY, table.id, table.match.version))
        await w.settle()
        table = w.table(group)
        assert table.status == TableStatus.PLAYING
        assert table.match is not None and table.match.number == 2
        seats = table.st.seats
        assert seats[1] is not None and seats[1].auto  # 小李 did not tap: 托管
        assert seats[0] is not None and not seats[0].auto
        closed = [m for m in w.api.messages(group.id) if "托管" in m.plain and "小李" in m.plain]
        assert closed and not closed[-1].buttons
        # 小李's own view: the hand message offers to take the seat back
        hand = [m for m in w.api.messages(users[1].id) if m.photo is not None][-1]
        assert any("取消托管" in b.text for b in hand.buttons)


async def test_the_check_survives_a_restart(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1003, "牌友群")
        users = people(w, 2)
        await first_game(w, group, users)
        await tap(w, group, users[0], OverOp.AGAIN)
        await w.stop_bot()
        await w.start_bot()
        await w.settle()
        table = w.table(group)
        assert table.status == TableStatus.OVER and table.st.ready == [0]
        assert table.st.ready_until is not None
        assert any(n.startswith("ready:") for n in runtime(w.app).timers.pending())
        await tap(w, group, users[1], OverOp.READY)
        table = w.table(group)
        assert table.status == TableStatus.PLAYING and table.match is not None
        assert table.match.number == 2


async def test_alone_with_the_computer_starts_at_once(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1004, "牌友群")
        users = people(w, 1)
        await first_game(w, group, users)
        await tap(w, group, users[0], OverOp.AGAIN)
        table = w.table(group)
        assert table.status == TableStatus.PLAYING and table.match is not None
        assert table.match.number == 2
        assert not any("⏳" in m.plain and "✅" in m.plain for m in w.api.messages(group.id))

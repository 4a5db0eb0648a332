"""The hand keyboard through the local Bot API server: a 够级 lead with 2s and a joker in four
presses, a one-tap answer, a burn that will fail warned about and played on 确认, a chance to
反烧 named so, and 托管 only after its confirmation."""

from __future__ import annotations

from pathlib import Path

import pytest
from botkit import World, dm_prompts, group_texts, open_and_seat, people, start, world

from bot.buttons import HandOp
from bot.offline.localapi import SimGroup, SimUser
from bot.offline.simplayers import button_data
from bot.table import Table
from engine.actions import Action
from engine.game import Game
from engine.vocab import Ask, Do

pytestmark = pytest.mark.e2e


async def dealt(w: World, group: SimGroup, users: list[SimUser], hands: list[str]) -> Table:
    """Six people seated and a game started, then its hands replaced by ``hands`` (seat 0
    leads; no 3s, so 憋3 binds nobody) and every hand message sent anew."""
    await open_and_seat(w, group, users)
    await start(w, group, users[0])
    table = w.table(group)
    match = table.match
    assert match is not None and match.setup is not None
    match.setup.game = Game.from_position(match.rules, hands, 0)
    for seat in range(6):
        w.parts.moves.post_hand(table, seat, new=True)
    w.parts.moves.schedule(table)
    await w.settle()
    return table


async def press(w: World, user: SimUser, op: HandOp, arg: str | int | None = None) -> None:
    msg = [m for m in w.api.messages(user.id) if m.buttons][-1]
    data = button_data(msg, op, arg)
    assert data is not None, (op, arg, [b.text for b in msg.buttons])
    await user.press(msg, data=data)
    await w.settle()


def texts(w: World, user: SimUser) -> list[str]:
    return [b.text for b in dm_prompts(w, user)[-1].buttons]


def last_action(table: Table) -> Action:
    assert table.match is not None and table.match.game is not None
    return table.match.game.log[-1]


async def test_a_gouji_lead_in_four_presses_and_a_one_tap_answer(tmp_path: Path) -> None:
    async with world(tmp_path, seed=21) as w:
        group = w.api.group(-5001, "四下")
        users = people(w, 6, base=900)
        hands = ["KKK22B6655", "7744", "44", "4455", "44", "44"]
        table = await dealt(w, group, users, hands)
        leader = users[0]
        await press(w, leader, HandOp.RANK, "K")  # all three kings
        await press(w, leader, HandOp.EXTRA, "22")  # with two 2s
        await press(w, leader, HandOp.EXTRA, "B1")  # and the big joker
        assert "出 3个K+2个2+大王" in texts(w, leader)  # 出 says what it plays
        await press(w, leader, HandOp.PLAY)
        assert last_action(table) == Action(0, Do.PLAY, "B22KKK")
        # a big joker on top is dead (§3): nobody answers, seat 0 leads again
        assert table.match is not None and table.match.asked() == (0, Ask.LEAD)
        await press(w, leader, HandOp.RANK, "6")
        await press(w, leader, HandOp.PLAY)
        assert table.match.asked() == (1, Ask.ANSWER)
        assert "▶ 2个7" in texts(w, users[1])
        await press(w, users[1], HandOp.QUICK, 0)  # one tap
        assert last_action(table) == Action(1, Do.PLAY, "77")


async def test_a_failing_burn_is_warned_about_and_auto_needs_its_confirmation(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, seed=22) as w:
        group = w.api.group(-5002, "烧")
        users = people(w, 6, base=910)
        hands = ["KK5566", "AA789", "4455", "AA44", "6622", "B224"]
        table = await dealt(w, group, users, hands)
        m = table.match
        assert m is not None
        await press(w, users[0], HandOp.RANK, "K")
        await press(w, users[0], HandOp.PLAY)  # 够级 KK
        assert m.asked() == (4, Ask.BURN)  # a teammate may burn it too (§7)
        await press(w, users[4], HandOp.PASS)
        assert m.asked() == (1, Ask.BURN)
        assert "⚠️烧 2个A" in texts(w, users[1])
        before = m.version
        await press(w, users[1], HandOp.QUICK, 0)
        warning = users[1].answers()[-1]
        assert warning.show_alert and "诈烧" in (warning.text or "")
        assert m.version == before  # nothing played yet
        assert "⚠️ 确认烧 2个A（会被判诈烧）" in texts(w, users[1])
        assert "诈烧" in dm_prompts(w, users[1])[-1].plain  # the reason stays after the popup
        await press(w, users[1], HandOp.CONFIRM)
        assert last_action(table) == Action(1, Do.PLAY, "AA")
        assert m.asked() == (5, Ask.BURN)  # a claim on a burn play: 反烧
        prompt = dm_prompts(w, users[5])[-1]
        assert "反烧" in prompt.plain and "你能烧" not in prompt.plain
        assert "🔥反烧 2个2" in texts(w, users[5])
        # 托管 from a waiting seat: a tap asks, 取消 drops it, 确认托管 hands the seat over
        waiting = users[2]
        seat = w.table(group).st.seats[2]
        assert seat is not None
        await press(w, waiting, HandOp.AUTO)
        assert not seat.auto
        await press(w, waiting, HandOp.CANCEL)
        assert (
            not seat.auto
            and button_data(
                [x for x in w.api.messages(waiting.id) if x.buttons][-1], HandOp.AUTO_YES
            )
            is None
        )
        await press(w, waiting, HandOp.AUTO)
        await press(w, waiting, HandOp.AUTO_YES)
        assert seat.auto
        assert any("托管了" in t for t in group_texts(w, group))

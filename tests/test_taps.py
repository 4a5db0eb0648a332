"""No one-tap accidents (issue 34): a ▶ play that spends 2s or jokers, or splits a 够级 the hand
holds (docs/rules.md §4), is played only on a second tap, 取消 brings the answer back, a
confirmation from a turn gone by does nothing, 2s and jokers led alone have ▶ buttons, and no
two buttons do the same thing."""

from __future__ import annotations

from pathlib import Path

import pytest
from botkit import dm_prompts, people, world
from test_handkeys import keyboard_of, match_at, positions
from test_taps_e2e import dealt, last_action, press, texts

from bot.buttons import Callback, HandOp, Kind
from bot.handkeys import (
    EMPTY_SELECTION,
    Keyboard,
    Situation,
    answer_groups,
    body_of,
    caution,
    hand_keyboard,
    moves,
    one_taps,
    situation,
    tap,
)
from bot.offline.simplayers import button_data
from engine.actions import Action
from engine.cards import Counts, fmt, parse
from engine.match import Match
from engine.vocab import Ask, Do

# -- through the local Bot API server ---------------------------------------------------------


@pytest.mark.e2e
async def test_a_2s_play_waits_for_its_second_tap_and_cancel_brings_the_answer_back(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, seed=31) as w:
        group = w.api.group(-5101, "二")
        users = people(w, 6, base=1000)
        table = await dealt(w, group, users, ["66KKK", "2A5TTTTT", "44", "44", "44", "44"])
        m = table.match
        assert m is not None
        await press(w, users[0], HandOp.RANK, "6")
        await press(w, users[0], HandOp.PLAY)
        me = users[1]
        assert texts(w, me)[:2] == ["▶ 2个10", "▶ A+2"]
        before = m.version
        # two of five 10s: the 够级 5个10 would be split
        await press(w, me, HandOp.QUICK, 0)
        assert m.version == before and "会拆开手里的够级 5个10" in (me.answers()[-1].text or "")
        assert texts(w, me) == ["✖ 取消", "⚠️ 确认出 2个10", "🤖 托管"]  # 取消 where ▶ was
        assert "会拆开手里的够级 5个10" in dm_prompts(w, me)[-1].plain  # the reason stays
        await press(w, me, HandOp.CANCEL)
        assert texts(w, me)[:2] == ["▶ 2个10", "▶ A+2"] and "过" in texts(w, me)
        assert "会拆开" not in dm_prompts(w, me)[-1].plain
        # an ace with a 2: it spends the 2
        await press(w, me, HandOp.QUICK, 1)
        assert m.version == before and "要花掉 2" in (me.answers()[-1].text or "")
        assert texts(w, me)[1] == "⚠️ 确认出 A+2"
        await press(w, me, HandOp.SURE)
        assert last_action(table) == Action(1, Do.PLAY, "2A")


@pytest.mark.e2e
async def test_a_confirmation_from_a_turn_gone_by_does_nothing(tmp_path: Path) -> None:
    async with world(tmp_path, seed=32, turn_s=60.0, manual_clock=True) as w:
        group = w.api.group(-5102, "过期")
        users = people(w, 6, base=1010)
        table = await dealt(w, group, users, ["66KKK", "2A5TTTTT", "44", "44", "44", "44"])
        m = table.match
        assert m is not None and w.clock is not None
        await press(w, users[0], HandOp.RANK, "6")
        await press(w, users[0], HandOp.PLAY)
        me = users[1]
        await press(w, me, HandOp.QUICK, 1)  # ▶ A+2, waiting for its confirmation
        msg = dm_prompts(w, me)[-1]
        sure = button_data(msg, HandOp.SURE)
        assert sure is not None
        # 取消, then the confirmation pressed anyway (a slow client): nothing is played
        await press(w, me, HandOp.CANCEL)
        await me.forge(msg, sure)
        await w.settle()
        assert "过期" in (me.answers()[-1].text or "") and m.asked() == (1, Ask.ANSWER)
        # asked again, and the turn runs out: the timer passes for the seat
        await press(w, me, HandOp.QUICK, 1)
        sure = button_data(dm_prompts(w, me)[-1], HandOp.SURE)
        assert sure is not None
        await w.clock.advance(60.0)
        await w.settle()
        assert last_action(table) == Action(1, Do.PASS)
        version = m.version
        await me.forge(msg, sure)
        await w.settle()
        assert "过期" in (me.answers()[-1].text or "")
        assert m.version == version and last_action(table) == Action(1, Do.PASS)


@pytest.mark.e2e
async def test_2s_and_jokers_led_alone_have_buttons(tmp_path: Path) -> None:
    async with world(tmp_path, seed=33) as w:
        group = w.api.group(-5103, "钱")
        users = people(w, 6, base=1020)
        table = await dealt(w, group, users, ["22B77", "5", "44", "44", "44", "44"])
        m = table.match
        assert m is not None
        leader = users[0]
        assert {"▶ 2个2", "▶ 大王", "▶ 2个2+大王", "7·2张"} <= set(texts(w, leader))
        await press(w, leader, HandOp.QUICK, 1)  # ▶ 大王
        assert texts(w, leader)[1] == "⚠️ 确认出 大王"
        await press(w, leader, HandOp.SURE)
        assert last_action(table) == Action(0, Do.PLAY, "B")
        assert m.asked() == (0, Ask.LEAD)  # nobody beats a big joker here: seat 0 again
        assert "▶ 2个2" in texts(w, leader)
        await press(w, leader, HandOp.QUICK, 0)
        await press(w, leader, HandOp.SURE)
        assert last_action(table) == Action(0, Do.PLAY, "22")


# -- the keyboard, on seeded positions --------------------------------------------------------
def effects(kb: Keyboard, match: Match, seat: int, sel: Counts) -> list[tuple[str, str]]:
    """What each button of the keyboard does: plays cards ("play"), chooses cards ("choose";
    choosing an answer that is the only one of its rank is as good as playing it: 出 is all
    that is left), or something else (托管, 过 …: its op). Left out: a tap that changes nothing
    (a ✅ count already chosen); 出, which plays what was chosen, a ▶ play too when it was
    chosen by hand; 清空, which empties whatever is chosen (a chosen rank's ✅ takes that rank
    back: they meet when one rank alone is chosen)."""
    legal = match.choices(seat)
    hand = parse(match.view(seat).hand or "")
    taps = one_taps(legal, situation(match, seat))
    groups = answer_groups(legal.plays) if not legal.any_lead else {}
    out = []
    for row in kb:
        for b in row:
            cb = Callback.decode(b.data)
            op = HandOp(cb.op)
            if op == HandOp.QUICK:
                out.append(("play", str(taps[cb.index])))
            elif op in (HandOp.RANK, HandOp.COUNT, HandOp.EXTRA):
                after = tap(legal, hand, sel, op, cb.arg)
                if after == sel:
                    continue
                only = len(groups.get(body_of(after), ())) == 1
                out.append(("play" if only else "choose", fmt(after)))
            elif op not in (HandOp.CLEAR, HandOp.PLAY):
                out.append((op.value, cb.arg))
    return out


def test_no_two_buttons_do_the_same_thing() -> None:
    """No two buttons play the same cards, none says the same; choosing may meet (the 🔄 next
    way of making an answer can be what ``+小王`` makes of it: both only choose)."""
    keyboards = 0
    for match, seat in positions(6, 3):
        legal = match.choices(seat)
        hand = parse(match.view(seat).hand or "")
        sels = [EMPTY_SELECTION] + [
            tap(legal, hand, EMPTY_SELECTION, *mv) for mv in moves(legal, hand, EMPTY_SELECTION)
        ]
        for sel in sels:
            kb = keyboard_of(match, seat, sel)
            shown = [b.text for row in kb for b in row]
            assert len(shown) == len(set(shown)), shown
            done = effects(kb, match, seat, sel)
            plays = [x for x in done if x[0] == "play"]
            assert len(plays) == len(set(plays)), (shown, done)
            others = [x for x in done if x[0] not in ("play", "choose")]
            assert len(others) == len(set(others)), (shown, done)
            keyboards += 1
    assert keyboards > 300


def test_the_big_joker_is_one_button_when_it_is_the_only_way() -> None:
    """ "🧯解烧 大王" and a plain "大王" beside it were two buttons for one play."""
    match = match_at(["KK5566", "AA789", "4455", "AA44", "6622", "B224"])
    match.apply(Action(0, Do.PLAY, "KK"))
    match.apply(Action(4, Do.PASS))
    match.apply(Action(1, Do.PLAY, "AA"))  # a burn (§7)
    match.apply(Action(5, Do.PASS))
    assert match.asked() == (4, Ask.ANSWER)  # 解烧 with 2个2, the only way
    kb = keyboard_of(match, 4)
    shown = [b.text for row in kb for b in row]
    assert "🧯解烧 2个2" in shown and "2" not in shown


def test_what_a_slip_would_give_away() -> None:
    assert caution(parse("TTTTT5"), "TT") == ("", "TTTTT")  # the 5个10 split
    assert caution(parse("TTTTTT5"), "T") == ("", "")  # five 10s are left
    assert caution(parse("KK5"), "K") == ("", "KK")
    assert caution(parse("KKK5"), "KK") == ("", "")  # the 够级 itself is played
    assert caution(parse("2A5"), "2A") == ("2", "")
    assert caution(parse("BS22QQQ"), "BQQ") == ("B", "QQQ")


def test_the_confirmation_has_cancel_on_top_and_says_what_it_plays() -> None:
    match = match_at(["66KKK", "2A5TTTTT", "44", "44", "44", "44"])
    match.apply(Action(0, Do.PLAY, "66"))
    legal = match.choices(1)
    hand = parse(match.view(1).hand or "")
    sit = Situation(pending="2A")
    kb = hand_keyboard(1, match.version, legal, hand, EMPTY_SELECTION, False, False, "zh", sit)
    assert [[b.text for b in row] for row in kb] == [["✖ 取消"], ["⚠️ 确认出 A+2"], ["🤖 托管"]]
    assert Callback.decode(kb[1][0].data).op is HandOp.SURE
    assert Callback.decode(kb[1][0].data).kind is Kind.HAND

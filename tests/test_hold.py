"""What a real table would not show (bot/hold.py, bot/table.py): nobody deciding is named in
the deal phase, and the engine's automatic passes and burn windows nobody could use are shown at
a human pace — from the group's view and each player's."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from botkit import World, open_and_seat, people, plain, start, world

from bot.buttons import LobbyOp
from bot.hold import plan
from bot.model import ChatSettings
from bot.offline.clock import ManualTimers
from bot.offline.localapi import SimGroup
from bot.offline.simplayers import press_lobby
from bot.table import Table
from engine.ai import decide
from engine.match import Match
from engine.rules import STANDARD
from engine.vocab import Ask, EventType, Phase
from renderers.table_image import shown_turn


def _clock(w: World) -> ManualTimers:
    assert w.clock is not None
    return w.clock


def _table_caption(w: World, group: SimGroup, table: Table) -> str:
    (msg,) = [m for m in w.api.messages(group.id) if m.message_id == table.st.table_msg]
    return plain(msg.text)


def test_a_hold_shows_each_skipped_seat_in_turn_then_the_real_state() -> None:
    """Over seeded games: every action with automatic passes is held, one step per skipped
    seat in order, each shown as the one to act, not yet passed, the top as it was played."""
    held = windows = 0
    for seed in range(3):
        m = Match(STANDARD, seed=seed)
        m.new_game()
        rng = random.Random(seed)
        while not m.over:
            ask = m.asked()
            assert ask is not None
            before = m.view(None)
            events = m.apply(decide(m, ask[0], "easy", rng).action)
            hold = plan(before, m.view(None), events, lambda seat: 2.0)
            skipped = [e.seat for e in events if e.type == EventType.AUTO_PASS]
            if hold is None:
                assert not skipped or any(e.type == EventType.GAME_OVER for e in events)
                continue
            seats = [s.seat for s in hold.steps if s.seat is not None]
            assert seats == skipped
            windows += hold.steps[0].seat is None
            plays = [e for e in hold.head if e.type == EventType.PLAY]
            for i, step in enumerate(hold.steps):
                hold.step = i
                shown = hold.shown(m.view(None))
                assert shown.to_act == step.seat
                assert shown_turn(shown) == step.seat  # the picture's badge: None for a window
                assert not {s.seat for s in hold.steps[i:]} & set(shown.passed)
                if plays:
                    assert shown.top is not None and shown.top.cards == plays[-1].cards
            held += 1
    assert held > 50 and windows > 0


def test_the_picture_names_nobody_in_the_deal_phase() -> None:
    m = Match(STANDARD, seed=1)
    m.new_game()
    view = m.view(None)
    assert view.phase == Phase.SETUP and view.to_act is not None
    assert shown_turn(view) is None


@pytest.mark.e2e
async def test_the_deal_phase_names_nobody_deciding(tmp_path: Path) -> None:
    """宣点 is asked of each seat in turn: the group and the other player see 发牌中…… and
    no reminder or timeout names the one asked; their own DM is reminded."""
    async with world(tmp_path, seed=5, turn_s=60.0, manual_clock=True) as w:
        group = w.api.group(-5201, "发牌")
        users = people(w, 2, base=920)
        await open_and_seat(w, group, users)
        await press_lobby(w.api, group, users[0], LobbyOp.FILL)
        await start(w, group, users[0])
        table = w.table(group)
        m = table.match
        assert m is not None and m.game is None
        ask = m.asked()
        assert ask is not None and ask[0] == table.seat_of(users[0].id)
        name = table.name(ask[0])
        assert _table_caption(w, group, table).startswith("🃏 发牌中")
        other = [x for x in w.api.messages(users[1].id) if x.photo is not None][-1]
        assert "发牌中" in plain(other.text) and name not in plain(other.text)
        await _clock(w).advance(31.0)  # half time: the reminder
        await w.settle()
        assert any("还剩" in x.plain for x in w.api.messages(users[0].id))
        await _clock(w).advance(30.0)  # the timeout answers for them
        await w.settle()
        assert m.asked() != ask
        said = [
            plain(t)
            for x in w.api.messages(group.id, include_deleted=True)
            for t in [*x.history, x.text]
        ]
        assert not any(
            name in t and ("决定" in t or "轮到" in t or "超时" in t or "还剩" in t) for t in said
        )
        assert not any("还剩" in t for t in said)


@pytest.mark.e2e
async def test_automatic_passes_and_empty_burn_windows_take_a_think_time(tmp_path: Path) -> None:
    """With think-times on (2 s, on the manual clock), a seat that cannot beat is shown as the
    one to act for its think-time before anything moves on, and a 够级 play nobody can burn
    still shows the burn window."""
    async with world(tmp_path, seed=9, turn_s=1.0, pass_think_s=2.0, manual_clock=True) as w:
        group = w.api.group(-5202, "思考")
        (user,) = people(w, 1, base=940)
        await open_and_seat(w, group, [user])
        await press_lobby(w.api, group, user, LobbyOp.FILL)
        await start(w, group, user)  # the player never answers: timeouts, then 托管 (the AI)
        table = w.table(group)
        m = table.match
        assert m is not None
        seen_seat = seen_window = False
        for _ in range(1500):
            await _clock(w).advance(0.5)
            await w.settle()
            hold = table.held()
            if m.over or (seen_seat and seen_window):
                break
            if hold is None or hold.step != 0:
                continue
            version, caption, step = m.version, _table_caption(w, group, table), hold.now
            ask = m.asked()
            assert ask is not None
            if step.seat is not None and not seen_seat:
                # the seat being passed is not told 轮到: it has no buttons and no buzz
                assert "看牌中" in caption and f"轮到 {table.name(step.seat)}" not in caption
                assert ask[0] != step.seat  # the engine passed it and asks someone else
                await _clock(w).advance(1.0)  # within the think-time nothing moves on
                await w.settle()
                assert m.version == version and table.held() is hold and hold.step == 0
                seen_seat = True
            elif step.seat is None and not seen_window:
                assert "等人烧" in caption and ask[1] != Ask.BURN  # nobody could burn
                seen_window = True
        assert seen_seat and seen_window, (m.version, m.over, _clock(w).pending())


@pytest.mark.e2e
async def test_instant_passes_show_no_think_times(tmp_path: Path) -> None:
    """快速过牌 (/settings): the chat's games go at the engine's pace."""
    async with world(tmp_path, seed=9, turn_s=1.0, pass_think_s=2.0, manual_clock=True) as w:
        group = w.api.group(-5203, "快")
        (user,) = people(w, 1, base=960)
        await w.parts.chats.save_chat_settings(group.id, ChatSettings(instant_passes=True))
        await open_and_seat(w, group, [user])
        await press_lobby(w.api, group, user, LobbyOp.FILL)
        await start(w, group, user)
        table = w.table(group)
        m = table.match
        assert m is not None
        for _ in range(40):
            await _clock(w).advance(1.0)
            await w.settle()
            assert table.held() is None
        assert m.version > 60  # many tricks played, passes among them, none held

"""Attacks through the local Bot API server, each asserting that nothing changed: callback data
forged for another chat's table, seats taken without the table's consent, a stranger's deep
link, settings and joins racing a start, a stored table that no longer loads."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from botkit import World, dm_prompts, open_and_seat, people, start, world

from bot.buttons import Callback, HandOp, Kind, LobbyOp, SettingsOp, VoteOp, b36
from bot.model import AiLevel, TableStatus
from bot.offline.localapi import SentMessage, SimGroup, SimUser
from bot.offline.simplayers import button_data, lobby_message, press_lobby

pytestmark = pytest.mark.e2e


def last_answer(user: SimUser) -> str:
    answers = user.answers()
    return answers[-1].text or "" if answers else ""


async def hand_press(w: World, user: SimUser, op: HandOp) -> None:
    msg = [m for m in w.api.messages(user.id) if m.buttons][-1]
    data = button_data(msg, op)
    assert data is not None, op
    await user.press(msg, data=data)
    await w.settle()


async def test_a_lobby_button_forged_in_another_group_changes_nothing(tmp_path: Path) -> None:
    """Attack 1: an admin of their own group forges the victim table's lobby buttons there."""
    async with world(tmp_path) as w:
        victim = w.api.group(-4001, "受害")
        (owner,) = people(w, 1, base=800)
        await owner.send("/start")
        await owner.send("/gouji", victim)
        await w.settle()
        table = w.parts.tables.at(victim.id, None)
        assert table is not None
        (attacker,) = people(w, 1, base=810)
        own = w.api.group(-4002, "自己的", admins=[attacker.id, w.api.bot_id])
        await attacker.send("/help", own)  # a bot message in the attacker's own group
        await w.settle()
        bait = w.api.messages(own.id)[-1]
        before = (table.st.settings, table.status, table.lobby_ver)
        for op in (LobbyOp.PRESET, LobbyOp.LEVEL, LobbyOp.FILL, LobbyOp.GO):
            data = Callback(Kind.LOBBY, table.id, table.lobby_ver, op).encode()
            await attacker.forge(bait, data)
            await w.settle()
            assert "过期" in last_answer(attacker)  # not on the pressed message: stale
        assert (table.st.settings, table.status, table.lobby_ver) == before
        assert await w.parts.tables.storage.get_chat(victim.id) is None  # settings never saved


async def test_a_settings_button_of_another_version_changes_nothing(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        g = w.api.group(-4003, "设置")
        (admin,) = people(w, 1, base=820)
        g.admins.add(admin.id)
        await admin.send("/settings", g)
        await w.settle()
        menu = w.api.messages(g.id)[-1]
        turn = button_data(menu, SettingsOp.TURN)
        assert turn is not None
        await admin.press(menu, data=turn)
        await w.settle()
        changed = await w.parts.chats.chat_settings(g.id)
        assert changed.version == 1
        await admin.forge(menu, turn)  # the old keyboard's button again (a double tap)
        await w.settle()
        assert await w.parts.chats.chat_settings(g.id) == changed
        assert "过期" in last_answer(admin)


async def seat_in_auto(w: World, g: SimGroup, humans: list[SimUser]) -> int:
    """A started game whose last human went to 托管 (their own button); their seat."""
    await open_and_seat(w, g, humans)
    await press_lobby(w.api, g, humans[0], LobbyOp.FILL)
    await start(w, g, humans[0])
    away = humans[-1]
    await hand_press(w, away, HandOp.AUTO)
    await hand_press(w, away, HandOp.AUTO_YES)  # 托管 only once confirmed
    table = w.table(g)
    seat = table.seat_of(away.id)
    assert seat is not None and table.st.seats[seat] is not None
    # the group's notice with its vote and take-over buttons, as the AFK ladder posts it (a
    # press is valid only on the message that carries it)
    w.parts.tables.sender.post(replace(table.afk_out(seat, 0, table.votes_needed(seat)), new=True))
    await w.settle()
    return seat


def afk_notice(w: World, g: SimGroup) -> SentMessage:
    return next(m for m in w.api.messages(g.id) if "连续超时" in m.plain)


async def test_seats_change_hands_only_with_the_tables_consent(tmp_path: Path) -> None:
    """Attacks 2 and 8: a forged take-over, a stranger's take-over, a single vote with three
    players seated, one's own 托管 as a vote, and an old notice's buttons after the player
    came back."""
    async with world(tmp_path, seed=31, turn_s=60.0, manual_clock=True) as w:
        g = w.api.group(-4004, "同意")
        humans = people(w, 3, base=830)
        seat = await seat_in_auto(w, g, humans)
        table = w.table(g)
        s = table.st.seats[seat]
        assert s is not None and s.auto
        # the AFK ladder's notice appears after repeated timeouts; here, forge its buttons
        version = table.st.afk_ver.get(seat, 0)
        take = Callback(Kind.VOTE, table.id, version, VoteOp.TAKE, str(seat)).encode()
        stranger = w.api.user(899, "路人", language_code="zh")
        await stranger.send("/start")
        await w.settle()
        await stranger.forge(dm_prompts(w, humans[0])[-1], take)  # from a DM
        await w.settle()
        assert table.st.seats[seat] is s
        group_msg = afk_notice(w, g)
        await stranger.forge(group_msg, take)  # in the group, but not a member of it
        await w.settle()
        assert table.st.seats[seat] is s and "成员" in last_answer(stranger)
        vote = Callback(Kind.VOTE, table.id, version, VoteOp.AI, str(seat)).encode()
        await humans[2].forge(group_msg, vote)  # the absent player's own vote does not count
        await w.settle()
        assert not table.votes.get(seat)
        await humans[0].forge(group_msg, vote)  # one vote of two others: not enough
        await w.settle()
        assert table.st.seats[seat] is s and table.votes.get(seat) == {humans[0].id}
        # the player comes back: the votes are void, the old button does nothing
        await hand_press(w, humans[2], HandOp.AUTO)
        assert not s.auto and not table.votes.get(seat)
        await humans[1].forge(group_msg, vote)
        await w.settle()
        assert table.st.seats[seat] is s and not table.votes.get(seat)
        assert "过期" in last_answer(humans[1])


async def test_a_seat_voted_to_the_ai_can_be_reclaimed(tmp_path: Path) -> None:
    async with world(tmp_path, seed=32, turn_s=60.0, manual_clock=True) as w:
        g = w.api.group(-4005, "回来")
        humans = people(w, 2, base=840)
        seat = await seat_in_auto(w, g, humans)
        table = w.table(g)
        vote = Callback(Kind.VOTE, table.id, 0, VoteOp.AI, str(seat)).encode()
        await humans[0].forge(afk_notice(w, g), vote)  # one other player: one vote
        await w.settle()
        s = table.st.seats[seat]
        assert s is not None and s.user is None and s.away == humans[1].id
        await humans[1].send("/start")  # back in their DM: the seat is theirs again
        await w.settle()
        s = table.st.seats[seat]
        assert s is not None and s.user == humans[1].id
        assert any("回来了" in m.plain for m in w.api.messages(g.id))


async def test_a_strangers_deep_link_seats_nobody(tmp_path: Path) -> None:
    """Attack 9: a non-member sends ``/start j<table>s<n>`` for a foreign group's lobby."""
    async with world(tmp_path) as w:
        g = w.api.group(-4006, "门口")
        (owner,) = people(w, 1, base=850)
        await owner.send("/start")
        await owner.send("/gouji", g)
        await w.settle()
        table = w.table(g)
        stranger = w.api.user(898, "陌生人", language_code="zh")
        await stranger.send(f"/start j{b36(table.id)}s3")
        await stranger.send("/start j1s3")
        await w.settle()
        assert table.seat_of(stranger.id) is None
        assert any("成员" in m.plain for m in w.api.messages(stranger.id))


async def test_joins_and_settings_racing_a_start_never_touch_the_running_match(
    tmp_path: Path,
) -> None:
    """Attacks 3 and 4: /join and a settings change sent while the game starts."""
    async with world(tmp_path) as w:
        for k in range(4):
            g = w.api.group(-4100 - k, f"抢{k}")
            owner, late = people(w, 2, base=860 + 10 * k)
            g.admins.add(owner.id)
            await late.send("/start")
            await owner.send("/start")
            await owner.send("/gouji", g)
            await owner.send("/settings", g)
            await w.settle()
            menu = next(m for m in w.api.messages(g.id) if button_data(m, SettingsOp.LEVEL))
            level = button_data(menu, SettingsOp.LEVEL)
            go = button_data(lobby_message(w.api, g), LobbyOp.GO)
            assert level is not None and go is not None
            await asyncio.gather(
                owner.press(lobby_message(w.api, g), data=go),
                late.send("/join", g),
                owner.press(menu, data=level),
            )
            await w.settle()
            table = w.table(g)
            assert table.status == TableStatus.PLAYING and table.match is not None
            assert table.st.settings.rules() == table.match.rules  # the match's own rules
            mine = table.seat_of(late.id)
            if mine is not None:  # seated before the deal: a player with a hand, never an AI's
                assert dm_prompts(w, late)
            ai = [s for s in table.st.seats if s is not None and not s.human]
            assert all(s.level == AiLevel.NORMAL for s in ai) or all(
                s.level == AiLevel.HARD for s in ai
            )
        await w.stop_bot()
        await w.start_bot()  # every table restores: none of them was left inconsistent
        await w.settle()
        for k in range(4):
            assert w.parts.tables.at(-4100 - k, None) is not None


async def test_a_table_that_does_not_restore_is_set_aside_and_the_chat_goes_on(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, seed=33) as w:
        g = w.api.group(-4200, "坏档")
        users = people(w, 1, base=880)
        await open_and_seat(w, g, users)
        await press_lobby(w.api, g, users[0], LobbyOp.FILL)
        await start(w, g, users[0])
        table = w.table(g)
        await w.stop_bot()
        with sqlite3.connect(w.db) as db:  # the stored actions no longer replay
            db.execute("UPDATE actions SET action = '9 play 33333' WHERE table_id = ?", (table.id,))
        await w.start_bot()
        await w.settle()
        assert w.parts.tables.at(g.id, None) is None
        told = [m for m in w.api.messages(g.id) if "封存" in m.plain]
        assert len(told) == 1
        await users[0].send("/gouji", g)  # a new table opens
        await w.settle()
        assert w.parts.tables.at(g.id, None) is not None
        await w.stop_bot()
        await w.start_bot()
        await w.settle()
        assert len([m for m in w.api.messages(g.id) if "封存" in m.plain]) == 1  # told once


async def test_a_flood_of_presses_and_commands_costs_the_group_nothing(tmp_path: Path) -> None:
    """Attack 7: one member presses the lobby's rules button 30 times and sends /help 30 times:
    a few answers reach the group, the rest are toasts or nothing; the lobby still works."""
    async with world(tmp_path, people_rates=True) as w:
        g = w.api.group(-4300, "刷屏")
        owner, flooder = people(w, 2, base=900)
        await open_and_seat(w, g, [owner])
        g.join_quietly(flooder)
        lobby = lobby_message(w.api, g)
        rules = button_data(lobby, LobbyOp.RULES)
        assert rules is not None
        before = len(w.api.messages(g.id))
        for _ in range(30):
            await flooder.forge(lobby, rules)
            await flooder.send("/help", g)
        await w.settle()
        said = len(w.api.messages(g.id)) - before
        assert said <= 12, said  # the burst of the budget, not 60
        assert any("太快" in (a.text or "") for a in flooder.answers())
        await press_lobby(w.api, g, owner, LobbyOp.FILL)  # the others are not held up
        assert "🤖" in lobby_message(w.api, g).plain


async def test_posts_as_a_chat_are_not_people_and_anonymous_admins_are_admins(
    tmp_path: Path,
) -> None:
    """Attack 12: every post "as the channel" shares one sender; an anonymous admin is one."""
    async with world(tmp_path) as w:
        g = w.api.group(-4400, "身份")
        (owner,) = people(w, 1, base=950)
        await owner.send("/start")
        await owner.send("/gouji", g)
        await w.settle()
        table = w.table(g)
        await g.send_as_chat("/gouji", channel=True)
        await g.send_as_chat("/join")
        await w.settle()
        assert any("自己的身份" in m.plain for m in w.api.messages(g.id))  # said (once: coalesced)
        assert table.humans() == [(0, table.st.seats[0])]  # nobody new sat down
        await g.send_as_chat("/stop", channel=True)  # a channel is not the opener, nor an admin
        await w.settle()
        assert w.parts.tables.at(g.id, None) is table
        await g.send_as_chat("/stop")  # an anonymous admin may stop it
        await w.settle()
        assert w.parts.tables.at(g.id, None) is None


async def test_a_press_on_a_message_too_old_to_see_changes_nothing(tmp_path: Path) -> None:
    """Telegram sends a press on a message older than 48 h as an InaccessibleMessage."""
    async with world(tmp_path) as w:
        g = w.api.group(-4500, "旧消息")
        owner, other = people(w, 2, base=960)
        await owner.send("/start")
        await other.send("/start")
        await owner.send("/gouji", g)
        await w.settle()
        g.join_quietly(other)
        table = w.table(g)
        lobby = lobby_message(w.api, g)
        sit = button_data(lobby, LobbyOp.SIT, 3)
        assert sit is not None
        lobby.age(49)
        await other.press(lobby, data=sit)
        await w.settle()
        assert table.seat_of(other.id) is None
        assert "过期" in last_answer(other)

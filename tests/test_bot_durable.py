"""Games survive absent players, lost private chats, flood limits and hostile input; hands and
the token never leak (the real bot on the local Bot API server)."""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botkit import (
    World,
    group_texts,
    hand_lines,
    lobby_message,
    open_and_seat,
    over,
    people,
    plain,
    play_game,
    start,
    world,
)

from bot.buttons import LobbyOp, VoteOp, b36
from bot.offline.localapi import RateLimits, SimGroup
from bot.offline.simplayers import SimPlayer, button_data, play_until, press_lobby
from bot.tables import UserInfo
from engine.events import Event
from engine.match import Match
from renderers import Transcript

pytestmark = pytest.mark.e2e  # the bot end to end, through the local server


async def until_timed_out(
    w: World, players: list[SimPlayer], seat: int, done: Callable[[], bool], group: SimGroup
) -> None:
    """The others play; whenever the absent ``seat`` is asked, its turn timer runs out on the
    manual clock (the reminder at half time first), until ``done()``."""
    clock = w.clock
    assert clock is not None
    table = w.table(group)
    turn = w.cfg.turn_s
    assert turn is not None

    def away_asked() -> bool:
        ask = table.match.asked() if table.match else None
        return ask is not None and ask[0] == seat

    for _ in range(20):
        await play_until(
            w.api, players, lambda: done() or away_asked() or over(w, group)(), settle=w.settle
        )
        if done() or over(w, group)():
            return
        assert clock.due_in(f"step:{table.id}") == turn  # the turn timer is set, and waits
        await clock.advance(turn / 2)  # the reminder
        await w.settle()
        await clock.advance(turn / 2)  # the timer's default action
        await w.settle()
    raise AssertionError("the absent player was never timed out")


async def test_afk_ladder_reminds_times_out_hands_to_ai_then_votes(tmp_path: Path) -> None:
    """An absent player: a reminder (DM and group) → the timer's default action → 托管 after
    two timeouts → the others vote the seat to the AI for the rest of the game."""
    async with world(tmp_path, seed=12, turn_s=60.0, manual_clock=True) as w:
        group = w.api.group(-2001, "g")
        a, away, c = people(w, 3)
        await open_and_seat(w, group, [a, away, c])
        await press_lobby(w.api, group, a, LobbyOp.FILL)
        await start(w, group, a)
        table = w.table(group)
        seat = table.seat_of(away.id)
        assert seat is not None
        players = [SimPlayer(w.api, u, random.Random(i)) for i, u in enumerate((a, c))]

        def afk_notice() -> bool:
            return any("连续超时" in m.plain for m in w.api.messages(group.id))

        await until_timed_out(w, players, seat, afk_notice, group)
        assert afk_notice()
        s = table.st.seats[seat]
        assert s is not None and s.auto  # 托管 now
        texts = group_texts(w, group)
        assert any("超时" in t for t in texts)  # the timer's action was said
        assert any("还剩" in m.plain for m in w.api.messages(away.id))  # the DM reminder
        notice = next(m for m in w.api.messages(group.id) if "连续超时" in m.plain)
        vote = button_data(notice, VoteOp.AI)
        assert vote is not None
        await a.press(notice, data=vote)
        await w.settle()
        s = table.st.seats[seat]
        assert s is not None and s.user == away.id  # one vote of two others is not enough
        assert "1/2" in "".join(b.text for b in notice.buttons)  # the notice counts it
        await c.press(notice, data=button_data(notice, VoteOp.AI))
        await w.settle()
        s = table.st.seats[seat]
        assert s is not None and s.user is None  # the AI plays it to the end
        assert any("电脑打完" in m.plain for m in w.api.messages(group.id))
        await play_game(w, group, [a, c], seed=12)
        assert over(w, group)()


async def test_a_member_takes_over_an_absent_players_seat(tmp_path: Path) -> None:
    async with world(tmp_path, seed=13, turn_s=60.0, manual_clock=True) as w:
        group = w.api.group(-2002, "g")
        a, away = people(w, 2)
        helper = w.api.user(777, "热心人", language_code="zh")
        await helper.send("/start")
        await group.add_member(helper)  # a member of the group, who does not play
        await open_and_seat(w, group, [a, away])
        await press_lobby(w.api, group, a, LobbyOp.FILL)
        await start(w, group, a)
        table = w.table(group)
        players = [SimPlayer(w.api, a, random.Random(1))]
        seat = table.seat_of(away.id)
        assert seat is not None

        def notice() -> bool:
            return any("连续超时" in m.plain for m in w.api.messages(group.id))

        await until_timed_out(w, players, seat, notice, group)
        msg = next(m for m in w.api.messages(group.id) if "连续超时" in m.plain)
        take = button_data(msg, VoteOp.TAKE)
        assert take is not None
        await helper.press(msg, data=take)
        await w.settle()
        seat = table.seat_of(helper.id)
        assert seat is not None and table.seat_of(away.id) is None
        assert any("接手" in m.plain for m in w.api.messages(group.id))
        assert [m for m in w.api.messages(helper.id) if m.photo]  # the hand, by DM
        await play_game(w, group, [a, helper], seed=13)
        assert over(w, group)()


async def test_a_player_who_blocks_the_bot_is_covered_and_comes_back(tmp_path: Path) -> None:
    async with world(tmp_path, seed=14) as w:
        group = w.api.group(-2003, "g")
        users = people(w)
        await open_and_seat(w, group, users)
        await start(w, group, users[0])
        table = w.table(group)
        gone = users[2]
        gone.block()
        others = [
            SimPlayer(w.api, u, random.Random(i)) for i, u in enumerate(users) if u is not gone
        ]

        def told() -> bool:
            return any("发不出去" in m.plain for m in w.api.messages(group.id))

        await play_until(w.api, others, lambda: told() or over(w, group)(), settle=w.settle)
        assert told()
        seat = table.seat_of(gone.id)
        assert seat is not None
        s = table.st.seats[seat]
        assert s is not None and s.auto
        link = next(m for m in w.api.messages(group.id) if "发不出去" in m.plain)
        found = re.search(r"https://t\.me/\S+", link.plain)
        assert found is not None
        url = found.group(0)
        gone.unblock()
        await gone.open_link(url)
        await w.settle()
        assert not s.auto  # back: prompts resume in the DM
        assert any("回来了" in m.plain for m in w.api.messages(group.id))
        await play_game(w, group, users, seed=14)
        assert over(w, group)()


def cheers_of(match: Match, names: list[str]) -> list[str]:
    events: list[Event] = []
    Match.restore(match.record(), events)
    tr = Transcript(names, "zh")
    tr.feed(events)
    return [plain(c) for c in tr.cheers()]


async def test_floods_are_waited_out_and_nothing_is_lost_or_reordered(tmp_path: Path) -> None:
    """The bot's own pacing off and the server's limits tight: 429s happen, the bot waits them
    out, and every announcement arrives, in order."""
    limits = RateLimits(per_chat_per_s=4.0, per_chat_burst=2, global_per_s=60.0, retry_after=1)
    async with world(tmp_path, seed=15, rate=limits, floods=True) as w:
        group = w.api.group(-2004, "g")
        users = people(w, 3)
        await open_and_seat(w, group, users)
        await press_lobby(w.api, group, users[0], LobbyOp.FILL)
        await start(w, group, users[0])
        await play_game(w, group, users, seed=15)
        assert w.api.stats()["rate_limited"] > 0
        table = w.table(group)
        assert table.match is not None
        expected = cheers_of(table.match, table.names())
        slots = {table.st.table_msg, table.st.lobby_msg, *table.st.log_msgs.values()}
        said = [
            m.plain
            for m in w.api.messages(group.id)
            if m.message_id not in slots and not m.reply_markup and m.plain in expected
        ]
        assert said == expected  # every cheer, in the order it happened


@pytest.mark.parametrize("preset", ["standard", "qingdao", "casual"])
async def test_no_hand_or_token_in_the_group_or_the_logs(
    tmp_path: Path, preset: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Whole games under each preset (burning included), with server failures thrown in: no
    group message and no log line shows a hand; no log line shows the token."""
    caplog.set_level(logging.DEBUG)
    async with world(tmp_path, seed=16) as w:
        group = w.api.group(-2005, "g")
        users = people(w)
        await open_and_seat(w, group, users)
        for _ in range(3):
            if preset in lobby_message(w.api, group).plain or _preset_shown(w, group, preset):
                break
            await press_lobby(w.api, group, users[0], LobbyOp.PRESET)
        await start(w, group, users[0])
        w.api.fail_next("editMessageCaption", 502, times=2)
        w.api.fail_next("sendMessage", 500, times=1)
        players = await play_game(w, group, users, seed=16)
        assert sum(p.presses for p in players) > 30
        table = w.table(group)
        assert table.match is not None and table.match.rules.preset == preset
        hands = hand_lines(w, group)
        texts = group_texts(w, group)
        logged = [r.getMessage() + (r.exc_text or "") for r in caplog.records]
        secret = w.api.token.split(":", 1)[1]
        assert logged
        for line in logged:
            assert w.api.token not in line and secret not in line
        for h in hands:
            assert not any(h in t for t in texts)
            leaks = [line for line in logged if h in line]
            assert not leaks, leaks[0][:300]


def _preset_shown(w: object, group: SimGroup, preset: str) -> bool:
    from renderers import t

    api = w.api  # type: ignore[attr-defined]
    label = t("zh", f"bot.preset.{preset}")
    lobby = lobby_message(api, group)
    data = button_data(lobby, LobbyOp.PRESET)
    return any(label in b.text for b in lobby.buttons if b.callback_data == data)


OPS = ["p", "x", "q0", "rA", "tK", "o1", "G", "s3", "N", "a", "w3", "zz"]
STICKER = {
    "file_id": "s1",
    "file_unique_id": "u1",
    "type": "regular",
    "width": 512,
    "height": 512,
    "is_animated": False,
    "is_video": False,
}


async def test_fuzzed_updates_change_nothing_they_should_not(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Thousands of random and mutated updates at two live games: commands with odd arguments,
    forged and foreign callbacks, texts, stickers, edits, members coming and going, a chat
    migrating, the bot removed from a third group. No update fails, the games stay sound and
    still finish."""
    caplog.set_level(logging.WARNING)
    n_updates = 10_000
    rng = random.Random(99)
    async with world(tmp_path, seed=17) as w:
        g1 = w.api.group(-2006, "一")
        g2 = w.api.group(-2007, "二")
        g3 = w.api.group(-2008, "三")
        p1 = people(w, 6, base=400)
        p2 = people(w, 2, base=500)
        outsiders = [w.api.user(600 + i, f"路人{i}", language_code="en") for i in range(3)]
        await open_and_seat(w, g1, p1)
        await start(w, g1, p1[0])
        await open_and_seat(w, g2, p2)
        await press_lobby(w.api, g2, p2[0], LobbyOp.FILL)
        await start(w, g2, p2[0])
        await outsiders[0].send("/gouji", g3)
        await w.settle()
        everyone = [*p1, *p2, *outsiders]
        groups = [g1, g2, g3]
        world_ = w.api.world
        texts = [
            *("/gouji", "/gouji x y z", "/join", "/leave", "/stop", "/hand", "/rules"),
            *("/settings", "/help", "/start", "/start jzz", "/start j1s9", "/start " + "A" * 80),
            *("/nosuch", "hello", "出牌", "", "🀄" * 50, "/start@gouji_bot j1", "/gouji@other"),
        ]
        sent = 0
        while sent < n_updates:
            kind = rng.randrange(10)
            user = rng.choice(everyone)
            group = rng.choice(groups)
            if kind <= 3:  # callbacks: forged, mutated or someone else's
                chat_msgs = w.api.messages(rng.choice([group.id, user.id, p1[0].id]))
                if not chat_msgs:
                    continue
                msg = rng.choice(chat_msgs)
                datas = [b.callback_data for b in msg.buttons if b.callback_data]
                if datas and kind <= 1:
                    data = rng.choice(datas)
                    if kind == 1:  # mutate one character or the version
                        i = rng.randrange(len(data))
                        data = data[:i] + rng.choice("0123456789az.!hlv") + data[i + 1 :]
                else:
                    data = rng.choice(
                        [
                            # well-formed wire data of any kind and op, ours or not
                            f"{rng.choice('lhosv')}{b36(rng.randrange(5))}."
                            f"{b36(rng.randrange(300))}.{rng.choice(OPS)}",
                            "x" * rng.randrange(1, 70),
                            "",
                            "h1.0.p" + "9" * rng.randrange(40),
                        ]
                    )
                world_.forge(user, msg, data[:64] if rng.random() < 0.9 else data)
            elif kind <= 6:  # commands and texts, in groups and private chats
                text = rng.choice(texts)
                if text == "/stop" and user in (p1[0], p2[0]):
                    continue  # an opener's /stop is allowed and ends the game: not hostile
                chat = group if rng.random() < 0.6 else None
                if chat is not None and chat.bot_kicked:
                    continue
                world_.user_message(user, chat, text, None)
            elif kind == 7:  # stickers and edited messages
                body = group.message_json(user, sticker=STICKER)
                key = "message" if rng.random() < 0.5 else "edited_message"
                if key == "edited_message":
                    body = group.message_json(user, text="/gouji edited", edit_date=1)
                world_.push_update({key: body})
            elif kind == 8:  # members come and go
                if rng.random() < 0.5:
                    await group.add_member(user)
                else:
                    await group.remove_member(user)
            else:
                continue
            sent += 1
            if sent % 500 == 0:
                await w.settle()
            if sent == n_updates // 2:
                await g3.remove_bot()  # the bot is removed from a group
                await g2.migrate(-100200)  # a group becomes a supergroup mid-game
                await w.settle()
        await w.settle()
        failures = [
            r for r in caplog.records if r.name == "gouji.app" and r.levelno >= logging.ERROR
        ]
        assert not failures, failures[0].getMessage()
        t1 = w.table(g1)
        assert t1.match is not None
        # the games are sound: each restores from its record to the same state
        twin = Match.restore(t1.match.record())
        assert [twin.view(s) for s in range(6)] == [t1.match.view(s) for s in range(6)]
        t2 = w.parts.tables.at(g2.id, None)
        assert t2 is not None and t2.chat_id == g2.id == -100200
        assert w.parts.tables.at(g3.id, None) is None  # abandoned when the bot left
        # and they still finish
        await play_game(w, g1, p1, seed=17)
        await play_game(w, g2, p2, seed=18)
        assert over(w, g1)() and over(w, g2)()


async def test_racing_stop_gouji_and_bot_removal_keep_memory_and_storage_agreed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/stop, /gouji and the bot leaving, run at the same moment in one chat: memory and the
    database never disagree about the chat's open table (the database allows one)."""
    async with world(tmp_path) as w:
        g = w.api.group(-2301, "赛跑")
        (opener,) = people(w, 1, base=700)
        await opener.send("/start")
        await opener.send("/gouji", g)
        await w.settle()
        svc = w.parts
        me = UserInfo(opener.id, "开桌")
        save = svc.tables.storage.save_table

        async def slow_save(*args: Any, **kw: Any) -> list[int]:  # a slow disk widens the race
            await asyncio.sleep(0.01)
            return await save(*args, **kw)

        monkeypatch.setattr(svc.tables.storage, "save_table", slow_save)

        async def agreed() -> None:
            stored = [
                r.table_id
                for r in await svc.tables.storage.unfinished_tables()
                if r.chat_id == g.id and r.status in ("lobby", "playing")
            ]
            here = svc.tables.at(g.id, None)
            mine = [] if here is None or here.status not in ("lobby", "playing") else [here.id]
            assert stored == mine

        for _ in range(15):
            await asyncio.gather(
                svc.lobby.stop_table(g.id, None, me, False), svc.lobby.open_table(g.id, None, me)
            )
            await agreed()
            await asyncio.gather(
                svc.lobby.open_table(g.id, None, me), svc.lobby.stop_table(g.id, None, me, False)
            )
            await agreed()
        await svc.lobby.open_table(g.id, None, me)
        await asyncio.gather(svc.tables.bot_removed(g.id), svc.lobby.open_table(g.id, None, me))
        await agreed()
        await w.settle()
        assert len(svc.tables._chat_locks) == 0  # held by nobody now: kept for nobody


async def test_a_group_that_refuses_the_bot_ends_its_table_even_unannounced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Updates run concurrently, so the bot's removal can be handled after a press in that
    group, or before a /gouji sent just ahead of it. A press whose edit is refused (403) is
    still answered without failing its update, and a lobby opened in a chat the bot is no
    longer in ends on the 403 of its first message, as the removal would have ended it."""
    caplog.set_level(logging.INFO)
    async with world(tmp_path) as w:
        g = w.api.group(-2302, "走了")
        (opener,) = people(w, 1, base=710)
        me = UserInfo(opener.id, "开桌")
        await opener.send("/gouji", g)
        await opener.send("/settings", g)
        await w.settle()
        menu = next(
            m
            for m in w.api.messages(g.id)
            if any((b.callback_data or "").startswith("s") for b in m.buttons)
        )
        data = next(d for b in menu.buttons if (d := b.callback_data or "")[:1] == "s")
        w.api.world.forge(opener, menu, data)  # the lobby's opener may change its settings
        g.bot_kicked = True  # then the bot is kicked, before it handles the press
        await w.settle()
        failures = [
            r for r in caplog.records if r.name == "gouji.app" and r.levelno >= logging.ERROR
        ]
        assert not failures, failures[0].getMessage()
        assert any("refuses the bot" in r.getMessage() for r in caplog.records)
        assert w.parts.tables.at(g.id, None) is None  # the lobby's new text was refused
        await w.parts.lobby.open_table(g.id, None, me)
        assert w.parts.tables.at(g.id, None) is not None
        await w.settle()
        assert w.parts.tables.at(g.id, None) is None
        stored = [r for r in await w.parts.tables.storage.unfinished_tables() if r.chat_id == g.id]
        assert all(r.status not in ("lobby", "playing") for r in stored)

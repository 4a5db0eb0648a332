"""The bot end to end: the real python-telegram-bot client against the local Bot API server,
a real SQLite file (or PostgreSQL database), simulated people who press only the buttons they
are shown."""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp
import pytest
from backends import Backend
from botkit import (
    dm_prompts,
    group_texts,
    hand_lines,
    lobby_message,
    open_and_seat,
    over,
    people,
    play_game,
    start,
    world,
)

from bot.buttons import HandOp, LobbyOp, OverOp, callback_of
from bot.offline.simplayers import button_data, press_lobby
from bot.storage import storage_for
from engine.record import replay_text
from renderers import t

pytestmark = pytest.mark.e2e  # the bot end to end, through the local server


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_six_people_play_a_whole_game_by_buttons(tmp_path: Path, mode: str) -> None:
    """A full game of six people through button presses only, under Telegram's limits (on a
    quicker clock, the bot's pacing alike): no 429, the group never sees a hand, the game is
    stored; once with the bot polling, once with the updates delivered to its webhook."""
    async with world(tmp_path, webhook=mode == "webhook") as w:
        group = w.api.group(-1001, "牌友群", admins=[w.api.bot_id])
        users = people(w)
        await open_and_seat(w, group, users)
        await start(w, group, users[0])
        players = await play_game(w, group, users, seed=3)
        assert sum(p.presses for p in players) > 50
        table = w.table(group)
        assert table.match is not None and table.match.over and table.status == "over"
        stats = w.api.stats()
        assert stats["rate_limited"] == 0
        # the group saw the whole game: the log, the cheers, the final ranks
        texts = group_texts(w, group)
        assert any("本局结束" in t for t in texts)
        assert any("头科" in t for t in texts)
        # no hand ever reached the group
        hands = hand_lines(w, group)
        assert len(hands) >= 6
        for t in texts:
            for h in hands:
                assert h not in t
        # every player was prompted in their private chat with their hand picture
        for u in users:
            assert dm_prompts(w, u)
    # the finished game's record was stored and referees cleanly
    async with storage_for(w.db) as storage:
        games = await storage.games(group.id)
    assert len(games) == 1
    out, status = replay_text(json.dumps(games[0]))
    assert status == 0 and out["result"]["over"] is True


async def test_one_person_and_five_ai_seats(tmp_path: Path, backend: Backend) -> None:
    """A whole game, once with the bot on SQLite, once on PostgreSQL; the game is stored."""
    db = await backend.db("bot.sqlite3")
    async with world(tmp_path, seed=5, processes=1, db=db) as w:  # pictures by a worker process
        group = w.api.group(-1002, "一个人也能玩")
        (me,) = people(w, 1)
        await open_and_seat(w, group, [me])
        await press_lobby(w.api, group, me, LobbyOp.FILL)  # fill the empty seats with AI
        lobby = lobby_message(w.api, group)
        assert "电脑" in lobby.plain
        await start(w, group, me)
        await play_game(w, group, [me], seed=5)
        assert w.table(group).match is not None
        assert over(w, group)()
    async with storage_for(db) as storage:
        (record,) = await storage.games(group.id)
    out, status = replay_text(json.dumps(record))
    assert status == 0 and out["result"]["over"] is True


async def test_a_forged_illegal_play_is_refused_with_its_sentence(tmp_path: Path) -> None:
    async with world(tmp_path, seed=9) as w:
        group = w.api.group(-1003, "g")
        users = people(w)
        await open_and_seat(w, group, users)
        await start(w, group, users[0])
        table = w.table(group)
        assert table.match is not None
        # play through the deal phase until someone must lead
        from bot.offline.simplayers import SimPlayer

        sims = {u.id: SimPlayer(w.api, u, __import__("random").Random(1)) for u in users}
        while True:
            ask = table.match.asked()
            assert ask is not None
            if table.match.game is not None and ask[1] == "lead":
                break
            await sims[users[ask[0]].id].step()
            await w.settle()
        seat = ask[0]
        user = users[seat]
        msg = dm_prompts(w, user)[-1]
        before = table.match.version
        # a hand-made 出牌 with nothing chosen, and a tampered quick answer
        from bot.buttons import Callback, Kind

        await user.forge(msg, Callback(Kind.HAND, table.id, before, HandOp.PLAY).encode())
        await user.forge(msg, Callback(Kind.HAND, table.id, before, HandOp.QUICK, "9").encode())
        await user.forge(msg, "h!!garbage")
        await w.settle()
        answers = [a.text or "" for a in user.answers()[-3:]]
        assert table.match.version == before  # nothing changed
        assert answers[0] and answers[1] and answers[2]
        assert any("不是" in a or "牌" in a or "过期" in a for a in answers[:2])


async def test_strangers_and_stale_buttons_change_nothing(tmp_path: Path) -> None:
    async with world(tmp_path, seed=4) as w:
        group = w.api.group(-1004, "g")
        users = people(w)
        stranger = w.api.user(999, "路人", language_code="zh")
        await stranger.send("/start")
        await open_and_seat(w, group, users)
        lobby = lobby_message(w.api, group)
        # a stranger may not start someone else's table
        await stranger.press(
            lobby,
            data=button_data(lobby, LobbyOp.GO),
        )
        await w.settle()
        assert w.table(group).status == "lobby"
        assert "开桌" in (stranger.answers()[-1].text or "")
        await start(w, group, users[0])
        table = w.table(group)
        assert table.match is not None
        ask = table.match.asked()
        assert ask is not None
        asked = users[ask[0]]
        msg = dm_prompts(w, asked)[-1]
        data = next(
            b.callback_data
            for b in msg.buttons
            if (cb := callback_of(b.callback_data)) is not None and cb.op != HandOp.AUTO
        )
        assert data is not None
        before = table.match.version
        # the stranger replays the asked player's button: not their table
        await stranger.forge(msg, data)
        await w.settle()
        assert table.match.version == before
        assert "不是你的" in (stranger.answers()[-1].text or "")
        # another seated player presses it: not their turn
        other = users[(ask[0] + 1) % 6]
        await other.forge(msg, data)
        await w.settle()
        assert table.match.version == before
        # the asked player presses it twice: the second press is stale
        await asked.press(msg, data=data)
        await w.settle()
        await asked.forge(msg, data)
        await w.settle()
        assert "过期" in (asked.answers()[-1].text or "") or table.match.version > before


async def test_a_player_who_never_started_the_bot_joins_by_the_deep_link(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1005, "g")
        host, newcomer = people(w, 2)
        await group.add_member(newcomer)
        await host.send("/start")
        await host.send("/gouji", group)
        await w.settle()
        lobby = lobby_message(w.api, group)
        await newcomer.press(
            lobby,
            data=button_data(lobby, LobbyOp.SIT, 3),
        )
        await w.settle()
        answer = newcomer.answers()[-1]
        assert answer.url and answer.url.startswith("https://t.me/gouji_bot?start=")
        assert w.table(group).seat_of(newcomer.id) is None  # not seated silently
        await newcomer.open_link(answer.url)
        await w.settle()
        assert w.table(group).seat_of(newcomer.id) == 3
        assert "4·小李" in lobby_message(w.api, group).plain
        # /start with no payload explains the bot
        await newcomer.send("/start")
        await w.settle()
        assert any("够级" in m.plain for m in w.api.messages(newcomer.id))


async def test_two_groups_play_at_once_and_stop(tmp_path: Path) -> None:
    async with world(tmp_path, seed=2) as w:
        g1 = w.api.group(-1006, "一桌")
        g2 = w.api.group(-1007, "二桌", forum=True)
        a = people(w, 1, base=200)
        b = people(w, 1, base=300)
        await open_and_seat(w, g1, a)
        await press_lobby(w.api, g1, a[0], LobbyOp.GO)
        for u in b:
            await u.send("/start")
        await b[0].send("/gouji", g2, thread_id=77)
        await w.settle()
        t2 = w.parts.tables.at(g2.id, 77)
        assert t2 is not None
        assert all(m.thread_id == 77 for m in w.api.messages(g2.id))
        lobby2 = lobby_message(w.api, g2)
        await b[0].press(
            lobby2,
            data=button_data(lobby2, LobbyOp.GO),
        )
        await w.settle()
        t1 = w.table(g1)
        assert t1.match is not None and t2.match is not None and t1.id != t2.id
        # /stop mid-game by the opener: saved as abandoned, the group is told
        await b[0].send("/stop", g2, thread_id=77)
        await w.settle()
        assert w.parts.tables.at(g2.id, 77) is None
        assert any("结束了这一桌" in m.plain for m in w.api.messages(g2.id))
        # the other group plays on to the end
        await play_game(w, g1, a, seed=2)
        assert over(w, g1)()
    async with storage_for(w.db) as storage:
        assert await storage.table_for_chat(g2.id, 77) is None


async def test_a_restart_mid_game_resumes_where_it_stopped(tmp_path: Path) -> None:
    async with world(tmp_path, seed=8) as w:
        group = w.api.group(-1008, "g")
        users = people(w)
        await open_and_seat(w, group, users)
        await start(w, group, users[0])
        table = w.table(group)
        assert table.match is not None
        from bot.offline.simplayers import SimPlayer

        sims = [SimPlayer(w.api, u, __import__("random").Random(i)) for i, u in enumerate(users)]
        for _ in range(40):  # part of the game
            for s in sims:
                await s.step()
            await w.settle()
        version = table.match.version
        asked = table.match.asked()
        views = [table.match.view(s) for s in range(6)]
        # the bot process stops; a new one starts on the same database and server
        await w.stop_bot()
        await w.start_bot()
        await w.settle()
        again = w.table(group)
        assert again.match is not None
        assert again.match.version == version and again.match.asked() == asked
        assert [again.match.view(s) for s in range(6)] == views
        assert any("重启" in m.plain for m in w.api.messages(group.id))
        if asked is not None:  # the asked player got their prompt again
            assert dm_prompts(w, users[asked[0]])
        await play_game(w, group, users, seed=8)
        assert over(w, group)()
        # restarted after the game: 再来一局 still starts the match's next game
        await w.stop_bot()
        await w.start_bot()
        await w.settle()
        ended = w.table(group)
        assert ended.status == "over" and ended.match is not None and ended.match.number == 1
        last = [m for m in w.api.messages(group.id) if any(b.callback_data for b in m.buttons)][-1]
        (button,) = [b for b in last.buttons if b.callback_data == button_data(last, OverOp.AGAIN)]
        await users[3].press(last, data=button.callback_data)
        await w.settle()
        # a ready check (bot.ready): the next game starts once everyone seated taps ✅
        assert w.table(group).status == "over"
        for u in users:
            check = [m for m in w.api.messages(group.id) if button_data(m, OverOp.READY)]
            if check:
                await u.press(check[-1], data=button_data(check[-1], OverOp.READY))
                await w.settle()
        next_game = w.table(group)
        assert next_game.status == "playing" and next_game.match is not None
        assert next_game.match.number == 2  # the same match: its tribute carries on (§11)


async def test_commands_answer_in_both_languages(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1009, "g", admins=[w.api.bot_id])
        (zh,) = people(w, 1)
        en = w.api.user(501, "Ann", language_code="en")
        await en.send("/start")
        await zh.send("/help", group)
        await zh.send("/rules", group)
        await en.send("/help")
        await zh.send("/hand")
        await w.settle()
        texts = [m.plain for m in w.api.messages(group.id)]
        assert any("够级" in t for t in texts) and any("规则" in t for t in texts)
        assert any("Gouji" in m.plain or "gouji" in m.plain for m in w.api.messages(en.id))
        assert any("没有在打" in m.plain for m in w.api.messages(zh.id))
        assert w.api.counts()["setMyCommands"] >= 4


async def test_the_webhook_takes_only_requests_with_the_secret(tmp_path: Path) -> None:
    async with world(tmp_path, webhook=True) as w:
        url = w.api.world.webhook_url
        assert url.startswith("http://127.0.0.1:")
        g = w.api.group(-1101, "钩子")
        (a,) = people(w, 1, base=300)
        await a.send("/start")
        await a.send("/gouji", g)
        await w.settle()
        assert w.parts.tables.at(g.id, None) is not None  # updates arrive by webhook
        assert w.api.pushed >= 2
        forged = {"update_id": 10**6, "message": {"message_id": 1, "date": 0, "text": "/stop"}}
        async with aiohttp.ClientSession() as session:
            for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": "guess"}):
                async with session.post(url, json=forged, headers=headers) as response:
                    assert response.status == 403
        await w.settle()
        assert w.parts.tables.at(g.id, None) is not None


async def test_people_tapping_different_seats_at_once_each_get_theirs(tmp_path: Path) -> None:
    """Six people tap six seats on the same lobby message before the bot has redrawn it: each is
    seated, none is told the button expired; a seat two people tap goes to the first."""
    async with world(tmp_path) as w:
        group = w.api.group(-1070, "抢座", admins=[w.api.bot_id])
        users = people(w, 7)
        for u in users:
            group.join_quietly(u)
            await u.send("/start")
        await users[0].send("/gouji", group)
        await w.settle()
        lobby = lobby_message(w.api, group)
        for seat, u in enumerate(users[:6]):  # all on the keyboard as it was first drawn
            data = button_data(lobby, LobbyOp.SIT, seat)
            assert data is not None
            await u.press(lobby, data=data)
        late = button_data(lobby, LobbyOp.SIT, 2)
        assert late is not None
        await users[6].press(lobby, data=late)
        await w.settle()
        table = w.table(group)
        assert [s.user if s else None for s in table.st.seats] == [u.id for u in users[:6]]
        assert users[0].answers()[-1].text == t("zh", "bot.seated", n=1)  # the opener sits
        for seat, u in enumerate(users[1:6], start=1):
            assert u.answers()[-1].text == t("zh", "bot.sat", n=seat + 1)
        assert users[6].answers()[-1].text == t("zh", "bot.taken", n=3)

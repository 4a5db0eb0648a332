"""The game stays in sight under family chatter (issue 34 §4): the trick log pinned while a game
runs when the bot may pin (silently, unpinned at the end or on /stop); otherwise the table message
sent anew below what the group said. The local server enforces pin rights strictly."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from botkit import open_and_seat, over, people, start, world
from telegram.error import BadRequest

from bot.buttons import LobbyOp
from bot.offline.localapi import LocalBotApi, running_app
from bot.offline.simplayers import SimPlayer, play_until, press_lobby
from bot.pins import REPOST_AFTER, REPOST_S, Pins

pytestmark = pytest.mark.e2e  # the bot end to end, through the local server


async def test_the_log_is_pinned_while_the_game_runs(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1001, "牌友群", admins=[w.api.bot_id])
        users = people(w, 6)
        await open_and_seat(w, group, users)
        await start(w, group, users[0])
        table = w.table(group)
        log_msg = table.st.log_msgs[table.st.log_page]
        # the group's view: the trick log is the pinned message, pinned without a sound
        pinned = [m for m in w.api.messages(group.id) if m.pinned]
        assert [m.message_id for m in pinned] == [log_msg]
        assert group.pin_notices == [log_msg]
        pins = [c for c in w.api.calls if c.method == "pinChatMessage"]
        assert pins and all(c.params.get("disable_notification") == "true" for c in pins)
        players = [SimPlayer(w.api, u, random.Random(i), follow=True) for i, u in enumerate(users)]
        seen: set[int] = set()

        def look() -> None:  # mid-game, the pinned message is always the current log page
            shown = [m.message_id for m in w.api.messages(group.id) if m.pinned]
            t = w.table(group)
            assert shown == [t.st.log_msgs[t.st.log_page]]
            seen.update(shown)

        await play_until(w.api, players, over(w, group), settle=w.settle, each_round=look)
        await w.settle()
        assert seen
        # the game over: nothing stays pinned
        assert not any(m.pinned for m in w.api.messages(group.id))
        # each seat's view: no pin notice, no pin reaches a private chat
        for u in users:
            assert not any(m.pinned for m in w.api.messages(u.id))


async def test_stop_unpins(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-1002, "牌友群", admins=[w.api.bot_id])
        (me,) = people(w, 1)
        await open_and_seat(w, group, [me])
        await press_lobby(w.api, group, me, LobbyOp.FILL)
        await start(w, group, me)
        assert any(m.pinned for m in w.api.messages(group.id))
        await me.send("/stop", group)
        await w.settle()
        assert not any(m.pinned for m in w.api.messages(group.id))


@pytest.mark.parametrize("rights", ["no_pin_right", "not_admin"])
async def test_without_pin_rights_the_table_moves_down(tmp_path: Path, rights: str) -> None:
    async with world(tmp_path) as w:
        admins = [w.api.bot_id] if rights == "no_pin_right" else []
        group = w.api.group(-1003, "牌友群", admins=admins)
        group.withheld[w.api.bot_id] = {"can_pin_messages"}
        (me,) = people(w, 1)
        await open_and_seat(w, group, [me])
        await press_lobby(w.api, group, me, LobbyOp.FILL)
        await start(w, group, me)
        # the bot asked about its rights and tried no pin it may not make
        assert not any(c.method == "pinChatMessage" for c in w.api.calls)
        assert not group.pin_notices
        table = w.table(group)
        pins = w.parts.pins
        assert pins.known(group.id) is False and not pins.due(table.id, group.id)
        # the family talks to the bot: the commands it sees under privacy mode count
        for _ in range(REPOST_AFTER):
            await me.send("/help", group)
        await w.settle()
        assert pins.due(table.id, group.id)
        before = table.st.table_msg
        assert before is not None
        player = SimPlayer(w.api, me, random.Random(1), follow=True)
        assert await player.step()
        await w.settle()
        # the group's view: the table message was sent anew, below the answers to /help
        table = w.table(group)
        assert table.st.table_msg != before
        last = w.api.messages(group.id)[-1]
        assert last.message_id == table.st.table_msg and last.photo is not None
        assert w.api.message(group.id, before).deleted
        assert not pins.due(table.id, group.id)


def test_time_alone_moves_the_table_down() -> None:
    now = [100.0]
    pins = Pins()
    pins.clock = lambda: now[0]
    assert not pins.due(1, -5)  # first seen: just sent
    now[0] += REPOST_S - 1
    assert not pins.due(1, -5)
    now[0] += 1
    assert pins.due(1, -5)
    pins.sent_anew(1, -5)
    assert not pins.due(1, -5)
    for _ in range(REPOST_AFTER):
        pins.seen(-5)
    assert pins.due(1, -5)
    pins.seen(42)  # a private chat never counts
    assert 42 not in pins.updates


async def test_the_local_server_enforces_pin_rights() -> None:
    async with LocalBotApi() as api, running_app(api) as app:
        bot = app.bot
        if True:
            admin = api.group(-2001, "可置顶", admins=[api.bot_id])
            limited = api.group(-2002, "不可置顶", admins=[api.bot_id])
            limited.withheld[api.bot_id] = {"can_pin_messages"}
            member = api.group(-2003, "普通成员")
            for g in (admin, limited, member):
                m = await bot.send_message(g.id, "x")
                me = await bot.get_chat_member(g.id, api.bot_id)
                may = g is admin
                assert getattr(me, "can_pin_messages", False) is may
                if may:
                    assert await bot.pin_chat_message(g.id, m.message_id, disable_notification=True)
                    assert await bot.unpin_chat_message(g.id, m.message_id)
                    with pytest.raises(BadRequest, match="not found"):
                        await bot.unpin_chat_message(g.id, m.message_id)
                else:
                    with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
                        await bot.pin_chat_message(g.id, m.message_id)
                    with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
                        await bot.unpin_chat_message(g.id, m.message_id)
            assert admin.pin_notices and not limited.pin_notices and not member.pin_notices

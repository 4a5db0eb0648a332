"""No group can slow or rewrite another's game (issue 33): each attack sent through the local
Bot API server, and the other tables did not notice — forged presses on the bot's own
messages, junk presses, another chat's game codes, webhook bodies that are not updates and
updates delivered twice, crafted outbox rows, floods of story commands, 复盘 and replays
beside a game's pictures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from botkit import World, join_and_start, open_and_seat, people, world

from bot.buttons import Callback, Kind, LobbyOp, StoryOp
from bot.offline.localapi import SimGroup, SimUser
from bot.offline.localbot import WEBHOOK_SECRET
from bot.offline.pgcluster import PgCluster
from bot.offline.simplayers import button_data, lobby_message, press_lobby
from bot.story import STORY_BUTTONS, game_code
from bot.story_storage import GameKey
from renderers import t

pytestmark = pytest.mark.e2e


def last_answer(user: SimUser) -> str:
    answers = user.answers()
    return answers[-1].text or "" if answers else ""


async def post_raw(w: World, body: bytes) -> int:
    """A request to the bot's webhook with the right secret: its status."""
    url = w.api.world.webhook_url
    assert url
    headers = {"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}
    async with aiohttp.ClientSession() as s, s.post(url, data=body, headers=headers) as r:
        return r.status


def command_update(update_id: int, group: SimGroup, user: SimUser, text: str) -> dict[str, Any]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": 900_000 + update_id % 1000,
            "date": 1_700_000_000,
            "chat": {"id": group.id, "type": "supergroup", "title": group.title},
            "from": {"id": user.id, "is_bot": False, "first_name": "x", "language_code": "zh"},
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text)}],
        },
    }


async def test_a_webhook_body_that_is_not_an_update_is_400_and_an_update_counts_once(
    tmp_path: Path,
) -> None:
    """Attack 7: ``[]``, ``null``, deep nesting, a text update_id → 400, no traceback; the same
    update delivered twice (and again after a restart) is handled once."""
    async with world(tmp_path, webhook=True) as w:
        g = w.api.group(-5101, "钩子")
        (me,) = people(w, 1, base=700)
        await open_and_seat(w, g, [me])
        for body in (b"[]", b"null", b"[" * 5000 + b"]" * 5000, b'{"update_id": "x"}'):
            assert await post_raw(w, body) == 400, body[:20]
        assert await post_raw(w, b'{"update_id": 5, "message": {"chat": 3}}') == 400
        said = len(w.api.messages(g.id))
        update = json.dumps(command_update(10**9, g, me, "/help")).encode()
        assert await post_raw(w, update) == 200
        await w.settle()
        assert len(w.api.messages(g.id)) == said + 1
        assert await post_raw(w, update) == 200  # delivered again: answered, not handled
        await w.stop_bot()
        await w.start_bot()
        assert await post_raw(w, update) == 200  # after a restart too
        await w.settle()
        assert len(w.api.messages(g.id)) == said + 1
        await press_lobby(w.api, g, me, LobbyOp.FILL)  # the table goes on
        assert "🤖" in lobby_message(w.api, g).plain


class _Boom:
    """A pickle that, loaded, would run code (here: leave a file)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (Path(self.path),))


async def test_a_crafted_outbox_row_is_refused_not_run(tmp_path: Path) -> None:
    """Attack 9: anyone who can write the database stores a pickle in the outbox; a restart
    reads it, refuses it (nothing runs) and the table's own stored messages still go out."""
    import pickle
    import sqlite3

    marker = tmp_path / "ran"
    async with world(tmp_path) as w:
        g = w.api.group(-5102, "库")
        (owner,) = people(w, 1, base=710)
        await open_and_seat(w, g, [owner])
        table = w.table(g)
        await w.stop_bot()
        crafted = pickle.dumps(_Boom(str(marker)))
        good = table.cheer_outs(["🎉 仍然送到"])[0].dumps()
        assert good.startswith(b'{"v": 1')  # versioned JSON, not a pickle
        db = sqlite3.connect(w.db)
        with db:
            for row in (crafted, b"{}", b'{"v": 1, "out": {"$p": "system", "a": ["id"]}}', good):
                db.execute(
                    "INSERT INTO outbox (table_id, chat_id, message, created_at)"
                    " VALUES (?, ?, ?, 0)",
                    (table.id, g.id, row),
                )
        db.close()
        await w.start_bot()
        await w.settle()
        assert not marker.exists()  # refused, not run
        assert any("仍然送到" in m.plain for m in w.api.messages(g.id))
        db = sqlite3.connect(w.db)
        assert db.execute("SELECT count(*) FROM outbox").fetchone() == (0,)  # all left it
        db.close()
        await press_lobby(w.api, g, owner, LobbyOp.FILL)
        assert "🤖" in lobby_message(w.api, g).plain


def test_stored_messages_round_trip_as_data() -> None:
    """A game-over message (its picture a drawing with the match's view) stored and read back
    draws the same picture; a drawing of another name, a foreign type, a pickle: refused."""
    from functools import partial

    from bot import stored
    from bot.outbox import Out, Slot, SlotKind
    from engine.rules import Rules
    from engine.view import idle_view
    from renderers import render_table

    view = idle_view(Rules(), None, 1, 3)
    out = Out(
        -1,
        "caption",
        None,
        7,
        Slot(3, SlotKind.TABLE),
        partial(render_table, view, ["a"] * 6, "zh"),
        "k",
    )
    back = Out.loads(out.dumps(), 5)
    assert back.outbox_id == 5 and back.slot == out.slot and back.photo is not None
    assert out.photo is not None and back.photo() == out.photo()
    for row in (
        b"\x80\x04K\x01.",
        b'{"v": 2, "out": null}',
        b'{"v": 1, "out": {"$c": "os:system", "f": {}}}',
        b'{"v": 1, "out": {"$c": "subprocess:Popen", "f": {}}}',
        b'{"v": 1, "out": {"$p": "eval", "a": ["1"]}}',
        b'{"v": 1, "out": {"$p": "bytes", "a": [1000000000000]}}',
        b'{"v": 1, "out": {"$c": "bot.__main__:X", "f": {}}}',
    ):
        with pytest.raises(ValueError):
            Out.loads(row, 1)
    with pytest.raises(TypeError):
        stored.encode(partial(print, "x"))


async def test_forged_data_on_the_bots_own_messages_changes_nothing(tmp_path: Path) -> None:
    """Attack 3: a rules page's button forged on the open lobby, a stale settings button
    pressed by a member who is no admin, a replay step forged on the lobby: each a toast,
    and the lobby keeps its seats and start buttons."""
    from bot.buttons import SettingsOp

    async with world(tmp_path) as w:
        g = w.api.group(-5103, "伪造")
        owner, member = people(w, 2, base=720)
        await open_and_seat(w, g, [owner])
        await join_and_start(w, g, member)
        lobby = lobby_message(w.api, g)
        before = (lobby.plain, [b.callback_data for b in lobby.buttons])
        page = Callback(Kind.SETTINGS, 0, 0, SettingsOp.PAGE, "4").encode()
        stale = Callback(Kind.SETTINGS, 0, 0, SettingsOp.TURN, "").encode()
        step = Callback(Kind.STORY, game_code(GameKey(1, 1)), STORY_BUTTONS, StoryOp.STEP, "3")
        for data in (page, stale, step.encode()):
            await member.forge(lobby, data)
            await w.settle()
            assert last_answer(member) == t("zh", "bot.stale")
        now = lobby_message(w.api, g)
        assert (now.plain, [b.callback_data for b in now.buttons]) == before
        await w.settle()
        sit = button_data(now, LobbyOp.SIT, 1)
        assert sit is not None
        await member.press(now, data=sit)  # the lobby still seats people
        await w.settle()
        assert member.id in [s.user for s in w.table(g).st.seats if s is not None]


async def test_junk_presses_cost_their_presser_not_the_group(tmp_path: Path) -> None:
    """Attack 5: three members press junk on the lobby as fast as they can; a real player's
    seat tap still counts (the chat's budget was never charged for the junk), and a presser
    over their own budget gets no answer at all."""
    async with world(tmp_path, people_rates=True) as w:
        g = w.api.group(-5104, "垃圾")
        owner, a, b, c, player = people(w, 5, base=730)
        await open_and_seat(w, g, [owner])
        for u in (a, b, c, player):
            g.join_quietly(u)
        await player.send("/start")
        await w.settle()
        lobby = lobby_message(w.api, g)
        for _ in range(15):
            for u in (a, b, c):
                await u.forge(lobby, "x")
                await u.forge(lobby, Callback(Kind.LOBBY, 999, 0, LobbyOp.GO).encode())
        await w.settle()
        sit = button_data(lobby_message(w.api, g), LobbyOp.SIT, 2)
        assert sit is not None
        await player.press(lobby_message(w.api, g), data=sit)
        await w.settle()
        assert "太快" not in last_answer(player)
        seated = w.table(g).st.seats[2]
        assert seated is not None and seated.user == player.id
        # the junk's own presser: answered within their budget (burst 10), then not at all
        # (junk never costs a call beyond its presser's budget: bot.intake)
        assert 5 <= len(a.answers()) < 30
        assert all("太快" not in (x.text or "") for x in a.answers())


async def test_a_flood_of_story_commands_is_bounded_and_the_game_goes_first(
    tmp_path: Path,
) -> None:
    """Attack 2: a member sends /record, /stats, /top, /replay, /history, /match, /settings
    and /help ten times each; the group gets a bounded few answers (a second /record while
    one waits replaces it), and a lobby press in the same chat is shown before them."""
    async with world(tmp_path, people_rates=False) as w:
        g = w.api.group(-5105, "刷故事")
        owner, flooder = people(w, 2, base=740)
        await open_and_seat(w, g, [owner])
        g.join_quietly(flooder)
        other = w.api.group(-5106, "隔壁")
        (neighbour,) = people(w, 1, base=750)
        await open_and_seat(w, other, [neighbour])
        said = len(w.api.messages(g.id))
        for _ in range(10):
            for cmd in ("/record", "/stats", "/top", "/replay", "/history", "/match"):
                await flooder.send(cmd, g)
            await flooder.send("/settings", g)
            await flooder.send("/help", g)
        await press_lobby(w.api, g, owner, LobbyOp.FILL)  # the game's own message first
        await press_lobby(w.api, other, neighbour, LobbyOp.FILL)  # the neighbour unaffected
        await w.settle()
        answers = len(w.api.messages(g.id)) - said
        assert answers <= 12, answers  # bounded: never 80
        queue, intake = w.parts.router.stories, w.app.bot_data.rt.intake
        # each refused, coalesced, or (the same answer waiting already) dropped at intake
        assert queue.refused + queue.coalesced + intake.repeats >= 60
        assert "🤖" in lobby_message(w.api, g).plain
        assert "🤖" in lobby_message(w.api, other).plain


async def test_another_chats_game_code_answers_as_a_missing_one(tmp_path: Path) -> None:
    """Attack 6: the /history pages' buttons with another chat's game code (pressed past the
    keyboard check, as if it were on the message): the same answer as a made-up code, and
    no page of either chat's games."""
    from test_story_storage import records, stored

    from bot.router import Press
    from bot.tables import UserInfo

    async with world(tmp_path) as w:
        a, b = w.api.group(-5107, "甲"), w.api.group(-5108, "乙")
        (me,) = people(w, 1, base=760)
        b.join_quietly(me)
        st = w.parts.story.store.storage
        theirs = await stored(st, a.id, records(3, seed=4))
        mine = await stored(st, b.id, records(2, seed=5))
        store = w.parts.story.store
        made_up = GameKey(theirs[0].table_id + 50, 1)
        for op in (StoryOp.OLDER, StoryOp.NEWER):
            for key in (theirs[0], theirs[-1], made_up):
                assert await store.games(b.id, 5, before=key) == []
                assert await store.games(b.id, 5, after=key) == []
            answers = set()
            for key in (theirs[1], made_up):
                cb = Callback.decode(
                    Callback(Kind.STORY, game_code(key), STORY_BUTTONS, op).encode()
                )
                user = UserInfo(me.id, "me", "zh")
                members = w.parts.router.tables  # unused by the story's pages
                press = Press(cb, user, b.id, None, members, message_id=1)  # type: ignore[arg-type]
                answer = await w.parts.router._chat[(Kind.STORY, op)](press)
                answers.add((answer.text, answer.alert, answer.edit))
            assert answers == {(t("zh", "story.gone"), True, None)}
        assert len(await store.games(b.id, 5, before=mine[-1])) == 1  # its own pages still work


async def test_heavy_work_has_its_own_lane_and_reviews_go_one_at_a_time() -> None:
    """Attack 1: 复盘, replays and stats pictures run in a lane of their own (threads here,
    niced processes in production); the 复盘 take turns and keep to a daily allowance; a
    game without people is not reviewed, one without their decisions gets a tenth."""
    import asyncio
    import threading
    from functools import partial

    from bot.lanes import Reviews, heavy, review_budget
    from bot.workers import Workers
    from renderers import render_hand
    from renderers.replay import replay_frame

    assert heavy(partial(replay_frame, "{}", (), "zh", 0)) and not heavy(partial(render_hand, "3"))
    workers = Workers(0)
    lane = await workers.run(partial(replay_frame_thread, "x"))
    game = await workers.run(threading.current_thread)
    assert lane.startswith("heavy") and not game.name.startswith("heavy")
    workers.close()
    assert review_budget(10.0, people=False, decided=False) is None
    assert review_budget(10.0, people=True, decided=False) == 1.0
    assert review_budget(10.0, people=True, decided=True) == 10.0
    reviews, running, most = Reviews(per_day=2), 0, 0

    async def review() -> None:
        nonlocal running, most
        async with reviews.turn:
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.01)
            running -= 1

    await asyncio.gather(*(review() for _ in range(4)))
    assert most == 1
    assert reviews.allowed(1) and not reviews.allowed(2)


def replay_frame_thread(_: str) -> str:
    """Stands for a heavy call (named as one: bot.lanes.HEAVY): which thread runs it."""
    import threading

    return threading.current_thread().name


replay_frame_thread.__module__, replay_frame_thread.__name__ = "renderers.replay", "replay_frame"


async def test_a_chats_story_queue_coalesces_weighs_and_refuses_past_its_bound() -> None:
    import asyncio

    from bot.storyqueue import COSTS, StoryQueue

    done: list[str] = []
    gate = asyncio.Event()

    async def job(name: str) -> None:
        await gate.wait()
        done.append(name)

    q = StoryQueue(bound=12)
    assert q.submit(-1, "replay", COSTS["replay"], partial_job(job, "r1"))  # running: 6
    assert q.submit(-1, "record", COSTS["record"], partial_job(job, "rec1"))  # 9
    assert q.submit(-1, "record", COSTS["record"], partial_job(job, "rec2"))  # replaces it
    assert not q.submit(-1, "replay2", COSTS["replay"], partial_job(job, "r2"))  # 15 > 12
    assert q.submit(-1, "help", COSTS["help"], partial_job(job, "h"))  # 10
    assert q.submit(-2, "replay", COSTS["replay"], partial_job(job, "other"))  # its own chat
    gate.set()
    while not q.idle():
        await asyncio.sleep(0.01)
    assert sorted(done) == ["h", "other", "r1", "rec2"] and q.refused == 1 and q.coalesced == 1


def partial_job(job: Any, name: str) -> Any:
    from functools import partial

    return partial(job, name)


async def test_postgresql_refuses_another_chats_table_before_loading_it(
    tmp_path: Path, pg_cluster: PgCluster
) -> None:
    """Attack 8: several processes; a group's press names a table of another chat that this
    process has not loaded: refused before it is loaded, and the pressing chat's own open
    table keeps its place."""
    from bot.tables import UserInfo

    db = await pg_cluster.create_database()
    async with world(tmp_path, db=db) as w:
        victim, own = w.api.group(-5109, "受害"), w.api.group(-5110, "自己")
        (owner,) = people(w, 1, base=770)
        (attacker,) = people(w, 1, base=780)
        await open_and_seat(w, victim, [owner])
        await open_and_seat(w, own, [attacker])
        theirs, mine = w.table(victim), w.table(own)
        tables = w.parts.tables
        tables.drop(theirs)  # as if another process held it: not in this one's memory
        data = Callback(Kind.LOBBY, theirs.id, theirs.lobby_ver, LobbyOp.FILL).encode()
        user = UserInfo(attacker.id, "a", "zh")
        answer = await w.parts.router.press(data, user, own.id, None, NoMembers())
        assert answer.text == t("zh", "bot.gone")
        assert tables.get(theirs.id) is None  # never loaded here
        assert tables.at(own.id, None) is mine  # the chat's own table keeps its place
        await press_lobby(w.api, own, attacker, LobbyOp.FILL)
        assert "🤖" in lobby_message(w.api, own).plain


class NoMembers:
    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return False

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        return True


async def test_the_hard_ai_searches_outside_the_tables_lock(tmp_path: Path) -> None:
    """Attack 4: while a hard AI seat searches (held here until released), its table's lock
    is free — a press, a timer, a story answer never waits on the pool — and once the search
    ends its move is applied (the table unchanged meanwhile)."""
    import asyncio
    import random

    from bot.aimove import decide_snapshot
    from bot.model import AiLevel
    from bot.offline.simplayers import SimPlayer

    async with world(tmp_path, seed=11) as w:
        g = w.api.group(-5111, "深算")
        (me,) = people(w, 1, base=790)
        await open_and_seat(w, g, [me])
        await press_lobby(w.api, g, me, LobbyOp.FILL)
        table = w.table(g)
        for s in table.st.seats:
            if s is not None and s.user is None:
                s.level = AiLevel.HARD
        moves = w.parts.moves
        real, gate, entered = moves.workers, asyncio.Event(), asyncio.Event()

        class Held:
            async def run(self, fn: Any, *args: Any) -> Any:
                if fn is decide_snapshot and not gate.is_set():
                    entered.set()
                    await gate.wait()
                return await real.run(fn, *args)

        moves.workers = Held()  # type: ignore[assignment]
        await press_lobby(w.api, g, me, LobbyOp.GO)
        person = SimPlayer(w.api, me, random.Random(1), follow=True)
        for _ in range(600):
            if entered.is_set():
                break
            await person.step(patient=True)
            await asyncio.sleep(0.05)
        assert entered.is_set(), "no hard AI seat was asked"
        m = table.match
        assert m is not None
        version = m.version
        async with asyncio.timeout(2.0):  # free while the search runs
            async with w.parts.tables.locked(table):
                assert m.version == version
        gate.set()
        for _ in range(200):
            if m.version > version:
                break
            await asyncio.sleep(0.05)
        assert m.version > version  # the searched move applied
        moves.workers = real

"""The evening's story through the local Bot API server: a match of two games (one person and
five AI seats), then /history and its pages and buttons, /match, /stats (mine and by reply),
/top, badges announced once (across a restart too), /replay (the animation and the ◀ ▶ steps
editing one message), /record (refereed by ``python -m engine replay``), the 复盘 posted once
per game; in Chinese and in English. Stored facts equal the facts recomputed from the records."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from botkit import World, open_and_seat, people, start, world
from PIL import Image

import bot.story as story_module
from bot.buttons import Callback, Kind, LobbyOp, OverOp, SettingsOp, StoryOp
from bot.model import TableStatus
from bot.offline.localapi import SentMessage, SimGroup, SimUser
from bot.offline.simplayers import (
    SimPlayer,
    button_data,
    lobby_message,
    play_until,
    press_lobby,
)
from bot.story import STORY_BUTTONS, game_code, game_of
from bot.story_storage import GameKey, StoryStore
from engine.stats import badges_of, game_facts
from renderers import t

pytestmark = pytest.mark.e2e
REVIEW_S = 0.05  # the 复盘's budget in tests: far too small to settle (a demo's title)


def ended(w: World, group: SimGroup, number: int) -> Callable[[], bool]:
    def check() -> bool:
        table = w.parts.tables.at(group.id, None)
        m = table.match if table is not None else None
        return (
            table is not None
            and table.status == TableStatus.OVER
            and m is not None
            and (m.number == number)
        )

    return check


async def play(w: World, group: SimGroup, me: SimUser, number: int, seed: int) -> None:
    """The person plays game ``number`` of the match to its end (the AI the other seats)."""
    player = SimPlayer(w.api, me, random.Random(seed), follow=True)  # plays as 提示 says
    await play_until(w.api, [player], ended(w, group, number), settle=w.settle)
    await w.settle()


async def match_of_two(w: World, group: SimGroup, me: SimUser) -> None:
    """One person and five AI seats play two games of one match (再来一局 between them)."""
    await open_and_seat(w, group, [me])
    await press_lobby(w.api, group, me, LobbyOp.FILL)
    await start(w, group, me)
    await play(w, group, me, 1, seed=5)
    again = [m for m in w.api.messages(group.id) if button_data(m, OverOp.AGAIN)][-1]
    await me.press(again, data=button_data(again, OverOp.AGAIN))
    await w.settle()
    await play(w, group, me, 2, seed=6)


def story_button(
    m: SentMessage, op: StoryOp, number: int | None = None, frame: int | None = None
) -> str:
    """The data of the message's story button ``op`` (of game ``number``, to ``frame``)."""
    for b in m.buttons:
        cb = None if b.callback_data is None else Callback.decode(b.callback_data)
        if cb is None or cb.kind != Kind.STORY or cb.op is not op:
            continue
        if (number is None or game_of(cb.table).number == number) and (
            frame is None or cb.number == frame
        ):
            return b.callback_data or ""
    raise AssertionError(f"no {op!r} button on {m.plain!r}")


def newest(w: World, group: SimGroup, pred: Callable[[SentMessage], bool]) -> SentMessage:
    found = [m for m in w.api.messages(group.id) if pred(m)]
    assert found, "no such message"
    return found[-1]


def store(w: World) -> StoryStore:
    return w.parts.story.store


async def command(
    w: World, user: SimUser, text: str, group: SimGroup, reply_to: SimUser | None = None
) -> None:
    await user.send(text, group, reply_to=reply_to)
    await w.settle()


def referee(document: bytes) -> tuple[int, dict[str, object]]:
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "replay", "-"],
        input=document,
        capture_output=True,
        check=False,
    )
    return proc.returncode, json.loads(proc.stdout)


async def test_the_story_of_a_match_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(story_module, "PAGE", 1)  # two games make two pages
    async with world(tmp_path, seed=5, review_s=REVIEW_S) as w:
        group = w.api.group(-1201, "周五够级")
        (me,) = people(w, 1)
        friend = w.api.user(300, "小周", language_code="zh")
        group.join_quietly(friend)
        await match_of_two(w, group, me)
        table = w.parts.tables.at(group.id, None)
        assert table is not None
        tid = table.id

        # the 复盘: posted once per game, silently, after the game; titled a demo, since the
        # tests' budget is far too small to settle its figures
        title = t("zh", "review.title.demo").replace("<b>", "").replace("</b>", "")
        reviews = [m for m in w.api.messages(group.id) if m.plain.startswith(title)]
        assert len(reviews) == 2 and all(m.disable_notification for m in reviews)

        # badges: each stored one announced exactly once, and they are what the games earn
        mine = await store(w).badges(group.id, f"u{me.id}")
        games = await store(w).player_games(group.id, f"u{me.id}")
        assert mine == [str(b) for b, _ in badges_of(games)]
        announced = [m.plain for m in w.api.messages(group.id) if m.plain.startswith("🏅")]
        assert len(announced) == len(mine) and len(set(announced)) == len(announced)
        assert "first_touke" in mine  # this seed's person takes 头科 (and is told once)
        assert any("首个头科" in a for a in announced)

        # stored facts equal the facts recomputed from the stored records
        for n in (1, 2):
            found = await store(w).record(GameKey(tid, n))
            assert found is not None and found[0] == group.id
            assert await store(w).facts(GameKey(tid, n)) == tuple(game_facts(found[1]))
        assert await store(w).recompute_facts() == 0

        # /history: the newest game, its buttons; older and newer pages edit the message
        await command(w, me, "/history", group)
        page = newest(w, group, lambda m: m.plain.startswith("最近的牌局"))
        assert "第2局" in page.plain and "牌桌#" not in page.plain and "头科" in page.plain
        await me.press(page, data=story_button(page, StoryOp.OLDER))
        await w.settle()
        page = w.api.world.sent[(group.id, page.message_id)]
        assert "第1局" in page.plain and "第2局" not in page.plain
        await me.press(page, data=story_button(page, StoryOp.NEWER))
        await w.settle()
        page = w.api.world.sent[(group.id, page.message_id)]
        assert "第2局" in page.plain and page.edits == 2

        # its replay button: an animation (a GIF) and one picture stepped by ◀ ▶
        await me.press(page, data=story_button(page, StoryOp.REPLAY, 2))
        await w.settle()
        gif = newest(w, group, lambda m: m.animation is not None)
        assert gif.animation is not None and "头科" in gif.plain
        with Image.open(io.BytesIO(gif.animation)) as image:
            assert image.format == "GIF" and getattr(image, "n_frames", 1) > 3
        steps = newest(w, group, lambda m: m.photo is not None and m.buttons != [])
        first_photo, first_caption = steps.photo, steps.plain
        await me.press(steps, data=story_button(steps, StoryOp.STEP))
        await w.settle()
        steps = w.api.world.sent[(group.id, steps.message_id)]
        assert steps.edits == 1 and steps.photo != first_photo and steps.plain != first_caption
        await me.press(steps, data=story_button(steps, StoryOp.STEP, frame=0))
        await w.settle()
        steps = w.api.world.sent[(group.id, steps.message_id)]
        assert steps.edits == 2 and steps.plain == first_caption

        # its record button: the record as a document, which the referee passes
        await me.press(page, data=story_button(page, StoryOp.RECORD, 2))
        await w.settle()
        doc = newest(w, group, lambda m: m.document is not None and m.animation is None)
        assert doc.document is not None and doc.filename == f"gouji-{tid}-2.json"
        status, out = referee(doc.document)
        assert status == 0 and out["ok"] is True
        stored = await store(w).record(GameKey(tid, 2))
        assert stored is not None and json.loads(doc.document) == json.loads(stored[1])

        # /replay and /record: the last game
        animations = len([m for m in w.api.messages(group.id) if m.animation is not None])
        await command(w, me, "/replay", group)
        await command(w, me, "/record", group)
        assert len([m for m in w.api.messages(group.id) if m.animation is not None]) == (
            animations + 1
        )
        doc = newest(w, group, lambda m: m.document is not None and m.animation is None)
        assert doc.document is not None and referee(doc.document)[0] == 0

        # /match: the games of the running match, the score, the next game's tribute
        await command(w, me, "/match", group)
        match = newest(w, group, lambda m: m.plain.startswith("这场比赛"))
        assert "已打完 2 局" in match.plain and "第1局" in match.plain and "总比分" in match.plain
        assert "进贡" in match.plain  # 下局进贡 or 下局无需进贡

        # /stats: mine, and a member's by replying to my message
        await command(w, me, "/stats", group)
        mine_card = newest(w, group, lambda m: m.photo is not None and "2局" in m.plain)
        assert me.first_name in mine_card.plain
        await command(w, friend, "/stats", group, reply_to=me)
        by_reply = newest(w, group, lambda m: m.photo is not None)
        assert by_reply.message_id != mine_card.message_id and me.first_name in by_reply.plain
        await command(w, friend, "/stats", group)
        assert "小周" in newest(w, group, lambda m: m.photo is not None).plain

        # /top: nobody has ten games yet: tonight's standings
        await command(w, me, "/top", group)
        top = newest(w, group, lambda m: m.photo is not None)
        assert top.plain == "还没有人打满10局，先看今晚：2局的积分与平均名次"

        # a story button from another chat, or of an older layout, forged on a message that
        # does not carry it, opens nothing
        other = w.api.group(-1202, "别的群")
        other.join_quietly(me)
        await command(w, me, "/history", other)
        empty = newest(w, other, lambda m: "还没有打完" in m.plain)
        code = game_code(GameKey(tid, 2))
        await me.forge(empty, Callback(Kind.STORY, code, STORY_BUTTONS, StoryOp.RECORD).encode())
        await me.forge(
            empty, Callback(Kind.STORY, code, STORY_BUTTONS + 1, StoryOp.REPLAY).encode()
        )
        await w.settle()
        answers = {a.text or "" for a in me.answers()[-2:]}
        assert answers == {t("zh", "bot.stale")}
        assert not [m for m in w.api.messages(other.id) if m.document or m.animation]

        # a restart says nothing again: no badge, no 复盘
        said = len(w.api.messages(group.id))
        await w.stop_bot()
        await w.start_bot()
        await w.settle()
        again = [m.plain for m in w.api.messages(group.id)[said:]]
        assert not [x for x in again if x.startswith(("🏅", title))]


async def test_the_story_in_english(tmp_path: Path) -> None:
    async with world(tmp_path, seed=8, review_s=REVIEW_S) as w:
        me = w.api.user(400, "Ann", language_code="en")
        group = w.api.group(-1203, "Friday Gouji", admins=[me.id])
        group.join_quietly(me)
        await me.send("/settings", group)
        await w.settle()
        menu = newest(w, group, lambda m: button_data(m, SettingsOp.LANG) is not None)
        await me.press(menu, data=button_data(menu, SettingsOp.LANG))
        await w.settle()
        await open_and_seat(w, group, [me])
        await press_lobby(w.api, group, me, LobbyOp.FILL)
        assert "AI" in lobby_message(w.api, group).plain
        await start(w, group, me)
        await play(w, group, me, 1, seed=8)
        title = "📋 Review"
        assert len([m for m in w.api.messages(group.id) if m.plain.startswith(title)]) == 1
        await command(w, me, "/history", group)
        page = newest(w, group, lambda m: m.plain.startswith("Recent games"))
        assert "Game 1" in page.plain and "1st (头科)" in page.plain
        await command(w, me, "/match", group)
        assert "1 games played" in newest(w, group, lambda m: "This match" in m.plain).plain
        await command(w, me, "/stats", group)
        assert "1 games" in newest(w, group, lambda m: m.photo is not None).plain
        await command(w, me, "/replay", group)
        gif = newest(w, group, lambda m: m.animation is not None)
        assert "1st (头科)" in gif.plain
        steps = newest(w, group, lambda m: m.photo is not None and m.buttons != [])
        assert [b.text for b in steps.buttons] == ["Next trick ▶"]
        await command(w, me, "/record", group)
        doc = newest(w, group, lambda m: m.document is not None and m.animation is None)
        assert doc.document is not None and referee(doc.document)[0] == 0

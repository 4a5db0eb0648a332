"""Intake's junk-press path by webhook (bot/webhook.py, bot/intake.py), as tests/test_intake.py
tests it for polling: a press of any shape never breaks intake, nor the webhook's answer —
what is not a press Telegram sends is refused (400) as python-telegram-bot always refused it,
a junk press is answered (200) in its presser's language, and real presses go on."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from botkit import World, join_and_start, open_and_seat, people, world

from bot.buttons import LobbyOp
from bot.offline.localapi import SimUser
from bot.offline.localbot import WEBHOOK_SECRET, runtime
from bot.offline.simplayers import button_data, lobby_message, press_lobby

pytestmark = pytest.mark.e2e  # the bot's webhook, through the local server


async def post(w: World, update: Any) -> int:
    """An update delivered to the bot's webhook, as Telegram does: the webhook's status."""
    url = w.api.world.webhook_url
    assert url
    headers = {"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}
    body = json.dumps(update).encode()
    async with aiohttp.ClientSession() as s, s.post(url, data=body, headers=headers) as r:
        return r.status


async def test_a_press_of_any_shape_never_breaks_intake_by_webhook(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path, webhook=True) as w:
        g = w.api.group(-5401, "钩子垃圾")
        owner, sitter = people(w, 2, base=780)
        (english,) = people(w, 1, lang="en-GB", base=790)
        await open_and_seat(w, g, [owner])
        lobby = lobby_message(w.api, g)
        sit = button_data(lobby, LobbyOp.SIT, 1)
        assert sit is not None
        sim = w.api.world
        numbers = iter(range(10**8, 10**9))

        def press(user: SimUser, data: str) -> dict[str, Any]:
            """A press of ``data`` on the lobby, a query the server knows (it takes answers)."""
            query = sim.query_json(user, lobby, data)
            return {"update_id": next(numbers), "callback_query": query}

        handed_on: list[dict[str, Any]] = []  # not presses Telegram sends: PTB's to refuse
        for field, value in (("from", "42"), ("from", None), ("id", 7), ("id", None)):
            update = press(owner, "x")
            update["callback_query"][field] = value
            handed_on.append(update)
        odd: list[Any] = ["x", None, [], {"id": "q"}]
        for query in odd:
            handed_on.append({"update_id": next(numbers), "callback_query": query})
        junk: list[dict[str, Any]] = [press(owner, "x"), press(owner, "")]
        for markup in ({"inline_keyboard": "x"}, {"inline_keyboard": [None, "y", [7]]}, "z", None):
            update = press(owner, sit)  # a real button's data, its keyboard not one
            update["callback_query"]["message"]["reply_markup"] = markup
            junk.append(update)
        before = len(owner.answers())  # their seat's
        statuses = [await post(w, u) for u in handed_on + junk]
        await w.settle()
        assert all(s in (200, 400) for s in statuses), statuses  # never a 500
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # no update failed
        assert statuses[len(handed_on) :] == [200] * len(junk)  # junk: taken at intake
        intake = runtime(w.app).intake
        assert intake is not None and intake.junk >= len(junk)
        texts = [a.text or "" for a in owner.answers()[before:]]
        assert len(texts) == len(junk) and all(texts), texts  # each junk press answered
        assert not any(x.isascii() for x in texts)  # in the presser's language (zh)
        assert await post(w, press(english, "x")) == 200
        await w.settle()
        said = [a.text or "" for a in english.answers()]
        assert said and said[-1].isascii()  # an English code: answered in English
        # the webhook still serves real presses
        await join_and_start(w, g, sitter)  # their /start handled first (webhook: concurrent)
        await press_lobby(w.api, g, sitter, LobbyOp.SIT, 1)
        await w.settle()
        seated = w.table(g).st.seats[1]
        assert seated is not None and seated.user == sitter.id

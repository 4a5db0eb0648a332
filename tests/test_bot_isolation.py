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
from botkit import World, open_and_seat, people, world

from bot.buttons import LobbyOp
from bot.offline.localapi import SimGroup, SimUser
from bot.offline.localbot import WEBHOOK_SECRET
from bot.offline.simplayers import lobby_message, press_lobby

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

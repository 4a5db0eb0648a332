"""The local server delivers updates to a webhook as Telegram does: up to setWebhook's
``max_connections`` at once, one at a time per chat (a chat's updates in order), a delivery
the webhook does not take tried again before the chat's later updates."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
from aiohttp import web

from bot.offline.localapi import LocalBotApi


class Hook:
    """A slow webhook that records what arrives and how many deliveries overlap."""

    def __init__(self, refuse_first: int = 0) -> None:
        self.got: list[tuple[int, str]] = []  # (chat, text) in order of arrival
        self.flight: Counter[int] = Counter()
        self.most = self.most_per_chat = 0
        self.refuse = refuse_first  # the first N deliveries answered 500
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        update: dict[str, Any] = await request.json()
        message = update["message"]
        chat = message["chat"]["id"]
        self.flight[chat] += 1
        self.most = max(self.most, sum(self.flight.values()))
        self.most_per_chat = max(self.most_per_chat, self.flight[chat])
        try:
            await asyncio.sleep(0.05)
        finally:
            self.flight[chat] -= 1
        if self.refuse:
            self.refuse -= 1
            return web.Response(status=500)
        self.got.append((chat, message["text"]))
        return web.Response()


@asynccontextmanager
async def hooked(api: LocalBotApi, hook: Hook, **params: str) -> AsyncIterator[None]:
    app = web.Application()
    app.router.add_post("/hook", hook.handle)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    hook.url = f"http://127.0.0.1:{runner.addresses[0][1]}/hook"
    try:
        form = {"url": hook.url, **params}
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{api.base_url}{api.token}/setWebhook", data=form) as answer,
        ):
            assert answer.status == 200
        yield
    finally:
        await runner.cleanup()


async def test_deliveries_overlap_up_to_max_connections_and_each_chat_stays_in_order() -> None:
    async with LocalBotApi() as api:
        users = [api.user(100 + i, f"u{i}") for i in range(8)]
        hook = Hook()
        async with hooked(api, hook, max_connections="5"):
            for n in range(4):
                for u in users:
                    await u.send(f"{u.id}-{n}")
            await api.idle(quiet=0.2, timeout=30.0)
        assert api.max_connections == 5
        assert hook.most == 5  # several at once, never more than asked
        assert hook.most_per_chat == 1
        assert len(hook.got) == 32 and api.pushed == 32
        for u in users:
            assert [text for chat, text in hook.got if chat == u.id] == [
                f"{u.id}-{n}" for n in range(4)
            ]


async def test_a_refused_delivery_is_tried_again_before_the_chats_later_updates() -> None:
    async with LocalBotApi() as api:
        a, b = api.user(1, "a"), api.user(2, "b")
        hook = Hook(refuse_first=3)
        async with hooked(api, hook):
            for n in range(3):
                await a.send(f"a{n}")
                await b.send(f"b{n}")
            await api.idle(quiet=0.3, timeout=30.0)
        assert api.max_connections == 40
        assert api.push_failures == 3 and api.pushed == 6
        assert [t for c, t in hook.got if c == a.id] == ["a0", "a1", "a2"]
        assert [t for c, t in hook.got if c == b.id] == ["b0", "b1", "b2"]

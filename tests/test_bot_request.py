"""The bot's Bot API client (bot/request.py): form fields and uploads reach the server as PTB's
own client sends them, a slow server is a ``TimedOut``, an unreachable one a ``NetworkError``
whose message does not quote the URL (the token is in it)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from telegram import InputFile
from telegram.error import NetworkError, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter  # how PTB builds a call

from bot.request import AiohttpRequest

TOKEN = "123456:SECRET-token-part"


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []

    async def handle(request: web.Request) -> web.Response:
        form = await request.post()
        fields: dict[str, Any] = {}
        for name, value in form.items():
            if isinstance(value, web.FileField):
                fields[name] = (value.filename, value.file.read(), value.content_type)
            else:
                fields[name] = value
        seen.append({"method": request.method, "ua": request.headers.get("User-Agent", "")})
        seen[-1].update(fields)
        if request.match_info["method"] == "slow":
            await asyncio.sleep(2.0)
        return web.json_response({"ok": True, "result": True})

    app = web.Application()
    app.router.add_route("*", "/bot{token}/{method}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/bot{TOKEN}", seen
    finally:
        await runner.cleanup()


async def test_fields_and_an_upload_reach_the_server(
    server: tuple[str, list[dict[str, Any]]],
) -> None:
    base, seen = server
    request = AiohttpRequest(4)
    await request.initialize()
    try:
        plain = RequestData(
            [
                RequestParameter.from_input("chat_id", 42),
                RequestParameter.from_input("text", "出了 KK"),
            ]
        )
        status, body = await request.do_request(f"{base}/sendMessage", "POST", plain)
        assert (status, body) == (200, b'{"ok": true, "result": true}')
        photo = InputFile(b"\x89PNG fake picture", filename="gouji.png", attach=True)
        upload = RequestData(
            [
                RequestParameter.from_input("chat_id", 42),
                RequestParameter.from_input("photo", photo),
            ]
        )
        status, _ = await request.do_request(f"{base}/sendPhoto", "POST", upload)
        assert status == 200
    finally:
        await request.shutdown()
    assert seen[0]["chat_id"] == "42" and seen[0]["text"] == "出了 KK"
    assert "python-telegram-bot" in seen[0]["ua"]
    assert seen[1]["chat_id"] == "42"
    attached = [v for v in seen[1].values() if isinstance(v, tuple)]
    assert attached == [("gouji.png", b"\x89PNG fake picture", "image/png")]


async def test_a_slow_server_times_out_and_a_missing_one_is_a_network_error(
    server: tuple[str, list[dict[str, Any]]],
) -> None:
    base, _ = server
    request = AiohttpRequest(2, read_timeout=0.2)
    await request.initialize()
    try:
        with pytest.raises(TimedOut):
            await request.do_request(f"{base}/slow", "POST", RequestData([]))
        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with pytest.raises(NetworkError) as caught:
            await request.do_request(f"http://127.0.0.1:{port}/bot{TOKEN}/getMe", "POST")
        assert "SECRET" not in str(caught.value)
    finally:
        await request.shutdown()
    with pytest.raises(RuntimeError):  # used after shutdown: a clear error, not a hang
        await request.do_request(f"{base}/getMe", "POST")


async def test_a_plain_call_is_bounded_while_its_connection_opens() -> None:
    """A press's answer (the plain call) gives up when its connection does not open within
    the connect timeout, as PTB's calls do — not after the pool's and the read's (it counted
    those alone: 6 s here)."""
    with socket.socket() as server:  # a server whose backlog is full: a connect hangs
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        port = server.getsockname()[1]
        waiting = [socket.socket() for _ in range(3)]
        for s in waiting:
            s.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                s.connect(("127.0.0.1", port))
        await asyncio.sleep(0.1)
        request = AiohttpRequest(2, read_timeout=3.0, pool_timeout=3.0, connect_timeout=0.3)
        await request.initialize()
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            with pytest.raises(TimedOut):
                await request.call(f"http://127.0.0.1:{port}/bot{TOKEN}/answerCallbackQuery", {})
        finally:
            await request.shutdown()
            for s in waiting:
                s.close()
        assert loop.time() - start < 2.0


async def test_the_environments_proxy_is_used_and_looked_up_once_per_host(
    server: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """HTTP(S)_PROXY and NO_PROXY are honoured as httpx would, read once per host — never a
    trip through a thread for each call (aiohttp's ``trust_env`` makes two a call)."""
    import bot.request as R

    base, seen = server
    origin = base.split("/bot", 1)[0]  # the test server plays the proxy
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", origin)
    monkeypatch.setenv("NO_PROXY", "bypassed.test")
    looked: list[str] = []
    from aiohttp.helpers import get_env_proxy_for_url as real

    def lookup(url: Any) -> Any:
        looked.append(str(url.host))
        return real(url)

    monkeypatch.setattr(R, "get_env_proxy_for_url", lookup, raising=True)
    request = AiohttpRequest(2)
    await request.initialize()
    try:
        for method in ("getMe", "sendMessage", "answerCallbackQuery"):
            status, _ = await request.do_request(
                f"http://api.example.test/bot{TOKEN}/{method}", "POST", RequestData([])
            )
            assert status == 200  # reached the "proxy"
        assert request.proxy(f"http://bypassed.test/bot{TOKEN}/getMe") == (None, None)
    finally:
        await request.shutdown()
    assert len(seen) == 3
    assert looked == ["api.example.test", "bypassed.test"]


def test_a_sent_messages_keyboard_is_not_read_back_but_an_updates_is() -> None:
    """A sent or edited message comes back without its keyboard and entities (the bot never
    reads them, and PTB would build an object of every button); an update keeps them (a press
    is checked against its message's own keyboard)."""
    from bot.budget import Budgets
    from bot.intake import Intake

    keyboard = {"inline_keyboard": [[{"text": "出", "callback_data": "h1.1.p"}]]}
    sent = {"message_id": 5, "date": 1, "chat": {"id": 1, "type": "private"}, "text": "牌"}
    body = {"ok": True, "result": {**sent, "reply_markup": keyboard, "entities": []}}
    calls = AiohttpRequest(1)
    assert calls.parse_json_payload(json.dumps(body).encode())["result"] == sent
    polling = AiohttpRequest(1)
    polling.intake = Intake(Budgets())
    update = {"update_id": 3, "message": {**sent, "reply_markup": keyboard}}
    answer = {"ok": True, "result": [update]}
    assert polling.parse_json_payload(json.dumps(answer).encode())["result"] == [update]

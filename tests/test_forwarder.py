"""The round-robin forwarder in front of several webhooks: each request to the next backend in
turn, with its path, body and secret header; a backend that is gone, fails or hangs is skipped
for the next one; backends come and go while it runs."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import aiohttp
import pytest
from aiohttp import web

from bot.offline.forwarder import SECRET_HEADER, Forwarder


@dataclass
class Backend:
    """A tiny webhook: records what it got, answers with its name (or as told)."""

    name: str
    status: int = 200
    hang: float = 0.0
    got: list[tuple[str, bytes, str | None]] = field(default_factory=list)
    url: str = ""

    async def handle(self, request: web.Request) -> web.Response:
        self.got.append((request.path_qs, await request.read(), request.headers.get(SECRET_HEADER)))
        if self.hang:
            await asyncio.sleep(self.hang)
        return web.json_response({"by": self.name}, status=self.status)


@asynccontextmanager
async def serving(*backends: Backend) -> AsyncIterator[None]:
    runners = []
    for b in backends:
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", b.handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        b.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
        runners.append(runner)
    try:
        yield
    finally:
        for runner in runners:
            await runner.cleanup()


def closed_port() -> str:
    """A loopback URL nothing listens on (a killed process's port)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


async def post(fwd: Forwarder, body: bytes, path: str = "/hook") -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(fwd.url + path, data=body, headers={SECRET_HEADER: "s3"}) as response,
    ):
        return response.status, await response.text()


async def test_requests_go_round_robin_with_their_path_body_and_secret() -> None:
    a, b, c = Backend("a"), Backend("b"), Backend("c")
    async with serving(a, b, c), Forwarder([a.url, b.url, c.url]) as fwd:
        answers = [await post(fwd, f"u{i}".encode(), path="/hook?x=1") for i in range(6)]
    assert [text for _, text in answers] == [f'{{"by": "{n}"}}' for n in "abcabc"]
    assert all(status == 200 for status, _ in answers)
    assert a.got == [("/hook?x=1", b"u0", "s3"), ("/hook?x=1", b"u3", "s3")]
    assert [body for _, body, _ in b.got] == [b"u1", b"u4"]
    assert fwd.counts == {a.url: 2, b.url: 2, c.url: 2}


async def test_a_backend_gone_failing_or_hanging_is_skipped_and_no_request_is_lost() -> None:
    ok, failing, hanging = Backend("ok"), Backend("bad", status=502), Backend("slow", hang=2.0)
    gone = closed_port()
    async with (
        serving(ok, failing, hanging),
        Forwarder([gone, failing.url, hanging.url, ok.url], timeout=0.3) as fwd,
    ):
        answers = [await post(fwd, f"u{i}".encode()) for i in range(4)]
    assert answers == [(200, '{"by": "ok"}')] * 4  # each request taken, by the one that works
    assert [body for _, body, _ in ok.got] == [b"u0", b"u1", b"u2", b"u3"]
    assert fwd.counts == {ok.url: 4}
    # each request starts at the next backend in turn and goes on past those that fail
    assert fwd.failures == {gone: 1, failing.url: 2, hanging.url: 3}
    assert fwd.unanswered == 0


async def test_an_answer_below_500_is_passed_on_as_it_is() -> None:
    refusing = Backend("no", status=403)
    async with serving(refusing), Forwarder([refusing.url]) as fwd:
        assert await post(fwd, b"x") == (403, '{"by": "no"}')
    assert fwd.counts == {refusing.url: 1} and not fwd.failures


async def test_backends_come_and_go_while_it_runs() -> None:
    a, b = Backend("a"), Backend("b")
    async with serving(a, b), Forwarder() as fwd:
        status, _ = await post(fwd, b"nobody")
        assert status == 502 and fwd.unanswered == 1  # the sender will try again
        fwd.add(a.url)
        fwd.add(a.url)  # once only
        assert [await post(fwd, b"x") for _ in range(2)] == [(200, '{"by": "a"}')] * 2
        fwd.add(b.url)
        texts = {text for _, text in [await post(fwd, b"y") for _ in range(2)]}
        assert texts == {'{"by": "a"}', '{"by": "b"}'}
        fwd.remove(a.url)
        assert [await post(fwd, b"z") for _ in range(3)] == [(200, '{"by": "b"}')] * 3
    assert fwd.counts == {a.url: 3, b.url: 4}


@pytest.mark.parametrize("n", [2, 5])
async def test_concurrent_requests_are_spread_evenly(n: int) -> None:
    backends = [Backend(str(i), hang=0.05) for i in range(n)]
    async with serving(*backends), Forwarder([b.url for b in backends]) as fwd:
        answers = await asyncio.gather(*(post(fwd, str(i).encode()) for i in range(4 * n)))
    assert all(status == 200 for status, _ in answers)
    assert sorted(fwd.counts.values()) == [4] * n


def _press(chat: int, data: str) -> bytes:
    query = {"id": "1", "data": data, "message": {"message_id": 5, "chat": {"id": chat}}}
    return json.dumps({"update_id": 1, "callback_query": query}).encode()


def _said(chat: int) -> bytes:
    return json.dumps({"update_id": 1, "message": {"chat": {"id": chat}, "text": "/hand"}}).encode()


async def test_by_table_every_update_of_a_table_goes_to_one_backend() -> None:
    """Issue 35: a table's group messages, its lobby's presses and its players' presses in
    their private chats (the button names the table) reach one process, which alone holds
    it; another table's may go elsewhere."""
    backends = [Backend(n) for n in "abc"]
    async with serving(*backends), Forwarder([b.url for b in backends], by_table=True) as fwd:
        table = [_said(-100), _press(-100, "l1a.0.s2"), _press(7, "h1a.3.r5"), _press(8, "h1a.4.c")]
        other = [_said(-101), _press(-101, "l1b.0.s0"), _press(9, "h1b.2.c")]
        by = [await post(fwd, body) for body in (*table, *other, *table)]
    one = {text for _, text in by[:4]} | {text for _, text in by[7:]}
    assert len(one) == 1, by
    assert len({text for _, text in by[4:7]}) == 1, by

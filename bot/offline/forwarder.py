"""A round-robin HTTP forwarder in front of several bot processes' webhooks, as nginx's
``upstream`` with ``proxy_next_upstream error timeout http_500 http_502 http_503 http_504``
would be: each POST goes to the next backend in turn (``by_table``: every update of one table
to the same backend, as a load balancer routing by chat would — a group's updates by its
chat, a press in a player's private chat by the table its button names, so that each process
holds only the tables it serves); a backend that refuses the connection,
drops it, times out or answers 5xx is skipped for the next one, so a killed process costs no
update (the one it was handling is tried on another). Backends come and go while it runs::

    async with Forwarder() as fwd:           # listens on 127.0.0.1, a free port
        fwd.add("http://127.0.0.1:8001")
        hook = fwd.url + "/gouji-hook"        # what every process gives setWebhook
        ...
        fwd.remove("http://127.0.0.1:8001")
        fwd.counts                             # requests each backend answered
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable

import aiohttp
from aiohttp import web

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
_PASSED = (SECRET_HEADER, "Content-Type")  # the request headers handed on
_TABLE = re.compile(r"[a-z]([0-9a-z]{1,10})\.")  # a button's table (bot.buttons' wire form)
_KINDS = ("message", "edited_message", "my_chat_member", "chat_member", "chat_join_request")


def _chat(message: object) -> int | None:
    chat = message.get("chat") if isinstance(message, dict) else None
    chat_id = chat.get("id") if isinstance(chat, dict) else None
    return chat_id if isinstance(chat_id, int) else None


class TableRoutes:
    """Which table an update is about, to route it: a group's updates by the group's chat; a
    press in a private chat by the group of the table its button names (learned from the
    table's presses in its group, the lobby's first), else by the table."""

    def __init__(self) -> None:
        self.groups: dict[int, int] = {}  # table → its group's chat

    def key(self, body: bytes) -> int | None:
        try:
            update = json.loads(body)
        except ValueError:
            return None
        if not isinstance(update, dict):
            return None
        query = update.get("callback_query")
        if isinstance(query, dict):
            chat = _chat(query.get("message"))
            found = _TABLE.match(str(query.get("data", "")))
            table = int(found.group(1), 36) if found else 0
            if chat is not None and chat < 0:
                if table:
                    self.groups[table] = chat
                return chat
            return self.groups.get(table, table) if table else chat
        for kind in _KINDS:
            chat = _chat(update.get(kind))
            if chat is not None:
                return chat
        return None


class Forwarder:
    """``url``: where it listens (``http://127.0.0.1:<port>``) once started. ``backends``:
    base URLs (scheme, host, port); the request's path and query are appended. ``counts``:
    requests each backend answered (any status below 500); ``failures``: attempts a backend
    failed (refused, dropped, timed out, 5xx), each tried again on the next backend."""

    def __init__(
        self, backends: Iterable[str] = (), *, timeout: float = 5.0, by_table: bool = False
    ) -> None:
        self.backends: list[str] = list(backends)
        self.routes = TableRoutes() if by_table else None
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        self.counts: Counter[str] = Counter()
        self.failures: Counter[str] = Counter()
        self.unanswered = 0  # requests no backend took (answered 502)
        self.url = ""
        self._turn = 0
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    def add(self, backend: str) -> None:
        if backend not in self.backends:
            self.backends.append(backend)

    def remove(self, backend: str) -> None:
        if backend in self.backends:
            self.backends.remove(backend)

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{path:.*}", self._forward)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=1.0
        )
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        # a connection per request: a backend restarted on the same port is met afresh
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(force_close=True), trust_env=False
        )

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def __aenter__(self) -> Forwarder:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _order(self, body: bytes) -> list[str]:
        """The backends to try for one request: the next in turn (or the table's) first, then
        the others."""
        backends = list(self.backends)
        if not backends:
            return []
        key = self.routes.key(body) if self.routes is not None else None
        if key is None:
            first = self._turn % len(backends)
            self._turn = first + 1
        else:
            first = key % len(backends)
        return backends[first:] + backends[:first]

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        headers = {h: request.headers[h] for h in _PASSED if h in request.headers}
        for backend in self._order(body):
            try:
                async with self._session.request(
                    request.method,
                    backend + request.path_qs,
                    data=body,
                    headers=headers,
                    timeout=self.timeout,
                ) as answer:
                    if answer.status >= 500:
                        self.failures[backend] += 1
                        continue
                    payload = await answer.read()
                    self.counts[backend] += 1
                    kind = answer.headers.get("Content-Type")
                    return web.Response(
                        status=answer.status,
                        body=payload,
                        headers={"Content-Type": kind} if kind else None,
                    )
            except (aiohttp.ClientError, TimeoutError):
                self.failures[backend] += 1
        self.unanswered += 1
        return web.Response(status=502, text="no backend took the request")

"""A round-robin HTTP forwarder in front of several bot processes' webhooks, as nginx's
``upstream`` with ``proxy_next_upstream error timeout http_500 http_502 http_503 http_504``
would be: each POST goes to the next backend in turn; a backend that refuses the connection,
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

from collections import Counter
from collections.abc import Iterable

import aiohttp
from aiohttp import web

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
_PASSED = (SECRET_HEADER, "Content-Type")  # the request headers handed on


class Forwarder:
    """``url``: where it listens (``http://127.0.0.1:<port>``) once started. ``backends``:
    base URLs (scheme, host, port); the request's path and query are appended. ``counts``:
    requests each backend answered (any status below 500); ``failures``: attempts a backend
    failed (refused, dropped, timed out, 5xx), each tried again on the next backend."""

    def __init__(self, backends: Iterable[str] = (), *, timeout: float = 5.0) -> None:
        self.backends: list[str] = list(backends)
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

    def _order(self) -> list[str]:
        """The backends to try for one request: the next in turn first, then the others."""
        backends = list(self.backends)
        if not backends:
            return []
        first = self._turn % len(backends)
        self._turn = first + 1
        return backends[first:] + backends[:first]

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        headers = {h: request.headers[h] for h in _PASSED if h in request.headers}
        for backend in self._order():
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

"""The local Bot API server: aiohttp on 127.0.0.1 in the caller's event loop, speaking the
Bot API's wire format (form or multipart bodies, JSON answers judged by HTTP status)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from .limits import LIMITED, Limiter, RateLimits
from .methods import METHODS, Params, call
from .records import JSON, ApiError, SentMessage
from .trace import trace_from_env
from .webhook import chat_of, connections, free
from .world import SimGroup, SimUser, World

_PUSH_TIMEOUT = aiohttp.ClientTimeout(total=10.0)  # a webhook delivery's answer (Telegram: ~60 s)

_ERRORS = {500: "Internal Server Error", 502: "Bad Gateway"}
# getUpdates' default when allowed_updates is empty (as Telegram documents it)
_NOT_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


@dataclass(frozen=True)
class ApiCall:
    """One request the bot made, with the update (by chat or callback query) it follows."""

    method: str
    chat_id: int | None
    time: float  # time.monotonic() at arrival
    status: int
    error: str | None = None
    follows: int | None = None  # update_id
    query_id: str | None = None
    params: dict[str, str] = field(default_factory=dict, repr=False)
    peer: int = 0  # the client's port (which bot process: bot.offline.localapi.trace)


@dataclass
class _Delivered:
    update_id: int
    at: float
    closed: bool = False
    chat_id: int | None = None  # the chat the update is about


def _bypass_proxy() -> None:
    """httpx sends loopback traffic to HTTP(S)_PROXY unless NO_PROXY names it."""
    for var in ("NO_PROXY", "no_proxy"):
        names = [n for n in os.environ.get(var, "").split(",") if n]
        missing = [n for n in ("127.0.0.1", "localhost") if n not in names]
        os.environ[var] = ",".join(names + missing)


class LocalBotApi:
    """A Bot API server for one bot token with a simulated world of users and groups, as
    strict as Telegram: callback queries answerable for 15 s, messages older than 48 h
    undeletable (see :meth:`advance`); flood limits as ``rate`` says (Telegram's unless given:
    :meth:`RateLimits.telegram`)."""

    def __init__(
        self,
        *,
        token: str = "123456:LOCAL",
        bot_username: str = "gouji_bot",
        rate: RateLimits | None = None,
    ) -> None:
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.world = World(self.bot_id, bot_username)
        self.calls: list[ApiCall] = []
        self.listeners: list[Callable[[ApiCall], None]] = []  # told of every call, as it ends
        self._trace = trace_from_env()  # each 429 written with its context
        if self._trace is not None:
            self.listeners.append(self._trace)
        self.base_url = self.base_file_url = ""
        self._limiter = self._make_limiter(RateLimits.telegram() if rate is None else rate)
        self._faults: dict[str, list[int]] = {}
        self._runner: web.AppRunner | None = None
        self._pusher: asyncio.Task[None] | None = None
        self._pushing_stops = False
        self.pushed = 0  # updates delivered by webhook
        self.push_failures = 0  # webhook deliveries the bot did not take (retried)
        self.max_connections = 40  # setWebhook's: deliveries in flight at once
        self._pushing = 0  # deliveries in flight
        self._closing = False
        self._in_flight = 0
        self.last_delivered = 0  # the newest update_id a getUpdates answer carried
        self._allowed: frozenset[str] | None = None
        self._delivered: dict[int, float] = {}
        self._open_chats: dict[int, list[_Delivered]] = {}
        self._open_queries: dict[str, _Delivered] = {}
        self._last: dict[int | str, int] = {}  # chat id or query id → last delivered update
        self._latency: list[float] = []
        self._query_at: dict[str, float] = {}  # a press's query id → when it was delivered
        self._answers: list[float] = []  # seconds from a press's delivery to its answer
        self.uploads: list[int] = []  # the size of each file uploaded (not sent by file_id)
        self._first_calls: list[str] = []  # the method of each first call, as in _latency
        self._latency_chats: list[int | None] = []  # the chat of each, as in _latency
        self._methods = {name.lower(): name for name in [*METHODS, "getUpdates"]}
        _bypass_proxy()

    # ---- lifecycle
    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._file)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=1.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}/bot"
        self.base_file_url = f"http://127.0.0.1:{port}/file/bot"
        self._pushing_stops = False
        self._pusher = asyncio.get_running_loop().create_task(self._push_updates())

    async def stop(self) -> None:
        self.release_polls()
        if self._trace is not None:
            self._trace.close()
        if self._pusher is not None:
            self._pushing_stops = True
            try:
                await asyncio.wait_for(asyncio.shield(self._pusher), 15.0)
            except TimeoutError:
                self._pusher.cancel()
            self._pusher = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def release_polls(self) -> None:
        """Answer parked getUpdates at once, now and from now on (before stopping a client)."""
        self._closing = True
        self.world.wakeup.set()

    def resume_polls(self) -> None:
        """Let getUpdates wait again (a new client, e.g. the bot restarted)."""
        self._closing = False

    async def __aenter__(self) -> LocalBotApi:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ---- the simulated world
    @property
    def rate(self) -> RateLimits:
        return self._limiter.limits if self._limiter else RateLimits.off()

    @rate.setter
    def rate(self, limits: RateLimits) -> None:
        """New limits, their budgets full."""
        self._limiter = self._make_limiter(limits)

    @staticmethod
    def _make_limiter(limits: RateLimits) -> Limiter | None:
        return Limiter(limits) if limits.enabled else None

    def advance(self, seconds: float) -> None:
        """Move Telegram's clock forward: callback queries and messages age (past 15 s a query
        can't be answered; past 48 h a message can't be deleted and a press on it carries an
        InaccessibleMessage), flood waits and rate windows pass. The bot's clock is its own."""
        self.world.skew += seconds

    def user(
        self,
        user_id: int,
        first_name: str,
        *,
        language_code: str | None = "zh",
        username: str | None = None,
    ) -> SimUser:
        user = SimUser(self.world, user_id, first_name, language_code, username)
        self.world.users[user_id] = user
        return user

    def group(
        self, chat_id: int, title: str, *, forum: bool = False, admins: Iterable[int] = ()
    ) -> SimGroup:
        """A group the bot is in; put ``api.bot_id`` in ``admins`` to make the bot an admin."""
        group = SimGroup(self.world, chat_id, title, forum, admins)
        self.world.groups[chat_id] = group
        return group

    def messages(
        self, chat_id: int, *, thread_id: int | None = None, include_deleted: bool = False
    ) -> list[SentMessage]:
        return [
            m
            for m in self.world.by_chat.get(chat_id, [])
            if (include_deleted or not m.deleted)
            and (thread_id is None or m.thread_id == thread_id)
        ]

    def message(self, chat_id: int, message_id: int) -> SentMessage:
        return self.world.message(chat_id, message_id)

    def fail_next(self, method: str, status: int = 500, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` fail with a server error."""
        self._faults.setdefault(method, []).extend([status] * times)

    # ---- figures
    def counts(self) -> Counter[str]:
        return Counter(c.method for c in self.calls if c.status == 200)

    def latency(self) -> list[float]:
        """Seconds from an update's delivery to the bot's first call about its chat or query."""
        return list(self._latency)

    def answer_latency(self) -> list[float]:
        """Seconds from each press's delivery to the bot's answer to it (answerCallbackQuery),
        answered or refused."""
        return list(self._answers)

    def latency_chats(self) -> list[int | None]:
        """The chat each of :meth:`latency` is about (None: not known)."""
        return list(self._latency_chats)

    def first_calls(self) -> list[str]:
        """The method of each :meth:`latency`'s first call, in the same order."""
        return list(self._first_calls)

    def stats(self) -> dict[str, Any]:
        statuses = Counter(c.status for c in self.calls)
        dropped = sum(1 for at in self._delivered.values() if not at)
        lat = sorted(self._latency)
        return {
            "calls": dict(self.counts()),
            "rate_limited": statuses[429],
            "bad_request": statuses[400],
            "forbidden": statuses[403],
            "server_errors": sum(n for s, n in statuses.items() if s >= 500),
            "messages_per_chat": {c: len(ms) for c, ms in self.world.by_chat.items()},
            "updates_delivered": sum(1 for at in self._delivered.values() if at),
            "updates_unanswered": len(self._delivered) - len(self._latency) - dropped,
            "latency_ms": {
                "n": len(lat),
                "median": round(statistics.median(lat) * 1000, 2) if lat else None,
                "p95": round(lat[int(len(lat) * 0.95)] * 1000, 2) if lat else None,
                "max": round(lat[-1] * 1000, 2) if lat else None,
            },
        }

    def calm(self) -> bool:
        """No request of the bot's in flight (a long poll aside) and every update fetched."""
        return self._in_flight == 0 and self._pushing == 0 and self.world.undelivered == 0

    async def idle(self, quiet: float = 0.2, timeout: float = 10.0) -> None:
        """Wait until no request is in flight, every update was fetched, and nothing happened
        for ``quiet`` s. ``quiet`` also covers the client's own time between two calls of one
        handler (answering a press, then editing the message: more than 50 ms once on a
        loaded CI machine). A handler that computes longer than ``quiet`` before its first
        call (rendering, a timer) needs a larger ``quiet``. TimeoutError if the bot never
        settles."""
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            if (
                self._in_flight == 0
                and self._pushing == 0
                and self.world.undelivered == 0
                and now - self.world.last_activity >= quiet
            ):
                return
            if now > deadline:
                raise TimeoutError(
                    f"not idle after {timeout} s: {self._in_flight} requests in flight, "
                    f"{self.world.undelivered} updates not fetched, {self._pushing} being pushed"
                )
            await asyncio.sleep(quiet / 4)

    # ---- HTTP
    async def _file(self, request: web.Request) -> web.Response:
        data = self.world.files.get(request.match_info["path"])
        if request.match_info["token"] != self.token or data is None:
            return web.json_response(
                {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
            )
        return web.Response(body=data)

    async def _handle(self, request: web.Request) -> web.Response:
        now = time.monotonic()
        name = self._methods.get(request.match_info["method"].lower(), request.match_info["method"])
        polling = name == "getUpdates"
        self._in_flight += not polling
        self.world.last_activity = now
        try:
            form = await request.post()
            params = Params(name, form)
            try:
                named_chat: int | None = params.chat_id()
            except ApiError:
                named_chat = None
            query_id = params.text("callback_query_id")
            follows = self._follow(named_chat, query_id, now, name)
            if name == "answerCallbackQuery" and query_id in self._query_at:
                self._answers.append(now - self._query_at.pop(query_id))
            query = self.world.queries.get(query_id or "")
            chat_id = query.message.chat_id if query else named_chat
            if request.match_info["token"] != self.token:
                status, result = 401, ApiError(401, "Unauthorized")
            else:
                status, result = await self._answer(name, params, chat_id, now)
        finally:
            self._in_flight -= not polling
            self.world.last_activity = time.monotonic()
        if isinstance(result, ApiError):
            body: JSON = {"ok": False, "error_code": status, "description": result.description}
            if result.parameters:
                body["parameters"] = result.parameters
        else:
            body = {"ok": True, "result": result}
        shown = {k: v if isinstance(v, str) else "<file>" for k, v in form.items()}
        if name == "setWebhook" and status == 200:
            self.max_connections = connections(shown.get("max_connections", ""))
        if status == 200:
            self.uploads += [_size(v) for v in form.values() if not isinstance(v, str)]
        error = result.description if isinstance(result, ApiError) else None
        peer = request.transport.get_extra_info("peername") if request.transport else None
        port = peer[1] if isinstance(peer, tuple) else 0
        record = ApiCall(name, chat_id, now, status, error, follows, query_id, shown, port)
        self.calls.append(record)
        for listener in self.listeners:
            listener(record)
        return web.json_response(body, status=status)

    async def _answer(
        self, name: str, params: Params, chat_id: int | None, now: float
    ) -> tuple[int, Any]:
        faults = self._faults.get(name)
        if faults:
            status = faults.pop(0)
            return status, ApiError(status, _ERRORS.get(status, "Server Error"))
        if name == "getUpdates":
            if self.world.webhook_url:  # as Telegram: one way of getting updates at a time
                return 409, ApiError(
                    409, "Conflict: can't use getUpdates method while webhook is active"
                )
            return 200, await self._get_updates(params)
        limiter = self._limiter if name in LIMITED and chat_id is not None else None
        clock = self.world.clock()
        try:
            if limiter is not None and chat_id is not None:
                wait = limiter.wait(chat_id, clock)
                if wait > 0:
                    after = limiter.refuse(chat_id, wait, clock)
                    raise ApiError(
                        429, f"Too Many Requests: retry after {after}", {"retry_after": after}
                    )
            result = call(self.world, name, params.form)
            if limiter is not None and chat_id is not None:
                limiter.spend(chat_id, clock)
            return 200, result
        except ApiError as exc:
            return exc.status, exc

    # ---- updates by webhook
    async def _push_updates(self) -> None:
        """While a webhook is set, POST the updates to it as Telegram does (with the secret
        token header): up to ``max_connections`` (setWebhook's) deliveries at once, but one at
        a time per chat, so that each chat's updates arrive in order (a press's chat: its
        message's; a private chat's: its user's); one the bot does not answer with 200 is tried
        again before the chat's later ones."""
        busy: set[object] = set()  # the chats with a delivery in flight
        pushes: set[asyncio.Task[None]] = set()
        async with aiohttp.ClientSession(trust_env=False) as session:
            while not self._pushing_stops:
                w = self.world
                # loopback only: a webhook set elsewhere (a test of `check`) is never called
                local = w.webhook_url.startswith(("http://127.0.0.1:", "http://localhost:"))
                batch = self._wanted() if local else []
                for update in batch:
                    if len(pushes) >= self.max_connections:
                        break
                    chat = chat_of(update)
                    if chat in busy:
                        continue  # its earlier update first
                    busy.add(chat)
                    push = asyncio.create_task(self._push(session, update))
                    push.add_done_callback(functools.partial(free, busy, chat))
                    pushes.add(push)
                    push.add_done_callback(pushes.discard)
                # a plain sleep (asyncio.wait_for on the wakeup event can swallow the
                # cancellation that stops this task, Python < 3.12)
                await asyncio.sleep(0.005 if pushes else 0.02)
            if pushes:
                await asyncio.wait(pushes)

    async def _push(self, session: aiohttp.ClientSession, update: JSON) -> None:
        """One delivery of ``update``; counted delivered from the moment it is sent (the bot
        may call about it before its answer is back)."""
        w = self.world
        headers = {"X-Telegram-Bot-Api-Secret-Token": w.webhook_secret}
        self._pushing += 1
        known = update["update_id"] in self._delivered
        self._deliver(update, time.monotonic())
        try:
            async with session.post(
                w.webhook_url, json=update, headers=headers, timeout=_PUSH_TIMEOUT
            ) as response:
                ok = response.status == 200
        except (aiohttp.ClientError, TimeoutError):
            ok = False
        finally:
            self._pushing -= 1
        if ok:
            self.pushed += 1
            w.updates = [u for u in w.updates if u is not update]
            return
        if not known:
            self._undeliver(update)
        self.push_failures += 1
        await asyncio.sleep(0.1)  # the chat waits a moment before it is tried again

    # ---- updates
    async def _get_updates(self, p: Params) -> list[JSON]:
        w = self.world
        allowed = p.json("allowed_updates")
        if isinstance(allowed, list):
            self._allowed = frozenset(allowed) if allowed else None
        offset = p.opt_int("offset")
        if offset is not None and offset > 0:
            w.updates = [u for u in w.updates if u["update_id"] >= offset]
        limit = min(max(p.opt_int("limit") or 100, 1), 100)
        deadline = time.monotonic() + float(p.text("timeout") or 0)
        while True:
            batch = self._wanted()[:limit]
            remaining = deadline - time.monotonic()
            if batch or self._closing or remaining <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(w.wakeup.wait(), remaining)
        now = time.monotonic()
        for update in batch:
            self._deliver(update, now)
        return batch

    def _wanted(self) -> list[JSON]:
        keep: list[JSON] = []
        for update in self.world.updates:
            kind = next(k for k in update if k != "update_id")
            allowed = kind in self._allowed if self._allowed else kind not in _NOT_BY_DEFAULT
            if allowed:
                keep.append(update)
            elif update["update_id"] not in self._delivered:
                self._delivered[update["update_id"]] = 0.0  # dropped, as Telegram does
                self.world.undelivered -= 1
        self.world.updates = keep
        return keep

    def _deliver(self, update: JSON, now: float) -> None:
        update_id = update["update_id"]
        if update_id in self._delivered:
            return  # a repeat after a lost answer
        self._delivered[update_id] = now
        self.last_delivered = max(self.last_delivered, update_id)
        self.world.undelivered -= 1
        body = next(v for k, v in update.items() if k != "update_id")
        query_id = body.get("id") if "chat_instance" in body else None
        chat = (body.get("message") or body).get("chat")
        chat_id = chat.get("id") if isinstance(chat, dict) else None
        record = _Delivered(update_id, now, chat_id=chat_id)
        if chat_id is not None:
            self._open_chats.setdefault(chat_id, []).append(record)
            self._last[chat_id] = update_id
        if query_id is not None:
            self._open_queries[query_id] = record
            self._query_at[query_id] = now
            self._last[query_id] = update_id

    def _undeliver(self, update: JSON) -> None:
        """A delivery that failed: the update waits again, as if never sent."""
        record = self._delivered.pop(update["update_id"], None)
        if record is None:
            return
        self.world.undelivered += 1
        for records in self._open_chats.values():
            records[:] = [r for r in records if r.update_id != update["update_id"]]
        for query_id, open_record in list(self._open_queries.items()):
            if open_record.update_id == update["update_id"]:
                del self._open_queries[query_id]
                self._query_at.pop(query_id, None)

    def _follow(
        self, chat_id: int | None, query_id: str | None, now: float, method: str = ""
    ) -> int | None:
        """Close the delivered updates this call is the first about (by the ``chat_id`` it
        names, or the callback query it answers); returns the update the call follows."""
        done = self._open_chats.pop(chat_id, []) if chat_id is not None else []
        if query_id is not None and query_id in self._open_queries:
            done.append(self._open_queries.pop(query_id))
        for record in done:
            if not record.closed:
                record.closed = True
                self._latency.append(now - record.at)
                self._first_calls.append(method)
                self._latency_chats.append(record.chat_id)
        if query_id is not None and query_id in self._last:
            return self._last[query_id]
        return self._last.get(chat_id) if chat_id is not None else None


def _size(field: object) -> int:
    """The bytes of an uploaded file field (an aiohttp FileField or bytes)."""
    if isinstance(field, web.FileField):
        at = field.file.tell()
        size = field.file.seek(0, 2)  # its end: its size, read or not
        field.file.seek(at)
        return size
    return len(field) if isinstance(field, bytes | bytearray) else 0

"""Webhook mode: Telegram (or a reverse proxy in front of several bot processes) POSTs each
update here. An update is answered once it has been handled, not when it arrives (PTB's own
webhook server answers at once and handles later): a process killed while handling it never
answers, so Telegram — or the proxy, trying the next process — delivers it again, and the
update is not lost. Each ``update_id`` is handled once (:mod:`bot.seen`: stored, across
restarts and processes); a body that is not an update is answered 400.

Every request must carry the secret token (``X-Telegram-Bot-Api-Secret-Token``); anything else
is refused before it is read.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import signal
from typing import TYPE_CHECKING, Any

from aiohttp import web
from telegram import Update

from .answers import ANSWERING, by_query
from .seen import Seen, UpdateLog, update_log

if TYPE_CHECKING:
    from .app import GoujiApp

log = logging.getLogger("gouji.webhook")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_BODY = 1 << 20  # an update is a few kB; Telegram's largest are far below this


def parse_update(body: bytes, app: GoujiApp) -> Update | None:
    """The update a webhook body carries, or None for anything else (the answer is 400, never
    a traceback): not JSON, nested beyond reason, not an object, no integer ``update_id``,
    or an object Telegram's types do not read."""
    data = update_json(body)
    return None if data is None else read_update(data, app)


def update_json(body: bytes) -> dict[str, Any] | None:
    """A webhook body's update as JSON, or None when it is not one (see :func:`parse_update`)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    update_id = data.get("update_id")
    if not isinstance(update_id, int) or isinstance(update_id, bool) or update_id < 0:
        return None
    return data


def read_update(data: dict[str, Any], app: GoujiApp) -> Update | None:
    """Telegram's types of an update's JSON, or None when they do not read it."""
    try:
        return Update.de_json(data, app.bot)
    except Exception:  # a malformed part (a field of the wrong type)
        log.info("a webhook body that is not an update was refused")
        return None


class WebhookServer:
    """The bot's webhook: ``path`` on ``listen:port``."""

    def __init__(self, app: GoujiApp, path: str, secret: str, listen: str, port: int) -> None:
        self.app = app
        self.path = "/" + path.lstrip("/")
        self.secret = secret.encode()
        self.listen = listen
        self.port = port
        self.handled = 0
        self.repeated = 0  # updates delivered again after they were handled
        rt = app.bot_data.rt
        self.seen: UpdateLog = update_log(rt.storage if rt is not None else None)
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        web_app = web.Application(client_max_size=MAX_BODY)
        web_app.router.add_post(self.path, self._update)
        self._runner = web.AppRunner(web_app, access_log=None, handle_signals=False)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.listen, self.port).start()
        log.info("webhook listening on %s:%d%s", self.listen, self.port, self.path)

    async def stop(self) -> None:
        """No new update is taken; those being handled are handled to their end."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _update(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self.secret):
            log.warning("a webhook request without the secret token was refused")
            return web.Response(status=403)
        data = update_json(await request.read())
        if data is None:
            return web.Response(status=400)
        rt = self.app.bot_data.rt
        intake = rt.intake if rt is not None else None
        if rt is not None and intake is not None and intake.junk_press(data):
            rt.updates.passed(data["update_id"])
            return web.Response(status=200)  # a press of junk: answered (or not) already
        update = read_update(data, self.app)
        if update is None:
            return web.Response(status=400)
        query = update.callback_query  # a press: answered soon after now (bot.answers)
        within = rt.answer_within if rt is not None else None
        call = rt.answer_call if rt is not None else None
        answering = by_query(query, within, call) if query is not None else None
        ANSWERING.set(answering)
        seen = await self.seen.claim(update.update_id)
        if seen != Seen.NEW and answering is not None:
            answering.cancel()  # answered where it was (or is being) handled
        if seen == Seen.DONE:  # delivered again: handled already
            self.repeated += 1
            return web.Response(status=200)
        if seen == Seen.BUSY:  # being handled by another process (or request): later
            return web.Response(status=503)
        if rt is not None and intake is not None and intake.repeat(data):
            # a story command whose answer waits already: handled (once) by changing nothing
            rt.updates.passed(update.update_id)
            await self.seen.done(update.update_id)
            self.handled += 1
            return web.Response(status=200)
        processor = self.app.update_processor
        try:
            await processor.process_update(update, self.app.process_update(update))
        except BaseException:
            await self.seen.release(update.update_id)
            raise
        await self.seen.done(update.update_id)
        self.handled += 1
        return web.Response(status=200)


async def serve(
    app: GoujiApp,
    *,
    url: str,
    path: str,
    secret: str,
    listen: str,
    port: int,
    stop: asyncio.Event | None = None,
) -> None:
    """Run the bot on its webhook until SIGTERM or SIGINT (or ``stop``): started as PTB's
    ``run_webhook`` would start it, the webhook registered, and at the end stopped as a
    SIGTERM stops it (updates being handled end, the sender drains, storage closes)."""
    from .app import post_init, post_shutdown

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with app:
        await post_init(app)
        await app.start()
        server = WebhookServer(app, path, secret, listen, port)
        await server.start()
        try:
            await app.bot.set_webhook(url, secret_token=secret, allowed_updates=Update.ALL_TYPES)
            await stop.wait()
        finally:
            await server.stop()
            await app.stop()
            await post_shutdown(app)

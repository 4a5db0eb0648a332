"""Webhook mode: Telegram (or a reverse proxy in front of several bot processes) POSTs each
update here. An update is answered once it has been handled, not when it arrives (PTB's own
webhook server answers at once and handles later): a process killed while handling it never
answers, so Telegram — or the proxy, trying the next process — delivers it again, and the
update is not lost. Handled twice is harmless: a press counts at its table's version only, and
the version moved on if the first try was stored.

Every request must carry the secret token (``X-Telegram-Bot-Api-Secret-Token``); anything else
is refused before it is read.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import signal
from typing import TYPE_CHECKING

from aiohttp import web
from telegram import Update

if TYPE_CHECKING:
    from .app import GoujiApp

log = logging.getLogger("gouji.webhook")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_BODY = 1 << 20  # an update is a few kB; Telegram's largest are far below this


class WebhookServer:
    """The bot's webhook: ``path`` on ``listen:port``."""

    def __init__(self, app: GoujiApp, path: str, secret: str, listen: str, port: int) -> None:
        self.app = app
        self.path = "/" + path.lstrip("/")
        self.secret = secret.encode()
        self.listen = listen
        self.port = port
        self.handled = 0
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
        try:
            data = json.loads(await request.read())
            update = Update.de_json(data, self.app.bot)
        except (ValueError, TypeError, KeyError):
            return web.Response(status=400)
        if update is None:
            return web.Response(status=400)
        processor = self.app.update_processor
        await processor.process_update(update, self.app.process_update(update))
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

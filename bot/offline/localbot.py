"""The real bot against a local Bot API server, inside this process (tests, the demo)."""

from __future__ import annotations

import asyncio
import socket
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from telegram import Update

from ..app import GoujiApp, Runtime, build_app, post_init, post_shutdown
from ..pacing import Pacing
from ..storage import storage_for
from ..tables import Config
from ..timers import LoopTimers
from ..webhook import WebhookServer
from .localapi import LocalBotApi


@asynccontextmanager
async def local_bot(
    api: LocalBotApi,
    db_path: str,
    cfg: Config,
    *,
    pacing: Pacing | None = None,
    poll_timeout: int = 5,
    processes: int = 0,
    timers: LoopTimers | None = None,
    webhook: bool = False,
) -> AsyncIterator[GoujiApp]:
    """The real bot against a local Bot API server — polling it, or with ``webhook`` running
    PTB's webhook server on loopback for the server to post updates to, the secret token
    checked — until the block ends (then it stops as it would on SIGTERM: the sender drains,
    storage closes)."""
    app = build_app(
        api.token,
        storage_for(db_path),
        cfg,
        base_url=api.base_url,
        base_file_url=api.base_file_url,
        pacing=pacing or Pacing.off(),
        processes=processes,
        timers=timers,
        answer_within=None,  # tests read the handlers' answers, however loaded the machine
    )
    _fetched_before[app] = api.last_delivered  # updates an earlier bot fetched
    async with app:
        await post_init(app)
        await app.start()
        assert app.updater is not None
        server: WebhookServer | None = None
        if webhook:  # the bot's own webhook server (bot.webhook), as `python -m bot` runs it
            port = _free_port()
            server = WebhookServer(app, "gouji-hook", WEBHOOK_SECRET, "127.0.0.1", port)
            await server.start()
            await app.bot.set_webhook(
                f"http://127.0.0.1:{port}/gouji-hook",
                secret_token=WEBHOOK_SECRET,
                allowed_updates=Update.ALL_TYPES,
            )
        else:
            await app.updater.start_polling(poll_interval=0, timeout=poll_timeout)
        try:
            yield app
        finally:
            api.release_polls()
            if server is not None:
                await server.stop()
            if app.updater.running:
                await app.updater.stop()
            await app.stop()
            await post_shutdown(app)
            api.resume_polls()


WEBHOOK_SECRET = "local-webhook-secret"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


_fetched_before: weakref.WeakKeyDictionary[GoujiApp, int] = weakref.WeakKeyDictionary()


def runtime(app: GoujiApp) -> Runtime:
    rt = app.bot_data.rt
    assert rt is not None
    return rt


async def settle(api: LocalBotApi, app: GoujiApp, timeout: float = 30.0) -> None:
    """Wait until the bot is idle: the server has delivered every update and answered every
    call, and the bot has handled every update it fetched, sent everything it posted, and
    has no timer running or about to fire (``Runtime.busy``). Checked twice, a loop turn
    apart. TimeoutError if it never is."""
    rt = runtime(app)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    before = _fetched_before.get(app, 0)

    def idle() -> bool:
        fetched = api.last_delivered if api.last_delivered > before else 0
        return api.calm() and not rt.busy(fetched)

    while True:
        if idle():
            await asyncio.sleep(0)
            if idle():
                return
        if loop.time() > deadline:
            raise TimeoutError(f"the bot is not idle after {timeout} s")
        await asyncio.sleep(0.005)

"""Running the bot: long polling against Telegram (``python -m bot``), or inside a test, the demo
or the bench against a local Bot API server."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from telegram import Update
from telegram.ext import Application

from .app import Runtime, build_app, post_init, post_shutdown
from .localapi import LocalBotApi
from .service import Config
from .settings import Settings
from .storage import SqliteStorage

log = logging.getLogger("gouji")


def run_polling(settings: Settings) -> None:
    """The bot for real: long polling until interrupted (Ctrl-C, SIGTERM)."""
    assert settings.token
    storage = SqliteStorage(settings.db_path)
    cfg = Config(ai_delay=settings.ai_delay, seed=settings.seed, turn_s=settings.turn_s)
    app = build_app(
        settings.token,
        storage,
        cfg,
        lang=settings.lang,
        base_url=settings.base_url,
        base_file_url=_file_url(settings.base_url),
        group_interval=settings.group_pace,
        private_interval=settings.private_pace,
        # Telegram's own limits are kept by AIORateLimiter; GOUJI_PACE=0 (a local test server
        # without limits) turns all pacing off
        rate_limit=settings.group_pace > 0,
        processes=settings.processes,
    )
    app.run_polling(allowed_updates=Update.ALL_TYPES, drop_pending_updates=False)


def _file_url(base_url: str | None) -> str | None:
    if not base_url:
        return None
    return base_url[: -len("/bot")] + "/file/bot" if base_url.endswith("/bot") else None


@asynccontextmanager
async def local_bot(
    api: LocalBotApi,
    db_path: str,
    cfg: Config,
    *,
    lang: str = "zh",
    group_interval: float = 0.0,
    private_interval: float = 0.0,
    rate_limit: bool = False,
    poll_timeout: int = 5,
    processes: int = 0,
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """The real bot, polling a local Bot API server, until the block ends (then it stops as it
    would on SIGTERM: the sender drains, storage closes)."""
    storage = SqliteStorage(db_path)
    app = build_app(
        api.token,
        storage,
        cfg,
        lang=lang,
        base_url=api.base_url,
        base_file_url=api.base_file_url,
        group_interval=group_interval,
        private_interval=private_interval,
        rate_limit=rate_limit,
        processes=processes,
    )
    async with app:
        await post_init(app)
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=poll_timeout)
        try:
            yield app
        finally:
            api.release_polls()
            await app.updater.stop()
            await app.stop()
            await post_shutdown(app)
            api.resume_polls()


def runtime(app: Application[Any, Any, Any, Any, Any, Any]) -> Runtime:
    rt = app.bot_data["rt"]
    assert isinstance(rt, Runtime)
    return rt

"""Running the bot for real: long polling against Telegram (``python -m bot`` with a token).
The offline world (a local Bot API server, simulated players) is in :mod:`bot.offline`; nothing
here imports it."""

from __future__ import annotations

from telegram import Update

from .app import build_app
from .environment import Environment
from .storage import SqliteStorage
from .tables import Config


def run_polling(env: Environment) -> None:
    """The bot for real: long polling until interrupted (Ctrl-C, SIGTERM)."""
    assert env.token
    cfg = Config(ai_delay=env.ai_delay, seed=env.seed, turn_s=env.turn_s, lang=env.lang)
    app = build_app(
        env.token,
        SqliteStorage(env.db_path),
        cfg,
        base_url=env.base_url,
        base_file_url=file_url(env.base_url),
        group_interval=env.group_pace,
        private_interval=env.private_pace,
        # Telegram's own limits are kept by AIORateLimiter; GOUJI_PACE=0 (a local test server
        # without limits) turns all pacing off
        rate_limit=env.group_pace > 0,
        processes=env.processes,
    )
    app.run_polling(allowed_updates=Update.ALL_TYPES, drop_pending_updates=False)


def file_url(base_url: str | None) -> str | None:
    """The file URL of a self-hosted Bot API server at ``base_url`` (…/bot)."""
    if not base_url:
        return None
    return base_url[: -len("/bot")] + "/file/bot" if base_url.endswith("/bot") else None

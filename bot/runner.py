"""Running the bot for real (``python -m bot`` with a token): long polling, or, with
``TELEGRAM_WEBHOOK_URL`` set, the bot's webhook (bot.webhook: the secret token of every request
checked, each update answered once handled).
What is wrong at start (no token, a token Telegram refuses, a server out of reach, a database
that cannot be used) ends the process with one sentence saying what to fix and exit code 1 —
never a traceback, never the token. The offline world (a local Bot API server, simulated
players) is in :mod:`bot.offline`; nothing here imports it."""

from __future__ import annotations

import asyncio
import logging
import sys
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from telegram import Bot, Update
from telegram.error import InvalidToken, NetworkError, TelegramError

from . import webhook
from .app import build_app
from .environment import Environment
from .health import Heartbeat, database_problem, heartbeat_path
from .pacing import Pacing
from .request import AiohttpRequest
from .storage import SchemaTooNew, StorageError, describe, storage_for
from .tables import Config

log = logging.getLogger("gouji")
NO_TOKEN = "TELEGRAM_BOT_TOKEN is not set: give the bot its token from @BotFather"


def refuse(sentence: str) -> int:
    """Say what to fix, on standard error; exit code 1."""
    print(f"gouji: {sentence}", file=sys.stderr)
    return 1


def pacing_of(env: Environment) -> Pacing:
    """Telegram's pacing, or ``GOUJI_PACE``'s (``0,0``: none, for a local server without
    limits; a quicker group pace speeds the overall budget up alike, for a local server whose
    limits run faster)."""
    if env.group_pace <= 0 and env.private_pace <= 0:
        return Pacing.off()
    telegram = Pacing.telegram()
    factor = telegram.group_s / env.group_pace if env.group_pace > 0 else 1.0
    return replace(telegram.faster(factor), group_s=env.group_pace, private_s=env.private_pace)


def run_polling(env: Environment) -> int:
    """The bot for real: long polling until interrupted (Ctrl-C, SIGTERM); the exit code."""
    if not env.token:
        return refuse(NO_TOKEN)
    problem = database_problem(env.db_path)
    if problem is not None:
        return refuse(problem)
    cfg = Config(
        ai_delay=env.ai_delay,
        seed=env.seed,
        turn_s=env.turn_s,
        lang=env.lang,
        pass_think_s=env.pass_think_s,
        review_budget_s=env.review_s,
    )
    app = build_app(
        env.token,
        storage_for(env.db_path),
        cfg,
        base_url=env.base_url,
        base_file_url=file_url(env.base_url),
        pacing=pacing_of(env),
        processes=env.processes,
        heartbeat=Heartbeat(heartbeat_path(env.db_path, env.heartbeat_of())),
        process=env.process,
        webhook=bool(env.webhook_url),
        memreport=Path(env.memreport) if env.memreport else None,
    )
    server = env.base_url or "Telegram's Bot API"
    problem = asyncio.run(bot_problem(env.token, env.base_url, server))
    if problem is not None:
        return refuse(problem)
    try:
        if env.webhook_url:  # every request must carry the secret; answered once handled
            asyncio.run(
                webhook.serve(
                    app,
                    url=env.webhook_url,
                    path=urlsplit(env.webhook_url).path,
                    secret=env.secret(),
                    listen=env.webhook_listen,
                    port=env.webhook_port,
                )
            )
        else:
            app.run_polling(allowed_updates=Update.ALL_TYPES, drop_pending_updates=False)
    except InvalidToken:  # its message quotes the token: never shown
        return refuse(f"{server} refused the token: check TELEGRAM_BOT_TOKEN (from @BotFather)")
    except NetworkError as e:  # timeouts included; the kind only (messages may quote the URL)
        return refuse(
            f"cannot reach {server} ({type(e).__name__}): check the network or TELEGRAM_BASE_URL"
        )
    except SchemaTooNew as e:  # its sentence names the database without a password
        return refuse(str(e))
    except StorageError as e:
        return refuse(f"the database {describe(env.db_path)} cannot be used ({type(e).__name__})")
    return 0


async def bot_problem(token: str, base_url: str | None, server: str) -> str | None:
    """None if the Bot API at ``base_url`` answers getMe for ``token``; else what to fix."""
    request = AiohttpRequest(1)
    bot = Bot(token, base_url=base_url or "https://api.telegram.org/bot", request=request)
    try:
        async with bot:  # initialize: getMe
            return None
    except InvalidToken:  # its message quotes the token: never shown
        return f"{server} refused the token: check TELEGRAM_BOT_TOKEN (from @BotFather)"
    except NetworkError as e:  # timeouts included; the kind only (messages may quote the URL)
        return f"cannot reach {server} ({type(e).__name__}): check the network or TELEGRAM_BASE_URL"
    except TelegramError as e:
        return f"{server} answered getMe with an error ({type(e).__name__})"


def file_url(base_url: str | None) -> str | None:
    """The file URL of a self-hosted Bot API server at ``base_url`` (…/bot)."""
    if not base_url:
        return None
    return base_url[: -len("/bot")] + "/file/bot" if base_url.endswith("/bot") else None

"""``python -m bot check``: what an operator runs with a real token before starting the bot.
Each line ✓ or ✗ with what to do; exit 0 only if the bot is ready to run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from telegram import Bot, BotCommandScopeAllGroupChats
from telegram.error import InvalidToken, NetworkError, TelegramError

from .environment import Environment
from .health import database_problem_async
from .request import AiohttpRequest
from .storage import describe

TELEGRAM = "https://api.telegram.org/bot"


@dataclass(frozen=True)
class Line:
    ok: bool
    text: str
    blocking: bool = True  # a ✗ that keeps the bot from running (others are advice)

    def __str__(self) -> str:
        return f"{'✓' if self.ok else '✗' if self.blocking else '!'} {self.text}"


async def check(env: Environment) -> list[Line]:
    """Every check, in the order an operator would fix them."""
    lines: list[Line] = []
    problem = await database_problem_async(env.db_path)
    lines.append(Line(problem is None, problem or f"database {describe(env.db_path)} is writable"))
    if not env.token:
        lines.append(
            Line(False, "TELEGRAM_BOT_TOKEN is not set: give it the token from @BotFather")
        )
        return lines
    server = env.base_url or "Telegram's Bot API"
    bot = Bot(env.token, base_url=env.base_url or TELEGRAM, request=AiohttpRequest(2))
    try:
        async with bot:
            lines.extend(await _bot_lines(bot, server, env.webhook_url))
    except InvalidToken:  # its message quotes the token: never shown
        lines.append(Line(False, f"{server} refused the token: check TELEGRAM_BOT_TOKEN"))
    except NetworkError as e:
        lines.append(Line(False, f"cannot reach {server} ({type(e).__name__}): check the network"))
    except TelegramError as e:
        lines.append(Line(False, f"{server} answered with an error ({type(e).__name__})"))
    return lines


async def _bot_lines(bot: Bot, server: str, webhook_url: str | None) -> list[Line]:
    me = bot.bot
    lines = [Line(True, f"the token works: @{me.username} (id {me.id}) on {server}")]
    lines.append(
        Line(True, "the bot can be added to groups")
        if me.can_join_groups
        else Line(False, "the bot cannot be added to groups: @BotFather → /setjoingroups → Enable")
    )
    lines.append(
        Line(True, "group privacy is on (the bot needs only its commands and buttons)")
        if not me.can_read_all_group_messages
        else Line(
            False,
            "group privacy is off: the bot is sent every group message it does not need "
            "(@BotFather → /setprivacy → Enable)",
            blocking=False,
        )
    )
    lines.append(
        Line(True, "inline mode is off (the bot does not use it)")
        if not me.supports_inline_queries
        else Line(False, "inline mode is on but unused (@BotFather → /setinline)", blocking=False)
    )
    hook = await bot.get_webhook_info()
    lines.append(
        Line(True, "no webhook is set: long polling will get the updates")
        if not hook.url and not webhook_url
        else Line(True, f"the webhook is this deployment's ({hook.url})")
        if hook.url and hook.url == webhook_url
        else Line(True, "no webhook is set yet: the bot sets TELEGRAM_WEBHOOK_URL when it starts")
        if not hook.url
        else Line(
            False,
            f"a webhook is set ({hook.url}): another deployment may be getting the updates; "
            "stop it, then remove the webhook (deleteWebhook) — polling would take it over",
        )
    )
    commands = await bot.get_my_commands(scope=BotCommandScopeAllGroupChats())
    lines.append(
        Line(True, f"{len(commands)} group commands registered")
        if commands
        else Line(
            False,
            "no commands registered yet: the bot registers them when it starts",
            blocking=False,
        )
    )
    return lines


def ready(lines: Sequence[Line]) -> bool:
    return all(line.ok or not line.blocking for line in lines)

"""The Telegram application: one ``build_app`` wires python-telegram-bot to the table service.

Handlers only decode an update (who, which chat, which button) into one call on the service;
the service stores and answers; the sender delivers. Nothing runs at import.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Chat,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import BadRequest, Forbidden
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from renderers import help_text, rules_text, t

from . import storage as S
from .logs import protect
from .request import AiohttpRequest
from .sender import Sender, markup
from .service import Config, Service, UserInfo
from .settings_menu import settings_out, settings_press
from .timers import LoopTimers
from .workers import Workers

log = logging.getLogger("gouji.app")
COMMANDS = ("gouji", "join", "leave", "hand", "rules", "settings", "stop", "help")


@dataclass
class Runtime:
    """What the handlers reach through ``application.bot_data["rt"]``."""

    service: Service
    sender: Sender
    storage: S.Storage
    lang: str
    workers: Workers
    timers: LoopTimers
    extra: dict[str, Any] = field(default_factory=dict)


def user_info(user: User) -> UserInfo:
    code = (user.language_code or "").lower()
    lang = "zh" if code.startswith("zh") else "en" if code.startswith("en") else None
    name = " ".join(p for p in (user.first_name, user.last_name) if p) or user.username or "?"
    return UserInfo(user.id, name[:64], lang)


def _rt(context: ContextTypes.DEFAULT_TYPE) -> Runtime:
    rt = context.application.bot_data["rt"]
    assert isinstance(rt, Runtime)
    return rt


def _where(update: Update) -> tuple[Chat, int | None, User] | None:
    msg = update.effective_message
    chat = update.effective_chat
    user = update.effective_user
    if msg is None or chat is None or user is None:
        return None
    thread = msg.message_thread_id if msg.is_topic_message else None
    return chat, thread, user


async def _is_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except Exception:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def _chat_lang(rt: Runtime, chat: Chat, user: User) -> str:
    if chat.type == ChatType.PRIVATE:
        return user_info(user).lang or rt.lang
    return (await rt.service.chat_settings(chat.id, rt.lang)).lang


# -- commands -----------------------------------------------------------------------------------
async def cmd_gouji(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is None:
        return
    chat, thread, user = w
    rt = _rt(context)
    if chat.type == ChatType.PRIVATE:
        rt.service.reply(chat.id, None, t(user_info(user).lang or rt.lang, "bot.group_only"))
        return
    await rt.service.open_lobby(chat.id, thread, user_info(user))


async def cmd_join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is not None and w[0].type != ChatType.PRIVATE:
        await _rt(context).service.join(w[0].id, w[1], user_info(w[2]))


async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is not None and w[0].type != ChatType.PRIVATE:
        await _rt(context).service.leave(w[0].id, w[1], user_info(w[2]))


async def cmd_stop(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is None or w[0].type == ChatType.PRIVATE:
        return
    chat, thread, user = w
    admin = await _is_admin(context, chat.id, user.id)
    await _rt(context).service.stop(chat.id, thread, user_info(user), admin)


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is None:
        return
    chat, thread, user = w
    rt = _rt(context)
    found = await rt.service.resend_hand(user_info(user))
    if not found:
        lang = await _chat_lang(rt, chat, user)
        rt.service.reply(chat.id, thread, t(lang, "bot.no_hand"))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is None:
        return
    chat, thread, user = w
    rt = _rt(context)
    lang = await _chat_lang(rt, chat, user)
    table = rt.service.table_at(chat.id, thread)
    settings = (
        table.st.settings if table is not None else await rt.service.chat_settings(chat.id, rt.lang)
    )
    rt.service.reply(chat.id, thread, rules_text(settings.rules(), lang))


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is None:
        return
    chat, thread, user = w
    rt = _rt(context)
    rt.service.reply(chat.id, thread, help_text(await _chat_lang(rt, chat, user)))


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is None:
        return
    chat, thread, user = w
    rt = _rt(context)
    if chat.type != ChatType.PRIVATE:
        rt.service.reply(chat.id, thread, help_text(await _chat_lang(rt, chat, user)))
        return
    payload = context.args[0] if context.args else ""
    await rt.service.dm_start(user_info(user), payload[:64])


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    w = _where(update)
    if w is None:
        return
    chat, thread, user = w
    rt = _rt(context)
    if chat.type == ChatType.PRIVATE:
        rt.service.reply(chat.id, None, t(user_info(user).lang or rt.lang, "bot.group_only"))
        return
    settings = await rt.service.chat_settings(chat.id, rt.lang)
    rt.sender.post(settings_out(chat.id, thread, settings, version=0))


# -- buttons ------------------------------------------------------------------------------------
async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None:
        return
    rt = _rt(context)
    info = user_info(query.from_user)
    msg = query.message
    chat_id = msg.chat.id if msg is not None else None
    data = query.data
    if data and data.startswith("s") and chat_id is not None and isinstance(msg, Message):
        thread = msg.message_thread_id if msg.is_topic_message else None
        answer, out = await settings_press(
            rt.service, chat_id, thread, data, info, lambda uid: _is_admin(context, chat_id, uid)
        )
        if out is not None:
            try:
                await query.edit_message_text(
                    out.text, parse_mode=ParseMode.HTML, reply_markup=markup(out.keyboard)
                )
            except (BadRequest, Forbidden) as e:  # unchanged, or the bot was removed meanwhile
                log.info("settings message not edited: %s", e.message)
    else:

        async def admin(uid: int) -> bool:
            table_chat = chat_id if chat_id is not None and chat_id < 0 else None
            return table_chat is not None and await _is_admin(context, table_chat, uid)

        answer = await rt.service.press(data, info, admin)
    try:
        await query.answer(answer.text[:200] or None, show_alert=answer.alert, url=answer.url)
    except Exception as e:  # a late or repeated answer: the press was handled all the same
        log.info("callback answer failed: %s", type(e).__name__)


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    msg = update.effective_message
    if msg is not None and msg.migrate_to_chat_id:
        await _rt(context).service.chat_migrated(msg.chat.id, msg.migrate_to_chat_id)


async def on_my_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    change = update.my_chat_member
    if change is None:
        return
    status = change.new_chat_member.status
    if status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        await _rt(context).service.bot_removed(change.chat.id)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error("update failed: %s", type(context.error).__name__, exc_info=context.error)


# -- building -----------------------------------------------------------------------------------
HTTP_CONNECTIONS = 32  # calls to the Bot API in flight at once (more wait for a connection)
OVERALL_PER_S = 28.0  # the sender's calls a second, all chats together


def build_app(
    token: str,
    storage: S.Storage,
    cfg: Config,
    *,
    lang: str = "zh",
    base_url: str | None = None,
    base_file_url: str | None = None,
    group_interval: float = 3.0,
    private_interval: float = 0.5,
    rate_limit: bool = True,
    processes: int = 0,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot: handlers, the service, its sender and timers; ``processes`` worker processes
    draw the pictures and run the hard AI (0: threads). ``post_init`` resumes every
    unfinished table; ``post_shutdown`` closes the sender and storage."""
    protect(token)  # no log line shows it from here on
    # aiohttp instead of PTB's httpx (bot/request.py): a tenth of the CPU per call
    builder = (
        ApplicationBuilder()
        .token(token)
        .concurrent_updates(True)
        .request(AiohttpRequest(HTTP_CONNECTIONS))
        .get_updates_request(AiohttpRequest(1))
    )
    if base_url:
        builder = builder.base_url(base_url)
    if base_file_url:
        builder = builder.base_file_url(base_file_url)
    if rate_limit:
        builder = builder.rate_limiter(AIORateLimiter(max_retries=3))  # type: ignore[arg-type]
    app = builder.post_init(post_init).post_shutdown(post_shutdown).build()
    # the sender keeps a little under AIORateLimiter's 30 calls a second to chats, so that calls
    # wait in the sender (where a message's newer content replaces it) rather than there
    overall = OVERALL_PER_S if rate_limit else 0.0
    app.bot_data["setup"] = (
        storage,
        cfg,
        lang,
        group_interval,
        private_interval,
        overall,
        processes,
    )
    group = ~filters.ChatType.PRIVATE
    app.add_handler(CommandHandler("gouji", cmd_gouji))
    app.add_handler(CommandHandler("join", cmd_join, filters=group))
    app.add_handler(CommandHandler("leave", cmd_leave, filters=group))
    app.add_handler(CommandHandler("stop", cmd_stop, filters=group))
    app.add_handler(CommandHandler("hand", cmd_hand))
    app.add_handler(CommandHandler("rules", cmd_rules))
    app.add_handler(CommandHandler("settings", cmd_settings))
    app.add_handler(CommandHandler("help", cmd_help))
    app.add_handler(CommandHandler("start", cmd_start))
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(on_error)
    return app


async def post_init(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    storage, cfg, lang, group_interval, private_interval, overall, processes = app.bot_data["setup"]
    me = await app.bot.get_me()
    cfg = Config(**{**cfg.__dict__, "bot_username": me.username or cfg.bot_username, "lang": lang})
    await storage.open()
    service_ref: list[Service] = []

    def slot_id(table: int, slot: str) -> int | None:
        return service_ref[0].slot_id(table, slot)

    async def slot_sent(table: int, slot: str, msg: int) -> None:
        await service_ref[0].slot_sent(table, slot, msg)

    async def refused(chat_id: int) -> None:
        if chat_id > 0:  # a player blocked the bot
            await service_ref[0].dm_blocked(chat_id)
        else:  # 403 in a group: the bot is no longer in it, even if that update was not seen
            await service_ref[0].bot_removed(chat_id)

    workers = Workers(processes)
    workers.start()
    sender = Sender(
        app.bot, slot_id, slot_sent, refused, group_interval, private_interval, workers, overall
    )
    timers = LoopTimers()
    service = Service(storage, sender, timers, cfg, workers)
    service_ref.append(service)
    app.bot_data["rt"] = Runtime(service, sender, storage, lang, workers, timers)
    await _set_commands(app)
    n = await service.resume()
    log.info("ready as @%s; %d table(s) resumed", me.username, n)


async def post_shutdown(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    rt = app.bot_data.get("rt")
    if isinstance(rt, Runtime):
        await rt.timers.close()  # an AI step under way ends (and is stored) before the rest
        try:
            await rt.sender.drain(timeout=5.0)
        except TimeoutError:
            log.warning("shutting down with %d message(s) unsent", rt.sender.pending())
        await rt.sender.close()
        rt.workers.close()
        await rt.storage.close()


async def _set_commands(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    for code in ("zh", "en"):
        cmds = [BotCommand(c, t(code, f"bot.cmd.{c}")) for c in COMMANDS]
        private = [BotCommand("start", t(code, "bot.cmd.start"))] + [
            c for c in cmds if c.command in ("hand", "rules", "help")
        ]
        lc = code if code != "zh" else None  # the default list is Chinese
        try:
            await app.bot.set_my_commands(
                cmds, scope=BotCommandScopeAllGroupChats(), language_code=lc
            )
            await app.bot.set_my_commands(
                private, scope=BotCommandScopeAllPrivateChats(), language_code=lc
            )
        except Exception as e:
            log.warning("could not register commands: %s", type(e).__name__)

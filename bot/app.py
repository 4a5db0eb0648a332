"""The Telegram application: ``build_app`` wires python-telegram-bot to the bot's parts.

Telegram handlers only turn an update into a :class:`~bot.router.CommandCall` or a press for
the router (:mod:`bot.router`); the parts change and store tables and post what to show; the
sender delivers. Nothing runs at import.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeAlias

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    ChatMember,
    ChatMemberRestricted,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackContext,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    ExtBot,
    MessageHandler,
    filters,
)

from renderers import clean_name, t

from . import memreport
from . import storage as S
from .activity import TrackedUpdates
from .answers import ANSWER_WITHIN_S, ANSWERING, Call, by_query
from .chats import lang_of_code
from .compose import Parts, compose, start
from .health import HEARTBEAT_EVERY, Heartbeat
from .intake import Intake
from .logs import protect
from .outbox import Answer
from .pacing import Pacing
from .request import AiohttpRequest
from .router import Command, CommandCall, Members, Menu, Where
from .sender import Sender
from .tables import Config, UserInfo
from .timers import LoopTimers
from .trim import trimming
from .workers import Workers

log = logging.getLogger("gouji.app")
HTTP_CONNECTIONS = 32  # calls to the Bot API in flight at once (more wait for a connection)
ADMINS = (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


@dataclass(frozen=True)
class Runtime:
    """The running bot: its parts (the sender, the workers and timers among them) and the
    updates in hand."""

    parts: Parts
    updates: TrackedUpdates
    answer_within: float | None = ANSWER_WITHIN_S  # a press answered at once after (answers)
    intake: Intake | None = None  # junk presses answered before PTB reads them (bot.intake)
    answer_call: Call | None = None  # a press's answer as a plain call (None: through PTB)

    @property
    def storage(self) -> S.Storage:
        return self.parts.tables.storage

    @property
    def sender(self) -> Sender:
        return self.parts.sender

    @property
    def workers(self) -> Workers:
        return self.parts.workers

    @property
    def timers(self) -> LoopTimers:
        return self.parts.timers

    def busy(self, fetched_through: int, soon: float = 0.1) -> bool:
        """Whether the bot still has work for the updates fetched up to ``fetched_through``:
        one not yet taken in hand or being handled, a message not yet sent, a timer running
        or due within ``soon`` seconds (an AI move)."""
        return (
            self.updates.newest < fetched_through
            or self.updates.in_hand > 0
            or not self.sender.idle()
            or self.timers.busy(soon)
            or not self.parts.router.stories.idle()
            or (self.intake is not None and not self.intake.idle())
        )


class BotData:
    """``application.bot_data``: the bot's runtime (set by ``build_app``)."""

    def __init__(self) -> None:
        self.rt: Runtime | None = None
        self.heartbeat: Heartbeat | None = None  # beaten by a task of its own (webhook mode)
        self.tasks: list[asyncio.Task[None]] = []
        self.memreport: Path | None = None  # memory by owner written there on SIGUSR1


class Context(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]):
    @property
    def rt(self) -> Runtime:
        rt = self.bot_data.rt
        assert rt is not None, "the bot is not started"
        return rt


GoujiApp: TypeAlias = Application[
    ExtBot[None], Context, dict[Any, Any], dict[Any, Any], BotData, Any
]
Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]


class _Application(
    Application[ExtBot[None], Context, dict[Any, Any], dict[Any, Any], BotData, Any]
):
    """PTB's application without its record of every chat and user an update ever came from:
    it is kept for a persistence this bot does not use, and would grow with every chat for
    the life of the process."""

    __slots__ = ()

    def _mark_for_persistence_update(
        self, *, update: object | None = None, job: Any = None
    ) -> None:
        if self.persistence is not None:
            super()._mark_for_persistence_update(update=update, job=job)


def user_info(user: User) -> UserInfo:
    lang = lang_of_code(user.language_code)
    name = clean_name(" ".join(p for p in (user.first_name, user.last_name) if p))
    return UserInfo(user.id, name or clean_name(user.username or "") or "?", lang)


class TelegramMembers:
    """:class:`~bot.router.Members` asked of Telegram (``getChatMember``)."""

    def __init__(self, bot: ExtBot[None]) -> None:
        self.bot = bot

    async def _member(self, chat_id: int, user_id: int) -> ChatMember | None:
        if chat_id > 0:
            return None
        try:
            return await self.bot.get_chat_member(chat_id, user_id)
        except Exception:
            return None

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        member = await self._member(chat_id, user_id)
        return member is not None and member.status in ADMINS

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        member = await self._member(chat_id, user_id)
        if isinstance(member, ChatMemberRestricted):  # restricted, and still in the group?
            return member.is_member
        return member is not None and member.status in (*ADMINS, ChatMemberStatus.MEMBER)


class AnonymousAdmin:
    """An anonymous admin of ``chat_id`` (Telegram names them all GroupAnonymousBot): an admin
    there, whatever getChatMember says of that shared account."""

    def __init__(self, members: Members, chat_id: int) -> None:
        self.members = members
        self.chat_id = chat_id

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return chat_id == self.chat_id or await self.members.is_admin(chat_id, user_id)

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        return chat_id == self.chat_id or await self.members.is_member(chat_id, user_id)


def command_handler(command: Command) -> Handler:
    """The one preamble of every command: who, where, with which arguments."""

    async def handle(update: Update, context: Context) -> None:
        msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
        if msg is None or chat is None or user is None:
            return
        private = chat.type == ChatType.PRIVATE
        rt = context.rt
        info = user_info(user)
        thread = msg.message_thread_id if msg.is_topic_message else None
        members: Members = TelegramMembers(context.bot)
        lang = info.lang or rt.parts.tables.cfg.lang
        if msg.sender_chat is not None:  # posted as a chat, not as a person
            if command.people_only:
                rt.parts.tables.reply(chat.id, thread, t(lang, "bot.as_yourself"))
                return
            if msg.sender_chat.id == chat.id:  # an anonymous admin of this group
                members = AnonymousAdmin(members, chat.id)
        # a reply to a person (in a forum topic every message answers the topic's first one)
        target = msg.reply_to_message
        if target is not None and thread is not None and target.message_id == thread:
            target = None
        replied = target.from_user if target is not None else None
        reply_to = user_info(replied) if replied is not None and not replied.is_bot else None
        call = CommandCall(chat.id, thread, info, tuple(context.args or ()), members, reply_to)
        if not rt.parts.router.allow(call):
            return
        if command.where == Where.GROUP and private:
            rt.parts.tables.reply(chat.id, None, t(lang, "bot.group_only"))
            return
        await command.handler(call)

    return handle


def offered(msg: Message | None) -> frozenset[str]:
    """The callback data of the pressed message's own buttons, as Telegram sent it with the
    press (a press is valid only on the message that carries it: bot.router.offered_data)."""
    kb = msg.reply_markup if msg is not None else None
    if kb is None:
        return frozenset()
    return frozenset(
        b.callback_data
        for row in kb.inline_keyboard
        for b in row
        if isinstance(b.callback_data, str)
    )


async def on_button(update: Update, context: Context) -> None:
    query = update.callback_query
    if query is None or query.from_user is None:  # no presser: not a press Telegram sends
        return
    rt = context.rt
    # a message too old (48 h) or deleted reaches the bot as an InaccessibleMessage: PTB still
    # builds a Message of it, with date 0 — is_accessible tells
    msg = query.message if query.message is not None and query.message.is_accessible else None
    chat_id = msg.chat.id if isinstance(msg, Message) else None
    thread = msg.message_thread_id if isinstance(msg, Message) and msg.is_topic_message else None

    # answered by the handler, or at once if the handler is slow to (bot.answers); by webhook
    # the answering began when the update arrived
    answering = ANSWERING.get() or by_query(query, rt.answer_within, rt.answer_call)
    answer = await rt.parts.router.press(
        query.data,
        user_info(query.from_user),
        chat_id,
        thread,
        TelegramMembers(context.bot),
        msg.message_id if isinstance(msg, Message) else None,
        offered(msg if isinstance(msg, Message) else None),
        answering.now,
    )
    await answering.give(answer)
    if answer.edit is not None and isinstance(msg, Message):
        # the pressed message's new content, through the sender: paced with the chat's other
        # messages (a flood wait never met, never waited for here)
        rt.sender.post(replace(answer.edit, chat_id=msg.chat.id, message_id=msg.message_id))


async def on_migrate(update: Update, context: Context) -> None:
    msg = update.effective_message
    if msg is not None and msg.migrate_to_chat_id:
        await context.rt.parts.tables.chat_migrated(msg.chat.id, msg.migrate_to_chat_id)


async def on_my_member(update: Update, context: Context) -> None:
    change = update.my_chat_member
    if change is None:
        return
    if change.new_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        await context.rt.parts.tables.bot_removed(change.chat.id)


async def on_error(update: object, context: Context) -> None:
    log.error("update failed: %s", type(context.error).__name__, exc_info=context.error)


# -- building -----------------------------------------------------------------------------------
def build_app(
    token: str,
    storage: S.Storage,
    cfg: Config,
    *,
    base_url: str | None = None,
    base_file_url: str | None = None,
    pacing: Pacing | None = None,
    processes: int = 0,
    timers: LoopTimers | None = None,
    heartbeat: Heartbeat | None = None,
    webhook: bool = False,
    memreport: Path | None = None,
    process: str = "",
    answer_within: float | None = ANSWER_WITHIN_S,
) -> GoujiApp:
    """The bot: handlers, its parts, their sender and timers; ``processes`` worker processes
    draw the pictures and run the hard AI (0: threads); ``timers``: the tables' timers (a
    test's manual clock; by default the event loop's); ``heartbeat``: touched after each
    successful getUpdates (``python -m bot health``), or in ``webhook`` mode (no getUpdates) every
    few seconds while the event loop runs; ``pacing``: how fast the sender calls (Telegram's
    limits by default); ``process``: this process's name among several (GOUJI_PROCESS);
    ``answer_within``: a press its handler has not answered this soon is answered at once
    (bot.answers; None: always the handler's answer, however late — tests that read it).
    ``post_init`` resumes every unfinished table; ``post_shutdown`` closes the sender and
    storage."""
    protect(token)  # no log line shows it from here on
    # aiohttp instead of PTB's httpx (bot/request.py): a tenth of the CPU per call
    updates = TrackedUpdates()
    request = AiohttpRequest(HTTP_CONNECTIONS)
    polling = AiohttpRequest(1, on_ok=heartbeat.beat if heartbeat else None)
    builder = (
        ApplicationBuilder()
        .token(token)
        .context_types(ContextTypes(context=Context, bot_data=BotData))
        .application_class(_Application)
        .concurrent_updates(updates)
        .request(request)
        .get_updates_request(polling)
    )
    if base_url:
        builder = builder.base_url(base_url)
    if base_file_url:
        builder = builder.base_file_url(base_file_url)
    app: GoujiApp = builder.post_init(post_init).post_shutdown(post_shutdown).build()
    # Telegram's limits are kept by the sender alone: about 30 calls a second over all chats,
    # each chat paced on its own, and a flood wait (429) waited out by that chat's queue only —
    # never a pause of every call (PTB's AIORateLimiter pauses them all, answers included)
    workers = Workers(processes)
    pacing = pacing or Pacing.telegram()
    parts = compose(
        app.bot, storage, cfg, workers=workers, pacing=pacing, timers=timers, process=process
    )
    # every press is answered by a plain call (a third of PTB's cost); a press of junk from
    # the raw update, before PTB reads it (bot.intake)
    answer_url = f"{app.bot.base_url}/answerCallbackQuery"

    async def answer_call(query_id: str, answer: Answer) -> None:
        fields = {"callback_query_id": query_id}
        if answer.text:
            fields["text"] = answer.text[:200]
        if answer.alert:
            fields["show_alert"] = "true"
        if answer.url is not None:
            fields["url"] = answer.url
        status = await request.call(answer_url, fields)
        if status != 200:  # a late or repeated answer: the press was handled all the same
            log.info("callback answer refused (HTTP %d)", status)

    async def junk_answer(query_id: str, text: str) -> None:
        try:
            await answer_call(query_id, Answer(text))
        except Exception as e:  # the server out of reach: nothing else to do
            log.info("a junk press's answer failed: %s", type(e).__name__)

    def username() -> str | None:
        try:
            return app.bot.username
        except RuntimeError:  # not yet asked of Telegram (getMe)
            return None

    router = parts.router
    polling.intake = intake = Intake(
        router.budgets, junk_answer, stories=router.stories, pins=router.pins, username=username
    )
    app.bot_data.rt = Runtime(parts, updates, answer_within, intake, answer_call)
    if webhook and heartbeat is not None:
        app.bot_data.heartbeat = heartbeat
    app.bot_data.memreport = memreport
    # every command of every part (the router's table), then buttons and chat changes
    for command in parts.router.commands.values():
        group_only = ~filters.ChatType.PRIVATE if command.where == Where.GROUP else None
        app.add_handler(CommandHandler(command.name, command_handler(command), filters=group_only))
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(on_error)
    return app


async def post_init(app: GoujiApp) -> None:
    """Started: the bot's name asked, storage and workers opened, every table resumed."""
    rt = app.bot_data.rt
    assert rt is not None
    me = await app.bot.get_me()  # the bot's name, for its deep links (bot.compose)
    await rt.storage.open()
    rt.workers.start()
    await _set_commands(app)
    if app.bot_data.heartbeat is not None:
        app.bot_data.tasks.append(asyncio.create_task(_beat(app.bot_data.heartbeat)))
    n = await start(rt.parts)
    # freed memory given back, at once when every message is out
    app.bot_data.tasks.append(asyncio.create_task(trimming(rt.parts.sender.idle)))
    app.bot_data.tasks.append(asyncio.create_task(rt.parts.tables.sweeping()))  # idle tables
    if app.bot_data.memreport is not None:
        where, parts = app.bot_data.memreport, rt.parts
        asyncio.get_running_loop().add_signal_handler(
            signal.SIGUSR1, lambda: memreport.write(parts, where)
        )
    log.info("ready as @%s; %d table(s) resumed or loaded", me.username, n)


async def _beat(heartbeat: Heartbeat) -> None:
    """Webhook mode: the heartbeat says the event loop runs (updates come when they come)."""
    while True:
        heartbeat.beat()
        await asyncio.sleep(HEARTBEAT_EVERY)


async def post_shutdown(app: GoujiApp) -> None:
    for task in app.bot_data.tasks:
        task.cancel()
    rt = app.bot_data.rt
    if rt is None:
        return
    await rt.parts.deployment.leave()  # nothing more taken from other processes
    await rt.timers.close()  # an AI step under way ends (and is stored) before the rest
    await rt.parts.router.stories.close()  # story answers not yet given: never given
    drained = True
    try:
        await rt.sender.drain(timeout=5.0)
    except TimeoutError:
        drained = False
        log.warning("shutting down with %d message(s) unsent", rt.sender.pending())
    await rt.sender.close()
    rt.workers.close()
    await rt.parts.deployment.stop(drained)  # what it held is the others' at once
    await rt.storage.close()


async def _set_commands(app: GoujiApp) -> None:
    rt = app.bot_data.rt
    assert rt is not None
    router = rt.parts.router  # the menus: what the parts registered (bot.router.Menu)
    for code in ("zh", "en"):
        group = [BotCommand(c, t(code, f"bot.cmd.{c}")) for c in router.menu(Menu.GROUP)]
        private = [BotCommand(c, t(code, f"bot.cmd.{c}")) for c in router.menu(Menu.PRIVATE)]
        lc = code if code != "zh" else None  # the default list is Chinese
        try:
            await app.bot.set_my_commands(
                group, scope=BotCommandScopeAllGroupChats(), language_code=lc
            )
            await app.bot.set_my_commands(
                private, scope=BotCommandScopeAllPrivateChats(), language_code=lc
            )
        except Exception as e:
            log.warning("could not register commands: %s", type(e).__name__)

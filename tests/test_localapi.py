"""The local Bot API server, driven through the real python-telegram-bot client."""

from __future__ import annotations

import datetime as dt
import io
import time
from collections.abc import AsyncIterator

import pytest
from PIL import Image
from telegram import (
    CallbackQuery,
    ChatMemberAdministrator,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    EndPointNotFound,
    Forbidden,
    NetworkError,
    RetryAfter,
)
from telegram.ext import (
    AIORateLimiter,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.offline.localapi import LocalBotApi, RateLimits, running_app

Context = ContextTypes.DEFAULT_TYPE


def png(width: int = 40, height: int = 30, colour: str = "red") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


def keyboard(*buttons: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t, callback_data=d) for t, d in buttons]])


@pytest.fixture
async def api() -> AsyncIterator[LocalBotApi]:
    server = LocalBotApi()
    await server.start()
    yield server
    await server.stop()


async def echo(update: Update, context: Context) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text("echo: " + " ".join(context.args or []))


async def start(update: Update, context: Context) -> None:
    assert update.effective_chat is not None
    payload = context.args[0] if context.args else "-"
    await context.bot.send_message(update.effective_chat.id, f"<b>hello</b> {payload}", "HTML")


async def menu(update: Update, context: Context) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text("pick", reply_markup=keyboard(("A", "a"), ("B", "b")))


async def picked(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None
    await query.answer(f"you picked {query.data}")
    await query.edit_message_text(f"picked {query.data}", reply_markup=keyboard(("Again", "c")))


async def test_group_command_private_deep_link_and_button(api: LocalBotApi) -> None:
    group = api.group(-1001, "牌桌")
    wang, li = api.user(11, "老王"), api.user(12, "小李")
    handlers = [
        CommandHandler("echo", echo),
        CommandHandler("start", start),
        CommandHandler("menu", menu),
        CallbackQueryHandler(picked),
    ]
    async with running_app(api, handlers) as app:
        await wang.send("/echo@gouji_bot 够级 开点", group)
        await li.send("/echo@other_bot not for us", group)
        await li.send("/start join-42")
        await api.idle()
        assert [m.text for m in api.messages(group.id)] == ["echo: 够级 开点"]
        assert li.started and not wang.started
        (hello,) = api.messages(li.id)
        assert hello.text == "<b>hello</b> join-42" and hello.plain == "hello join-42"

        await wang.send("/menu", group)
        await api.idle()
        table = api.messages(group.id)[-1]
        assert [b.text for b in table.buttons] == ["A", "B"]
        await li.press(table, text="B")
        await api.idle()
        assert li.answers()[0].text == "you picked b" and not li.answers()[0].show_alert
        assert (table.text, table.edits, table.history) == ("picked b", 1, ["pick"])
        with pytest.raises(LookupError):
            await li.press(table, data="a")  # the edit replaced that keyboard
        dm = await app.bot.send_message(li.id, "your hand", reply_markup=keyboard(("A", "a")))
        with pytest.raises(LookupError):
            await wang.press(api.message(li.id, dm.message_id), data="a")  # li's private chat
    assert api.counts()["answerCallbackQuery"] == 1
    # the echo reply is the first call about both group commands (one was for another bot)
    latencies = api.latency()
    assert len(latencies) == 5 and all(0 < t < 2 for t in latencies)
    press_calls = [c for c in api.calls if c.method == "answerCallbackQuery"]
    assert press_calls[0].chat_id == group.id and press_calls[0].follows is not None


async def test_photo_then_edit_media_and_file_download(api: LocalBotApi) -> None:
    api.rate = RateLimits.off()  # four calls to one private chat at once: not what is tested
    wang = api.user(11, "老王")
    await wang.send("/start")
    async with running_app(api) as app:
        sent = await app.bot.send_photo(wang.id, png(), caption="手牌", filename="hand.png")
        assert sent.photo[-1].width == 40 and sent.caption == "手牌"
        edited = await app.bot.edit_message_media(
            InputMediaPhoto(png(50, 20, "blue"), caption="新手牌", filename="hand.png"),
            chat_id=wang.id,
            message_id=sent.message_id,
        )
        assert isinstance(edited, type(sent)) and edited.photo[-1].width == 50
        file = await app.bot.get_file(edited.photo[-1].file_id)
        downloaded = await file.download_as_bytearray()
        again = await app.bot.send_photo(wang.id, sent.photo[-1].file_id)  # by file_id
        with pytest.raises(BadRequest, match=r"(?i)image_process_failed"):
            await app.bot.send_photo(wang.id, b"not an image", filename="x.png")
    message = api.message(wang.id, sent.message_id)
    assert message.is_photo and message.photo == bytes(downloaded) == png(50, 20, "blue")
    assert (message.text, message.history, message.edits) == ("新手牌", ["手牌"], 1)
    assert api.message(wang.id, again.message_id).photo == png()


async def test_forbidden_private_chats_and_kicked_group(api: LocalBotApi) -> None:
    stranger, blocker = api.user(21, "Stranger"), api.user(22, "Blocker")
    group = api.group(-1002, "Table")
    await blocker.send("/start")
    blocker.block()
    async with running_app(api) as app:
        with pytest.raises(Forbidden, match=r"(?i)bot can't initiate conversation with a user"):
            await app.bot.send_message(stranger.id, "your hand")
        with pytest.raises(Forbidden, match=r"(?i)bot was blocked by the user"):
            await app.bot.send_message(blocker.id, "your hand")
        blocker.unblock()
        await app.bot.send_message(blocker.id, "your hand")
        await group.remove_bot(by=blocker)
        await api.idle()
        with pytest.raises(Forbidden, match=r"(?i)bot was kicked from the supergroup chat"):
            await app.bot.send_message(group.id, "still here?")
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await app.bot.send_message(-999, "nobody")
    assert [c.status for c in api.calls if c.method == "sendMessage"] == [403, 403, 200, 403, 400]
    assert api.stats()["forbidden"] == 3


async def test_telegram_validation_errors(api: LocalBotApi) -> None:
    api.rate = RateLimits.off()  # a call after another to one chat: not what is tested
    wang = api.user(11, "老王")
    other = api.user(12, "小李")
    await wang.send("/start")
    await other.send("/start")
    async with running_app(api) as app:
        bot = app.bot
        with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
            await bot.send_message(wang.id, "x", reply_markup=keyboard(("x", "x" * 65)))
        await bot.send_message(wang.id, "ok", reply_markup=keyboard(("x", "对" * 21 + "x")))
        many = InlineKeyboardMarkup(
            [[InlineKeyboardButton(str(i), callback_data=str(i))] for i in range(101)]
        )
        with pytest.raises(BadRequest, match=r"(?i)reply markup is too long"):
            await bot.send_message(wang.id, "x", reply_markup=many)
        with pytest.raises(BadRequest, match=r"(?i)message is too long"):
            await bot.send_message(wang.id, "长" * 4097)
        await bot.send_message(wang.id, "<b>" + "长" * 4096 + "</b>", "HTML")  # tags don't count
        with pytest.raises(BadRequest, match=r"(?i)message caption is too long"):
            await bot.send_photo(wang.id, png(), caption="x" * 1025, filename="a.png")
        with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
            await bot.send_message(wang.id, "a <b>b", "HTML")
        with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
            await bot.send_message(wang.id, "3 < 5 <x>", "HTML")
        sent = await bot.send_message(wang.id, "same", reply_markup=keyboard(("A", "a")))
        with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
            await bot.edit_message_text(
                "same", wang.id, sent.message_id, reply_markup=keyboard(("A", "a"))
            )
        await bot.edit_message_text("same", wang.id, sent.message_id)  # drops the keyboard
        with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
            await bot.edit_message_reply_markup(wang.id, sent.message_id)
        with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
            await bot.edit_message_text("x", other.id, sent.message_id + 50)
        with pytest.raises(BadRequest, match=r"(?i)there is no caption"):
            await bot.edit_message_caption(wang.id, sent.message_id, caption="x")
        assert await bot.delete_message(wang.id, sent.message_id)
        with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
            await bot.delete_message(wang.id, sent.message_id)
    message = api.message(wang.id, sent.message_id)
    assert message.deleted and message.reply_markup == [] and message.edits == 1
    assert sent.message_id not in [m.message_id for m in api.messages(wang.id)]
    assert api.stats()["bad_request"] == 11


async def test_callback_answered_once_with_a_deep_link(api: LocalBotApi) -> None:
    group = api.group(-1003, "Table")
    wang = api.user(11, "老王")
    refusals: list[str] = []

    async def join(update: Update, context: Context) -> None:
        query = update.callback_query
        assert query is not None
        try:
            await query.answer(url="https://example.com/")
        except BadRequest as exc:
            refusals.append(exc.message)
        await query.answer(url=f"https://t.me/{context.bot.username}?start=seat-3")
        try:
            await query.answer("second")
        except BadRequest as exc:
            refusals.append(exc.message)

    handlers = [CallbackQueryHandler(join), CommandHandler("start", start)]
    async with running_app(api, handlers) as app:
        sent = await app.bot.send_message(
            group.id,
            "table",
            reply_markup=InlineKeyboardMarkup(
                [
                    [InlineKeyboardButton("rules", url="https://t.me/gouji_bot?start=rules")],
                    [InlineKeyboardButton("Join", callback_data="join")],
                ]
            ),
        )
        table = api.message(group.id, sent.message_id)
        with pytest.raises(LookupError):
            await wang.press(table, text="rules")  # a link, not a callback button
        await wang.press(table, data="join")
        await api.idle()
        (answer,) = wang.answers()
        assert answer.url == "https://t.me/gouji_bot?start=seat-3" and not wang.started
        await wang.open_link(answer.url)
        await api.idle()
    assert refusals == [
        "Url_invalid",
        "Query is too old and response timeout expired or query id is invalid",
    ]
    assert wang.started and api.messages(wang.id)[0].plain == "hello seat-3"


async def test_rate_limit_retried_by_aio_rate_limiter(api: LocalBotApi) -> None:
    api.rate = RateLimits(per_chat_per_s=1.0, per_chat_burst=1)
    wang = api.user(11, "老王")
    await wang.send("/start")
    limiter = AIORateLimiter(max_retries=1)
    async with running_app(api, configure=lambda b: b.rate_limiter(limiter)) as app:
        began = time.monotonic()
        await app.bot.send_message(wang.id, "one")
        await app.bot.send_message(wang.id, "two")
        assert time.monotonic() - began >= 0.9  # waited out retry_after
    statuses = [c.status for c in api.calls if c.method == "sendMessage"]
    assert statuses == [200, 429, 200]
    error = next(c.error for c in api.calls if c.status == 429)
    assert error == "Too Many Requests: retry after 1"
    assert [m.text for m in api.messages(wang.id)] == ["one", "two"]
    assert api.stats()["rate_limited"] == 1


async def test_group_budget_counts_edits(api: LocalBotApi) -> None:
    api.rate = RateLimits(per_group_per_min=3, retry_after=7)
    group = api.group(-1004, "Table")
    async with running_app(api) as app:
        sent = await app.bot.send_message(group.id, "v1")
        await app.bot.edit_message_text("v2", group.id, sent.message_id)
        await app.bot.edit_message_text("v3", group.id, sent.message_id)
        with pytest.raises(RetryAfter) as caught:
            await app.bot.edit_message_text("v4", group.id, sent.message_id)
    assert caught.value.retry_after == dt.timedelta(seconds=7)
    assert api.message(group.id, sent.message_id).text == "v3"


async def test_forum_threads_and_migration(api: LocalBotApi) -> None:
    forum = api.group(-1005, "Forum", forum=True)
    old = api.group(-5, "Old group")
    wang = api.user(11, "老王")
    seen: list[int] = []

    async def migrated(update: Update, context: Context) -> None:
        assert update.effective_message is not None
        seen.append(update.effective_message.migrate_to_chat_id or 0)

    handlers = [
        CommandHandler("echo", echo),
        MessageHandler(filters.StatusUpdate.MIGRATE, migrated),
    ]
    async with running_app(api, handlers) as app:
        await wang.send("/echo topic", forum, thread_id=7)
        await wang.send("/echo general", forum)
        await old.migrate(-1006)
        await api.idle()
        with pytest.raises(ChatMigrated) as caught:
            await app.bot.send_message(-5, "hello")
        assert caught.value.new_chat_id == -1006
        await app.bot.send_message(old.id, "hello supergroup")
        with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
            await app.bot.send_message(old.id, "x", message_thread_id=3)
    assert [m.text for m in api.messages(forum.id, thread_id=7)] == ["echo: topic"]
    assert [m.thread_id for m in api.messages(forum.id)] == [7, None]
    assert -1006 in seen and old.id == -1006
    assert [m.text for m in api.messages(-1006)] == ["hello supergroup"]


async def test_server_errors_commands_and_chat_queries(api: LocalBotApi) -> None:
    group = api.group(-1007, "Table", admins=[11, api.bot_id])
    wang, li = api.user(11, "老王"), api.user(12, "小李")
    await group.add_member(li)
    await wang.send("/start")
    api.fail_next("sendMessage", 502)
    heard: list[str] = []
    api.listeners.append(lambda call: heard.append(call.method))
    async with running_app(api) as app:
        bot = app.bot
        with pytest.raises(NetworkError, match=r"(?i)Bad Gateway"):
            await bot.send_message(wang.id, "lost")
        await bot.send_message(wang.id, "delivered")
        await bot.set_my_commands([("new", "开新局")], language_code="zh")
        await bot.set_my_commands([("new", "New game")])
        assert [c.description for c in await bot.get_my_commands(language_code="zh")] == ["开新局"]
        assert [c.description for c in await bot.get_my_commands()] == ["New game"]
        with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
            await bot.set_my_commands([("New-Game", "x")])
        assert (await bot.get_chat_member(group.id, api.bot_id)).status == "administrator"
        assert (await bot.get_chat_member(group.id, li.id)).status == "member"
        admins = await bot.get_chat_administrators(group.id)
        assert sorted(a.user.id for a in admins) == sorted([11, api.bot_id])
        chat = await bot.get_chat(group.id)
        assert chat.title == "Table"
        table = await bot.send_message(group.id, "table", disable_notification=True)
        assert await bot.pin_chat_message(group.id, table.message_id, disable_notification=True)
        await bot.send_chat_action(group.id, "typing")
        await bot.set_my_name("够级裁判", language_code="zh")
        extra = await bot.send_message(group.id, "tmp")
        assert await bot.delete_messages(group.id, [extra.message_id, 999])
        with pytest.raises(EndPointNotFound):
            await bot.do_api_request("noSuchMethod")
    assert [m.text for m in api.messages(wang.id)] == ["delivered"]
    pinned = api.message(group.id, table.message_id)
    assert pinned.pinned and pinned.disable_notification
    assert api.stats()["server_errors"] == 1
    assert api.world.settings[("setMyName", "zh")]["name"] == "够级裁判"
    assert api.message(group.id, extra.message_id).deleted
    assert heard.count("sendMessage") == 4 and "sendChatAction" in heard


async def test_shutdown_releases_the_long_poll_and_a_restart_resumes(api: LocalBotApi) -> None:
    group = api.group(-1009, "Table")
    wang = api.user(11, "老王")
    began = time.monotonic()
    async with running_app(api, [CommandHandler("echo", echo)], poll_timeout=30):
        await wang.send("/echo one", group)
        await api.idle()
    assert time.monotonic() - began < 3  # the 30 s long poll did not hold the shutdown
    await wang.send("/echo two", group)  # while the bot is down
    with pytest.raises(TimeoutError):
        await api.idle(timeout=0.2)
    async with running_app(api, [CommandHandler("echo", echo)], poll_timeout=30):
        await api.idle()
    assert [m.text for m in api.messages(group.id)] == ["echo: one", "echo: two"]
    await api.stop()
    assert time.monotonic() - began < 5


async def test_members_kick_and_raw_updates_reach_handlers(api: LocalBotApi) -> None:
    group = api.group(-1008, "Table")
    wang, li = api.user(11, "老王"), api.user(12, "小李")
    seen: list[str] = []

    async def note(update: Update, context: Context) -> None:
        message = update.effective_message
        if update.my_chat_member is not None:
            seen.append(f"bot {update.my_chat_member.new_chat_member.status}")
        elif update.edited_message is not None:
            seen.append(f"edited {update.edited_message.text}")
        elif message is not None and message.new_chat_members:
            seen.append(f"joined {message.new_chat_members[0].first_name}")
        elif message is not None and message.left_chat_member:
            seen.append(f"left {message.left_chat_member.first_name}")

    handlers = [
        MessageHandler(filters.ALL, note),
        ChatMemberHandler(note, ChatMemberHandler.MY_CHAT_MEMBER),
    ]
    async with running_app(api, handlers):
        await group.add_member(li)
        body = group.message_json(li, text="出牌", edit_date=int(time.time()))
        await group.send_raw({"edited_message": body})
        await group.remove_member(li)
        await api.idle()
        await group.remove_bot(by=wang)
        await wang.send("anyone?", group)  # the bot no longer sees the group
        await api.idle()
    assert seen == ["joined 小李", "edited 出牌", "left 小李", "left 够级裁判", "bot kicked"]
    assert [u.id for u in group.members] == []


# ---- as strict as Telegram
async def test_a_late_answer_expires_and_a_second_is_refused(api: LocalBotApi) -> None:
    """A callback query can be answered once, within 15 s of the press."""
    api.rate = RateLimits.off()
    wang = api.user(11, "老王")
    await wang.send("/start")
    queries: list[CallbackQuery] = []

    async def keep(update: Update, context: Context) -> None:
        assert update.callback_query is not None
        queries.append(update.callback_query)

    async with running_app(api, [CallbackQueryHandler(keep)]) as app:
        sent = await app.bot.send_message(wang.id, "pick", reply_markup=keyboard(("A", "a")))
        message = api.message(wang.id, sent.message_id)
        await wang.press(message, data="a")
        await wang.press(message, data="a")
        await api.idle()
        first, second = queries
        api.advance(14.0)
        assert await first.answer("in time")
        with pytest.raises(BadRequest, match=r"(?i)query id is invalid"):
            await first.answer("twice")
        api.advance(1.5)
        with pytest.raises(BadRequest, match=r"(?i)query is too old and response timeout"):
            await second.answer("too late")
    assert [a.text for a in wang.answers()] == ["in time"]


async def test_old_and_deleted_messages_reach_the_bot_inaccessible(api: LocalBotApi) -> None:
    """A press on a message older than 48 h (or deleted) carries an InaccessibleMessage (chat,
    id, date 0); a message that old can't be deleted, only edited. (python-telegram-bot 22
    parses it as a ``Message`` all the same: ``is_accessible`` tells it, not ``isinstance``.)"""
    api.rate = RateLimits.off()
    group = api.group(-1012, "Table", admins=[api.bot_id])
    wang = api.user(11, "老王")
    seen: list[tuple[bool, int, int]] = []

    async def note(update: Update, context: Context) -> None:
        query = update.callback_query
        assert query is not None and query.message is not None
        seen.append(
            (
                not query.message.is_accessible,
                query.message.chat.id,
                query.message.message_id,
            )
        )
        await query.answer()

    async with running_app(api, [CallbackQueryHandler(note)]) as app:
        bot = app.bot
        old = await bot.send_message(group.id, "old", reply_markup=keyboard(("A", "a")))
        gone = await bot.send_message(group.id, "gone", reply_markup=keyboard(("B", "b")))
        fresh = await bot.send_message(group.id, "fresh", reply_markup=keyboard(("C", "c")))
        api.message(group.id, old.message_id).age(48)
        await wang.press(api.message(group.id, old.message_id), data="a")
        await wang.press(api.message(group.id, fresh.message_id), data="c")
        assert await bot.delete_message(group.id, gone.message_id)
        await wang.forge(api.message(group.id, gone.message_id), "b")
        await api.idle()
        with pytest.raises(BadRequest, match=r"(?i)message can't be deleted"):
            await bot.delete_message(group.id, old.message_id)
        await bot.edit_message_reply_markup(group.id, old.message_id)  # edits have no limit
        assert await bot.delete_messages(group.id, [old.message_id, fresh.message_id])
        first = await bot.send_message(group.id, "later")
        second = await bot.send_message(group.id, "later still")
        api.advance(47.9 * 3600)
        assert await bot.delete_message(group.id, first.message_id)
        api.advance(0.1 * 3600)
        with pytest.raises(BadRequest, match=r"(?i)message can't be deleted"):
            await bot.delete_message(group.id, second.message_id)
    assert seen == [
        (True, group.id, old.message_id),
        (False, group.id, fresh.message_id),
        (True, group.id, gone.message_id),
    ]
    assert not api.message(group.id, old.message_id).deleted  # too old: skipped
    assert api.message(group.id, fresh.message_id).deleted


async def test_html_as_telegram_parses_it(api: LocalBotApi) -> None:
    """Only Telegram's tags and entities; lengths counted on the visible text in UTF-16."""
    api.rate = RateLimits.off()
    wang = api.user(11, "老王")
    await wang.send("/start")
    accepted = {
        "&lt;b&gt; &amp; &quot;x&quot; &#20025;&#x4E39;": '<b> & "x" 丹丹',
        '<span class="tg-spoiler">底牌</span> <tg-spoiler>!</tg-spoiler>': "底牌 !",
        '<a href="https://t.me/gouji_bot?start=a&amp;b">链接</a>': "链接",
        '<pre><code class="language-python">x = 1</code></pre>': "x = 1",
        "<blockquote expandable><b>引</b>用</blockquote>": "引用",
        '<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>': "👍",
        "<B>大写</B> <i>斜</>": "大写 斜",
    }
    refused = {
        "a &nbsp; b": 'Unsupported HTML entity "&nbsp;"',
        "黑桃 & 红桃": 'Unsupported HTML entity "&"',
        "&lt没有分号": 'Unsupported HTML entity "&lt"',
        "&#0;": 'Unsupported HTML entity "&#0;"',
        "&#xD83D;": "invalid Unicode characters",
        "<span>x</span>": 'Tag "span" must have class "tg-spoiler"',
        '<span class="bold">x</span>': 'Tag "span" must have class "tg-spoiler"',
        "<a>x</a>": 'Tag "a" must have a non-empty attribute "href"',
        "<br>": 'Unsupported start tag "br"',
        "3 < 5": 'Unsupported start tag "" at byte offset 2',
        "<b>x</i>": 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"',
        "<code><b>x</b></code>": 'Tag "b" can\'t be inside "code"',
        '<a href="https://a.b"><a href="https://c.d">x</a></a>': "can't be inside",
        "<b>未闭合": "Can't find end tag corresponding to start tag b",
        "牌</b>": "Unexpected end tag at byte offset 3",
    }
    async with running_app(api) as app:
        bot = app.bot
        for text, shown in accepted.items():
            sent = await bot.send_message(wang.id, text, "HTML")
            assert api.message(wang.id, sent.message_id).plain == shown
        for text, error in refused.items():
            with pytest.raises(BadRequest) as caught:
                await bot.send_message(wang.id, text, "HTML")
            assert caught.value.message.startswith("Can't parse entities: "), text
            assert error.lower() in caught.value.message.lower(), (text, caught.value.message)
        await bot.send_message(wang.id, "a &nbsp; b < c")  # no parse mode: any text
        await bot.send_message(wang.id, "&lt;" * 4096, "HTML")  # one character each
        with pytest.raises(BadRequest, match=r"(?i)message is too long"):
            await bot.send_message(wang.id, "&lt;" * 4097, "HTML")
        await bot.send_message(wang.id, "🂡" * 2048)  # two UTF-16 units each
        with pytest.raises(BadRequest, match=r"(?i)message is too long"):
            await bot.send_message(wang.id, "🂡" * 2049)
        with pytest.raises(BadRequest, match=r"(?i)message caption is too long"):
            await bot.send_photo(wang.id, png(), caption="🂡" * 513, filename="a.png")
        with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
            await bot.send_message(wang.id, "<b> </b>", "HTML")


async def test_inline_keyboards_as_telegram_takes_them(api: LocalBotApi) -> None:
    """One action a button, at most 8 buttons a row and 100 in all, texts of 64 at most."""
    api.rate = RateLimits.off()
    wang = api.user(11, "老王")
    await wang.send("/start")

    def row(*buttons: InlineKeyboardButton) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([list(buttons)])

    both = InlineKeyboardButton("座", callback_data="sit", url="https://t.me/gouji_bot")
    async with running_app(api) as app:
        bot = app.bot
        with pytest.raises(BadRequest, match=r"(?i)can't parse inline keyboard button: exactly"):
            await bot.send_message(wang.id, "x", reply_markup=row(both))
        eight = [InlineKeyboardButton(str(i), callback_data=str(i)) for i in range(8)]
        await bot.send_message(wang.id, "eight", reply_markup=row(*eight))
        nine = [*eight, InlineKeyboardButton("9", callback_data="9")]
        with pytest.raises(BadRequest, match=r"(?i)reply markup is too long"):
            await bot.send_message(wang.id, "nine", reply_markup=row(*nine))
        with pytest.raises(BadRequest, match=r"(?i)text buttons are unallowed"):
            await bot.send_message(
                wang.id, "x", reply_markup=row(InlineKeyboardButton("x", callback_data=""))
            )
        await bot.send_message(
            wang.id, "x", reply_markup=row(InlineKeyboardButton("长" * 64, callback_data="x"))
        )
        with pytest.raises(BadRequest, match=r"(?i)text is too long"):
            await bot.send_message(
                wang.id, "x", reply_markup=row(InlineKeyboardButton("🂡" * 33, callback_data="x"))
            )
        sent = await bot.send_message(wang.id, "edit me")
        with pytest.raises(BadRequest, match=r"(?i)can't parse inline keyboard button"):
            await bot.edit_message_text("x", wang.id, sent.message_id, reply_markup=row(both))
    assert [m.text for m in api.messages(wang.id)] == ["eight", "x", "edit me"]


async def test_closed_topic_refuses_and_anonymous_admins(api: LocalBotApi) -> None:
    """A closed forum topic answers 400 TOPIC_CLOSED (the bot hears it closed and reopened).
    An anonymous admin is an admin with is_anonymous; their commands come from
    GroupAnonymousBot with the group as sender_chat, and that account is no member."""
    api.rate = RateLimits.off()
    forum = api.group(-1013, "Forum", forum=True, admins=[api.bot_id])
    wang, li = api.user(11, "老王"), api.user(12, "小李")
    forum.join_quietly(li)
    forum.promote(wang, anonymous=True)
    heard: list[str] = []

    async def note(update: Update, context: Context) -> None:
        msg = update.effective_message
        assert msg is not None
        if msg.forum_topic_closed is not None:
            heard.append(f"closed {msg.message_thread_id}")
        elif msg.forum_topic_reopened is not None:
            heard.append(f"reopened {msg.message_thread_id}")
        elif msg.sender_chat is not None and msg.from_user is not None:
            heard.append(f"{msg.text} as {msg.sender_chat.id} from {msg.from_user.username}")

    handlers = [MessageHandler(filters.ALL, note)]
    async with running_app(api, handlers) as app:
        bot = app.bot
        await bot.send_message(forum.id, "in topic", message_thread_id=5)
        await forum.close_topic(5, by=li)
        await api.idle()
        with pytest.raises(BadRequest, match=r"(?i)topic_closed"):
            await bot.send_message(forum.id, "refused", message_thread_id=5)
        with pytest.raises(BadRequest, match=r"(?i)topic_closed"):
            await bot.send_photo(forum.id, png(), filename="a.png", message_thread_id=5)
        await bot.send_message(forum.id, "another topic", message_thread_id=6)
        await forum.reopen_topic(5)
        await api.idle()
        await bot.send_message(forum.id, "again", message_thread_id=5)

        await forum.send_as_chat("/gouji")
        await api.idle()
        admin = await bot.get_chat_member(forum.id, wang.id)
        assert isinstance(admin, ChatMemberAdministrator) and admin.is_anonymous
        member = await bot.get_chat_member(forum.id, li.id)
        assert member.status == "member"
        for account in (1087968824, 136817688):  # GroupAnonymousBot, Channel_Bot
            anonymous = await bot.get_chat_member(forum.id, account)
            assert anonymous.status == "left" and anonymous.user.is_bot
        admins = await bot.get_chat_administrators(forum.id)
        assert {
            a.user.id: a.is_anonymous for a in admins if isinstance(a, ChatMemberAdministrator)
        } == {
            wang.id: True,
            api.bot_id: False,
        }
    assert heard == ["closed 5", "reopened 5", f"/gouji as {forum.id} from GroupAnonymousBot"]
    assert [m.text for m in api.messages(forum.id, thread_id=5)] == ["in topic", "again"]

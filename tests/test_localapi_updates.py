"""The local Bot API server, driven through the real python-telegram-bot client: updates
(commands, buttons, members, topics, migration, the long poll)."""

from __future__ import annotations

import time

import pytest
from localapi_kit import Context, echo, keyboard, menu, picked, png, start
from telegram import (
    CallbackQuery,
    ChatMemberAdministrator,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.error import BadRequest, ChatMigrated
from telegram.ext import (
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from bot.offline.localapi import LocalBotApi, RateLimits, running_app


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

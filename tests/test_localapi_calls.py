"""The local Bot API server, driven through the real python-telegram-bot client: the bot's calls
(pictures, errors as Telegram answers them, flood limits, HTML and keyboards)."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

import pytest
from localapi_kit import keyboard, png
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.error import BadRequest, EndPointNotFound, Forbidden, NetworkError, RetryAfter
from telegram.ext import AIORateLimiter

from bot.offline.localapi import LocalBotApi, RateLimits, running_app


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


async def test_a_flood_wait_is_written_with_its_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GOUJI_API_TRACE: each 429 the server answers, with the chat's calls before it and which
    process sent them (this one: no GOUJI_PROCESS, its pid), and the second's calls in all."""
    path = tmp_path / "429.jsonl"
    monkeypatch.setenv("GOUJI_API_TRACE", str(path))
    async with LocalBotApi(rate=RateLimits(per_chat_per_s=1.0, per_chat_burst=1)) as api:
        wang = api.user(11, "老王")
        await wang.send("/start")
        async with running_app(api) as app:
            await app.bot.send_message(wang.id, "one")
            with pytest.raises(RetryAfter):
                await app.bot.send_message(wang.id, "two")
    (line,) = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert (line["chat"], line["call"]["status"], line["call"]["text"]) == (11, 429, "two")
    assert [(c["method"], c["text"]) for c in line["before"]] == [("sendMessage", "one")]
    assert line["overall_last_1s"] == 1 and line["last_1s"][0][1] == f"pid {os.getpid()}"

"""Chat screenshots (``bot.offline.screens``): a phone-style picture of the messages sent."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.offline.localapi import Button, SentMessage
from bot.offline.screens import (
    BUTTON,
    SHIPPED_FONT,
    FontFiles,
    _Painter,
    _Style,
    chat_height,
    find_fonts,
    last_screen,
    parse_html,
    render_chat,
    wrap,
)

RED = (220, 30, 30)


def photo_png(w: int = 400, h: int = 300) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), RED).save(out, "PNG")
    return out.getvalue()


def hand_message(message_id: int = 1) -> SentMessage:
    return SentMessage(
        message_id=message_id,
        chat_id=1000,
        thread_id=None,
        text="🂠 第 1 局 · 老王 的牌\n轮到你：小美 出了 <b>5个5</b>。管上，或者过。 &amp; more",
        parse_mode="HTML",
        photo=photo_png(),
        photo_dims=(400, 300),
        reply_markup=[
            [Button("▶ 5个7", "q1"), Button("▶ 4个7+2", "q2")],
            [Button("过", "x"), Button("提示", "i"), Button("🤖 托管", "a")],
        ],
        date=1_700_000_000,
    )


def text_message(
    message_id: int, text: str = "老王 3个8 → 小李 3个A ✅ 🎯 <b>开点</b>"
) -> SentMessage:
    return SentMessage(
        message_id=message_id, chat_id=-1, thread_id=None, text=text, parse_mode="HTML"
    )


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def test_two_messages_render_as_a_png_of_the_given_width() -> None:
    messages = [hand_message(1), text_message(2)]
    png = render_chat(messages, "够级裁判", subtitle="机器人")
    image = decode(png)
    assert image.width == 780
    assert image.height == chat_height(messages)
    narrow = decode(render_chat(messages, "够级裁判", width=390))
    assert narrow.width == 390 and narrow.height < image.height


def test_more_messages_make_a_taller_picture() -> None:
    one = decode(render_chat([hand_message(1)], "够级"))
    two = decode(render_chat([hand_message(1), text_message(2)], "够级"))
    three = decode(render_chat([hand_message(1), text_message(2), text_message(3)], "够级"))
    assert one.height < two.height < three.height
    # a deleted message takes no room
    gone = text_message(4)
    gone.deleted = True
    assert chat_height([hand_message(1), text_message(2), gone]) == two.height


def test_the_photo_fills_the_bubble_and_the_keyboard_sits_under_it() -> None:
    painter = _Painter(780)
    lay = painter.layout(hand_message())
    assert lay.width == painter.max_bubble
    assert lay.photo_height == round(300 * lay.width / 400)  # scaled, aspect kept
    image = decode(render_chat([hand_message()], "够级"))
    x_mid = painter.px(painter.MARGIN) + lay.width // 2
    photo_y = painter.top + lay.photo_height // 2
    assert image.getpixel((x_mid, photo_y)) == RED
    # two rows of buttons under the bubble: the first row's left button
    key_y = painter.top + lay.bubble_height + painter.px(painter.KEY_GAP) + painter.px(3)
    assert image.getpixel((painter.px(painter.MARGIN) + painter.px(20), key_y)) == BUTTON
    assert lay.keyboard_height == 2 * (painter.px(painter.KEY_HEIGHT) + painter.px(painter.KEY_GAP))
    without = painter.layout(SentMessage(1, 1, None, hand_message().text, "HTML", photo_png()))
    assert lay.height - without.height == lay.keyboard_height


def test_html_is_parsed_into_bold_runs_and_lines() -> None:
    lines = parse_html("🏆 <b>本局结束</b>：头科 &lt;老王&gt;\n本局：<strong>+4</strong>")
    assert lines == [
        [("🏆 ", False), ("本局结束", True), ("：头科 <老王>", False)],
        [("本局：", False), ("+4", True)],
    ]


def test_characters_the_font_cannot_draw_are_left_out() -> None:
    style = _Style(find_fonts(), 2.0)
    assert style.clean("🤖 托管") == "托管"
    assert style.clean("⚔️ 四户乱缠！") == "四户乱缠！"
    assert "🎯" not in style.clean("3个A ✅ 🎯 开点")


def test_long_text_wraps_within_the_bubble() -> None:
    style = _Style(find_fonts(), 2.0)
    text = "王叔 6个Q+小王 → 小李 4个K+2个2+大王（王叔 被<b>闷</b>，判为四科）" * 3
    wrapped = wrap(style, text, 15.5, 300)
    assert len(wrapped.lines) > 3
    assert all(w <= 300 for w in wrapped.widths)
    for line in wrapped.lines:
        joined = "".join(t for t, _ in line)
        assert not joined.endswith("（") and not joined.startswith(("，", "）"))
        assert joined == joined.strip()
    # nothing lost but spaces at the breaks
    kept = "".join(t for line in wrapped.lines for t, _ in line).replace(" ", "")
    assert kept == style.clean(text.replace("<b>", "").replace("</b>", "")).replace(" ", "")


def test_last_screen_keeps_the_newest_messages_that_fit() -> None:
    messages = [text_message(i) for i in range(1, 40)]
    shown = last_screen(messages, height=1200)
    assert shown == messages[-len(shown) :]
    assert 1 < len(shown) < len(messages)
    assert chat_height(shown) <= 1200 < chat_height(messages[-len(shown) - 1 :])
    assert last_screen(messages[:1], height=10) == messages[:1]  # at least the newest one


def test_without_a_system_cjk_font_the_shipped_subset_draws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shipped = FontFiles(str(SHIPPED_FONT), str(SHIPPED_FONT), 0)
    monkeypatch.setattr("bot.offline.screens.find_fonts", lambda: shipped)
    style = _Style(shipped, 2.0)
    assert style.clean("🤖 托管") == "托管"
    image = decode(render_chat([hand_message(1), text_message(2)], "够级"))
    assert image.width == 780 and image.height == chat_height([hand_message(1), text_message(2)])

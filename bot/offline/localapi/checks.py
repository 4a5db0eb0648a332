"""Telegram's validation of what a bot sends: HTML markup, lengths, inline keyboards, images."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image, UnidentifiedImageError

from .entities import HtmlError, parse_html
from .records import JSON, Button, bad_request, utf16_len

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
BUTTON_LIMIT = 100
PHOTO_BYTES = 10 * 1024 * 1024
FILE_BYTES = 50 * 1024 * 1024  # a document or an animation a bot uploads (Bot API: 50 MB)

BUTTONS_PER_ROW = 8
BUTTON_TEXT_LIMIT = 64  # UTF-16 units; Telegram documents none: the stricter choice
CALLBACK_DATA_BYTES = 64
# the fields of an inline keyboard button that say what it does: exactly one of them
_BUTTON_ACTIONS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay",
)  # fmt: skip


def check_html(text: str) -> str:
    """The visible text of an HTML message, or Telegram's "can't parse entities" (see
    :mod:`.entities`: a bare ``<`` or ``&`` is refused, escape it as ``&lt;``/``&amp;``)."""
    try:
        return parse_html(text)
    except HtmlError as exc:
        raise bad_request(f"can't parse entities: {exc}") from None


def check_text(text: str | None, parse_mode: str | None, *, caption: bool = False) -> str:
    """Validate a message text or caption; returns it (``""`` for a missing caption)."""
    if text is None:
        if caption:
            return ""
        raise bad_request("message text is empty")
    html = parse_mode is not None and parse_mode.upper() == "HTML"
    visible = check_html(text) if html else text
    if not caption and not visible.strip():
        raise bad_request("message text is empty")
    limit = CAPTION_LIMIT if caption else TEXT_LIMIT
    if utf16_len(visible) > limit:
        raise bad_request("message caption is too long" if caption else "message is too long")
    return text


def parse_markup(markup: Any) -> tuple[list[list[Button]], JSON | None]:
    """An inline keyboard as rows of :class:`Button`, or the error Telegram gives for it: at
    most 8 buttons a row and 100 in all, each with a text of at most 64 UTF-16 units and
    exactly one action (callback data of 1-64 bytes, or an http(s)/tg URL, or another kind)."""
    if markup is None or not isinstance(markup, dict) or "inline_keyboard" not in markup:
        return [], None  # reply keyboards and removals don't show on the message
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if sum(len(r) for r in rows) > BUTTON_LIMIT or any(len(r) > BUTTONS_PER_ROW for r in rows):
        raise bad_request("reply markup is too long")
    parsed = [[_button(b) for b in row] for row in rows]
    return [r for r in parsed if r], {"inline_keyboard": rows} if rows else None


_BUTTON = "can't parse inline keyboard button: "


def _button(b: Any) -> Button:
    if not isinstance(b, dict) or "text" not in b:
        raise bad_request(_BUTTON + 'Can\'t find field "text"')
    if not isinstance(b["text"], str):
        raise bad_request(_BUTTON + 'Field "text" must be of type String')
    if not b["text"].strip():
        raise bad_request("can't parse inline keyboard button: Text is empty")
    if utf16_len(b["text"]) > BUTTON_TEXT_LIMIT:
        raise bad_request("can't parse inline keyboard button: Text is too long")
    # an empty callback_data or url is no action: a text button
    actions = [k for k in _BUTTON_ACTIONS if k in b and b[k] not in ("", None)]
    if not actions:
        raise bad_request(
            "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
        )
    if len(actions) > 1:
        raise bad_request(
            "can't parse inline keyboard button: exactly one of the fields "
            f"{', '.join(actions)} must be used"
        )
    data, url = b.get("callback_data"), b.get("url")
    if data is not None and (not isinstance(data, str) or len(data.encode()) > CALLBACK_DATA_BYTES):
        raise bad_request("BUTTON_DATA_INVALID")
    if url is not None and not str(url).startswith(("http://", "https://", "tg://")):
        raise bad_request("BUTTON_URL_INVALID")
    return Button(b["text"], data, None if url is None else str(url))


def file_size_ok(data: bytes) -> None:
    """Telegram's upload limit for a document or an animation."""
    if len(data) > FILE_BYTES:
        raise bad_request("Request Entity Too Large")


def animation_size(data: bytes) -> tuple[int, int]:
    """Width and height of an uploaded animation: a GIF (or an H.264 MP4 without sound, taken
    as it is). Telegram sends anything else as a document; this server refuses it, the
    stricter choice."""
    file_size_ok(data)
    if data[4:8] == b"ftyp":
        return 0, 0
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != "GIF":
                raise bad_request("wrong type of the web page content")
            return image.size
    except (UnidentifiedImageError, OSError) as exc:
        raise bad_request("wrong type of the web page content") from exc


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height of an uploaded photo, or the 400 Telegram gives for a bad one."""
    if len(data) > PHOTO_BYTES:
        raise bad_request("file is too big")
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError) as exc:
        raise bad_request("IMAGE_PROCESS_FAILED") from exc
    if width + height > 10000 or max(width, height) > 20 * min(width, height):
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    return width, height

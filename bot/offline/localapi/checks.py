"""Telegram's validation of what a bot sends: HTML markup, lengths, inline keyboards, images."""

from __future__ import annotations

import io
import re
from typing import Any

from PIL import Image, UnidentifiedImageError

from .world import JSON, Button, bad_request, strip_html, utf16_len

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
BUTTON_LIMIT = 100
PHOTO_BYTES = 10 * 1024 * 1024

_HTML_TAGS = {
    "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler",
    "a", "code", "pre", "blockquote", "tg-emoji",
}  # fmt: skip
_TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)(\s[^<>]*)?>")


def check_html(text: str) -> None:
    """Raise Telegram's "can't parse entities" for tags its HTML parser rejects (a bare ``<``
    included: escape it as ``&lt;``)."""
    stack: list[str] = []
    pos = 0
    while (lt := text.find("<", pos)) >= 0:
        m = _TAG.match(text, lt)
        if m is None:
            raise _parse_error(f"Empty tag name at byte offset {_offset(text, lt)}")
        closing, name = m.group(1) == "/", m.group(2).lower()
        if name not in _HTML_TAGS:
            raise _parse_error(f'Unsupported start tag "{name}" at byte offset {_offset(text, lt)}')
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            raise _parse_error(f'Unmatched end tag at byte offset {_offset(text, lt)}, "{name}"')
        pos = m.end()
    if stack:
        raise _parse_error(f'Can\'t find end tag corresponding to start tag "{stack[-1]}"')


def _parse_error(detail: str) -> Exception:
    return bad_request(f"can't parse entities: {detail}")


def _offset(text: str, index: int) -> int:
    return len(text[:index].encode())


def check_text(text: str | None, parse_mode: str | None, *, caption: bool = False) -> str:
    """Validate a message text or caption; returns it (``""`` for a missing caption)."""
    if text is None:
        if caption:
            return ""
        raise bad_request("message text is empty")
    if parse_mode is not None and parse_mode.upper() == "HTML":
        check_html(text)
        visible = strip_html(text)
    else:
        visible = text
    if not caption and not visible.strip():
        raise bad_request("message text is empty")
    limit = CAPTION_LIMIT if caption else TEXT_LIMIT
    if utf16_len(visible) > limit:
        raise bad_request("message caption is too long" if caption else "message is too long")
    return text


def parse_markup(markup: Any) -> tuple[list[list[Button]], JSON | None]:
    """An inline keyboard as rows of :class:`Button`, or the error Telegram gives for it."""
    if markup is None or not isinstance(markup, dict) or "inline_keyboard" not in markup:
        return [], None  # reply keyboards and removals don't show on the message
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if sum(len(r) for r in rows) > BUTTON_LIMIT:
        raise bad_request("reply markup is too long")
    parsed: list[list[Button]] = []
    for row in rows:
        out: list[Button] = []
        for b in row:
            if not isinstance(b, dict) or not b.get("text"):
                raise bad_request("can't parse inline keyboard button: Text is empty")
            data, url = b.get("callback_data"), b.get("url")
            if data is not None and not 1 <= len(str(data).encode()) <= 64:
                raise bad_request("BUTTON_DATA_INVALID")
            if url is not None and not str(url).startswith(("http://", "https://", "tg://")):
                raise bad_request("BUTTON_URL_INVALID")
            if data is None and url is None and len(b) == 1:
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
            out.append(Button(str(b["text"]), None if data is None else str(data), url))
        if out:
            parsed.append(out)
    return parsed, {"inline_keyboard": rows} if rows else None


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

"""Telegram's length limits, counted as Telegram counts them: on the text a reader sees (the
HTML's tags removed and its entities decoded), in UTF-16 code units (an emoji outside the basic
plane counts two). A message over its limit is refused whole, so text is shortened, never lost
to a refusal."""

from __future__ import annotations

import html
import re

MAX_MESSAGE = 4096  # a text message
MAX_CAPTION = 1024  # a photo's caption

_TAG = re.compile(r"<[^>]*>")


def visible_length(text: str) -> int:
    """The length Telegram checks: the visible text of Telegram HTML, in UTF-16 code units."""
    return len(html.unescape(_TAG.sub("", text)).encode("utf-16-le")) // 2


def fit(text: str, limit: int) -> str:
    """``text`` within ``limit`` (:func:`visible_length`): whole lines dropped from the start
    (the newest lines, at the end, stay) behind a "…" line; a single line too long for the
    limit is cut at its end with all its tags removed (a tag cut in half would be refused)."""
    if visible_length(text) <= limit:
        return text
    lines = text.split("\n")
    while lines and visible_length("…\n" + "\n".join(lines)) > limit:
        lines.pop(0)
    if lines:
        return "…\n" + "\n".join(lines)
    plain = html.unescape(_TAG.sub("", text.split("\n")[-1]))
    while plain and len(plain.encode("utf-16-le")) // 2 > limit - 1:
        plain = plain[:-1]
    return html.escape(plain, quote=False) + "…"

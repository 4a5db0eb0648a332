"""What the local Bot API server's world is made of besides its users and groups: the bot's
messages as sent and edited, their buttons, the answers to callback queries, and Telegram-shaped
errors."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .entities import visible_text

JSON = dict[str, Any]
_DEEP_LINK = re.compile(r"(?:https?://)?t\.me/(\w+)\?start=([A-Za-z0-9_-]{1,64})")


class ApiError(Exception):
    """A Telegram-shaped failure: HTTP status, description and optional ``parameters``."""

    def __init__(self, status: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


def bad_request(what: str, parameters: JSON | None = None) -> ApiError:
    return ApiError(400, f"Bad Request: {what}", parameters)


def forbidden(what: str) -> ApiError:
    return ApiError(403, f"Forbidden: {what}")


def deep_link_payload(url: str, bot_username: str) -> str | None:
    """The payload of a ``t.me/<bot>?start=<payload>`` link to this bot, else None."""
    m = _DEEP_LINK.fullmatch(url)
    return m.group(2) if m and m.group(1).lower() == bot_username.lower() else None


def present(**fields: Any) -> JSON:
    return {k: v for k, v in fields.items() if v is not None}


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def strip_html(text: str) -> str:
    """The text an HTML message shows (its tags dropped, its entities decoded as Telegram's)."""
    return visible_text(text)


@dataclass(frozen=True)
class Button:
    text: str
    callback_data: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class CallbackAnswer:
    query_id: str
    text: str | None
    show_alert: bool
    url: str | None


@dataclass
class SentMessage:
    """A message the bot sent, in its current state (edits are applied in place)."""

    message_id: int
    chat_id: int
    thread_id: int | None
    text: str  # the text, or the caption of a photo or document ("" if none), as sent
    parse_mode: str | None = None
    photo: bytes | None = None
    photo_dims: tuple[int, int] = (0, 0)
    document: bytes | None = None
    animation: bytes | None = None  # sendAnimation: also shown as its document (Bot API)
    animation_dims: tuple[int, int] = (0, 0)
    file_id: str | None = None
    filename: str | None = None
    reply_markup: list[list[Button]] = field(default_factory=list)
    markup_json: JSON | None = None
    edits: int = 0
    deleted: bool = False
    pinned: bool = False
    history: list[str] = field(default_factory=list)
    disable_notification: bool = False
    link_preview_options: JSON | None = None
    reply_to: int | None = None
    date: int = 0
    edit_date: int | None = None
    from_bot: bool = True

    @property
    def is_photo(self) -> bool:
        return self.photo is not None

    @property
    def has_media(self) -> bool:
        return self.photo is not None or self.document is not None or self.animation is not None

    @property
    def plain(self) -> str:
        """The text with HTML tags stripped and entities unescaped."""
        return strip_html(self.text) if (self.parse_mode or "").upper() == "HTML" else self.text

    @property
    def buttons(self) -> list[Button]:
        return [b for row in self.reply_markup for b in row]

    def age(self, hours: float) -> None:
        """Make the message ``hours`` older (past 48 h it can't be deleted, and a press on it
        reaches the bot as an InaccessibleMessage)."""
        self.date -= round(hours * 3600)

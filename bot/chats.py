"""Chats' settings and the users the bot has met, as stored (apart from the table registry,
:mod:`bot.tables`)."""

from __future__ import annotations

from dataclasses import dataclass

from . import storage as S
from .model import ChatSettings


def lang_of_code(code: object) -> str | None:
    """The catalog language of a Telegram ``language_code`` ("zh…" or "en…"), else None."""
    if not isinstance(code, str):
        return None
    code = code.lower()
    return "zh" if code.startswith("zh") else "en" if code.startswith("en") else None


@dataclass(frozen=True)
class UserInfo:
    """The Telegram user behind an update, as far as the bot needs."""

    id: int
    name: str
    lang: str | None = None  # "zh" or "en" when Telegram tells it


class Chats:
    """Chats' settings and users, in ``storage``; ``lang``: a new chat's language."""

    def __init__(self, storage: S.Storage, lang: str) -> None:
        self.storage = storage
        self.lang = lang

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """A chat's settings; a new chat speaks the bot's default language (GOUJI_LANG)."""
        row = await self.storage.get_chat(chat_id)
        if row is None:
            return ChatSettings(lang=self.lang)
        return ChatSettings.from_json(row.settings, row.lang or self.lang)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings) -> None:
        await self.storage.save_chat(S.ChatRow(chat_id, settings.lang, settings.to_json()))

    async def lang_of(self, chat_id: int, user: UserInfo) -> str:
        """The language to answer in: a private chat speaks its user's, a group its own."""
        if chat_id > 0:
            return user.lang or self.lang
        return (await self.chat_settings(chat_id)).lang

    async def seen_user(self, user: UserInfo, dm_ok: bool | None = None) -> S.UserRow:
        row = await self.storage.get_user(user.id)
        if row is None:
            row = S.UserRow(user.id, user.name, user.lang, bool(dm_ok))
        else:
            row.name = user.name
            row.lang = user.lang or row.lang
            if dm_ok is not None:
                row.dm_ok = dm_ok
        await self.storage.save_user(row)
        return row

"""A chat's settings: ``/settings`` shows its rules (the preset and every switch of docs/rules.md
§13) and how the bot runs its tables (turn timer, AI level, language, the table picture),
changed with buttons by a chat admin or the opener of the open lobby. Changes apply to the lobby
and to later tables; a running match keeps the rules it was dealt with. ``/rules`` and
``/help`` answer here too."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.rules import Rules
from renderers import help_text, rules_text, switch_value, t
from renderers.rulebook import book_page, book_pages

from .buttons import Callback, Kind, SettingsOp
from .chats import Chats
from .keyboards import Button, Keyboard
from .model import TURN_SECONDS, ChatSettings, TableStatus, next_preset
from .outbox import Answer, Out
from .router import CommandCall, Menu, Press, Router
from .tables import Config, Tables
from .tenure import Poster

# The values a switch's button steps through (§13).
CYCLES: dict[str, tuple[Any, ...]] = {
    "point_table": ("standard", "double"),
    "tribute": ("all", "luo", "off"),
    "partner_cards_at": (0, 10),
    "counts_at": (10, 36, 0),
}


def _cb(version: int, op: SettingsOp, arg: int | str = "") -> str:
    return Callback(Kind.SETTINGS, 0, version, op, str(arg)).encode()


def settings_text(settings: ChatSettings) -> str:
    lang = settings.lang
    lines = [rules_text(settings.rules(), lang), ""]
    lines.append(
        t(
            lang,
            "bot.settings.run",
            turn=settings.turn_s,
            level=t(lang, f"bot.level.{settings.ai_level}"),
            lang_name=t(lang, "lang.name"),
            image=t(lang, "bot.on" if settings.image else "bot.off"),
        )
    )
    instant = t(lang, "bot.on" if settings.instant_passes else "bot.off")
    lines.append(t(lang, "bot.settings.instant", v=instant))
    lines.append(t(lang, "bot.settings.how"))
    return "\n".join(lines)


def settings_keyboard(settings: ChatSettings) -> Keyboard:
    lang = settings.lang
    rules = settings.rules()
    v = settings.version
    rows: Keyboard = [
        [
            Button(
                t(lang, "bot.btn.preset", preset=t(lang, f"bot.preset.{settings.preset}")),
                _cb(v, SettingsOp.PRESET),
            )
        ]
    ]
    row: list[Button] = []
    for i, (name, value) in enumerate(rules.switches().items()):
        row.append(
            Button(
                f"{t(lang, f'bot.sw.{name}')} {switch_value(name, value, lang)}",
                _cb(v, SettingsOp.SWITCH, i),
            )
        )
        if len(row) == 2:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    rows.append(
        [
            Button(t(lang, "bot.btn.turn", s=settings.turn_s), _cb(v, SettingsOp.TURN)),
            Button(
                t(lang, "bot.btn.ai_level", level=t(lang, f"bot.level.{settings.ai_level}")),
                _cb(v, SettingsOp.LEVEL),
            ),
        ]
    )
    rows.append(
        [
            Button("🌐 " + t(lang, "lang.name"), _cb(v, SettingsOp.LANG)),
            Button(
                t(lang, "bot.btn.image", v=t(lang, "bot.on" if settings.image else "bot.off")),
                _cb(v, SettingsOp.IMAGE),
            ),
        ]
    )
    instant = t(lang, "bot.on" if settings.instant_passes else "bot.off")
    rows.append([Button(t(lang, "bot.btn.instant", v=instant), _cb(v, SettingsOp.INSTANT))])
    return rows


def settings_out(chat_id: int, thread_id: int | None, settings: ChatSettings) -> Out:
    return Out(chat_id, settings_text(settings), settings_keyboard(settings), thread_id)


def rulebook_out(
    chat_id: int, thread_id: int | None, rules: Rules, version: int, lang: str, page: int = 0
) -> Out:
    """A page of ``/rules`` — this table's switches first, then the rulebook with them marked
    — and ◀ ▶ to turn the page (the buttons carry the chat settings' version, like the
    settings')."""
    total = book_pages(lang)
    page = min(max(page, 0), total - 1)
    row = []
    if page > 0:
        row.append(Button(t(lang, "book.prev"), _cb(version, SettingsOp.PAGE, page - 1)))
    if page + 1 < total:
        row.append(Button(t(lang, "book.next"), _cb(version, SettingsOp.PAGE, page + 1)))
    text = book_page(page, rules, lang)
    return Out(chat_id, text, [row] if row else None, thread_id, info=True)


def change(settings: ChatSettings, cb: Callback) -> ChatSettings | None:
    """The settings after one button (the next version), or None for a switch not there."""
    new = _changed(settings, cb)
    return replace(new, version=settings.version + 1) if new is not None else None


def _changed(settings: ChatSettings, cb: Callback) -> ChatSettings | None:
    match cb.op:
        case SettingsOp.PRESET:
            return replace(settings, preset=next_preset(settings.preset), switches={})
        case SettingsOp.TURN:
            i = TURN_SECONDS.index(settings.turn_s) if settings.turn_s in TURN_SECONDS else 0
            return replace(settings, turn_s=TURN_SECONDS[(i + 1) % len(TURN_SECONDS)])
        case SettingsOp.LEVEL:
            return replace(settings, ai_level=settings.ai_level.next())
        case SettingsOp.LANG:
            return replace(settings, lang="en" if settings.lang == "zh" else "zh")
        case SettingsOp.IMAGE:
            return replace(settings, image=not settings.image)
        case SettingsOp.INSTANT:
            return replace(settings, instant_passes=not settings.instant_passes)
        case SettingsOp.SWITCH:
            switches = list(settings.rules().switches().items())
            if cb.index >= len(switches):
                return None
            name, value = switches[cb.index]
            cycle = CYCLES.get(name, (True, False))
            nxt = cycle[(cycle.index(value) + 1) % len(cycle)] if value in cycle else cycle[0]
            flipped = dict(settings.switches)
            base = Rules.preset_named(settings.preset).switches()[name]
            if nxt == base:
                flipped.pop(name, None)
            else:
                flipped[name] = nxt
            return replace(settings, switches=flipped)
    return None


class SettingsMenu:
    """``/settings``, its buttons, ``/rules`` and ``/help``."""

    def __init__(self, tables: Tables, chats: Chats, *, poster: Poster, cfg: Config) -> None:
        self.tables = tables
        self.cfg = cfg
        self.chats = chats
        self.commands: Mapping[str, object] = {}
        self.sender = poster

    def register(self, router: Router) -> None:
        self.commands = router.commands  # every part's, for /help (filled as parts register)
        router.command("rules", self._cmd_rules, menu=Menu.BOTH)
        router.command("settings", self._cmd_settings, menu=Menu.GROUP)
        router.command("help", self._cmd_help, menu=Menu.BOTH)
        for op in SettingsOp:
            if op != SettingsOp.PAGE:
                router.on_chat(Kind.SETTINGS, op, self._press)
        router.on_chat(Kind.SETTINGS, SettingsOp.PAGE, self._page, private=True)

    async def _cmd_settings(self, c: CommandCall) -> None:
        if c.private:
            lang = c.user.lang or self.cfg.lang
            self.tables.reply(c.chat_id, None, t(lang, "bot.group_only"))
            return
        settings = await self.chats.chat_settings(c.chat_id)
        self.sender.post(settings_out(c.chat_id, c.thread_id, settings))

    async def _rules_of(self, chat_id: int, thread_id: int | None) -> tuple[Rules, int]:
        """The rules of the table open here (a running match keeps its own), else the chat's;
        and the chat settings' version (the page buttons carry it)."""
        settings = await self.chats.chat_settings(chat_id)
        table = await self.tables.find_at(chat_id, thread_id)
        rules = table.st.settings.rules() if table is not None else settings.rules()
        return rules, settings.version

    async def _cmd_rules(self, c: CommandCall) -> None:
        """The rulebook's first page, in the chat's language, this table's switches marked."""
        lang = await self.chats.lang_of(c.chat_id, c.user)
        rules, version = await self._rules_of(c.chat_id, c.thread_id)
        self.sender.post(rulebook_out(c.chat_id, c.thread_id, rules, version, lang))

    async def _page(self, p: Press) -> Answer:
        """◀ or ▶ on the rulebook: the page it names, in place (anyone may turn the page)."""
        lang = await self.chats.lang_of(p.chat_id, p.user)
        rules, version = await self._rules_of(p.chat_id, p.thread_id)
        page = rulebook_out(p.chat_id, p.thread_id, rules, version, lang, p.cb.index)
        return Answer(edit=page)

    async def _cmd_help(self, c: CommandCall) -> None:
        """How to play, with the rules that are on here and every command."""
        lang = await self.chats.lang_of(c.chat_id, c.user)
        rules, _ = await self._rules_of(c.chat_id, c.thread_id)
        self.tables.reply(c.chat_id, c.thread_id, help_text(lang, rules, list(self.commands)))

    async def _press(self, p: Press) -> Answer:
        """A settings button: saved, the open lobby told, the message shows the new settings."""
        settings = await self.chats.chat_settings(p.chat_id)
        lang = settings.lang
        table = await self.tables.find_at(p.chat_id, p.thread_id)
        opener = (
            table is not None and table.status == TableStatus.LOBBY and table.opener == p.user.id
        )
        # who may change them first: a stale press of anyone else changes no message either
        if not opener and not await p.members.is_admin(p.chat_id, p.user.id):
            return Answer(t(lang, "bot.admin_only"), alert=True)
        if p.cb.version != settings.version:  # changed since: show the settings as they are
            return Answer(t(lang, "bot.stale"), edit=settings_out(p.chat_id, p.thread_id, settings))
        new = change(settings, p.cb)
        if new is None:
            return Answer(t(lang, "bot.bad_button"))
        await self.chats.save_chat_settings(p.chat_id, new)
        await self._to_lobby(p.chat_id, p.thread_id, new)
        return Answer(t(new.lang, "bot.saved"), edit=settings_out(p.chat_id, p.thread_id, new))

    async def _to_lobby(self, chat_id: int, thread_id: int | None, settings: ChatSettings) -> None:
        """New chat settings reach the open lobby; a running match keeps its own rules."""
        table = await self.tables.find_at(chat_id, thread_id)
        if table is None:
            return
        async with self.tables.locked(
            table
        ):  # its status as it is now: a start may have been under way
            if table.status != TableStatus.LOBBY:
                return
            table.st.settings = settings
            for s in table.st.seats:
                if s is not None and not s.human:
                    s.level = settings.ai_level
            table.lobby_ver += 1
            await self.tables.save(table)
            self.sender.post(table.lobby_out())

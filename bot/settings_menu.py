"""``/settings``: a chat's rules (the preset and every switch of RULES.md §13) and how the bot
runs its tables (turn timer, AI level, language, the table picture), changed with buttons by a
chat admin or the opener of the open lobby. Changes apply to the lobby and to later tables; a
running match keeps the rules it was dealt with."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from engine.rules import PRESETS, Rules
from renderers import rules_text, t

from .codec import BadCallback, Callback
from .keyboards import Button, Keyboard
from .model import TURN_SECONDS, ChatSettings
from .outbox import Answer, Out

LEVELS = ("easy", "normal", "hard")
# The values a switch's button steps through (§13).
CYCLES: dict[str, tuple[Any, ...]] = {
    "point_table": ("standard", "double"),
    "tribute": ("all", "luo", "off"),
    "partner_cards_at": (0, 10),
    "counts_at": (10, 36, 0),
}


def _cb(op: str) -> str:
    return Callback("s", 0, 0, op).encode()


def _value(v: Any, lang: str) -> str:
    if isinstance(v, bool):
        return "✅" if v else "❌"
    if isinstance(v, int):
        return str(v)
    return t(lang, f"bot.val.{v}")


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
    lines.append(t(lang, "bot.settings.how"))
    return "\n".join(lines)


def settings_keyboard(settings: ChatSettings) -> Keyboard:
    lang = settings.lang
    rules = settings.rules()
    rows: Keyboard = [
        [
            Button(
                t(lang, "bot.btn.preset", preset=t(lang, f"bot.preset.{settings.preset}")), _cb("p")
            )
        ]
    ]
    row: list[Button] = []
    for i, (name, value) in enumerate(rules.switches().items()):
        row.append(Button(f"{t(lang, f'bot.sw.{name}')} {_value(value, lang)}", _cb(f"w{i}")))
        if len(row) == 2:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    rows.append(
        [
            Button(t(lang, "bot.btn.turn", s=settings.turn_s), _cb("t")),
            Button(
                t(lang, "bot.btn.ai_level", level=t(lang, f"bot.level.{settings.ai_level}")),
                _cb("a"),
            ),
        ]
    )
    rows.append(
        [
            Button("🌐 " + t(lang, "lang.name"), _cb("l")),
            Button(
                t(lang, "bot.btn.image", v=t(lang, "bot.on" if settings.image else "bot.off")),
                _cb("i"),
            ),
        ]
    )
    return rows


def settings_out(
    chat_id: int, thread_id: int | None, settings: ChatSettings, version: int = 0
) -> Out:
    return Out(chat_id, settings_text(settings), settings_keyboard(settings), thread_id)


def change(settings: ChatSettings, op: str) -> ChatSettings | None:
    """The settings after one button, or None for a button that is not ours."""
    if op == "p":
        names = list(PRESETS)
        return replace(
            settings, preset=names[(names.index(settings.preset) + 1) % len(names)], switches={}
        )
    if op == "t":
        i = TURN_SECONDS.index(settings.turn_s) if settings.turn_s in TURN_SECONDS else 0
        return replace(settings, turn_s=TURN_SECONDS[(i + 1) % len(TURN_SECONDS)])
    if op == "a":
        return replace(
            settings, ai_level=LEVELS[(LEVELS.index(settings.ai_level) + 1) % len(LEVELS)]
        )
    if op == "l":
        return replace(settings, lang="en" if settings.lang == "zh" else "zh")
    if op == "i":
        return replace(settings, image=not settings.image)
    if op.startswith("w") and op[1:].isdigit():
        switches = list(settings.rules().switches().items())
        k = int(op[1:])
        if k >= len(switches):
            return None
        name, value = switches[k]
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


async def settings_press(
    service: Any,
    chat_id: int,
    thread_id: int | None,
    data: str | None,
    user: Any,
    is_admin: Callable[[int], Awaitable[bool]],
) -> tuple[Answer, Out | None]:
    """A settings button: (the answer, the settings message to put in its place)."""
    settings: ChatSettings = await service.chat_settings(chat_id)
    lang = settings.lang
    try:
        cb = Callback.decode(data)
    except BadCallback:
        return Answer(t(lang, "bot.bad_button")), None
    table = service.table_at(chat_id, thread_id)
    opener = table is not None and table.status == "lobby" and table.opener == user.id
    if not opener and not await is_admin(user.id):
        return Answer(t(lang, "bot.admin_only"), alert=True), None
    new = change(settings, cb.op)
    if new is None:
        return Answer(t(lang, "bot.bad_button")), None
    await service.save_chat_settings(chat_id, new)
    await service.settings_changed(chat_id, thread_id, new)
    return Answer(t(new.lang, "bot.saved")), settings_out(chat_id, thread_id, new)

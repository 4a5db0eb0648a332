"""Long texts: the ``/rules`` summary of a table's switches (docs/rules.md §13) and the help."""

from __future__ import annotations

import html
from collections.abc import Sequence

from engine.rules import PRESETS, STANDARD, Rules

from .i18n import Catalog, fit_message, lang_or_default

# Switch texts that speak of 点贡, said otherwise where the table collects none (§11).
_PAID_BY_DIAN = frozenset({"rules.open_point.on", "rules.declare_point.on"})


def _switch_key(switch: str, value: object) -> tuple[str, dict[str, object]]:
    """The catalog key (and parameters) describing one switch's value."""
    if switch == "partner_cards_at":
        return (
            ("rules.partner_cards_at.never", {})
            if value == 0
            else (
                "rules.partner_cards_at.n",
                {"n": value},
            )
        )
    if switch == "counts_at":
        if isinstance(value, int) and value >= 36:
            return "rules.counts_at.always", {}
        if value == 0:
            return "rules.counts_at.never", {}
        return "rules.counts_at.n", {"n": value}
    if isinstance(value, bool):
        return f"rules.{switch}.{'on' if value else 'off'}", {}
    return f"rules.{switch}.{value}", {}


def switch_value(switch: str, value: object, lang: str = "zh") -> str:
    """A §13 switch's value as its /settings button shows it: ✅/❌ for on and off, words for the
    rest (``看联邦牌 不看``, ``报牌 剩10张``, ``报牌 一直``), never a bare number."""
    cat = Catalog.load(lang)
    if isinstance(value, bool):
        return "✅" if value else "❌"
    if switch == "partner_cards_at" and isinstance(value, int):
        key = "val.partner_cards_at.n" if value else "val.partner_cards_at.never"
        return cat.text(key, n=value)
    if switch == "counts_at" and isinstance(value, int):
        if value >= 36:  # §13: 36 = always (a hand never holds more)
            return cat.text("val.always")
        return cat.text("val.counts_at.n" if value else "val.counts_at.never", n=value)
    key = f"bot.val.{value}"
    return cat.text(key) if key in cat else html.escape(str(value))


def rules_text(rules: Rules, lang: str = "zh") -> str:
    """Every switch of docs/rules.md §13 in words, under the preset's name; switches that differ
    from the preset are marked."""
    lang = lang_or_default(lang)
    cat = Catalog.load(lang)
    seen: set[str] = set()
    key = f"rules.preset.{rules.preset}"
    preset = cat.text(key) if key in cat else html.escape(rules.preset)  # named, without its id
    lines = [cat.text("rules.title", seen, preset=preset)]
    changed = rules.differences() if rules.preset in PRESETS else {}
    for switch, value in rules.switches().items():
        key, params = _switch_key(switch, value)
        if key in _PAID_BY_DIAN and not (rules.open_point and rules.tribute == "all"):
            key += ".unpaid"  # §11: no 点贡 is collected at this table
        text = cat.text(key, seen, **params)
        if switch in changed:
            text += cat.text("rules.changed", seen)
        lines.append(text)
    if changed:
        lines.append(cat.text("rules.changed_note", seen))
    return fit_message(lines, lang)


def help_text(
    lang: str = "zh", rules: Rules = STANDARD, commands: Sequence[str] | None = None
) -> str:
    """How to play with the bot, for ``/help`` and ``/start``: the buttons, the rules that are on
    at this table (``rules``; nothing about a switch that is off) and every command of
    ``commands`` (the bot's registered commands; by default every command the catalog
    describes)."""
    lang = lang_or_default(lang)
    cat = Catalog.load(lang)
    seen: set[str] = set()

    def line(key: str, **params: object) -> str:
        return cat.text(key, seen, **params)

    out = [line("help.title"), line("help.table"), "", line("help.how"), line("help.buttons")]
    if rules.burn:
        out.append(line("help.burn_buttons"))
    out += [
        line("help.beat"),
        line("help.gouji"),
        line("help.gouji.burn" if rules.burn else "help.gouji.opposite"),
    ]
    if rules.burn:
        out.append(line("help.burn"))
    if rules.yield_:
        out.append(line("help.yield"))
    if rules.open_point:
        paid = rules.tribute == "all"
        out.append(line("help.open_point.paid" if paid else "help.open_point"))
        if rules.declare_point and paid:
            out.append(line("help.declare"))
    if rules.bie3:
        out += [line("help.bie3"), line("help.men" if rules.burn else "help.men.plain")]
    if rules.revolution:
        out.append(line("help.revolution.yaotou" if rules.yaotou else "help.revolution"))
    if rules.partner_cards_at:
        out.append(line("help.partner", n=rules.partner_cards_at))
    if rules.counts_at >= 36:  # §13: 36 = always
        out.append(line("help.counts.always"))
    elif rules.counts_at:
        out.append(line("help.counts", n=rules.counts_at))
    out += [line("help.ranks"), line("help.four_way"), line(f"help.tribute.{rules.tribute}")]
    if commands is None:
        commands = [k.removeprefix("bot.cmd.") for k in cat.messages if k.startswith("bot.cmd.")]
    out += ["", line("help.commands")]
    out += [line("help.command", name=c, what=cat.text(f"bot.cmd.{c}")) for c in commands]
    out += ["", line("help.more")]
    return fit_message(out, lang)

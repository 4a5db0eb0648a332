"""The game's words: rank names, cards in readable form, tribute kinds, seats and names."""

from __future__ import annotations

import html
from collections.abc import Sequence

from engine.cards import NRANKS, RANK_CHARS, parse

from .i18n import Catalog, t

MAX_NAME = 32  # characters of a player's name shown in a message


def rank_name(rank: int, lang: str = "zh") -> str:
    """头科 … 大落 for ranks 1 … 6 (RULES.md §10)."""
    if not 1 <= rank <= 6:
        raise ValueError(f"no rank {rank} (1 = 头科 … 6 = 大落)")
    return t(lang, f"rank.{rank}")


def tribute_name(kind: str, lang: str = "zh") -> str:
    """闷贡 / 烧贡 / 点贡 / 落贡 / 串三户 for the kinds of RECORDS.md ``tributes``."""
    key = f"tribute.{kind}"
    return t(lang, key) if key in Catalog.load(lang) else html.escape(kind)


def card_name(char: str, lang: str = "zh") -> str:
    """One rank in words: ``9``, ``10``, ``大王`` (big joker)."""
    key = f"card.{char}"
    return t(lang, key) if key in Catalog.load(lang) else char


def card_text(notation: str, lang: str = "zh") -> str:
    """A notation multiset in words, strongest first: ``BB22999`` → ``大王×2 2×2 9×3``."""
    counts = parse(notation)
    parts = []
    for r in range(NRANKS - 1, -1, -1):
        n = counts[r]
        if n:
            name = card_name(RANK_CHARS[r], lang)
            parts.append(name if n == 1 else t(lang, "card.times", card=name, n=n))
    return " ".join(parts) if parts else t(lang, "card.none")


def seat_name(seat: int | None, names: Sequence[str], lang: str = "zh") -> str:
    """A player's name for HTML messages: escaped, shortened, or ``N号位`` when unknown."""
    if seat is None:
        return "?"
    name = names[seat].strip() if 0 <= seat < len(names) else ""
    if not name:
        return t(lang, "seat", n=seat + 1)
    if len(name) > MAX_NAME:
        name = name[: MAX_NAME - 1] + "…"
    return html.escape(name)

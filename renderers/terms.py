"""The game's words: rank names, cards in readable form, tribute kinds, seats and names."""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence

from engine.cards import BIG, NRANKS, RANK_CHARS, SMALL, TWO, parse
from engine.seats import team

from .i18n import Catalog, t

MAX_NAME = 32  # characters of a player's name shown in a message
STORED_NAME = 64  # characters of a name kept at all (what Telegram allows: 64 + 64)
# Characters that reorder or hide text around them: bidi embeddings, overrides and isolates,
# marks, and the invisible separators; a name never needs them.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_KEEP = frozenset("\u200d\ufe0e\ufe0f")  # joiners and variation selectors of emoji


def clean_name(raw: str) -> str:
    """A user-provided name as the bot keeps it: plain text without control, bidi or
    invisible format characters (emoji joiners kept), spaces collapsed, at most
    :data:`STORED_NAME` characters. Escaping for HTML happens when it is shown
    (:func:`person`)."""
    out = []
    for ch in unicodedata.normalize("NFC", raw):
        cat = unicodedata.category(ch)
        if ch in _BIDI or cat in ("Cc", "Cs", "Co", "Cn") or (cat == "Cf" and ch not in _KEEP):
            out.append(" " if cat == "Cc" else "")
        else:
            out.append(ch)
    return " ".join("".join(out).split())[:STORED_NAME]


def person(name: str) -> str:
    """A name for an HTML message: escaped and shortened to :data:`MAX_NAME` characters (the
    one place names are escaped; empty stays empty)."""
    name = clean_name(name)
    if len(name) > MAX_NAME:
        name = name[: MAX_NAME - 1] + "…"
    return html.escape(name)


def rank_name(rank: int, lang: str = "zh") -> str:
    """头科 … 大落 for ranks 1 … 6 (docs/rules.md §10)."""
    if not 1 <= rank <= 6:
        raise ValueError(f"no rank {rank} (1 = 头科 … 6 = 大落)")
    return t(lang, f"rank.{rank}")


def failed_rank(status: Sequence[str], lang: str = "zh") -> str:
    """The rank a 诈烧 now would get (docs/rules.md §10: the bottom fills 诈烧-first, the earliest
    lowest): 大落, or 二落 after an earlier 诈烧. ``status``: the seats' statuses."""
    return rank_name(6 - sum(st == "failed" for st in status), lang)


def tribute_name(kind: str, lang: str = "zh") -> str:
    """闷贡 / 烧贡 / 点贡 / 落贡 / 串三户 for the kinds of RECORDS.md ``tributes``."""
    key = f"tribute.{kind}"
    return t(lang, key) if key in Catalog.load(lang) else html.escape(kind)


def card_name(char: str, lang: str = "zh") -> str:
    """One rank in words: ``9``, ``10``, ``大王`` (big joker)."""
    key = f"card.{char}"
    return t(lang, key) if key in Catalog.load(lang) else char


def _count_text(rank: int, n: int, lang: str) -> str:
    """``n`` cards of one rank as players count them: ``8`` … ``4个8`` / ``an 8`` … ``four 8s``."""
    char = RANK_CHARS[rank]
    cat = Catalog.load(lang)
    if n == 1:
        return t(lang, f"card.a.{char}")
    number = t(lang, f"num.{n}") if f"num.{n}" in cat else str(n)
    return t(lang, "card.count", n=number, card=t(lang, f"card.many.{char}"))


def card_text(notation: str, lang: str = "zh") -> str:
    """A play in words in the table's order (docs/rules.md §3): the rank it counts as first, then
    the 2s (钱), then the jokers (花), big before small: ``22QQQ`` → ``3个Q+2个2``,
    ``BBS222T`` → ``10+3个2+2个大王+小王``, ``B222`` → ``3个2+大王``, ``8`` → ``8``; English
    ``three queens + two 2s``. A notation of several plain ranks (a hand) reads as
    :func:`hand_text`."""
    counts = parse(notation)
    plain = [r for r in range(TWO - 1, -1, -1) if counts[r]]
    if len(plain) > 1:
        return hand_text(notation, lang)
    order = [r for r in (*plain, TWO, BIG, SMALL) if counts[r]]
    if not order:
        return t(lang, "card.none")
    if sum(counts) == 1:
        return card_name(RANK_CHARS[order[0]], lang)
    return t(lang, "card.plus").join(_count_text(r, counts[r], lang) for r in order)


def hand_text(notation: str, lang: str = "zh") -> str:
    """A hand in words, strongest first, ranks separated with 、: ``2个大王、3个2、K、2个9``."""
    counts = parse(notation)
    parts = [_count_text(r, counts[r], lang) for r in range(NRANKS - 1, -1, -1) if counts[r]]
    return t(lang, "list.sep").join(parts) if parts else t(lang, "card.none")


def team_names(side: int, names: Sequence[str], lang: str = "zh") -> str:
    """A 联邦 named by its members, in seat order: ``老王·张姐·王叔`` (no message says "A队")."""
    return t(lang, "team.sep").join(seat_name(s, names, lang) for s in range(6) if team(s) == side)


def seat_name(seat: int | None, names: Sequence[str], lang: str = "zh") -> str:
    """A player's name for HTML messages: escaped, shortened, or ``N号位`` when unknown."""
    if seat is None:
        return "?"
    name = person(names[seat]) if 0 <= seat < len(names) else ""
    return name or t(lang, "seat", n=seat + 1)


# -- buttons ----------------------------------------------------------------------------------
_BUTTON_ORDER = (BIG, SMALL)  # after the counted rank and the 2s: the big joker, then the small


def button_cards(notation: str, lang: str = "zh") -> str:
    """A play on a button, in the notation the text counts in: the counted rank first, then the
    2s, then the jokers (``BKKK22`` → ``3个K+2个2+大王``, English ``3×K+2×2+BJ``); one card is
    its name alone (``大王``)."""
    counts = parse(notation)
    order = [r for r in range(TWO - 1, -1, -1) if counts[r]] + [TWO, *_BUTTON_ORDER]
    parts = []
    for r in order:
        n = counts[r]
        if n:
            name = t(lang, f"taps.card.{RANK_CHARS[r]}")
            parts.append(name if n == 1 else t(lang, "taps.n", n=n, card=name))
    return "+".join(parts)


def held_label(char: str, n: int, lang: str = "zh") -> str:
    """A rank button of a lead, read as what the hand holds: ``K·5张`` (never ``5个K``, which is
    what a ▶ button plays)."""
    return t(lang, "taps.held", card=t(lang, f"taps.card.{char}"), n=n)

"""Cards and their notation (docs/rules.md §2).

Ranks are ints 0..14 in strength order ``3 4 5 6 7 8 9 T J Q K A 2 S B``; suits never matter for
play, so the engine keeps hands as *counts by rank* (a tuple of 15 ints). Suits appear only in the
dealt shoe, for the first-leader rule (§5.6) and for rendering.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import sub

RANK_CHARS = "3456789TJQKA2SB"
NRANKS = 15
THREE, FOUR, TEN, JACK, QUEEN, KING, ACE = 0, 1, 7, 8, 9, 10, 11
TWO, SMALL, BIG = 12, 13, 14
JOKERS = (SMALL, BIG)
# Four decks (§1): 16 of each rank 3..2, four small and four big jokers; 216 cards.
DECK_COUNTS: tuple[int, ...] = (16,) * 13 + (4, 4)
DECK_SIZE = sum(DECK_COUNTS)
SUITS = "SHDC"  # spades, hearts, diamonds, clubs (only for the shoe and images)

Counts = tuple[int, ...]

_DESC_CHARS = RANK_CHARS[::-1]
_STRICT = {c: i for i, c in enumerate(RANK_CHARS)}
_CHAR_RANK = dict(_STRICT)
_CHAR_RANK["0"] = TEN  # some players type 10 as 0


class NotationError(ValueError):
    """Text that is not in the card notation of docs/rules.md §2."""


def rank_of(char: str) -> int:
    try:
        return _CHAR_RANK[char.upper()]
    except KeyError:
        raise NotationError(f"{char!r} is not a card (use 3-9, T, J, Q, K, A, 2, S, B)") from None


# The counts of texts known to be canonical notation: :class:`engine.plays.Play` adds its own
# text when it first writes it, so the text of an offered play, sent back, is not parsed again.
KNOWN_TEXTS: dict[str, Counts] = {}


def parse(text: str) -> Counts:
    """Counts by rank of friendly notation (what a player may type): lower case, spaces and
    ``10`` for a ten are accepted. Records use :func:`parse_strict`."""
    known = KNOWN_TEXTS.get(text)
    if known is not None:
        return known
    counts = [0] * NRANKS
    text = text.replace("10", "T").replace(" ", "")
    for ch in text:
        counts[rank_of(ch)] += 1
    return tuple(counts)


def parse_strict(text: str) -> Counts:
    """Counts by rank of strict notation (records, RECORDS.md): only the 15 characters
    ``3456789TJQKA2SB``, upper case, nothing else."""
    counts = [0] * NRANKS
    for ch in text:
        r = _STRICT.get(ch)
        if r is None:
            raise NotationError(f"{ch!r} is not a card (use 3-9, T, J, Q, K, A, 2, S, B)")
        counts[r] += 1
    return tuple(counts)


def fmt(counts: Sequence[int]) -> str:
    """Canonical notation: strongest card first (``BB22999``)."""
    return "".join([c * n for c, n in zip(_DESC_CHARS, reversed(counts), strict=True) if n])


def contains(hand: Sequence[int], part: Sequence[int]) -> bool:
    for h, p in zip(hand, part):  # noqa: B905 (the lengths are checked after, as strict would)
        if h < p:
            return False
    if len(hand) != len(part):
        raise ValueError("counts of different lengths")
    return True


def minus(hand: Sequence[int], part: Sequence[int]) -> Counts:
    if len(hand) != len(part):
        raise ValueError("counts of different lengths")
    return tuple(map(sub, hand, part))


def _shoe() -> tuple[tuple[int, str], ...]:
    cards: list[tuple[int, str]] = []
    for _deck in range(4):
        for r in range(TWO + 1):
            cards.extend((r, s) for s in SUITS)
        cards.append((SMALL, ""))
        cards.append((BIG, ""))
    return tuple(cards)


_SHOE = _shoe()  # each card's (rank, suit) made once: a deal's hands share them (12 KB a deal)


def shoe() -> list[tuple[int, str]]:
    """The 216 cards of four decks as (rank, suit); jokers carry suit ``""`` (§1, §2)."""
    return list(_SHOE)

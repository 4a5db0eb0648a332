"""Match records (MATCH_RECORDS.md): a whole match — every deal and every action of both phases,
in order — as JSON, the format the bot stores after each action and restores from.

This module only reads and writes the document; :meth:`engine.match.Match.restore` replays it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .actions import Action
from .cards import DECK_COUNTS, RANK_CHARS, SUITS, NotationError, parse_strict
from .rules import Rules, RulesError
from .vocab import DEAL_DOS, PLAY_DOS, Do

FORMAT = "gouji-match/1"
_TOP_KEYS = {"format", "rules", "seed", "actions"}
_DEAL_KEYS = {"do", "seed", "hands"}
_ACTION_KEYS = {"seat", "do", "cards"}
_SEED = re.compile(r"[0-9a-f]{1,64}")
_CARD = re.compile(r"([3-9TJQKA2][shdc])|([SB])")
_SUIT_OF = {c.lower(): c for c in SUITS}


class BadMatchRecord(ValueError):
    """A malformed or inconsistent match record."""


@dataclass(frozen=True)
class DealEntry:
    """The start of a game: the seed of its shuffles (re-deals included), and the dealt hands
    when they were given rather than shuffled (tests, puzzles), as (rank, suit) cards."""

    seed: str
    hands: tuple[tuple[tuple[int, str], ...], ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"do": str(Do.DEAL), "seed": self.seed}
        if self.hands is not None:
            out["hands"] = [suited_text(h) for h in self.hands]
        return out


@dataclass(frozen=True)
class MatchRecord:
    rules: Rules
    seed: int | str | None  # the match's seed, when its deals are reproducible
    entries: tuple[Action | DealEntry, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "rules": self.rules.to_json(),
            "seed": self.seed,
            "actions": [e.to_json() for e in self.entries],
        }

    @staticmethod
    def from_json(obj: Any) -> MatchRecord:
        """Check a match record's shape and values; :class:`BadMatchRecord` if it is wrong."""
        if not isinstance(obj, dict):
            raise BadMatchRecord("a match record is a JSON object")
        unknown = set(obj) - _TOP_KEYS
        if unknown:
            raise BadMatchRecord(f"unknown field {sorted(unknown)[0]!r}")
        if obj.get("format") != FORMAT:
            raise BadMatchRecord(f"format must be {FORMAT!r}")
        try:
            rules = Rules.from_json(obj.get("rules", "standard"))
        except RulesError as e:
            raise BadMatchRecord(str(e)) from None
        seed = obj.get("seed")
        if seed is not None and (
            isinstance(seed, bool)
            or not isinstance(seed, int | str)
            or (isinstance(seed, int) and abs(seed) >= 2**256)
            or (isinstance(seed, str) and len(seed) > 256)
        ):
            raise BadMatchRecord("seed must be null, a string or a whole number")
        raw = obj.get("actions")
        if not isinstance(raw, list):
            raise BadMatchRecord("actions must be a list")
        entries = tuple(_entry(k, a) for k, a in enumerate(raw))
        if entries and not isinstance(entries[0], DealEntry):
            raise BadMatchRecord("a match record starts with a deal")
        return MatchRecord(rules, seed, entries)


def _entry(k: int, a: Any) -> Action | DealEntry:
    if not isinstance(a, dict):
        raise BadMatchRecord(f"action {k} must be an object")
    do = a.get("do")
    if do == Do.DEAL:
        if set(a) - _DEAL_KEYS:
            raise BadMatchRecord(f"action {k}: unknown field {sorted(set(a) - _DEAL_KEYS)[0]!r}")
        seed = a.get("seed")
        if not isinstance(seed, str) or not _SEED.fullmatch(seed):
            raise BadMatchRecord(f"action {k}: a deal's seed is 1 to 64 hex digits")
        hands = a.get("hands")
        return DealEntry(seed, None if hands is None else _deal_hands(k, hands))
    if set(a) - _ACTION_KEYS:
        raise BadMatchRecord(f"action {k}: unknown field {sorted(set(a) - _ACTION_KEYS)[0]!r}")
    seat = a.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 5:
        raise BadMatchRecord(f"action {k}: seat must be a seat number from 0 to 5")
    if do not in PLAY_DOS and do not in DEAL_DOS:
        raise BadMatchRecord(f"action {k}: unknown do {do!r}")
    cards = a.get("cards")
    if do in (Do.PLAY, Do.RETURN):
        if not isinstance(cards, str):
            raise BadMatchRecord(f"action {k}: {do} needs its cards")
        try:
            parse_strict(cards)
        except NotationError as e:
            raise BadMatchRecord(f"action {k}: {e}") from None
        return Action(seat, Do(do), cards)
    if cards is not None:
        raise BadMatchRecord(f"action {k}: {do} takes no cards")
    return Action(seat, Do(do))


def _deal_hands(k: int, hands: Any) -> tuple[tuple[tuple[int, str], ...], ...]:
    if not isinstance(hands, list) or len(hands) != 6:
        raise BadMatchRecord(f"action {k}: a deal lists six hands")
    out = []
    seen: dict[tuple[int, str], int] = {}
    for h in hands:
        if not isinstance(h, str) or len(h) > 200:
            raise BadMatchRecord(f"action {k}: each dealt hand is a string of cards")
        cards = parse_suited(h)
        if cards is None or len(cards) != 36:
            raise BadMatchRecord(f"action {k}: each dealt hand is 36 cards such as 4s, Th, S, B")
        for c in cards:
            seen[c] = seen.get(c, 0) + 1
        out.append(tuple(cards))
    if any(n > 4 for n in seen.values()):  # four decks: four of each card (§1)
        raise BadMatchRecord(f"action {k}: more than four decks hold")
    if sum(seen.values()) != sum(DECK_COUNTS):
        raise BadMatchRecord(f"action {k}: a deal holds the whole shoe")
    return tuple(out)


def entry_text(entry: Action | DealEntry) -> str:
    """The compact text of one entry, as the bot stores it: ``2:play:QQQ`` or ``deal:<seed>``
    (a deal of given hands has no compact form: those are for tests and puzzles)."""
    if isinstance(entry, DealEntry):
        if entry.hands is not None:
            raise ValueError("a deal of given hands has no compact form")
        return f"deal:{entry.seed}"
    return str(entry)


def parse_entry(text: str) -> Action | DealEntry:
    """The inverse of :func:`entry_text`; :class:`BadMatchRecord` for anything else."""
    if text.startswith("deal:"):
        seed = text[5:]
        if not _SEED.fullmatch(seed):
            raise BadMatchRecord(f"not a deal: {text!r}")
        return DealEntry(seed)
    try:
        action = Action.parse(text)
        if action.cards:
            parse_strict(action.cards)
    except ValueError as e:
        raise BadMatchRecord(str(e)) from None
    return action


def parse_suited(text: str) -> list[tuple[int, str]] | None:
    """Suited cards ``4s Th S B`` (rank, then suit in lower case; jokers bare), or None."""
    cards: list[tuple[int, str]] = []
    pos = 0
    for m in _CARD.finditer(text):
        if m.start() != pos:
            return None
        pos = m.end()
        tok = m.group(0)
        if len(tok) == 2:
            cards.append((RANK_CHARS.index(tok[0]), _SUIT_OF[tok[1]]))
        else:
            cards.append((RANK_CHARS.index(tok), ""))
    return cards if pos == len(text) else None


def suited_text(hand: tuple[tuple[int, str], ...]) -> str:
    return "".join(RANK_CHARS[r] + s.lower() for r, s in hand)

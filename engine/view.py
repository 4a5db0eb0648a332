"""What one seat may see (RULES.md §13 ``counts_at``, ``partner_cards_at``): the per-seat view.

Renderers and AI players read only views, never the game itself, so nothing hidden can leak.
A view with ``seat=None`` is the spectator's (the group chat's table).
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Rules

# Seat status words.
ACTIVE, FINISHED, REVOLTED, SMOTHERED, FAILED = (
    "active",
    "finished",
    "revolted",
    "smothered",
    "failed",
)


@dataclass(frozen=True)
class TopView:
    seat: int
    cards: str  # canonical notation, strongest first
    gouji: bool  # 够级 (false during 四户乱缠)
    burn: bool  # a play of the burning player (烧牌 in progress)


@dataclass(frozen=True)
class Debt:
    """A tribute owed for the next game (RECORDS.md ``tributes``)."""

    src: int
    dst: int
    kind: str  # men | shao | dian | luo | chuan
    cards: int

    def to_json(self) -> dict[str, int | str]:
        return {"from": self.src, "to": self.dst, "kind": self.kind, "cards": self.cards}


@dataclass(frozen=True)
class SeatView:
    rules: Rules
    seat: int | None  # whose view; None for the spectator
    phase: str  # "setup" | "play" | "four_way" | "over"
    to_act: int | None
    asked: str | None  # what to_act is asked for (engine.actions.ASK_*)
    hand: str | None  # this seat's own live hand in notation (None for the spectator)
    top: TopView | None
    burning: int | None
    counts: tuple[int | None, ...]  # cards per seat; None where §13 counts_at hides it
    partner_hands: tuple[str | None, ...]  # teammates' hands visible by partner_cards_at
    status: tuple[str, ...]  # per seat: ACTIVE, FINISHED, REVOLTED, SMOTHERED, FAILED
    ranks: tuple[int | None, ...]  # 1 = 头科 … 6 = 大落
    opened: tuple[bool, ...]
    headless: tuple[bool, ...]  # 无头 (§12)
    passed: tuple[int, ...]  # seats that passed in the current trick
    revolted: tuple[int, ...]
    declared: tuple[int, ...]
    yaotou: tuple[int, ...]
    tributes: tuple[Debt, ...]  # owed for the next game, once over
    score: tuple[int, int]  # this game's score for teams A (0, 2, 4) and B (1, 3, 5)
    returning: tuple[int, int] | None = None  # 还贡 asked now: (to whom, how many cards)


def team(seat: int) -> int:
    """0 for team A (seats 0, 2, 4), 1 for team B (§1)."""
    return seat % 2


def opposite(seat: int) -> int:
    """The 对头 (§1): the seat across the table."""
    return (seat + 3) % 6


def teammates(seat: int) -> tuple[int, int]:
    return ((seat + 2) % 6, (seat + 4) % 6)

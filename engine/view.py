"""What one seat may see (docs/rules.md §13 ``counts_at``, ``partner_cards_at``): the per-seat view.

Renderers and AI players read only views, never the game itself, so nothing hidden can leak.
A view with ``seat=None`` is the spectator's (the group chat's table). This module defines the
view and builds the one before the first deal (:func:`idle_view`); each later phase builds its
own beside the state it shows, above the view: the deal phase (:func:`engine.setup.setup_view`),
the play (:func:`engine.game.game_view`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .ranking import Debt as Debt  # what SeatView.tributes holds; defined with the tributes
from .rules import Rules
from .vocab import Ask, Phase, Status


@dataclass(frozen=True)
class TopView:
    """The current top play as everyone sees it."""

    seat: int
    cards: str  # canonical notation, strongest first
    gouji: bool  # 够级 (false during 四户乱缠)
    burn: bool  # a play of the burning player (烧牌 in progress)


@dataclass(frozen=True)
class SeatView:
    """Everything ``seat`` may see now. Per-seat tuples are indexed by seat 0–5."""

    rules: Rules
    seat: int | None  # whose view; None for the spectator
    phase: Phase
    to_act: int | None  # the asked seat
    asked: Ask | None  # what to_act is asked for
    hand: str | None  # this seat's own live hand in notation (None for the spectator)
    top: TopView | None
    burning: int | None
    counts: tuple[int | None, ...]  # cards per seat; None where §13 counts_at hides it
    partner_hands: tuple[str | None, ...]  # teammates' hands visible by partner_cards_at
    status: tuple[Status, ...]
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
    number: int = 0  # the game's number in its match (0 before the first deal)
    version: int = 0  # the match's version: actions applied so far (stale-button check)


_NOBODY: tuple[None, ...] = (None,) * 6
_NO: tuple[bool, ...] = (False,) * 6


def idle_view(rules: Rules, seat: int | None, number: int = 0, version: int = 0) -> SeatView:
    """Before the first deal of a match: six empty seats, nobody asked."""
    return SeatView(
        rules=rules,
        seat=seat,
        phase=Phase.IDLE,
        to_act=None,
        asked=None,
        hand="" if seat is not None else None,
        top=None,
        burning=None,
        counts=(0,) * 6,
        partner_hands=_NOBODY,
        status=(Status.ACTIVE,) * 6,
        ranks=_NOBODY,
        opened=_NO,
        headless=_NO,
        passed=(),
        revolted=(),
        declared=(),
        yaotou=(),
        tributes=(),
        score=(0, 0),
        number=number,
        version=version,
    )

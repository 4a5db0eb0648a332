"""What one seat may see (RULES.md §13 ``counts_at``, ``partner_cards_at``): the per-seat view.

Renderers and AI players read only views, never the game itself, so nothing hidden can leak.
A view with ``seat=None`` is the spectator's (the group chat's table). This module is the one
builder of views, for every phase: before the first deal, the deal phase, the play.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cards import fmt
from .rules import Rules
from .seats import teammates
from .vocab import Ask, Phase, Status, TributeKind

if TYPE_CHECKING:
    from .game import Game
    from .setup import Setup


@dataclass(frozen=True)
class TopView:
    """The current top play as everyone sees it."""

    seat: int
    cards: str  # canonical notation, strongest first
    gouji: bool  # 够级 (false during 四户乱缠)
    burn: bool  # a play of the burning player (烧牌 in progress)


@dataclass(frozen=True)
class Debt:
    """A tribute owed for the next game (RECORDS.md ``tributes``, §11)."""

    src: int
    dst: int
    kind: TributeKind
    cards: int

    def to_json(self) -> dict[str, int | str]:
        return {"from": self.src, "to": self.dst, "kind": str(self.kind), "cards": self.cards}


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


def setup_view(setup: Setup, seat: int | None, version: int = 0) -> SeatView:
    """The deal phase (§5): own hand, counts per ``counts_at``, who revolted and declared."""
    ask = setup.asked()
    counts = tuple(sum(h) for h in setup.hands)
    status = tuple(Status.REVOLTED if s in setup.revolted else Status.ACTIVE for s in range(6))
    return SeatView(
        rules=setup.rules,
        seat=seat,
        phase=Phase.SETUP,
        to_act=ask[0] if ask else None,
        asked=ask[1] if ask else None,
        hand=fmt(setup.hands[seat]) if seat is not None else None,
        top=None,
        burning=None,
        counts=tuple(c if c <= setup.rules.counts_at else None for c in counts),
        partner_hands=_NOBODY,
        status=status,
        ranks=_NOBODY,
        opened=_NO,
        headless=_NO,
        passed=(),
        revolted=tuple(setup.revolted),
        declared=tuple(setup.declared),
        yaotou=tuple(setup.yaotou),
        tributes=(),
        score=(0, 0),
        returning=setup.returning(),
        number=setup.number,
        version=version,
    )


def game_view(game: Game, seat: int | None, number: int = 0, version: int = 0) -> SeatView:
    """The play (§6–§12): own hand, counts per ``counts_at`` (always for players out of play),
    teammates' hands per ``partner_cards_at`` (看联邦牌), and everything public."""
    rules = game.rules
    counts: list[int | None] = []
    for s, h in enumerate(game.hands):
        n = sum(h)
        shown = s == seat or n <= rules.counts_at or game.status[s] != Status.ACTIVE
        counts.append(n if shown else None)
    partners: list[str | None] = [None] * 6
    if seat is not None and 0 < sum(game.hands[seat]) <= rules.partner_cards_at:
        for m in teammates(seat):
            partners[m] = fmt(game.hands[m])  # §13 看联邦牌
    top = game.top
    ask = game.asked()
    return SeatView(
        rules=rules,
        seat=seat,
        phase=game.phase,
        to_act=ask[0] if ask else None,
        asked=ask[1] if ask else None,
        hand=fmt(game.hands[seat]) if seat is not None else None,
        top=TopView(top.seat, str(top.play), top.gouji, top.burn) if top else None,
        burning=game.burning,
        counts=tuple(counts),
        partner_hands=tuple(partners),
        status=tuple(game.status),
        ranks=tuple(game.ranks),
        opened=tuple(game.opened),
        headless=tuple(game.headless(s) for s in range(6)),
        passed=tuple(sorted(game.passed)),
        revolted=(game.revolutionary,) if game.revolutionary is not None else (),
        declared=game.declared,
        yaotou=game.yaotou,
        tributes=tuple(game.tributes()),
        score=game.score(),
        number=number,
        version=version,
    )

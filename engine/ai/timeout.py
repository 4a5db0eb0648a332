"""What a seat plays when its turn timer runs out (docs/rules.md, the per-turn timer): pass when
passing is allowed, otherwise the smallest legal lead; in the deal phase, decline (or the first
还贡 choice). A rule of the game, not of any AI level: it never searches."""

from __future__ import annotations

from ..actions import Action
from ..cards import BIG, SMALL, TWO
from ..match import Match
from ..plays import Play
from ..vocab import Do

DECLINES = (Do.NO_REVOLT, Do.WUTOU, Do.NO_DECLARE)  # the deal phase's "no"


def spend_key(p: Play) -> tuple[int, int, int, int]:
    """How much a play spends: jokers, then 2s, then the body's rank, then big jokers."""
    return (p.counts[BIG] + p.counts[SMALL], p.counts[TWO], p.shape.base, p.counts[BIG])


def timeout_action(match: Match, seat: int) -> Action:
    """The action a timeout plays for ``seat`` (the seat asked)."""
    legal = match.choices(seat)
    if legal.options:
        for o in legal.options:
            if o.do in DECLINES:
                return o
        return legal.options[0]
    if legal.can_pass:
        return Action(seat, Do.PASS)
    return Action(seat, Do.PLAY, str(min(legal.plays, key=spend_key)))

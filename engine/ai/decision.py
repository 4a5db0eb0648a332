"""The one entry point of the AI: :func:`decide` answers whatever the engine asks a seat.

It reads only what that seat may see: its :class:`~engine.view.SeatView`, the deal phase's
options for it, the public log of plays (``Game.log``) and the public deal events (tribute cards
moved, for card counts). The hard level additionally simulates sampled deals of the hidden
cards, never the real ones (:mod:`engine.ai.search`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..actions import Action
from ..cards import parse
from ..events import Event
from ..game import Game
from ..match import Match
from ..playout import random_action
from ..setup import Setup
from ..vocab import Do
from .deal_policy import decide_deal
from .knowledge import from_view, start_counts
from .play_policy import decide_play
from .reasons import REASONS

LEVELS = ("easy", "normal", "hard")
DEFAULT_BUDGET_MS = 250.0


@dataclass(frozen=True)
class Decision:
    """An action for the engine, and why: ``reason`` is a code of :data:`REASONS`, ``params``
    its parameters (e.g. ``{"cards": "55"}``)."""

    action: Action
    reason: str
    params: dict[str, str | int] = field(default_factory=dict, compare=False)

    @property
    def why(self) -> tuple[str, dict[str, str | int]]:
        return self.reason, dict(self.params)


def decide(
    source: Match | Game | Setup,
    seat: int,
    level: str = "normal",
    rng: random.Random | None = None,
    budget_ms: float = DEFAULT_BUDGET_MS,
    deal_events: Sequence[Event] | None = None,
) -> Decision:
    """What ``seat`` should do now at ``level`` (easy | normal | hard), for every ask of either
    phase: lead, answer, burn claim, yield (after 让牌: ``last``), 革命, 要头, 宣点, 还贡.

    ``source`` is the table's Match (or a bare Game / Setup); ``rng`` a seeded
    ``random.Random`` for reproducible choices; ``budget_ms`` bounds the hard level's thinking.
    ``deal_events`` (tribute moves of the deal) are taken from the Match when not given."""
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r} (one of {', '.join(LEVELS)})")
    rng = rng if rng is not None else random.Random()
    setup: Setup | None
    game: Game | None
    if isinstance(source, Match):
        setup, game = source.setup, source.game
        if deal_events is None and setup is not None:
            deal_events = setup.events
    elif isinstance(source, Setup):
        setup, game = source, source.game
        if deal_events is None:
            deal_events = source.events
    else:
        setup, game = None, source
    if game is None:
        if setup is None:
            raise ValueError("no game is running")
        return _decide_deal(setup, seat, level, rng)
    return _decide_play(game, seat, level, rng, budget_ms, deal_events or ())


def _asked(ask: tuple[int, str] | None, seat: int) -> str:
    if ask is None or ask[0] != seat:
        raise ValueError(f"seat {seat} is not asked to act now")
    return ask[1]


def _decide_deal(setup: Setup, seat: int, level: str, rng: random.Random) -> Decision:
    _asked(setup.asked(), seat)
    options = setup.options(seat)
    if len(options) == 1:
        return Decision(options[0], "only_choice", _cards(options[0]))
    if level == "easy":
        act = rng.choice(options)
        return Decision(act, "random", _cards(act))
    view = setup.view(seat)
    assert view.hand is not None and view.asked is not None
    act, reason = decide_deal(view.asked, parse(view.hand), options)
    return Decision(act, reason, _cards(act))


def _decide_play(
    game: Game,
    seat: int,
    level: str,
    rng: random.Random,
    budget_ms: float,
    deal_events: Sequence[Event],
) -> Decision:
    _asked(game.asked(), seat)
    if level == "easy":
        act = random_action(game, rng)
        return Decision(act, "random", _cards(act))
    legal = game.legal(seat)
    starts = start_counts(deal_events)
    k = from_view(game.view(seat), game.log, starts)
    deadline = time.perf_counter() + budget_ms / 1000.0
    choice = decide_play(k, legal.plays, legal.can_yield, rng)
    cards = str(choice.play) if choice.play is not None else ""
    normal = Decision(Action(seat, Do(choice.do), cards), choice.reason, dict(choice.params))
    if level == "hard":
        from .search import search

        found = search(game, k, legal, normal, rng, deadline)
        if found is not None:
            return found
    return normal


def _cards(act: Action) -> dict[str, str | int]:
    return {"cards": act.cards} if act.cards else {}


def check_reason(decision: Decision) -> bool:
    return decision.reason in REASONS


__all__ = ["DEFAULT_BUDGET_MS", "LEVELS", "Decision", "decide"]

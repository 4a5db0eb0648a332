"""A match: consecutive games of the same six seats, linked by tribute (RULES.md §11) and the
next leader (§5.6), with a running score (§10). One object the bot and the AI drive."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from . import actions as A
from .actions import Action, IllegalAction
from .events import Event
from .game import Game, Legal
from .rules import Rules
from .setup import Setup
from .view import Debt, SeatView


@dataclass
class GameSummary:
    number: int
    ranks: tuple[int | None, ...]
    score: tuple[int, int]
    tributes: tuple[Debt, ...]


@dataclass
class Match:
    rules: Rules
    rng: random.Random = field(default_factory=random.SystemRandom)
    number: int = 0
    totals: list[int] = field(default_factory=lambda: [0, 0])
    history: list[GameSummary] = field(default_factory=list)
    setup: Setup | None = None

    def new_game(self) -> list[Event]:
        """Deal the next game: tribute of the last game, its 大落 leading (§5.6, §11)."""
        if self.setup is not None and not self.over:
            raise RuntimeError("the current game is not over")
        last = self.history[-1] if self.history else None
        debts: tuple[Debt, ...] = last.tributes if last else ()
        leader = None
        if last is not None:
            leader = next(s for s, r in enumerate(last.ranks) if r == 6)
        self.number += 1
        self.setup = Setup(self.rules, self.rng, self.number, debts, leader)
        return list(self.setup.events)

    @property
    def game(self) -> Game | None:
        return self.setup.game if self.setup else None

    @property
    def over(self) -> bool:
        g = self.game
        return g is not None and g.over

    def asked(self) -> tuple[int, str] | None:
        if self.setup is None:
            return None
        g = self.setup.game
        return g.asked() if g is not None else self.setup.asked()

    def legal(self, seat: int) -> Legal:
        """The legal actions of ``seat`` in either phase (deal-phase choices as ``options``)."""
        g = self.game
        if g is not None:
            return g.legal(seat)
        ask = self.asked()
        return Legal(seat, ask[1] if ask and ask[0] == seat else "", (), False, False, False)

    def options(self, seat: int) -> list[Action]:
        """Deal-phase choices of ``seat`` (革命, 要头, 宣点, 还贡); empty during play."""
        if self.setup is None or self.setup.game is not None:
            return []
        return self.setup.options(seat)

    def check(self, action: Action) -> None:
        g = self.game
        if g is not None:
            g.check(action)
        elif self.setup is None:
            raise IllegalAction(A.NOT_YOUR_TURN, "No game is running.")
        else:
            self.setup.check(action)

    def apply(self, action: Action) -> list[Event]:
        if self.setup is None:
            raise IllegalAction(A.NOT_YOUR_TURN, "No game is running.")
        g = self.setup.game
        events = self.setup.apply(action) if g is None else g.apply(action)
        g = self.setup.game
        if (
            g is not None
            and g.over
            and (not self.history or self.history[-1].number != self.number)
        ):
            a, b = g.score()
            self.totals[0] += a
            self.totals[1] += b
            self.history.append(
                GameSummary(self.number, tuple(g.ranks), (a, b), tuple(g.tributes()))
            )
        return events

    def view(self, seat: int | None) -> SeatView:
        if self.setup is None:
            raise RuntimeError("no game dealt yet")
        g = self.setup.game
        return g.view(seat) if g is not None else self.setup.view(seat)

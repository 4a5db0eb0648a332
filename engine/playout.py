"""Uniformly random legal play, for benchmarks, invariant tests and the 'easy' AI level."""

from __future__ import annotations

import random

from .actions import Action
from .game import Game
from .vocab import Do


def random_action(game: Game, rng: random.Random) -> Action:
    """A uniformly random choice among the seat's offered actions: every beating play plus
    pass (and yield where allowed), or every lead of the lead menu."""
    ask = game.asked()
    assert ask is not None
    seat, _ = ask
    legal = game.legal(seat)
    extra = [Do.PASS] * legal.can_pass + [Do.YIELD] * legal.can_yield
    k = rng.randrange(len(legal.plays) + len(extra))
    if k < len(legal.plays):
        return Action(seat, Do.PLAY, str(legal.plays[k]))
    return Action(seat, extra[k - len(legal.plays)])


def play_out(game: Game, rng: random.Random, max_actions: int = 5000) -> int:
    """Play ``game`` to its end with random legal actions; the number of actions taken."""
    n = 0
    while game.asked() is not None:
        game.apply(random_action(game, rng))
        n += 1
        if n > max_actions:
            raise RuntimeError("the game did not end")
    return n

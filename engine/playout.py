"""Uniformly random legal play, for benchmarks, invariant tests and the 'easy' AI level."""

from __future__ import annotations

import random

from .actions import Action
from .game import Game
from .vocab import Do

_PLAY, _PASS, _YIELD = Do.PLAY, Do.PASS, Do.YIELD  # (an enum's attribute costs to look up)


def random_action(game: Game, rng: random.Random) -> Action:
    """A uniformly random choice among the seat's offered actions: every beating play plus
    pass (and yield where allowed), or every lead of the lead menu."""
    ask = game.asked()
    assert ask is not None
    seat, _ = ask
    legal = game.legal(seat)
    plays = legal.plays
    k = rng.randrange(len(plays) + legal.can_pass + legal.can_yield)
    if k < len(plays):
        return Action(seat, _PLAY, str(plays[k]))
    # after the plays: pass when offered, then yield when offered
    return Action(seat, _PASS if k == len(plays) and legal.can_pass else _YIELD)


def play_out(game: Game, rng: random.Random, max_actions: int = 5000) -> int:
    """Play ``game`` to its end with random legal actions; the number of actions taken."""
    n = 0
    while game.asked() is not None:
        game.apply(random_action(game, rng))
        n += 1
        if n > max_actions:
            raise RuntimeError("the game did not end")
    return n

"""How the post-game review (复盘, :mod:`engine.ai.review`) values an action: with every hand
known, by rollouts of the real hands, or by the exact endgame search near the end of §12
四户乱缠.

Values are the game score of §10 as a signed margin (team A's score minus team B's, ±12 at
most): what a match adds up, game after game. A rollout plays the rest of the game with the
real hands by the normal policy for all six seats, each seat deciding from its own hand and
the cards it has not seen, as in the hard level's search (:mod:`engine.ai.rollout`: players
who see through the cards play another game). With every hand fixed that policy is nearly
deterministic, so one rollout would be one particular game, and a decision's worth would
swing on butterfly effects; here each seat, at each decision, plays another of the AI's
sensible actions (:func:`engine.ai.search.candidates`) with probability :data:`EXPLORE`, so
that a value is an expectation over plausible continuations (club players who sometimes
choose otherwise). The randomness comes from a seed: the same seed, the same rollout.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import Action
from ..game import Game
from ..vocab import Do
from .endgame import Solver, TooBig
from .rollout import Playout
from .search import candidates

EXPLORE = 0.05  # chance that a rollout seat plays another sensible action than the normal one
EXACT_CARDS = 20  # §12 四户乱缠 with this many live cards or fewer is solved exactly…
EXACT_NODES = 20_000  # …within this many positions per decision (else the rollouts value it)


def explore_rollout(
    game: Game, act: Action, unseen: Sequence[int], seed: float, explore: float = EXPLORE
) -> tuple[int, int]:
    """``act`` and the rest of ``game`` (its real hands) played on a copy by the normal policy
    with exploration (module doc), its generator seeded with ``seed``; ``unseen`` counts the
    cards not played before ``act``, by rank. (Team A's final score minus team B's, the
    decisions made.)"""
    sim = game.copy(keep_log=False)
    sim.carry_out(act.do, sim.check(act))
    walk = Playout(sim, unseen, act)
    rng = random.Random(seed)  # the policy's estimates
    # exploring draws from a stream per seat: the paired rollouts of a decision's actions
    # (same seed) explore at the same turns of each seat, whatever the estimates drew
    # (common random numbers, docs/review.md)
    draws = [random.Random(f"{seed}:{s}").random for s in range(6)]
    while (asked := walk.decide(rng)) is not None:
        seat, k, ch = asked
        do, play = ch.do, ch.play
        u = draws[seat]()
        if u < explore:
            normal = Action(seat, Do(do), str(play) if play is not None else "")
            others = candidates(k, sim.legal(seat), normal)[1:]
            if others:
                other = others[int(u / explore * len(others))]
                do, play = other.do, sim.check(other)
        walk.carry_out(seat, do, play)
    sa, sb = sim.score()
    return sa - sb, walk.steps


def for_team(diff: float, seat: int) -> float:
    """A signed margin (team A's minus team B's) seen by ``seat``'s team."""
    return diff if seat % 2 == 0 else -diff


def win_of(margin: float) -> float:
    """The win (1, ½ or 0) of a team's margin (§10: the higher score wins, a tie is half)."""
    return 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5


class Exact:
    """The exact values of actions in §12 四户乱缠 near the end, with the real hands (one
    solver for the whole game: its table of solved positions serves every later decision)."""

    def __init__(self, limit: int = EXACT_NODES) -> None:
        self.limit = limit
        self.solver: Solver | None = None
        self.nodes = 0  # positions searched, all calls together

    def applies(self, game: Game) -> bool:
        live = sum(sum(h) for s, h in enumerate(game.hands) if game.active(s))
        return game.four_way and not game.over and live <= EXACT_CARDS

    def values(self, game: Game, acts: Sequence[Action]) -> list[int] | None:
        """Each action's final margin (team A's minus team B's) with best play by both teams
        after it, or None when the endgame is too big (or not one of 四户乱缠 near the end)."""
        if not self.applies(game):
            return None
        if self.solver is None:
            self.solver = Solver(game, self.limit)
        try:
            return self.solver.values(game, game.hands, acts)
        except TooBig:
            return None
        finally:
            self.nodes += self.solver.nodes

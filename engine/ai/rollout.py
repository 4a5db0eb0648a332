"""Rollouts of the hard level's search: a simulated game played to its end by the normal policy
for all six seats, and its result for the deciding team.

Each rollout seat decides as at a real table, from its own hand and the cards it has not seen
(its estimates sample them), never from the simulated hands of the others: rollouts whose
players see through the cards play a different game from the one at the table. Moves are
carried out without the game's checks (``Game.carry_out``: the policy only picks legal ones).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import MISSING, fields

from ..actions import Action
from ..cards import parse
from ..game import Game
from ..seats import team
from ..vocab import Ask, Do, Status
from .knowledge import Knowledge
from .play_policy import decide_play

MAX_SCORE = 12  # the largest score margin of a game (§10)
MARGIN_SCALE = 2.0 * MAX_SCORE  # a result adds the margin over this: never outweighs the win
_SEATS = range(6)
YAOTOU_STANDS = 3  # §5.4 要头: 够死级 plays that must stand before the player may be 无头


def rollout(
    game: Game, hands: list[list[int]], act: Action, me: int, unseen: Sequence[int], seed: float
) -> float:
    """``act`` and the rest of ``game`` played with ``hands`` for the real ones by the normal
    policy (its generator seeded with ``seed``), on a copy; ``unseen`` counts the cards not
    played before ``act``, by rank. The :func:`result_of` the final score for ``me``'s team."""
    sim = game.copy(hands=hands, keep_log=False)  # rollouts count cards themselves
    sim.apply(act)
    left = list(unseen)
    if act.cards:
        for r, n in enumerate(parse(act.cards)):
            left[r] -= n
    rng = random.Random(seed)
    # what all seats see alike changes only with a play or the end of a trick (a status may
    # change then: 诈烧, §7; a 够死级 play stood, §5.4): read again only then
    plays = 0
    read: tuple[int, bool] | None = None
    table: _Table | None = None
    while not sim.over:
        seat, kind = sim.ask  # type: ignore[misc]
        top = sim.top
        if (
            kind != Ask.LEAD
            and top is not None
            and (top.seat - seat) % 2 == 0
            and sim.status[top.seat] is Status.ACTIVE
            and not (kind != Ask.BURN and sum(sim.hands[seat]) <= top.play.size)
        ):
            sim.carry_out(Do.PASS, None)  # the normal policy rarely beats a teammate
            continue
        now = (plays, top is None)
        if table is None or now != read:
            table, read = _Table(sim), now
        k = table.knowledge(sim, seat, left)
        if kind == Ask.LEAD and sim.burning != seat:
            ch = decide_play(k, (), False, rng)  # an ordinary lead reads the hand only
        else:
            legal = sim.legal(seat)
            ch = decide_play(k, legal.plays, legal.can_yield, rng)
        # the policy picks among legal moves, so the game's checks are skipped (a speed path)
        sim.carry_out(ch.do, ch.play)
        if ch.play is not None:
            plays += 1
            for r, n in enumerate(ch.play.counts):
                left[r] -= n
    sa, sb = sim.score()
    return result_of(sa - sb, me)


def result_of(diff: int, me: int) -> float:
    """The result for ``me``'s team of a final signed score (team A's minus team B's): the win
    (1, ½, 0) plus the margin over :data:`MARGIN_SCALE`, which tells apart deals the win does
    not (docs/ai.md)."""
    mine = diff if team(me) == 0 else -diff
    return (1.0 if mine > 0 else 0.5 if mine == 0 else 0.0) + mine / MARGIN_SCALE


def win_part(result: float) -> float:
    """The win (1, ½, 0) of a :func:`result_of`: its margin term lies within ±½ and has the
    sign of the win, so a win is above 1, a tie ½ exactly and a loss below 0."""
    return 1.0 if result > 1.0 else 0.0 if result < 0.0 else 0.5


class _Table:
    """What every rollout seat sees of the simulated game alike, read once per change: the
    live counts, who is active, 无头 (Flow.headless on the active seats, §12, §5.4 要头) and,
    per seat, the cards it has not seen (read when first asked for)."""

    __slots__ = ("active", "counts", "headless", "pools", "threes_played")

    def __init__(self, sim: Game) -> None:
        on = Status.ACTIVE
        active = [st is on for st in sim.status]
        yaotou = sim.yaotou
        stood = sim.yaotou_stood
        hands = sim.hands
        self.active = active
        self.counts = [sum(hands[s]) if active[s] else 0 for s in _SEATS]
        # active, its 对头 (seats.opposite, three seats on) not, and not 要头 before 3 stood
        self.headless = [
            active[s] and not active[s - 3] and not (s in yaotou and stood[s] < YAOTOU_STANDS)
            for s in _SEATS
        ]
        self.threes_played = [not a for a in active]
        self.pools: list[list[int] | None] = [None] * 6

    def knowledge(self, sim: Game, seat: int, unseen: Sequence[int]) -> Knowledge:
        """``seat``'s knowledge, read from the simulated game (all of it sampled); ``unseen``
        counts the cards not played yet, by rank."""
        hand = sim.hands[seat]
        pool = self.pools[seat]
        if pool is None:
            pool = [u - h if u > h else 0 for u, h in zip(unseen, hand, strict=True)]
            self.pools[seat] = pool
        top = sim.top
        ask = sim.ask
        # what Knowledge(...) makes with these fields and the defaults of the others, at a
        # third of its cost (a rollout builds one for each decision)
        k: Knowledge = object.__new__(Knowledge)
        d = k.__dict__
        d.update(_DEFAULTS)
        d["seat"] = seat
        d["rules"] = sim.rules
        d["ask"] = ask[1] if ask else ""
        d["hand"] = hand  # read only by the policy
        d["top_seat"] = top.seat if top else None
        d["top"] = top.play if top else None
        d["top_gouji"] = top.gouji if top else False
        d["top_burn"] = top.burn if top else False
        d["burning"] = sim.burning
        d["four_way"] = sim.four_way
        d["counts"] = self.counts
        d["active"] = self.active
        d["passed"] = frozenset(sim.passed)
        d["opened"] = sim.opened
        d["headless"] = self.headless
        d["pool"] = pool
        d["threes_played"] = self.threes_played
        return k


# the fields of Knowledge that a rollout leaves at their defaults
_DEFAULTS: dict[str, object] = {
    f.name: f.default for f in fields(Knowledge) if f.default is not MISSING
}

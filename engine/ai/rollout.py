"""Rollouts: a simulated game played to its end by the normal policy for all six seats — the
hard level's search (:func:`rollout`, its result for the deciding team) and, with the same
steps (:class:`Playout`), the 复盘's (``engine.ai.review_eval``).

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
from ..plays import Play
from ..seats import team
from ..vocab import Ask, Do, Status
from .knowledge import Knowledge
from .play_policy import Choice, decide_play

MAX_SCORE = 12  # the largest score margin of a game (§10)
MARGIN_SCALE = 2.0 * MAX_SCORE  # a result adds the margin over this: never outweighs the win
_SEATS = range(6)
YAOTOU_STANDS = 3  # §5.4 要头: 够死级 plays that must stand before the player may be 无头
_LEAD, _BURN, _ACTIVE, _PASS = Ask.LEAD, Ask.BURN, Status.ACTIVE, Do.PASS


def rollout(
    game: Game, hands: list[list[int]], act: Action, me: int, unseen: Sequence[int], seed: float
) -> float:
    """``act`` and the rest of ``game`` played with ``hands`` for the real ones by the normal
    policy (its generator seeded with ``seed``), on a copy; ``unseen`` counts the cards not
    played before ``act``, by rank. The :func:`result_of` the final score for ``me``'s team."""
    sim = game.copy(hands=hands, keep_log=False)  # rollouts count cards themselves
    sim.apply(act)
    walk = Playout(sim, unseen, act)
    rng = random.Random(seed)
    while (asked := walk.decide(rng)) is not None:
        seat, _, ch = asked
        walk.carry_out(seat, ch.do, ch.play)
    sa, sb = sim.score()
    return result_of(sa - sb, me)


class Playout:
    """The steps every rollout takes, the hard level's (:func:`rollout`) and the review's
    (``engine.ai.review_eval.explore_rollout``): on ``sim``, just after ``act``, with
    ``unseen`` the cards not played before it, by rank. :meth:`decide` lets a teammate's trick
    be and asks the next seat's normal choice; :meth:`carry_out` makes the move chosen (the
    policy picks among legal moves, so the game's checks are skipped: a speed path) and counts
    its cards. ``steps``: the questions asked, the let-be passes included."""

    __slots__ = ("left", "plays", "read", "sim", "steps", "table")

    def __init__(self, sim: Game, unseen: Sequence[int], act: Action) -> None:
        self.sim = sim
        self.left = list(unseen)
        if act.cards:
            for r, n in enumerate(parse(act.cards)):
                self.left[r] -= n
        self.plays = self.steps = 0
        # what all seats see alike changes only with a play or the end of a trick (a status
        # may change then: 诈烧, §7; a 够死级 play stood, §5.4): refreshed only then
        self.read: tuple[int, bool] | None = None
        self.table: _Table | None = None

    def decide(self, rng: random.Random) -> tuple[int, Knowledge, Choice] | None:
        """The next asked seat, its knowledge and its normal choice (``rng``: the policy's
        estimates); None once the game is over."""
        sim = self.sim
        status, hands = sim.status, sim.hands
        steps = self.steps
        while not sim.over:
            seat, kind = sim.ask  # type: ignore[misc]
            steps += 1
            top = sim.top
            if (
                kind != _LEAD
                and top is not None
                and (top.seat - seat) % 2 == 0
                and status[top.seat] is _ACTIVE
                and not (kind != _BURN and sum(hands[seat]) <= top.play.size)
            ):
                sim.carry_out(_PASS, None)  # the normal policy rarely beats a teammate
                continue
            self.steps = steps
            now = (self.plays, top is None)
            table = self.table
            if table is None:
                table = self.table = _Table(sim)
                self.read = now
            elif now != self.read:
                table.refresh(sim)
                self.read = now
            k = table.knowledge(sim, seat, self.left)
            if kind != _LEAD:
                offered, can_yield = sim.answer_options(seat, kind)
                return seat, k, decide_play(k, offered, can_yield, rng)
            if sim.burning == seat:
                legal = sim.legal(seat)
                return seat, k, decide_play(k, legal.plays, legal.can_yield, rng)
            return seat, k, decide_play(k, (), False, rng)  # an ordinary lead: the hand only
        self.steps = steps
        return None

    def carry_out(self, seat: int, do: str, play: Play | None) -> None:
        """``seat``'s move, chosen among its legal ones, made; its cards counted."""
        self.sim.carry_out(do, play)
        if play is not None:
            self.plays += 1
            left = self.left
            for r, n in play.by_rank:
                left[r] -= n
            assert self.table is not None  # (made by decide)
            self.table.played(self.sim, seat, play)


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
    """What every rollout seat sees of the simulated game alike: the live counts, who is
    active, 无头 (Flow.headless on the active seats, §12, §5.4 要头) and, per seat, the cards
    it has not seen (read when first asked for). Kept up to date, not read again, after
    each play (:meth:`played`): the player's count and the others' unseen cards change;
    what follows from the seats' status is read again (:meth:`refresh`) only when a status
    changed (going out, 闷, 诈烧: §6.6, §8, §7) or a 够死级 play stood (§5.4)."""

    __slots__ = (
        "active",
        "counts",
        "headless",
        "known",
        "pools",
        "seen",
        "stood",
        "threes_played",
    )

    def __init__(self, sim: Game) -> None:
        self.pools: list[list[int] | None] = [None] * 6
        self.known: list[Knowledge | None] = [None] * 6
        self._read(sim)

    def _read(self, sim: Game) -> None:
        on = Status.ACTIVE
        status = sim.status
        active = [st is on for st in status]
        yaotou = sim.yaotou
        stood = sim.yaotou_stood
        hands = sim.hands
        self.seen = list(status)
        self.stood = list(stood)
        self.active = active
        self.counts = [sum(hands[s]) if active[s] else 0 for s in _SEATS]
        # active, its 对头 (seats.opposite, three seats on) not, and not 要头 before 3 stood
        self.headless = [
            active[s] and not active[s - 3] and not (s in yaotou and stood[s] < YAOTOU_STANDS)
            for s in _SEATS
        ]
        self.threes_played = [not a for a in active]

    def refresh(self, sim: Game) -> None:
        """After a play or the end of a trick: read again what follows from the status and
        the 够死级 plays that stood, when either changed."""
        if sim.status != self.seen or sim.yaotou_stood != self.stood:
            self._read(sim)

    def played(self, sim: Game, seat: int, play: Play) -> None:
        """``seat`` played ``play``: its count drops; its own unseen cards are as before (the
        cards left both its hand and the unseen ones), every other seat's lose the play's."""
        self.counts[seat] = sum(sim.hands[seat])  # (read again with the status if it went out)
        by_rank = play.by_rank
        for s, pool in enumerate(self.pools):
            if pool is not None and s != seat:
                for r, n in by_rank:
                    # as read afresh, unseen minus hand, never below 0 (the unseen cards
                    # hold the other hands, so it never is)
                    pool[r] = pool[r] - n if pool[r] > n else 0

    def knowledge(self, sim: Game, seat: int, unseen: Sequence[int]) -> Knowledge:
        """``seat``'s knowledge, read from the simulated game (all of it sampled); ``unseen``
        counts the cards not played yet, by rank (read for a seat's first question only:
        :meth:`played` keeps it up to date). One Knowledge a seat for the whole rollout, its
        fields set anew for each decision (its hand, pool and the table's ``opened`` are the
        game's own lists, kept up to date): a decision's Knowledge is read only while that
        decision is made."""
        k = self.known[seat]
        if k is None:
            hand = sim.hands[seat]
            pool = [u - h if u > h else 0 for u, h in zip(unseen, hand, strict=True)]
            self.pools[seat] = pool
            # what Knowledge(...) makes with these fields and the defaults of the others, at
            # a third of its cost
            k = object.__new__(Knowledge)
            k.__dict__ = {
                **_DEFAULTS,
                "seat": seat,
                "rules": sim.rules,
                "hand": hand,  # read only by the policy
                "opened": sim.opened,
                "pool": pool,
            }
            self.known[seat] = k
        d = k.__dict__
        top = sim.top
        ask = sim.ask
        d["ask"] = ask[1] if ask else ""
        if top is None:
            d["top_seat"] = d["top"] = None
            d["top_gouji"] = d["top_burn"] = False
        else:
            d["top_seat"] = top.seat
            d["top"] = top.play
            d["top_gouji"] = top.gouji
            d["top_burn"] = top.burn
        d["burning"] = sim.burning
        d["four_way"] = sim.four_way
        d["counts"] = self.counts
        d["active"] = self.active
        d["passed"] = frozenset(sim.passed)
        d["headless"] = self.headless
        d["threes_played"] = self.threes_played
        return k


# the fields of Knowledge that a rollout leaves at their defaults
_DEFAULTS: dict[str, object] = {
    f.name: f.default for f in fields(Knowledge) if f.default is not MISSING
}

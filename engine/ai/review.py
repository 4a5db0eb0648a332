"""复盘, the post-game review: with every hand known (the game is over), the decisions of a
game record that cost their team the most, and what the AI would have done instead.

Each decision of the record (plays, passes, 让牌, burn claims and declines; the deal phase is
not in a game record: 革命, 要头 and 宣点 are its starting data and are not reviewed) is
valued after the action taken and after each action the AI would consider there (its normal
choice and the hard level's candidates, :func:`engine.ai.search.candidates`; near the end of
§12 四户乱缠 every legal action). Values are the expected game score of §10 as the team's
margin (:mod:`engine.ai.review_eval`), which is what a match adds up; the win chance is shown
beside it. A decision's cost is the best alternative's value minus the value of the action
taken.

The time goes where it matters: every decision is screened with a few rollouts, then the
costliest few of each team are valued again with many fresh rollouts (or solved exactly).
The budget is counted in work (rollout decisions and solver positions, at
:data:`STEPS_PER_SECOND`), not read from a clock, so a review depends only on the record and
the seed.

``python3 -m engine.ai.review bench`` reviews seeded games and prints its figures.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..actions import Action
from ..cards import DECK_COUNTS, fmt, parse
from ..game import Game
from ..gamerecord import parse_record
from ..record import read_json
from ..vocab import Ask, Do, EventType
from .knowledge import from_view
from .play_policy import decide_play
from .review_eval import Exact, explore_rollout, for_team, win_of
from .search import candidates

STEPS_PER_SECOND = 17_000  # rollout decisions (or solver positions) a second of one busy core
SCREEN_SHARE = 0.3  # of the budget, for the screen of every decision
SCREEN_MAX = 6  # rollouts per action in the screen, at most
# the deeper stages: (decisions per team valued again, the costliest of the stage before; the
# share of the budget left that the stage may spend)
STAGES = ((12, 0.4), (4, 1.0))
DEEP_MAX = 256  # rollouts per action in a deeper stage, at most
MIN_POINTS = 1.0  # a decision that costs less (§10 points) is no turning point
Z = 1.5  # and its cost must stand this many standard errors above nothing
SHOWN = 3  # turning points per team


@dataclass(frozen=True)
class TurningPoint:
    """A costly decision: ``index`` in the record's actions, the ``trick`` it was made in
    (from 1), what the seat was asked (``ask``: lead, answer, burn — a burn claim —, or last
    after 让牌), ``played`` against the AI's ``suggested`` action, and what the played one cost
    the seat's team: ``points`` of expected game score (§10, the team's margin) and ``win``,
    the win chance (0..1, a tie half). ``rollouts`` per action behind the figures; 0 when the
    rest of the game was solved exactly (best play by both teams)."""

    index: int
    seat: int
    trick: int
    ask: Ask
    played: Action
    suggested: Action
    points: float
    win: float
    rollouts: int

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seat": self.seat,
            "trick": self.trick,
            "ask": str(self.ask),
            "played": self.played.to_json(),
            "suggested": self.suggested.to_json(),
            "points": round(self.points, 2),
            "win": round(self.win, 3),
            "rollouts": self.rollouts,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> TurningPoint:
        def action(a: dict[str, Any]) -> Action:
            return Action(int(a["seat"]), Do(a["do"]), str(a.get("cards", "")))

        return TurningPoint(
            index=int(obj["index"]),
            seat=int(obj["seat"]),
            trick=int(obj["trick"]),
            ask=Ask(obj["ask"]),
            played=action(obj["played"]),
            suggested=action(obj["suggested"]),
            points=float(obj["points"]),
            win=float(obj["win"]),
            rollouts=int(obj["rollouts"]),
        )


@dataclass(frozen=True)
class Review:
    """A game's review: per team (A = seats 0 2 4, B = 1 3 5) at most :data:`SHOWN` turning
    points, costliest first; and what was done: decisions in the record, those with an
    alternative that were valued, those valued again deeply, those solved exactly, rollouts
    made and the work spent (rollout decisions and solver positions)."""

    teams: tuple[tuple[TurningPoint, ...], tuple[TurningPoint, ...]]
    decisions: int
    compared: int
    deep: int
    exact: int
    rollouts: int
    steps: int

    def to_json(self) -> dict[str, Any]:
        return {
            "teams": [[tp.to_json() for tp in side] for side in self.teams],
            "decisions": self.decisions,
            "compared": self.compared,
            "deep": self.deep,
            "exact": self.exact,
            "rollouts": self.rollouts,
            "steps": self.steps,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Review:
        """The review that :meth:`to_json` wrote (figures rounded as stored)."""
        a, b = ([TurningPoint.from_json(tp) for tp in side] for side in obj["teams"])
        return Review(
            teams=(tuple(a), tuple(b)),
            **{
                k: int(obj[k])
                for k in ("decisions", "compared", "deep", "exact", "rollouts", "steps")
            },
        )


@dataclass
class _Point:
    """One decision under review: the game just before it (a copy), the cards not played yet
    by rank, the action taken (first) and the alternatives, and per action its margins for
    the seat's team, one per rollout (or the one exact value)."""

    index: int
    seat: int
    trick: int
    ask: Ask
    game: Game
    unseen: list[int]
    acts: list[Action]
    results: list[list[float]] = field(default_factory=list)
    exact: bool = False
    stage: int = 0  # the last stage that valued it: 0 the screen, 1… the deeper ones
    per_rollout: float = 0.0  # rollout decisions per rollout, as the screen found

    def best(self) -> int:
        """The alternative (row ≥ 1) with the best mean value."""
        means = [statistics.fmean(r) for r in self.results]
        return max(range(1, len(self.acts)), key=lambda i: (means[i], -i))

    def cost(self) -> tuple[int, float, float, float]:
        """(the best alternative's row, points and win chance lost by the action taken, the
        standard error of the points from the paired rollouts)."""
        b = self.best()
        pairs = list(zip(self.results[b], self.results[0], strict=True))
        diffs = [x - y for x, y in pairs]
        wins = [win_of(x) - win_of(y) for x, y in pairs]
        se = statistics.pstdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
        return b, statistics.fmean(diffs), statistics.fmean(wins), se


def review_game(
    record_json: str, budget_s: float = 60.0, rng: random.Random | None = None
) -> Review:
    """Review a game record (shared RECORDS.md, JSON text): per team the (at most three)
    decisions that cost it the most, with the AI's alternative. ``budget_s`` is the work
    allowed, in seconds of one core (measured by ``python3 -m engine.ai.review bench``, not
    read from a clock); ``rng`` seeds every rollout (without it, a seed made from the record),
    so the same record and seed give the same review. Raises
    :class:`~engine.gamerecord.BadRecord` for a malformed record and
    :class:`~engine.actions.IllegalAction` for one with an illegal action."""
    record = parse_record(read_json(record_json))
    if rng is None:
        rng = random.Random(hashlib.blake2b(record_json.encode(), digest_size=8).digest())
    base = rng.getrandbits(64)
    game = Game.from_record(record)
    points = list(_points(game, record.actions, base))
    budget = max(budget_s, 0.0) * STEPS_PER_SECOND
    work = _Work()
    exact = Exact()
    screened = [p for p in points if not _solve(p, exact)]
    work.steps += exact.nodes
    # the screen: every decision with a few rollouts, the same seeds for all its actions
    unit = sum(len(p.acts) * max(len(record.actions) - p.index, 1) for p in screened)
    done = max(1, min(SCREEN_MAX, int(SCREEN_SHARE * budget / unit))) if unit else 0
    for p in screened:
        before = work.steps
        _roll(p, base, 0, done, work)
        p.per_rollout = (work.steps - before) / (done * len(p.acts))
    # then the costliest of each team again, with fresh seeds, fewer and deeper each stage
    pool = screened
    for stage, (per_team, share) in enumerate(STAGES, 1):
        chosen = [p for side in (0, 1) for p in _costliest(pool, side, per_team)]
        need = sum(len(p.acts) * max(p.per_rollout, 1.0) for p in chosen)
        n = min(DEEP_MAX, int(share * (budget - work.steps) / need)) if need else 0
        if n <= done:
            break
        for p in chosen:
            _roll(p, base, stage, n, work)
        pool, done = chosen, n
    deepest = max((p.stage for p in points), default=0)
    final = [p for p in points if p.exact or p.stage > 0 or deepest == 0]
    teams = tuple(_turning_points(final, side) for side in (0, 1))
    return Review(
        teams=(teams[0], teams[1]),
        decisions=len(record.actions),
        compared=len(points),
        deep=sum(p.stage > 0 for p in points),
        exact=sum(p.exact for p in points),
        rollouts=work.rollouts,
        steps=work.steps,
    )


@dataclass
class _Work:
    steps: int = 0
    rollouts: int = 0


def _canonical(act: Action) -> Action:
    return Action(act.seat, act.do, fmt(parse(act.cards))) if act.cards else act


def _points(game: Game, actions: Iterable[Action], base: int) -> Iterable[_Point]:
    """Replay ``actions`` on ``game``, yielding each decision that had an alternative the AI
    would consider (the normal choice and the hard level's candidates)."""
    starts = [sum(h) for h in game.start_hands]
    unseen = list(DECK_COUNTS)  # the cards not played yet, as every seat counts them
    trick = 1
    for i, act in enumerate(actions):
        seat = act.seat
        legal = game.legal(seat)
        if legal.ask is not None:
            k = from_view(game.view(seat), game.log, starts)
            ch = decide_play(k, legal.plays, legal.can_yield, random.Random(f"{base}:{i}"))
            normal = Action(seat, Do(ch.do), str(ch.play) if ch.play is not None else "")
            taken = _canonical(act)
            acts = [taken, *(a for a in candidates(k, legal, normal) if a != taken)]
            if len(acts) > 1:
                yield _Point(i, seat, trick, legal.ask, game.copy(), list(unseen), acts)
        events = game.apply(act)
        trick += sum(e.type == EventType.TRICK_WON for e in events)
        if act.cards:
            unseen = [u - n for u, n in zip(unseen, parse(act.cards), strict=True)]


def _solve(p: _Point, exact: Exact) -> bool:
    """Value ``p`` exactly (every legal action) when its endgame is small enough."""
    if not exact.applies(p.game):
        return False
    legal = p.game.legal(p.seat)
    acts = list(p.acts)
    extra = [Action(p.seat, Do.PASS)] if legal.can_pass else []
    extra += [Action(p.seat, Do.PLAY, str(q)) for q in legal.plays]
    acts += [a for a in extra if a not in acts]
    values = exact.values(p.game, acts)
    if values is None:
        return False
    p.acts = acts
    p.results = [[for_team(v, p.seat)] for v in values]
    p.exact = True
    return True


def _roll(p: _Point, base: int, stage: int, n: int, work: _Work) -> None:
    """``n`` rollouts of each of ``p``'s actions, on fresh seeds of this ``stage`` (the same
    for all its actions)."""
    seeds = random.Random(f"{base}:{p.index}:{stage}")
    rows: list[list[float]] = [[] for _ in p.acts]
    for _ in range(n):
        seed = seeds.random()
        for row, act in zip(rows, p.acts, strict=True):
            diff, steps = explore_rollout(p.game, act, p.unseen, seed)
            row.append(for_team(diff, p.seat))
            work.steps += steps
            work.rollouts += 1
    p.results = rows
    p.stage = stage


def _costliest(points: Iterable[_Point], side: int, n: int) -> list[_Point]:
    """The ``n`` decisions of team ``side`` that cost most by their figures so far (some)."""
    costs = [(p.cost()[1], p) for p in points if p.seat % 2 == side]
    costs.sort(key=lambda c: (-c[0], c[1].index))
    return [p for cost, p in costs[:n] if cost > 0]


def _turning_points(points: Iterable[_Point], side: int) -> tuple[TurningPoint, ...]:
    """Team ``side``'s costliest decisions, at most :data:`SHOWN`: a cost of at least
    :data:`MIN_POINTS`, and (from rollouts) :data:`Z` standard errors."""
    out: list[TurningPoint] = []
    for p in points:
        if p.seat % 2 != side:
            continue
        b, lost, win, se = p.cost()
        if lost < MIN_POINTS or lost <= Z * se:
            continue
        n = 0 if p.exact else len(p.results[0])
        out.append(
            TurningPoint(p.index, p.seat, p.trick, p.ask, p.acts[0], p.acts[b], lost, win, n)
        )
    out.sort(key=lambda tp: (-tp.points, tp.index))
    return tuple(out[:SHOWN])

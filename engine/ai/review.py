"""复盘, the post-game review: with every hand known (the game is over), the decisions of a
game record that cost their team the most, and what the computer would have done instead.

A decision is reviewed when it can matter (:func:`matters`): a burn claim or its decline
(§7), an answer to a 够级 play, a play (taken or considered) that spends 2s or jokers, and
the last tricks of a seat (few cards left, or §12 四户乱缠). Each is valued after the action
taken and after each action the computer would consider there (its normal choice and the
hard level's candidates, :func:`engine.ai.search.candidates`; near the end of §12 四户乱缠
every legal action, solved exactly). Values are the game score of §10 as the team's margin
(:mod:`engine.ai.review_eval`), what a match adds up; a decision's cost is the best
alternative's value minus the value of the action taken.

Where the time goes (docs/review.md):

- **Common random deals**: the rollouts of all actions of a decision share their seeds, so a
  cost is a mean of paired differences (the luck of the rest of the game cancels out).
- **A short screen**: a few rollouts per action (:class:`Effort`); then only the best
  alternatives are kept.
- **Sequential**: the decisions whose line may still change (:func:`_doubtful`) get twice
  the rollouts, again and again, until each team's lines are settled or a cap is reached.

What is shown (:func:`_lines`): per team the settled lines — among its :data:`SHOWN`
costliest, clearly a point or more and clearly apart from every decision not shown — and a
near tie for the places left, shown as a tie (``TurningPoint.tied``), never as a firm pick.

The seeds derive from a hash of the record and the decision, never from a clock or the
caller's generator: the same record gives the same review, whatever the seed (``salt``
draws other rollouts, to measure how stable the picks are). ``budget_s`` caps the work,
counted in rollout decisions at :data:`STEPS_PER_SECOND`; a review stopped by it before the
ranking settled says so (:attr:`Review.settled`), and its message is titled a demo.

``python -m engine review-bench`` reviews seeded games and prints its figures.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..actions import Action
from ..cards import BIG, DECK_COUNTS, SMALL, TWO, fmt, parse
from ..game import Game
from ..gamerecord import parse_record
from ..record import read_json
from ..vocab import Ask, Do, EventType
from .knowledge import from_view
from .play_policy import decide_play
from .review_eval import Exact, explore_rollout, for_team, win_of
from .review_lines import (
    SPREAD,
    WIN_DOUBT,
    Z,
    _doubtful,
    _lines,
    points_range,
)
from .search import candidates

STEPS_PER_SECOND = 17_000  # rollout decisions (or solver positions) a second of one busy core
TURN = 4.0  # §10 points: the usual difference of two actions' rollouts when they differ
LAST_CARDS = 6  # a seat with this many cards or fewer plays its last tricks
WIN_SHOWN = 0.15  # the win chance lost is shown when it is this much still Z standard errors
WIN_SAMPLES = 8  # below its estimate, on this many rollouts at least (or solved exactly)


@dataclass(frozen=True)
class Effort:
    """How hard a review looks: ``screen`` rollouts per action for every decision reviewed;
    then the ``keep`` best alternatives only; at most ``cap`` rollouts per action; and in
    each round of the sequential stage the decisions at a team's cut plus at most ``doubt``
    others that may still enter it. ``everything``: every decision with an alternative is
    reviewed, not only those that can matter (:func:`matters`)."""

    screen: int = 3
    keep: int = 1
    cap: int = 24
    doubt: int = 3
    everything: bool = False
    sure: int = 0  # the cap of a line whose doubt is whether it costs a point (else ``cap``)


# the cut gets up to 64 rollouts, one outside contender per team and round (the sure ones
# stop early), a line whose doubt is whether it costs a point up to 96: agreement, stability
# and CPU in docs/review.md
PRODUCTION = Effort(screen=3, keep=2, cap=64, doubt=1, sure=96)
# the reference the bench compares with (review-bench --make-reference): more of everything,
# the near ties at the cut up to 512 rollouts (within the 60 s budget)
REFERENCE = Effort(screen=6, keep=2, cap=512, doubt=4)


@dataclass(frozen=True)
class TurningPoint:
    """A costly decision: ``index`` in the record's actions, the ``trick`` it was made in
    (from 1), what the seat was asked (``ask``: lead, answer, burn — a burn claim —, or last
    after 让牌), ``played`` against the computer's ``suggested`` action, and what the played
    one cost the seat's team: ``points`` of expected game score (§10, the team's margin) and
    ``win``, the win chance (0..1, a tie half). ``rollouts`` per action behind the figures; 0
    when the rest of the game was solved exactly (best play by both teams).

    For the message: ``win_sure`` when the win chance is large and stable enough to be shown;
    the play answered (``top_seat`` and ``top`` in notation; None and "" for a lead); and
    what became of the seat in the game (``outcome``: ``burned`` 被烧成, ``smothered`` 被闷,
    ``burn_fail`` 诈烧, or ``out`` 走科, with its final ``rank`` 1..6, 0 if unknown).

    ``tied``: one of a near tie (docs/review.md): the rollouts cannot tell whether it is among
    the team's :data:`SHOWN` costliest or another of the tied ones is; the message says so.
    Not tied: surely among them (its cost is clearly apart from every decision outside)."""

    index: int
    seat: int
    trick: int
    ask: Ask
    played: Action
    suggested: Action
    points: float
    win: float
    rollouts: int
    win_sure: bool = False
    top_seat: int | None = None
    top: str = ""
    outcome: str = "out"
    rank: int = 0
    tied: bool = False
    points_se: float = 0.0
    win_se: float = 0.0

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
            "win_sure": self.win_sure,
            "top_seat": self.top_seat,
            "top": self.top,
            "outcome": self.outcome,
            "rank": self.rank,
            "tied": self.tied,
            "points_se": round(self.points_se, 3),
            "win_se": round(self.win_se, 4),
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> TurningPoint:
        """What :meth:`to_json` wrote (a review stored before the later fields has defaults)."""

        def action(a: dict[str, Any]) -> Action:
            return Action(int(a["seat"]), Do(a["do"]), str(a.get("cards", "")))

        top_seat = obj.get("top_seat")
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
            win_sure=bool(obj.get("win_sure", False)),
            top_seat=None if top_seat is None else int(top_seat),
            top=str(obj.get("top", "")),
            outcome=str(obj.get("outcome", "out")),
            rank=int(obj.get("rank", 0)),
            tied=bool(obj.get("tied", False)),
            points_se=float(obj.get("points_se", 0.0)),
            win_se=float(obj.get("win_se", 0.0)),
        )


@dataclass(frozen=True)
class Review:
    """A game's review: per team (A = seats 0 2 4, B = 1 3 5) its turning points: at most
    :data:`SHOWN` settled ones, costliest first, then the tied ones of a near tie for the
    places left (at most :data:`TIED`, ``TurningPoint.tied``); and what was done: decisions
    in the record, those reviewed (with an alternative, :func:`matters`), those valued again
    after the screen, those solved exactly, rollouts made and the work spent (rollout
    decisions and solver positions).
    ``settled``: the ranking was settled before the budget ran out (else the figures are
    those of a budget too small, and the message says it is a demo)."""

    teams: tuple[tuple[TurningPoint, ...], tuple[TurningPoint, ...]]
    decisions: int
    compared: int
    deep: int
    exact: int
    rollouts: int
    steps: int
    settled: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "teams": [[tp.to_json() for tp in side] for side in self.teams],
            "decisions": self.decisions,
            "compared": self.compared,
            "deep": self.deep,
            "exact": self.exact,
            "rollouts": self.rollouts,
            "steps": self.steps,
            "settled": self.settled,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Review:
        """The review that :meth:`to_json` wrote (figures rounded as stored)."""
        a, b = ([TurningPoint.from_json(tp) for tp in side] for side in obj["teams"])
        return Review(
            teams=(tuple(a), tuple(b)),
            settled=bool(obj.get("settled", True)),
            **{
                k: int(obj[k])
                for k in ("decisions", "compared", "deep", "exact", "rollouts", "steps")
            },
        )


@dataclass
class _Point:
    """One decision under review: the game just before it (a copy), the cards not played yet
    by rank, the action taken (first) and the alternatives, and per action its margins for
    the seat's team, one per rollout (or the one exact value), on seeds shared by all."""

    index: int
    seat: int
    trick: int
    ask: Ask
    game: Game
    unseen: list[int]
    acts: list[Action]
    top_seat: int | None
    top: str
    results: list[list[float]] = field(default_factory=list)
    exact: bool = False
    # the last cost() and what it was read from (rollouts a row, rows, exact): the sampling's
    # rules read every decision's cost each round, most of them unchanged since
    _cost: tuple[tuple[int, int, bool], tuple[int, float, float, float, float]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def n(self) -> int:
        return len(self.results[0]) if self.results else 0

    def best(self) -> int:
        """The alternative (row ≥ 1) with the best mean value."""
        means = [statistics.fmean(r) for r in self.results]
        return max(range(1, len(self.acts)), key=lambda i: (means[i], -i))

    def cost(self) -> tuple[int, float, float, float, float]:
        """(the best alternative's row, points and win chance lost by the action taken, the
        standard errors of both from the paired rollouts)."""
        # rows only grow (more rollouts) or go (pruned, narrowed): their lengths say whether
        # anything changed since the last reading
        key = (self.n, len(self.results), self.exact)
        if self._cost is not None and self._cost[0] == key:
            return self._cost[1]
        b = self.best()
        pairs = list(zip(self.results[b], self.results[0], strict=True))
        wins = [win_of(x) - win_of(y) for x, y in pairs]
        lost, se = self._paired(b)
        if not self.exact:
            # another alternative may cost more than the best by its mean: the cost's upper
            # bound is the highest of theirs (docs/review.md)
            for i in range(1, len(self.acts)):
                mean, spread = self._paired(i)
                se = max(se, (mean - lost) / Z + spread)
        cost = b, lost, statistics.fmean(wins), se, _se(wins)
        self._cost = key, cost
        return cost

    def _paired(self, row: int) -> tuple[float, float]:
        """The mean and standard error of ``row``'s paired differences from the action taken;
        on rollouts, a standard error at least the spread of one of n rollouts turning out
        otherwise, by the mean or by a rollout's usual turn (:data:`TURN`: a cost alike on
        each of a few rollouts, three rollouts of 0 among them, is not known to the point)."""
        diffs = [x - y for x, y in zip(self.results[row], self.results[0], strict=True)]
        mean, se = statistics.fmean(diffs), _se(diffs)
        if self.exact:
            return mean, se
        return mean, max(se, max(abs(mean), TURN) / len(diffs))


def _se(xs: Sequence[float]) -> float:
    return statistics.pstdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0


def review_game(
    record_json: str,
    budget_s: float = 60.0,
    rng: random.Random | None = None,
    *,
    salt: str = "",
    effort: Effort = PRODUCTION,
) -> Review:
    """Review a game record (shared RECORDS.md, JSON text): per team the (at most
    :data:`SHOWN`) decisions that cost it the most, with the computer's alternative.

    ``budget_s`` caps the work, in seconds of one core (counted, not read from a clock); a
    review normally settles well before (a few seconds). ``rng`` is accepted for the callers
    that pass one and not used: the rollouts' seeds derive from the record (and ``salt``,
    which draws other rollouts), so a review depends only on its record. ``effort``: how hard
    it looks (:data:`PRODUCTION`; the bench's reference :data:`REFERENCE`). Raises
    :class:`~engine.gamerecord.BadRecord` for a malformed record and
    :class:`~engine.actions.IllegalAction` for one with an illegal action."""
    del rng  # the seeds come from the record (module doc)
    record = parse_record(read_json(record_json))
    digest = hashlib.blake2b(f"{salt}\n{record_json}".encode(), digest_size=8).hexdigest()
    game = Game.from_record(record)
    points, fates = _points(game, record.actions, effort.everything)
    budget = max(budget_s, 0.0) * STEPS_PER_SECOND
    work = _Work()
    exact = Exact()
    sampled = [p for p in points if not _solve(p, exact)]
    work.steps += exact.nodes
    settled = True
    # the screen: every decision, a few rollouts of each action on shared seeds
    for p in sampled:
        if work.steps > budget:
            settled = False
            break
        _extend(p, digest, effort.screen, work)
        if len(p.acts) > effort.keep + 1:
            _prune(p, effort.keep)
    live = [p for p in points if p.exact or p.n > 0]
    # then the decisions at the cut, twice the rollouts each round, until it is settled
    deep: set[int] = set()
    while settled:
        doubtful = [d for side in (0, 1) for d in _doubtful(live, side, effort)]
        growing = [(p, cap) for p, cap in doubtful if not p.exact and p.n < cap]
        if not growing:
            break
        for p, cap in growing:
            if work.steps > budget:
                settled = False
                break
            _narrow(p)
            _extend(p, digest, min(cap, 2 * p.n), work)
            deep.add(p.index)
    # what is shown stands on WIN_SAMPLES rollouts at least (a cut settled on the screen's few)
    for side in (0, 1):
        for tp in _turning_points(live, side, fates):
            p = next(p for p in live if p.index == tp.index)
            if not p.exact and p.n < WIN_SAMPLES and work.steps <= budget:
                _extend(p, digest, WIN_SAMPLES, work)
    teams = tuple(_turning_points(live, side, fates) for side in (0, 1))
    return Review(
        teams=(teams[0], teams[1]),
        decisions=len(record.actions),
        compared=len(points),
        deep=len(deep),
        exact=sum(p.exact for p in points),
        rollouts=work.rollouts,
        steps=work.steps,
        settled=settled,
    )


@dataclass
class _Work:
    steps: int = 0
    rollouts: int = 0


def _canonical(act: Action) -> Action:
    return Action(act.seat, act.do, fmt(parse(act.cards))) if act.cards else act


def _control(act: Action) -> bool:
    """A play that spends 2s or jokers."""
    if not act.cards:
        return False
    counts = parse(act.cards)
    return bool(counts[TWO] or counts[SMALL] or counts[BIG])


def matters(game: Game, seat: int, ask: Ask, acts: Sequence[Action]) -> bool:
    """A decision worth reviewing: a burn claim (§7), an answer to a 够级 play, a play of 2s
    or jokers (taken, or the computer's own choice: ``acts`` begins with the action taken,
    then the computer's), a seat's last tricks (:data:`LAST_CARDS` cards or fewer)
    and §12 四户乱缠."""
    top = game.top
    return (
        ask == Ask.BURN
        or (top is not None and (top.gouji or top.burn))
        or any(_control(a) for a in acts[:2])
        or sum(game.hands[seat]) <= LAST_CARDS
        or game.four_way
    )


# what became of a seat after a decision: (index of the action after which it happened,
# outcome); the final rank of each seat
_Fates = tuple[list[list[tuple[int, str]]], list[int]]


def _points(game: Game, actions: Iterable[Action], everything: bool) -> tuple[list[_Point], _Fates]:
    """Replay ``actions`` on ``game``: each decision that had an alternative the computer
    would consider (the normal choice and the hard level's candidates) and that
    :func:`matters` (all of them with ``everything``); and what became of each seat."""
    starts = [sum(h) for h in game.start_hands]
    unseen = list(DECK_COUNTS)  # the cards not played yet, as every seat counts them
    trick = 1
    out: list[_Point] = []
    happened: list[list[tuple[int, str]]] = [[] for _ in range(6)]
    for i, act in enumerate(actions):
        seat = act.seat
        legal = game.legal(seat)
        if legal.ask is not None:
            k = from_view(game.view(seat), game.log, starts)
            ch = decide_play(k, legal.plays, legal.can_yield, random.Random(f"review:{i}"))
            normal = Action(seat, Do(ch.do), str(ch.play) if ch.play is not None else "")
            taken = _canonical(act)
            acts = [taken, *(a for a in candidates(k, legal, normal) if a != taken)]
            if len(acts) > 1 and (everything or matters(game, seat, legal.ask, acts)):
                top = game.top
                out.append(
                    _Point(
                        i,
                        seat,
                        trick,
                        legal.ask,
                        game.copy(),
                        list(unseen),
                        acts,
                        top.seat if top is not None else None,
                        str(top.play) if top is not None else "",
                    )
                )
        for ev in game.apply(act):
            if ev.type == EventType.TRICK_WON:
                trick += 1
            elif ev.type == EventType.BURN_SUCCESS and ev.victim is not None:
                happened[ev.victim].append((i, "burned"))
            elif ev.type == EventType.SMOTHERED and ev.seat is not None:
                happened[ev.seat].append((i, "smothered"))
            elif ev.type == EventType.BURN_FAIL and ev.seat is not None:
                happened[ev.seat].append((i, "burn_fail"))
        if act.cards:
            unseen = [u - n for u, n in zip(unseen, parse(act.cards), strict=True)]
    ranks = [r or 0 for r in game.ranks]
    return out, (happened, ranks)


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


def _extend(p: _Point, digest: str, n: int, work: _Work) -> None:
    """Rollouts of each of ``p``'s actions up to ``n`` each, the k-th on the k-th seed of the
    decision's own stream (the same for all its actions)."""
    if not p.results:
        p.results = [[] for _ in p.acts]
    seeds = random.Random(f"{digest}:{p.index}")
    stream = [seeds.random() for _ in range(n)]
    for k in range(p.n, n):
        for row, act in zip(p.results, p.acts, strict=True):
            diff, steps = explore_rollout(p.game, act, p.unseen, stream[k])
            row.append(for_team(diff, p.seat))
            work.steps += steps
            work.rollouts += 1


def _prune(p: _Point, keep: int) -> None:
    """Keep the action taken and the ``keep`` best alternatives."""
    means = [statistics.fmean(r) for r in p.results]
    alts = sorted(range(1, len(p.acts)), key=lambda i: (-means[i], i))[:keep]
    rows = [0, *sorted(alts)]
    p.acts = [p.acts[i] for i in rows]
    p.results = [p.results[i] for i in rows]


def _narrow(p: _Point) -> None:
    """Drop the alternatives that are clearly worse than the best one (by :data:`Z` standard
    errors of their paired differences): they no longer decide the cost."""
    if len(p.acts) <= 2:
        return
    b = p.best()
    keep = [0]
    for i in range(1, len(p.acts)):
        diffs = [x - y for x, y in zip(p.results[b], p.results[i], strict=True)]
        if i == b or statistics.fmean(diffs) <= Z * _se(diffs):
            keep.append(i)
    p.acts = [p.acts[i] for i in keep]
    p.results = [p.results[i] for i in keep]


def _fate(fates: _Fates, p: _Point) -> tuple[str, int]:
    happened, ranks = fates
    after = [what for i, what in happened[p.seat] if i >= p.index]
    return (after[0] if after else "out"), ranks[p.seat]


def _turning_points(points: Iterable[_Point], side: int, fates: _Fates) -> tuple[TurningPoint, ...]:
    """Team ``side``'s lines (:func:`_lines`): the settled ones, costliest first, then the
    tied ones."""
    firm, tied = _lines(points, side)
    return tuple(
        _turning_point(p, fates, tie)
        for rows, tie in ((firm, False), (tied, True))
        for _, _, p in rows
    )


def _turning_point(p: _Point, fates: _Fates, tied: bool) -> TurningPoint:
    b, lost, win, _, win_se = p.cost()
    n = 0 if p.exact else p.n
    se = 0.0 if p.exact else p._paired(b)[1]  # the figure's: the suggestion's own rollouts
    # the win chance is shown when large, known within WIN_DOUBT, and on a line whose cost
    # is one figure (not a range: its rollouts are too few to quote a chance; docs/review.md)
    low, high = points_range(lost, se)
    precise = n >= WIN_SAMPLES and SPREAD * win_se <= WIN_DOUBT and low == high
    sure = p.exact or (precise and win - Z * win_se >= WIN_SHOWN)
    outcome, rank = _fate(fates, p)
    return TurningPoint(
        p.index,
        p.seat,
        p.trick,
        p.ask,
        p.acts[0],
        p.acts[b],
        lost,
        win,
        n,
        sure and win >= WIN_SHOWN,
        p.top_seat,
        p.top,
        outcome,
        rank,
        tied,
        se,
        0.0 if p.exact else win_se,
    )

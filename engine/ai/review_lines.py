"""What the 复盘 shows of a team, and which of its decisions are sampled again
(docs/review.md, "What is shown"): the rule of the message (:func:`_lines`) and the rule of
the sampling that aims at it (:func:`_doubtful`), on the decisions' costs and standard errors
(:meth:`engine.ai.review._Point.cost`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar


class _Decision(Protocol):
    """What the rules here read of a reviewed decision (:class:`engine.ai.review._Point`)."""

    @property
    def seat(self) -> int: ...
    @property
    def index(self) -> int: ...
    @property
    def exact(self) -> bool: ...
    @property
    def n(self) -> int: ...
    def cost(self) -> tuple[int, float, float, float, float]: ...


class _Effort(Protocol):
    """What the sampling reads of a review's effort (:class:`engine.ai.review.Effort`)."""

    @property
    def cap(self) -> int: ...
    @property
    def sure(self) -> int: ...
    @property
    def doubt(self) -> int: ...


_P = TypeVar("_P", bound=_Decision)

Z = 2.0  # standard errors of a cost's confidence interval
Z_SETTLED = 2.5  # a settled line is a point and apart from the rest by this many (docs/review.md)
MIN_POINTS = 1.0  # a decision that costs less (§10 points) is no turning point
SHOWN = 2  # turning points per team (places: a near tie for them is shown as a tie)
TIED = 3  # a near tie names this many decisions at most
SETTLED_SAMPLES = 32  # a settled line stands on this many rollouts at least (or is solved)
SPREAD = Z_SETTLED  # a figure shown stands for its estimate give or take this many standard errors
POINT_DOUBT = 1.0  # a cost is one whole figure when known within a point (else a range)
WIN_DOUBT = 0.10  # a win chance lost is shown only when known within this much
WIN_STEP = 5  # the win chance is shown in steps of 5%: its figure is an estimate

_Row = tuple[float, float, _P]  # a decision's cost, its standard error, the decision


def points_range(points: float, se: float = 0.0) -> tuple[int, int]:
    """The whole points a cost of ``points`` ± ``se`` (a standard error) is shown as (the
    message's figure, docs/review.md): one figure, the estimate rounded (at least 1), when
    :data:`SPREAD` standard errors are within :data:`POINT_DOUBT` (the figure is right give
    or take a point), else the range those standard errors span, rounded (at least 1)."""
    whole = max(1, round(points))
    if SPREAD * se <= POINT_DOUBT:
        return whole, whole
    low, high = max(1, round(points - SPREAD * se)), max(1, round(points + SPREAD * se))
    return (low, high) if low < high else (whole, whole)


def points_meant(low: int, high: int) -> tuple[float, float]:
    """The costs a figure shown (:func:`points_range`) stands for: a range, from its lowest
    whole point to its highest, each give or take half a point; one figure, give or take a
    point (:data:`POINT_DOUBT`)."""
    slack = 0.5 if high > low else POINT_DOUBT
    return low - slack, high + slack


def win_percent(win: float) -> int:
    """The win chance lost as the message shows it: whole percent in steps of :data:`WIN_STEP`."""
    return WIN_STEP * round(100 * win / WIN_STEP)


def _ranked(points: Iterable[_P], side: int) -> list[_Row[_P]]:
    """Team ``side``'s decisions, costliest first."""
    rows = [(c[1], c[3], p) for p in points if p.seat % 2 == side for c in (p.cost(),)]
    rows.sort(key=lambda r: (-r[0], r[2].index))
    return rows


def _costly(row: _Row[_Decision], z: float = Z) -> bool:
    """Clearly a cost: :data:`MIN_POINTS` at least, and ``z`` standard errors above 0."""
    return row[0] >= MIN_POINTS and row[0] > z * row[1]


def _apart(a: _Row[_Decision], b: _Row[_Decision], z: float = Z) -> bool:
    """``a`` costs clearly more than ``b``: by ``z`` standard errors of the difference (the
    rollouts of two decisions are independent)."""
    return a[0] - b[0] > z * math.hypot(a[1], b[1])


def _a_point(row: _Row[_Decision]) -> bool:
    """``row`` costs :data:`MIN_POINTS` at least by :data:`Z_SETTLED` standard errors."""
    return row[0] - Z_SETTLED * row[1] >= MIN_POINTS


def _a_point_among(rows: Sequence[_Row[_Decision]]) -> bool:
    """One of ``rows`` costs :data:`MIN_POINTS` at least, by the test of :func:`_a_point` on
    all of them at once: the chance that each costs less (the rollouts of two decisions are
    independent) is below that of a cost :data:`Z_SETTLED` standard errors above a point.
    For one decision the same as :func:`_a_point`; two at 1.7 ± 0.36 and 1.5 ± 0.33 are a
    point together (2% and 6%), not 1.7 ± 0.33 and 1.1 ± 0.46 (2% and 45%)."""
    chance = 1.0
    for cost, se, _ in rows:
        if se > 0:
            chance *= 0.5 * math.erfc((cost - MIN_POINTS) / (se * math.sqrt(2)))
        elif cost >= MIN_POINTS:
            chance = 0.0  # solved exactly: a point
    return chance < 0.5 * math.erfc(Z_SETTLED / math.sqrt(2))


def _settled(row: _Row[_Decision], rest: Sequence[_Row[_Decision]]) -> bool:
    """``row``'s line is settled: on :data:`SETTLED_SAMPLES` rollouts at least (or solved), a
    point (:func:`_a_point`) and more than each of ``rest`` by :data:`Z_SETTLED` standard
    errors of the difference (stricter than a line's own test: it is one of many tests)."""
    enough = row[2].exact or row[2].n >= SETTLED_SAMPLES
    return enough and _a_point(row) and all(_apart(row, r, Z_SETTLED) for r in rest)


def _lines(points: Iterable[_P], side: int) -> tuple[list[_Row[_P]], list[_Row[_P]]]:
    """What the review shows of team ``side`` (docs/review.md): the settled lines among its
    :data:`SHOWN` costliest clearly costly decisions (:func:`_settled` against every decision
    outside them), and for the places left a near tie: the costliest clearly costly decision
    not settled and those not clearly cheaper than it by the same test (:data:`TIED` at
    most), only when one of them is a point (:func:`_a_point_among`; a tie of one, "not
    sure", as any other); of the others, only those a cost at all by :data:`Z_SETTLED`."""
    rows = _ranked(points, side)
    costly = [r for r in rows if _costly(r)]
    top = costly[:SHOWN]
    rest = [r for r in rows if all(r[2] is not t[2] for t in top)]
    firm = [t for t in top if _settled(t, rest)]
    pool = [r for r in costly if all(r[2] is not f[2] for f in firm)]
    if len(firm) == SHOWN or not pool:
        return firm, []
    near = [r for r in pool if not _apart(pool[0], r, Z_SETTLED)]
    if not _a_point_among(near[:TIED]):
        return firm, []  # other rollouts would name them only now and then (docs/review.md)
    # the others of the tie are named only when each is a cost at all by Z_SETTLED (at Z, 2
    # of 250 decisions named were no better than the play on 512 fresh rollouts)
    tied = [near[0], *(r for r in near[1:] if _costly(r, Z_SETTLED))][:TIED]
    return firm, tied


def _open(row: _Row[_Decision], rest: Sequence[_Row[_Decision]]) -> bool:
    return row[0] + Z * row[1] >= MIN_POINTS and not _settled(row, rest)


def _doubtful(points: Iterable[_P], side: int, effort: _Effort) -> list[tuple[_P, int]]:
    """Team ``side``'s decisions whose line may still change, each with its cap: among the
    :data:`SHOWN` costliest, those that may cost :data:`MIN_POINTS` (upper bound) and are not
    settled (:func:`_settled`), up to ``effort.sure`` rollouts while whether they cost a point
    is in doubt, else ``effort.cap``; and the ``effort.doubt`` likeliest of those outside to
    enter (the highest upper bounds among those not clearly cheaper than one inside)."""
    rows = _ranked(points, side)
    # the places as the message has them (:func:`_lines`): its clearly costly decisions
    # first, the places they leave to the costliest of the others
    top = sorted(rows, key=lambda r: not _costly(r))[:SHOWN]
    rest = [r for r in rows if all(r[2] is not t[2] for t in top)]
    sure = max(effort.cap, effort.sure)
    inside = [(t[2], effort.cap if _a_point(t) else sure) for t in top if _open(t, rest)]
    outside = [
        r
        for r in rest
        if r[0] + Z * r[1] >= MIN_POINTS and not all(_apart(t, r, Z_SETTLED) for t in top)
    ]
    outside.sort(key=lambda r: -(r[0] + Z * r[1]))
    return inside + [(r[2], effort.cap) for r in outside[: effort.doubt]]

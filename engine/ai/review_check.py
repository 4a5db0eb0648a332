"""``python -m engine review-bench --check-figures SALT``: whether the figures the 复盘 shows
are the ones other rollouts find (docs/review.md, "Figures").

Each seeded game is reviewed as the bot reviews it (no salt: the record's own rollouts); then
every line it shows is played again from its decision with ``--check-rollouts`` fresh
rollouts (salt ``SALT``, none shared with the review's) of the two actions the line names: the
action taken and the computer's suggestion, paired as the review pairs them. A line's figure
is the whole points the message shows (:func:`renderers.review_text.cost_text`: the cost
rounded, at least 1) and, when shown, the win chance in steps of 5%. Per line:

- ``agrees``: the fresh estimate, give or take :data:`~engine.ai.review_lines.Z_SETTLED` of
  its standard errors, is what the figure shown says: one whole figure, that figure give or
  take a point (:data:`~engine.ai.review_lines.POINT_DOUBT`); a range (``−3～−6 分``), the
  whole points from its lowest to its highest, each give or take half a point;
- ``better``: the suggestion is better than the action taken by :data:`Z` standard errors
  of the fresh rollouts (the line's advice holds);
- ``a_point``: the fresh rollouts do not put the cost clearly under a point
  (:data:`~engine.ai.review_lines.MIN_POINTS`; by ``Z_SETTLED``);
- ``win_agrees`` (lines showing a win chance): the chance shown is the fresh one within
  :data:`~engine.ai.review_lines.WIN_DOUBT` and ``Z_SETTLED`` standard errors.

Lines solved exactly (no rollouts) are counted apart: their figures are not estimates. The
last line printed is JSON with the counts and shares.
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
import time
from dataclasses import dataclass, replace
from typing import Any

from ..game import Game
from ..gamerecord import parse_record
from ..record import read_json
from ..rules import Rules
from .review import PRODUCTION, Effort, TurningPoint, _extend, _Point, _points, _Work, review_game
from .review_bench import DEAL_STRIDE, ai_game_record
from .review_eval import win_of
from .review_lines import (
    MIN_POINTS,
    WIN_DOUBT,
    Z_SETTLED,
    Z,
    points_meant,
    points_range,
    win_percent,
)

CHECK_ROLLOUTS = 512  # fresh rollouts of each of a line's two actions


@dataclass(frozen=True)
class Check:
    """One line's figures against fresh rollouts: the shown whole points and win chance (or
    None), the fresh cost and win chance lost with their standard errors."""

    index: int
    shown: tuple[int, int]
    win_shown: float | None
    cost: float
    cost_se: float
    win: float
    win_se: float

    @property
    def agrees(self) -> bool:
        low, high = points_meant(*self.shown)
        doubt = Z_SETTLED * self.cost_se
        return low - doubt <= self.cost <= high + doubt

    @property
    def better(self) -> bool:
        return self.cost > Z * self.cost_se

    @property
    def a_point(self) -> bool:
        return self.cost + Z_SETTLED * self.cost_se >= MIN_POINTS

    @property
    def win_agrees(self) -> bool | None:
        if self.win_shown is None:
            return None
        return abs(self.win_shown - self.win) <= WIN_DOUBT + Z_SETTLED * self.win_se


def shown_figures(tp: TurningPoint) -> tuple[tuple[int, int], float | None]:
    """The whole points (lowest and highest: :func:`points_range`) and the win chance (or
    None) the message shows for ``tp`` (as :func:`renderers.review_text.cost_text`)."""
    win = win_percent(tp.win) / 100 if tp.win_sure else None
    return points_range(tp.points, tp.points_se), win


def _paired(xs: list[float], ys: list[float]) -> tuple[float, float]:
    diffs = [x - y for x, y in zip(xs, ys, strict=True)]
    se = statistics.pstdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return statistics.fmean(diffs), se


def check_line(p: _Point, tp: TurningPoint, digest: str, n: int, work: _Work) -> Check:
    """``tp``'s figures against ``n`` fresh rollouts (seeds from ``digest``) of the action
    taken and the suggestion at decision ``p`` (a fresh copy: its rollouts are replaced)."""
    fresh = replace(p, acts=[p.acts[0], tp.suggested], results=[], exact=False)
    _extend(fresh, digest, n, work)
    taken, suggested = fresh.results
    cost, cost_se = _paired(suggested, taken)
    win, win_se = _paired([win_of(x) for x in suggested], [win_of(x) for x in taken])
    shown, win_shown = shown_figures(tp)
    return Check(tp.index, shown, win_shown, cost, cost_se, win, win_se)


def describe(game: int, team: int, tp: TurningPoint, c: Check) -> str:
    """One line's check, as the bench prints it."""
    low, high = c.shown
    shown = f"−{low}" if high == low else f"−{low}..{high}"
    if c.win_shown is not None:
        shown += f", win −{100 * c.win_shown:.0f}%"
    flags = [
        flag
        for ok, flag in (
            (c.agrees, "DIFFERS"),
            (c.better, "NOT BETTER"),
            (c.a_point, "UNDER A POINT"),
            (c.win_agrees is not False, "WIN DIFFERS"),
        )
        if not ok
    ]
    return (
        f"game {game + 1} team {team} action {c.index}{' (tied)' if tp.tied else ''}: "
        f"shown {shown} (review {tp.points:.2f} ± {tp.points_se:.2f}, win {100 * tp.win:.0f}"
        f" ± {100 * tp.win_se:.0f}%, n={tp.rollouts}); fresh {c.cost:.2f} ± {c.cost_se:.2f}"
        f" points, win {100 * c.win:.0f} ± {100 * c.win_se:.0f}%"
        + "".join(f" — {f}" for f in flags)
    )


def run_check(
    games: int,
    seed: int,
    preset: str,
    budget_s: float,
    salt: str,
    n: int = CHECK_ROLLOUTS,
    first: int = 0,
    effort: Effort = PRODUCTION,
) -> int:
    """Review games ``first`` … ``first + games - 1`` as the bot does and check each line's
    figures with ``n`` fresh rollouts under ``salt`` (module doc); print per line, then JSON."""
    rules = Rules.preset_named(preset)
    counts = dict.fromkeys(("lines", "exact", "agrees", "better", "a_point", "win_shown"), 0)
    counts["win_agrees"] = 0
    errors: list[float] = []
    ranges = 0
    started = time.process_time()
    for i in range(first, first + games):
        text = ai_game_record(rules, seed * DEAL_STRIDE + i)
        review = review_game(text, budget_s, effort=effort)
        record = parse_record(read_json(text))
        points = {p.index: p for p in _points(Game.from_record(record), record.actions, False)[0]}
        digest = hashlib.blake2b(f"check:{salt}:{i}\n{text}".encode(), digest_size=8).hexdigest()
        work = _Work()
        for team, side in enumerate(review.teams):
            for tp in side:
                counts["lines"] += 1
                if tp.rollouts == 0:
                    counts["exact"] += 1
                    continue
                c = check_line(points[tp.index], tp, digest, n, work)
                ranges += c.shown[1] > c.shown[0]
                counts["agrees"] += c.agrees
                counts["better"] += c.better
                counts["a_point"] += c.a_point
                counts["win_shown"] += c.win_shown is not None
                counts["win_agrees"] += bool(c.win_agrees)
                errors.append(max(c.shown[0] - c.cost, c.cost - c.shown[1], 0.0))
                print(describe(i, team, tp, c), flush=True)
    sampled = counts["lines"] - counts["exact"]
    figures: dict[str, Any] = {"games": games, "first": first, "salt": salt, "rollouts": n}
    figures.update(counts)
    for key in ("agrees", "better", "a_point"):
        figures[f"{key}_share"] = round(counts[key] / sampled, 3) if sampled else None
    if counts["win_shown"]:
        figures["win_agrees_share"] = round(counts["win_agrees"] / counts["win_shown"], 3)
    figures["ranges"] = ranges
    figures["mean_abs_error"] = round(statistics.fmean(errors), 2) if errors else None
    figures["cpu_s"] = round(time.process_time() - started, 1)
    print(json.dumps(figures))
    return 0


def main(args: Any) -> int:
    """``python -m engine review-bench --check-figures SALT`` (engine/__main__.py)."""
    effort = PRODUCTION if args.samples is None else replace(PRODUCTION, cap=args.samples)
    return run_check(
        args.games,
        args.seed,
        args.preset,
        args.budget_s,
        args.check_figures,
        args.check_rollouts,
        args.first,
        effort,
    )

"""``python -m engine review-bench --resample-pair SALT_A SALT_B``: how stable the 复盘's lines
are on rollouts the rules were not tuned on (docs/review.md). Each seeded game is reviewed
twice, with the rollouts of ``SALT_A:i`` and of ``SALT_B:i`` (``-`` is the bench's own review,
no salt), and each review's lines are looked for in the other, both ways.

A line *reappears* when the other review names its decision (a settled line or a "not sure"
one), or one of its decisions (a near tie), settled or tied: the bench's ``resample_stable``.
It reappears *as the same kind* when the other review shows it so: a settled line settled
again; a "not sure" line (a tie of one) named again, as not sure or in a tie; a near tie as a
near tie sharing a decision. The last line printed is JSON: ``lines_shown``,
``lines_reappear``, ``share``, ``same_kind`` and ``same_kind_share``, by kind; ``both_named``
(the decisions both reviews show) and ``figures_meet`` (of them, those whose figures say the
same: :func:`figures_meet`); and the CPU seconds of the reviews.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..rules import Rules
from .review import PRODUCTION, Effort, Review, TurningPoint, review_game
from .review_bench import DEAL_STRIDE, ai_game_record, lines
from .review_lines import points_meant, points_range

KINDS = ("settled", "not_sure", "tie")
_Lines = Sequence[tuple[list[int], list[int]]]


def salt_of(name: str, game: int) -> str:
    """The salt of game ``game`` under ``name``: ``-`` the bench's own review (no salt)."""
    return "" if name == "-" else f"{name}:{game}"


def shown_lines(mine: _Lines) -> list[tuple[str, list[int], int]]:
    """Each line a review shows: (kind, its decisions, the team)."""
    out: list[tuple[str, list[int], int]] = []
    for team, (firm, tied) in enumerate(mine):
        out += [("settled", [i], team) for i in firm]
        if tied:
            out.append(("tie" if len(tied) > 1 else "not_sure", list(tied), team))
    return out


def compare(mine: _Lines, other: _Lines) -> list[tuple[str, list[int], bool, bool]]:
    """Each line of ``mine`` with whether it reappears in ``other`` and whether as the same
    kind (module doc)."""
    out = []
    for kind, ids, team in shown_lines(mine):
        firm, tied = other[team]
        named = {*firm, *tied}
        again = bool(named & set(ids))
        if kind == "settled":
            same = ids[0] in firm
        elif kind == "not_sure":
            same = ids[0] in tied
        else:
            same = len(tied) > 1 and bool(set(tied) & set(ids))
        out.append((kind, ids, again, same))
    return out


def tally(results: Sequence[tuple[str, list[int], bool, bool]], into: dict[str, Any]) -> None:
    """Add ``compare``'s results to the counts ``into`` (by kind and in all)."""
    for kind, _, again, same in results:
        for key in ("", f"{kind}_"):
            into[f"{key}lines_shown"] = into.get(f"{key}lines_shown", 0) + 1
            into[f"{key}lines_reappear"] = into.get(f"{key}lines_reappear", 0) + again
            into[f"{key}same_kind"] = into.get(f"{key}same_kind", 0) + same


def figures_meet(a: TurningPoint, b: TurningPoint) -> bool:
    """Two reviews' figures of one decision say the same: their whole points overlap, one
    figure read as give or take a point, a range as its ends give or take half a point
    (docs/review.md, ``--check-figures``)."""

    def span(tp: TurningPoint) -> tuple[float, float]:
        return points_meant(*points_range(tp.points, tp.points_se))

    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 <= b1 and b0 <= a1


def both_named(ra: Review, rb: Review) -> list[tuple[TurningPoint, TurningPoint]]:
    """The decisions both reviews show, each with its line in both."""
    named = {tp.index: tp for side in rb.teams for tp in side}
    return [(tp, named[tp.index]) for side in ra.teams for tp in side if tp.index in named]


def _moved(results: Sequence[tuple[str, list[int], bool, bool]]) -> str:
    bad = [
        f"{kind} {ids}{'' if again else ' gone'}" for kind, ids, again, same in results if not same
    ]
    return "; ".join(bad) or "all again"


def _review(text: str, budget_s: float, salt: str, effort: Effort) -> tuple[Review, float]:
    t = time.process_time()
    r = review_game(text, budget_s, salt=salt, effort=effort)
    return r, time.process_time() - t


def run_pair(
    games: int,
    seed: int,
    preset: str,
    budget_s: float,
    salts: tuple[str, str],
    first: int = 0,
    effort: Effort = PRODUCTION,
) -> int:
    """Review games ``first`` … ``first + games - 1`` with both salts and print, per game, the
    lines of each and those that do not reappear as the same kind; then the JSON figures."""
    rules = Rules.preset_named(preset)
    counts: dict[str, Any] = {}
    times: list[float] = []
    rollouts = 0
    for i in range(first, first + games):
        text = ai_game_record(rules, seed * DEAL_STRIDE + i)
        (ra, ta), (rb, tb) = (_review(text, budget_s, salt_of(s, i), effort) for s in salts)
        times += [ta, tb]
        rollouts += ra.rollouts + rb.rollouts
        la, lb = lines(ra), lines(rb)
        ab, ba = compare(la, lb), compare(lb, la)
        tally(ab, counts)
        tally(ba, counts)
        pairs = both_named(ra, rb)
        counts["both_named"] = counts.get("both_named", 0) + len(pairs)
        counts["figures_meet"] = counts.get("figures_meet", 0) + sum(
            figures_meet(a, b) for a, b in pairs
        )
        print(
            f"game {i + 1}: {ta:5.2f} s, {tb:5.2f} s, {ra.rollouts} and {rb.rollouts} rollouts, "
            f"{salts[0]} {la}, {salts[1]} {lb}; "
            f"{salts[0]}→{salts[1]}: {_moved(ab)}; {salts[1]}→{salts[0]}: {_moved(ba)}",
            flush=True,
        )
    shown = counts.get("lines_shown", 0)
    figures: dict[str, Any] = {"games": games, "first": first, "salts": list(salts)}
    keys = {"lines_shown", "lines_reappear", "same_kind", *counts}
    figures.update({k: counts.get(k, 0) for k in sorted(keys)})
    figures["share"] = round(counts.get("lines_reappear", 0) / shown, 3) if shown else None
    figures["same_kind_share"] = round(counts.get("same_kind", 0) / shown, 3) if shown else None
    both = counts.get("both_named", 0)
    figures["figures_meet_share"] = round(counts.get("figures_meet", 0) / both, 3) if both else None
    figures["rollouts"] = rollouts
    figures["cpu_s_median"] = round(statistics.median(times), 2) if times else None
    print(json.dumps(figures))
    return 0


def main(args: Any) -> int:
    """``python -m engine review-bench --resample-pair SALT_A SALT_B`` (engine/__main__.py)."""
    effort = PRODUCTION if args.samples is None else replace(PRODUCTION, cap=args.samples)
    salts = (args.resample_pair[0], args.resample_pair[1])
    return run_pair(args.games, args.seed, args.preset, args.budget_s, salts, args.first, effort)

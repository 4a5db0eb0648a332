"""``python -m engine arena``: AI level against AI level, measured (never a timed test).

Each of ``games`` seeded deals is played twice — team A (seats 0, 2, 4) at level ``a`` and team
B at level ``b``, then the same deal with the levels swapped — so card luck cancels. A deal is a
fresh match's game 1 (deal phase with its decisions, then play); a game is won by the team with
the higher score (§10), a tie counts half. The last line printed is JSON with the win rate of
level ``a``, its 95% confidence interval (over deals, each deal's two games averaged) and the
median time per decision of each level.
"""

from __future__ import annotations

import json
import math
import os
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from .ai import DEFAULT_BUDGET_MS, LEVELS, decide
from .match import Match
from .rules import Rules, RulesError

DEAL_STRIDE = 1_000_003  # deal seeds: seed * stride + index


def play_game(
    rules: Rules,
    deal_seed: int,
    level_a: str,
    level_b: str,
    ai_seed: int,
    budget_ms: float = DEFAULT_BUDGET_MS,
) -> tuple[tuple[int, int], list[float], list[float]]:
    """One game of a fresh match; (score (A, B), decision ms of team A, of team B)."""
    match = Match(rules, seed=deal_seed)
    match.new_game()
    rngs = [random.Random(ai_seed * 6 + s) for s in range(6)]
    levels = (level_a, level_b)
    times: tuple[list[float], list[float]] = ([], [])
    steps = 0
    while (ask := match.asked()) is not None:
        seat = ask[0]
        t = time.perf_counter()
        d = decide(match, seat, levels[seat % 2], rngs[seat], budget_ms)
        times[seat % 2].append((time.perf_counter() - t) * 1000.0)
        match.apply(d.action)
        steps += 1
        if steps > 5000:
            raise RuntimeError(f"deal {deal_seed}: the game did not end")
    game = match.game
    assert game is not None
    return game.score(), times[0], times[1]


def play_deal(
    args: tuple[str, int, str, str, float],
) -> tuple[float, list[float], list[float]]:
    """Both games of one deal: level a's result (0..1, ties half each) and its/b's times."""
    preset, deal_seed, a, b, budget = args
    rules = Rules.preset_named(preset)
    (sa, sb), ta, tb = play_game(rules, deal_seed, a, b, deal_seed, budget)
    (sa2, sb2), tb2, ta2 = play_game(rules, deal_seed, b, a, deal_seed + 1, budget)
    first = 1.0 if sa > sb else 0.5 if sa == sb else 0.0
    second = 1.0 if sb2 > sa2 else 0.5 if sa2 == sb2 else 0.0
    return (first + second) / 2.0, ta + ta2, tb + tb2


def run_arena(
    a: str, b: str, games: int, seed: int, preset: str, budget_ms: float = DEFAULT_BUDGET_MS
) -> int:
    """Play ``games`` deals (each twice, sides swapped); print figures, JSON last."""
    for lvl in (a, b):
        if lvl not in LEVELS:
            print(json.dumps({"error": f"unknown level {lvl!r}", "levels": list(LEVELS)}))
            return 2
    try:
        Rules.preset_named(preset)
    except RulesError as e:
        print(json.dumps({"error": str(e)}))
        return 2
    if games < 1:
        print(json.dumps({"error": "games must be at least 1"}))
        return 2
    jobs = [(preset, seed * DEAL_STRIDE + i, a, b, budget_ms) for i in range(games)]
    workers = max(1, min(2, os.cpu_count() or 1))
    t0 = time.perf_counter()
    if workers > 1 and games > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(play_deal, jobs))
    else:
        results = [play_deal(j) for j in jobs]
    elapsed = time.perf_counter() - t0
    per_deal = [r for r, _, _ in results]
    times_a = [t for _, ta, _ in results for t in ta]
    times_b = [t for _, _, tb in results for t in tb]
    mean = statistics.fmean(per_deal)
    sd = statistics.stdev(per_deal) if len(per_deal) > 1 else 0.0
    half = 1.96 * sd / math.sqrt(len(per_deal))
    figures = {
        "games": games,
        "games_played": 2 * games,
        "a": a,
        "b": b,
        "preset": preset,
        "seed": seed,
        "budget_ms": budget_ms,
        "win_rate_a": round(mean, 4),
        "ci95": [round(max(0.0, mean - half), 4), round(min(1.0, mean + half), 4)],
        "decision_ms_median_a": round(statistics.median(times_a), 3),
        "decision_ms_median_b": round(statistics.median(times_b), 3),
        "decision_ms_p90_a": round(_quantile(times_a, 0.9), 3),
        "decision_ms_p90_b": round(_quantile(times_b, 0.9), 3),
        "seconds": round(elapsed, 1),
    }
    print(f"{a} vs {b}: {games} deals x 2 games under {preset}, seed {seed}, {elapsed:.1f} s")
    print(json.dumps(figures))
    return 0


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0

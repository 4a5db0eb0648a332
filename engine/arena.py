"""``python -m engine arena``: AI level against AI level, measured (never a timed test).

Each of ``games`` seeded deals is played twice — team A (seats 0, 2, 4) at level ``a`` and team
B at level ``b``, then the same deal with the levels swapped — so card luck cancels; the deal
(both games averaged) is the unit of the statistics. A deal is a fresh match's game 1 (deal
phase with its decisions, then play); a game is won by the team with the higher score (§10), a
tie counts half. Besides the win rate and its 95% confidence interval over deals, each level's
play is described: burns tried and failed (§7 诈烧), 闷 per game (§8), 大王 and 2s still held
by players ranked with cards left, the 点贡 balance of its 宣点 (§9) and decision times. Long
runs show a progress line (standard error) with the running rate; the last line printed
(standard output) is JSON.

``baseline`` (the frozen earlier normal player) may be named as a level here only.
"""

from __future__ import annotations

import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

from .ai import ARENA_LEVELS, DEFAULT_BUDGET_MS, decide
from .cards import BIG, TWO
from .match import Match
from .rules import Rules, RulesError

DEAL_STRIDE = 1_000_003  # deal seeds: seed * stride + index
STAT_KEYS = (
    "games",
    "burns",
    "burns_failed",
    "burns_completed",
    "smothered",
    "ranked_with_cards",
    "big_left",
    "twos_left",
    "declared",
    "declare_dian",
)
Stats = dict[str, float]


def _new_stats() -> Stats:
    return dict.fromkeys(STAT_KEYS, 0.0)


def play_game(
    rules: Rules,
    deal_seed: int,
    level_a: str,
    level_b: str,
    ai_seed: int,
    budget_ms: float = DEFAULT_BUDGET_MS,
    samples: int | None = None,
) -> tuple[tuple[int, int], list[list[float]], list[Stats]]:
    """One game of a fresh match: score (A, B), decision ms and play figures per team."""
    match = Match(rules, seed=deal_seed)
    match.new_game()
    rngs = [random.Random(ai_seed * 6 + s) for s in range(6)]
    levels = (level_a, level_b)
    times: list[list[float]] = [[], []]
    stats = [_new_stats(), _new_stats()]
    steps = 0
    while (ask := match.asked()) is not None:
        seat = ask[0]
        t = time.perf_counter()
        d = decide(match, seat, levels[seat % 2], rngs[seat], budget_ms, samples=samples)
        times[seat % 2].append((time.perf_counter() - t) * 1000.0)
        events = match.apply(d.action)
        game = match.game
        for e in events:
            if e.seat is None:
                continue
            st = stats[e.seat % 2]
            if e.type in ("burn", "counter_burn"):
                st["burns"] += 1
            elif e.type == "burn_fail":
                st["burns_failed"] += 1
            elif e.type == "burn_success":
                st["burns_completed"] += 1
            elif e.type == "smothered":
                st["smothered"] += 1
            elif e.type == "declared":
                st["declared"] += 1
            elif e.type == "finished" and game is not None:
                hand = game.hands[e.seat]
                if sum(hand):
                    st["ranked_with_cards"] += 1
                    st["big_left"] += 1 if hand[BIG] else 0
                    st["twos_left"] += hand[TWO]
        steps += 1
        if steps > 5000:
            raise RuntimeError(f"deal {deal_seed}: the game did not end")
    game = match.game
    assert game is not None
    for debt in game.tributes():
        if debt.kind != "dian":
            continue
        for seat, sign in ((debt.dst, 1), (debt.src, -1)):
            if seat in game.declared:
                stats[seat % 2]["declare_dian"] += sign * debt.cards
    for st in stats:
        st["games"] = 1
    return game.score(), times, stats


def play_deal(
    args: tuple[str, int, str, str, float] | tuple[str, int, str, str, float, int | None],
) -> tuple[float, list[float], list[float], Stats, Stats]:
    """Both games of one deal: level a's result (0..1, ties half each), decision ms of a and
    of b, play figures of a and of b."""
    preset, deal_seed, a, b, budget = args[:5]
    samples = args[5] if len(args) > 5 else None
    rules = Rules.preset_named(preset)
    (sa, sb), t1, s1 = play_game(rules, deal_seed, a, b, deal_seed, budget, samples)
    (sa2, sb2), t2, s2 = play_game(rules, deal_seed, b, a, deal_seed + 1, budget, samples)
    first = 1.0 if sa > sb else 0.5 if sa == sb else 0.0
    second = 1.0 if sb2 > sa2 else 0.5 if sa2 == sb2 else 0.0
    stats_a = {k: s1[0][k] + s2[1][k] for k in STAT_KEYS}
    stats_b = {k: s1[1][k] + s2[0][k] for k in STAT_KEYS}
    return (first + second) / 2.0, t1[0] + t2[1], t1[1] + t2[0], stats_a, stats_b


def _results(
    jobs: list[tuple[str, int, str, str, float, int | None]], workers: int
) -> Iterator[tuple[float, list[float], list[float], Stats, Stats]]:
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            yield from pool.map(play_deal, jobs)
    else:
        yield from map(play_deal, jobs)


def ci95(per_deal: list[float]) -> tuple[float, float]:
    """The 95% interval of the mean result over deals (normal approximation, t for few)."""
    n = len(per_deal)
    mean = statistics.fmean(per_deal)
    if n < 2:
        return 0.0, 1.0
    t = 1.96 if n >= 60 else 2.0 if n >= 30 else 2.1 if n >= 15 else 2.6
    half = t * statistics.stdev(per_deal) / math.sqrt(n)
    return max(0.0, mean - half), min(1.0, mean + half)


def run_arena(
    a: str,
    b: str,
    games: int,
    seed: int,
    preset: str,
    budget_ms: float = DEFAULT_BUDGET_MS,
    samples: int | None = None,
    progress: bool | None = None,
) -> int:
    """Play ``games`` deals (each twice, sides swapped); print figures, JSON last."""
    for lvl in (a, b):
        if lvl not in ARENA_LEVELS:
            print(json.dumps({"error": f"unknown level {lvl!r}", "levels": list(ARENA_LEVELS)}))
            return 2
    try:
        Rules.preset_named(preset)
    except RulesError as e:
        print(json.dumps({"error": str(e)}))
        return 2
    if games < 1:
        print(json.dumps({"error": "games must be at least 1"}))
        return 2
    jobs = [(preset, seed * DEAL_STRIDE + i, a, b, budget_ms, samples) for i in range(games)]
    workers = max(1, min(2, os.cpu_count() or 1))
    show = progress if progress is not None else games >= 20 and sys.stderr.isatty()
    t0 = time.perf_counter()
    per_deal: list[float] = []
    times_a: list[float] = []
    times_b: list[float] = []
    tot_a, tot_b = _new_stats(), _new_stats()
    for res, ta, tb, sa, sb in _results(jobs, workers):
        per_deal.append(res)
        times_a.extend(ta)
        times_b.extend(tb)
        for k in STAT_KEYS:
            tot_a[k] += sa[k]
            tot_b[k] += sb[k]
        if show:
            n = len(per_deal)
            rate = statistics.fmean(per_deal)
            bar = "#" * (30 * n // games)
            el = time.perf_counter() - t0
            print(
                f"\r[{bar:<30}] {n}/{games} deals  {a} {100 * rate:5.1f}%  {el:6.0f} s",
                end="",
                file=sys.stderr,
                flush=True,
            )
    if show:
        print(file=sys.stderr)
    elapsed = time.perf_counter() - t0
    mean = statistics.fmean(per_deal)
    lo, hi = ci95(per_deal)
    figures: dict[str, object] = {
        "games": games,
        "games_played": 2 * games,
        "a": a,
        "b": b,
        "preset": preset,
        "seed": seed,
        "budget_ms": budget_ms,
        "samples": samples,
        "win_rate_a": round(mean, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
    }
    for side, lvl, times, tot in (("a", a, times_a, tot_a), ("b", b, times_b, tot_b)):
        figures[f"decision_ms_median_{side}"] = round(statistics.median(times), 3)
        figures[f"decision_ms_p95_{side}"] = round(_quantile(times, 0.95), 3)
        figures[f"stats_{side}"] = _describe(tot)
        print(f"{side} = {lvl}: {json.dumps(_describe(tot))}")
    figures["seconds"] = round(elapsed, 1)
    print(f"{a} vs {b}: {games} deals x 2 games under {preset}, seed {seed}, {elapsed:.1f} s")
    print(json.dumps(figures))
    return 0


def _describe(tot: Stats) -> dict[str, float]:
    """Per-level figures: rates per game (3 seats of the level in each game)."""
    g = max(tot["games"], 1.0)
    burns = tot["burns"]
    ranked = tot["ranked_with_cards"]
    return {
        "burns_per_game": round(burns / g, 3),
        "burns_failed": int(tot["burns_failed"]),
        "burn_fail_rate": round(tot["burns_failed"] / burns, 3) if burns else 0.0,
        "burn_success_rate": round(tot["burns_completed"] / burns, 3) if burns else 0.0,
        "smothered_per_game": round(tot["smothered"] / g, 3),
        "ranked_with_cards_per_game": round(ranked / g, 3),
        "holding_big_joker_share": round(tot["big_left"] / ranked, 3) if ranked else 0.0,
        "twos_left_per_ranked": round(tot["twos_left"] / ranked, 3) if ranked else 0.0,
        "declared_per_game": round(tot["declared"] / g, 3),
        "declare_dian_balance": round(tot["declare_dian"] / tot["declared"], 3)
        if tot["declared"]
        else 0.0,
    }


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0

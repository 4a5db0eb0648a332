"""``python3 -m engine.ai.review_bench``: the post-game review (:mod:`engine.ai.review`) of
seeded games played by the AI, its figures printed (never a timed test): per game the time
(CPU of this process), the decisions in the record, those compared with an alternative,
valued again deeply and solved exactly, the rollouts and the turning points found. The last
line printed is JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from ..match import Match
from ..rules import Rules
from .decision import decide
from .review import review_game

DEAL_STRIDE = 1_000_003  # game seeds: seed * stride + index, as the arena's deals


def ai_game_record(rules: Rules, seed: int, levels: tuple[str, str] = ("normal", "normal")) -> str:
    """The game record (RECORDS.md, JSON text) of game 1 of a seeded match, its deal phase
    and play decided by the AI: team A (seats 0 2 4) at ``levels[0]``, team B at
    ``levels[1]``."""
    match = Match(rules, seed=seed)
    match.new_game()
    rngs = [random.Random(seed * 6 + s) for s in range(6)]
    while (ask := match.asked()) is not None:
        seat = ask[0]
        match.apply(decide(match, seat, levels[seat % 2], rngs[seat]).action)
    assert match.game is not None
    return json.dumps(match.game.record().to_json())


def run(games: int, seed: int, preset: str, budget_s: float, levels: tuple[str, str]) -> int:
    rules = Rules.preset_named(preset)
    times: list[float] = []
    rows = []
    for i in range(games):
        text = ai_game_record(rules, seed * DEAL_STRIDE + i, levels)
        t = time.process_time()
        review = review_game(text, budget_s, random.Random(seed * DEAL_STRIDE + i))
        spent = time.process_time() - t
        times.append(spent)
        found = [len(side) for side in review.teams]
        rows.append(review.to_json() | {"seconds": round(spent, 2)})
        print(
            f"game {i + 1}: {spent:5.1f} s, {review.decisions} decisions, {review.compared} "
            f"compared, {review.deep} deeply, {review.exact} exactly, {review.rollouts} "
            f"rollouts ({review.steps / spent:.0f} steps/s), turning points {found[0]}+{found[1]}",
            flush=True,
        )
        for side in review.teams:
            for tp in side:
                print(
                    f"    seat {tp.seat} action {tp.index} (trick {tp.trick}, {tp.ask}): "
                    f"{tp.played} -> {tp.suggested}: -{tp.points:.1f} points, "
                    f"win -{100 * tp.win:.0f}% ({tp.rollouts or 'exact'})"
                )
    figures = {
        "games": games,
        "preset": preset,
        "budget_s": budget_s,
        "levels": list(levels),
        "seconds_median": round(statistics.median(times), 2),
        "seconds_max": round(max(times), 2),
        "decisions_mean": round(statistics.fmean(r["decisions"] for r in rows), 1),
        "compared_mean": round(statistics.fmean(r["compared"] for r in rows), 1),
        "rollouts_mean": round(statistics.fmean(r["rollouts"] for r in rows)),
        "steps_per_s": round(sum(r["steps"] for r in rows) / sum(times)),
    }
    print(json.dumps(figures))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m engine.ai.review_bench", description="the post-game review's figures"
    )
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--budget-s", type=float, default=60.0, help="each review's budget")
    parser.add_argument("--a", default="normal", help="AI level of team A in the games")
    parser.add_argument("--b", default="normal", help="AI level of team B in the games")
    args = parser.parse_args(argv)
    return run(args.games, args.seed, args.preset, args.budget_s, (args.a, args.b))


if __name__ == "__main__":
    sys.exit(main())

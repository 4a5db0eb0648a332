"""``python -m engine bench``: seeded random full games, figures printed (never a timed test)."""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .deal import deal_hands
from .game import Game
from .legal import beating_plays
from .match import Match
from .playout import play_out, random_action
from .plays import Play
from .rules import Rules


def run(games: int, seed: int, preset: str = "standard") -> int:
    rules = Rules.preset_named(preset)
    rng = random.Random(seed)
    actions = 0
    legal_samples: list[float] = []
    t0 = time.perf_counter()
    for _ in range(games):
        hands = deal_hands(rng)
        game = Game(rules, hands, leader=rng.randrange(6))
        actions += play_out(game, rng)
    elapsed = time.perf_counter() - t0
    # Median time to list a seat's legal answers to a top, over tops seen in fresh games.
    for _ in range(200):
        hands = deal_hands(rng)
        hand = hands[0]
        for top_text in ("9", "88", "QQQ", "TTTTT", "22KK", "S77", "6666666"):
            top = Play.parse(top_text)
            assert top is not None
            t = time.perf_counter()
            beating_plays(hand, top)
            legal_samples.append((time.perf_counter() - t) * 1e6)
    restore_ms, record_kb = _restore_figures(rules, seed)
    figures = {
        "games": games,
        "preset": preset,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 1),
        "actions_per_game": round(actions / games, 1),
        "legal_us_median": round(statistics.median(legal_samples), 2),
        "restore_100_ms_median": round(restore_ms, 3),
        "record_100_kb": round(record_kb, 2),
    }
    print(f"{games} random games under {preset} in {elapsed:.2f} s")
    print(json.dumps(figures))
    return 0


def _restore_figures(rules: Rules, seed: int, samples: int = 60) -> tuple[float, float]:
    """Median time to rebuild a match from its record after 100 actions of a game (deal phase
    included), and the record's size, as the bot does on every restart."""
    rng = random.Random(seed)
    times: list[float] = []
    size = 0
    for k in range(samples):
        match = Match(rules, seed=seed * 1000 + k)
        match.new_game()
        while match.version < 101 and (ask := match.asked()) is not None:
            if match.game is None:
                match.apply(rng.choice(match.choices(ask[0]).options))
            else:
                match.apply(random_action(match.game, rng))
        text = json.dumps(match.record())
        size = max(size, len(text))
        t = time.perf_counter()
        Match.restore(json.loads(text))
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), size / 1024


def compare(
    against: str, rounds: int = 5, games: int = 200, seed: int = 1, preset: str = "standard"
) -> int:
    """This tree's engine against the one in ``against`` (another checkout, e.g. a worktree of
    an older commit) on the fixed workload of :mod:`engine.workload`, each round running both
    in fresh interpreters one after the other (the order alternating), timed in CPU seconds.
    Prints each round, then one JSON line: both trees' medians and their ratios."""
    here = Path(__file__).resolve().parent.parent
    there = Path(against).resolve()
    if not (there / "engine" / "game.py").is_file():
        print(f"{there} holds no engine/ to measure", file=sys.stderr)
        return 2
    source = (Path(__file__).resolve().parent / "workload.py").read_text()
    arg = json.dumps({"games": games, "seed": seed, "preset": preset})
    results: dict[str, list[dict[str, float]]] = {"this": [], "against": []}
    for k in range(rounds):
        order = [("this", here), ("against", there)]
        for name, tree in order if k % 2 == 0 else order[::-1]:
            out = _workload(source, arg, tree)
            results[name].append(out)
        a, b = results["this"][-1], results["against"][-1]
        print(
            f"round {k + 1}: {a['games_per_s']} vs {b['games_per_s']} games/s"
            f" ({a['games_per_s'] / b['games_per_s']:.2f}x), legal {a['legal_us']} vs"
            f" {b['legal_us']} us, lead menu {a['lead_us']} vs {b['lead_us']} us"
        )
    figures: dict[str, object] = {"rounds": rounds, "games": games, "preset": preset}
    for name, runs in results.items():
        figures[name] = {
            "tree": str(here if name == "this" else there),
            "games_per_s": _median(runs, "games_per_s"),
            "legal_us": _median(runs, "legal_us"),
            "lead_us": _median(runs, "lead_us"),
        }
    this, base = results["this"], results["against"]
    ratios = [a["games_per_s"] / b["games_per_s"] for a, b in zip(this, base, strict=True)]
    figures["ratio"] = round(_median(this, "games_per_s") / _median(base, "games_per_s"), 3)
    figures["ratio_rounds"] = [round(r, 3) for r in ratios]
    figures["legal_ratio"] = round(_median(base, "legal_us") / _median(this, "legal_us"), 3)
    figures["lead_ratio"] = round(_median(base, "lead_us") / _median(this, "lead_us"), 3)
    print(json.dumps(figures))
    return 0


def _workload(source: str, arg: str, tree: Path) -> dict[str, float]:
    """One run of the workload in a fresh interpreter importing the engine of ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(
        [sys.executable, "-c", source, arg],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    out: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    engine_dir = Path(str(out.pop("engine"))).resolve()
    if engine_dir != tree / "engine":
        raise RuntimeError(f"measured {engine_dir}, not {tree / 'engine'}")
    return out


def _median(runs: list[dict[str, float]], key: str) -> float:
    return round(statistics.median(r[key] for r in runs), 3)

"""``python -m engine bench``: seeded random full games, figures printed (never a timed test)."""

from __future__ import annotations

import json
import random
import statistics
import time

from .deal import deal_hands
from .game import Game
from .legal import beating_plays
from .playout import play_out
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
    figures = {
        "games": games,
        "preset": preset,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 1),
        "actions_per_game": round(actions / games, 1),
        "legal_us_median": round(statistics.median(legal_samples), 2),
    }
    print(f"{games} random games under {preset} in {elapsed:.2f} s")
    print(json.dumps(figures))
    return 0

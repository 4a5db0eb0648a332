"""``python -m engine bench``: seeded random full games, figures printed (never a timed test)."""

from __future__ import annotations

import json
import random
import statistics
import time

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

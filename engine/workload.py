"""The fixed workload of ``python -m engine bench --against PATH``: seeded random games, then
legal-answer and lead-menu generation on fixed hands, timed in CPU seconds (``process_time``).

It is run as a script in a fresh interpreter whose ``PYTHONPATH`` is the tree being measured,
so it uses only what every version of the engine has (``deal_hands``, ``Game``, ``play_out``,
``beating_plays``, ``lead_plays``, ``Play.parse``) and imports nothing else of the project.
Its one argument is a JSON object (games, seed, preset, samples); it prints one JSON line.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

TOPS = ("9", "88", "QQQ", "TTTTT", "22KK", "S77", "6666666", "B", "SS", "AA2")


def measure(games: int, seed: int, preset: str, samples: int) -> dict[str, Any]:
    import engine
    from engine.deal import deal_hands
    from engine.game import Game
    from engine.legal import beating_plays, lead_plays
    from engine.playout import play_out
    from engine.plays import Play
    from engine.rules import Rules

    rules = Rules.preset_named(preset)
    rng = random.Random(seed)
    deals = [(deal_hands(rng), rng.randrange(6)) for _ in range(games)]
    actions = 0
    t0 = time.process_time()
    for hands, leader in deals:
        actions += play_out(Game(rules, hands, leader=leader), rng)
    games_s = time.process_time() - t0

    hands = [deal_hands(rng)[0] for _ in range(samples)]
    tops = [Play.parse(t) for t in TOPS]
    calls = 0
    t0 = time.process_time()
    for hand in hands:
        for top in tops:
            assert top is not None
            beating_plays(hand, top)
            calls += 1
    legal_s = time.process_time() - t0

    leads = 0
    t0 = time.process_time()
    for hand in hands:
        lead_plays(hand, True)
        lead_plays(hand, False, need_joker=True)
        leads += 2
    lead_s = time.process_time() - t0
    return {
        "engine": engine.__path__[0],
        "games": games,
        "actions": actions,
        "games_cpu_s": round(games_s, 4),
        "games_per_s": round(games / games_s, 1),
        "legal_us": round(legal_s / calls * 1e6, 3),
        "lead_us": round(lead_s / leads * 1e6, 3),
    }


def main(argv: list[str]) -> int:
    args = json.loads(argv[0]) if argv else {}
    out = measure(
        int(args.get("games", 200)),
        int(args.get("seed", 1)),
        str(args.get("preset", "standard")),
        int(args.get("samples", 2000)),
    )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

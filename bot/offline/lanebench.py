"""``python -m bot.offline.lanebench``: a hand picture's latency while heavy work runs (issue
33): idle, then while 4 复盘 and 10 replay animations run at once, through the bot's own
:class:`bot.workers.Workers` (2 processes for the game, a heavy lane beside them). Prints one
JSON line: the picture's latency idle and under load (median, max), in ms, and the heavy jobs
done. Interleaved in one run (the machine's other load is the same for both)."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import time
from functools import partial

from engine.deal import deal_hands
from engine.game import Game
from engine.playout import play_out
from engine.rules import STANDARD
from renderers import render_hand
from renderers.replay import render_replay_animation

from ..game_end import review_message
from ..workers import Workers

HAND = "2BS98877665443"


def _record(seed: int) -> str:
    rng = random.Random(seed)
    game = Game(STANDARD, deal_hands(rng), rng.randrange(6))
    play_out(game, rng)
    return json.dumps(game.record().to_json(), ensure_ascii=False)


async def _pictures(workers: Workers, n: int) -> list[float]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        await workers.run(partial(render_hand, HAND[: 6 + i % 8]))
        out.append(time.perf_counter() - t0)
        await asyncio.sleep(0.05)
    return out


async def run(reviews: int, replays: int, review_s: float, processes: int) -> dict[str, object]:
    workers = Workers(processes)
    workers.start()
    try:
        records = [_record(s) for s in range(max(reviews, replays))]
        names = tuple(f"p{i}" for i in range(6))
        await _pictures(workers, 10)  # warm
        idle = await _pictures(workers, 40)
        jobs = [
            workers.run(partial(review_message, records[i], review_s, str(i), names, "zh"))
            for i in range(reviews)
        ] + [
            workers.run(partial(render_replay_animation, records[i], names, "zh"))
            for i in range(replays)
        ]
        heavy = asyncio.gather(*jobs)
        await asyncio.sleep(0.5)  # all under way
        loaded = await _pictures(workers, 40)
        t0 = time.perf_counter()
        await heavy
        heavy_s = time.perf_counter() - t0
    finally:
        workers.close()

    def ms(xs: list[float]) -> dict[str, float]:
        return {
            "median": round(statistics.median(xs) * 1000, 1),
            "max": round(max(xs) * 1000, 1),
        }

    return {
        "idle_ms": ms(idle),
        "loaded_ms": ms(loaded),
        "reviews": reviews,
        "replays": replays,
        "review_s": review_s,
        "heavy_left_s_after": round(heavy_s, 1),
    }


def main() -> int:
    review_s = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    print(json.dumps(asyncio.run(run(4, 10, review_s, 2))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

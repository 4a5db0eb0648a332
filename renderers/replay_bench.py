"""``python -m renderers replay-bench``: how long a replay takes to draw and how large it is.

Two seeded games: six normal AI players (the README's sample game) and a long random game of at
least ``LONG_ACTIONS`` actions (random answers, leads of as few cards as possible: many
tricks, the most frames). For each: the actions, tricks and frames, the time to build the
script, a frame's PNG (median time and bytes), and the whole animation (wall and CPU seconds, on
one core, and bytes). The last line printed is JSON of the figures.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from typing import Any

from engine.actions import Action
from engine.ai import decide
from engine.deal import deal_hands
from engine.game import Game
from engine.match import Match
from engine.playout import random_action
from engine.rules import STANDARD
from engine.vocab import Ask, Do

from .replay import encode_gif, render_replay_frame, replay_frames, replay_palette

NAMES = ("老王", "小李", "张姐", "阿强", "王叔", "小美")
AI_SEED = 30  # renderers.__main__.SAMPLE_SEED: a burn, a 闷, 开点
LONG_ACTIONS = 200


def ai_game_record(seed: int = AI_SEED) -> str:
    """A game of six normal AI players (standard rules), as record JSON."""
    rng = random.Random(seed)
    match = Match(STANDARD, seed=seed)
    match.new_game()
    while (ask := match.asked()) is not None:
        match.apply(decide(match, ask[0], "normal", rng).action)
    assert match.game is not None
    return json.dumps(match.game.record().to_json())


def _short_lead(game: Game, rng: random.Random) -> Action:
    """A random answer, or a lead of as few cards as the hand allows."""
    ask = game.asked()
    assert ask is not None
    seat, kind = ask
    if kind != Ask.LEAD:
        return random_action(game, rng)
    plays = game.legal(seat).plays
    fewest = min(sum(p.counts) for p in plays)
    return Action(seat, Do.PLAY, str(rng.choice([p for p in plays if sum(p.counts) == fewest])))


def long_game_record(actions: int = LONG_ACTIONS) -> str:
    """The first seeded random game (standard rules) of at least ``actions`` actions."""
    for seed in range(1000):
        rng = random.Random(seed)
        game = Game(STANDARD, deal_hands(rng), 0)
        while game.asked() is not None:
            game.apply(_short_lead(game, rng))
        if len(game.log) >= actions:
            return json.dumps(game.record().to_json())
    raise RuntimeError(f"no game of {actions} actions")


def measure(record_json: str, lang: str = "zh") -> dict[str, Any]:
    start = time.perf_counter()
    script = replay_frames(record_json, NAMES, lang)
    script_ms = (time.perf_counter() - start) * 1000
    frame_ms, frame_bytes = [], []
    for k in range(len(script.frames)):
        start = time.perf_counter()
        frame_bytes.append(len(render_replay_frame(script, k)))
        frame_ms.append((time.perf_counter() - start) * 1000)
    wall, cpu = time.perf_counter(), time.process_time()
    gif = encode_gif(replay_frames(record_json, NAMES, lang))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "actions": len(json.loads(record_json)["actions"]),
        "tricks": script.tricks,
        "frames": len(script.frames),
        "script_ms": round(script_ms, 1),
        "frame_png_ms_median": round(statistics.median(frame_ms), 1),
        "frame_png_bytes_median": int(statistics.median(frame_bytes)),
        "animation_s": round(wall, 2),
        "animation_cpu_s": round(cpu, 2),
        "animation_bytes": len(gif),
    }


def bench() -> dict[str, Any]:
    start = time.perf_counter()
    replay_palette()
    palette_ms = (time.perf_counter() - start) * 1000
    return {
        "palette_ms_once": round(palette_ms),
        "ai_game": measure(ai_game_record()),
        "long_game": measure(long_game_record()),
        "long_game_en": measure(long_game_record(), "en"),
    }


def main() -> None:
    print(f"replaying an AI game and a game of ≥{LONG_ACTIONS} actions…")
    print(json.dumps(bench()))

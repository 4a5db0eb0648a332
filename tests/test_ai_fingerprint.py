"""The AI's decisions at fixed ``samples``, fingerprinted: seeded matches played to the end by
every level (the hard level at a small fixed number of deals, so no clock is read), every
decision's action, reason and params hashed. A change meant to keep the AI's play (a
refactoring, a speed-up) must keep this hash; a change of play updates it on purpose."""

from __future__ import annotations

import hashlib
import random

from engine.ai import Decision, decide
from engine.match import Match
from engine.rules import Rules

SAMPLES = 6  # the hard level's deals per decision
# (preset, match seed, level of seats 0 2 4, level of seats 1 3 5, games): every level and
# preset, the rollout search, the exact endgame search and a known endgame, tribute (game 2)
GAMES = (
    ("standard", 1, "hard", "normal", 2),
    ("qingdao", 2, "hard", "hard", 1),
    ("casual", 3, "hard", "easy", 1),
    ("standard", 4, "hard", "baseline", 1),
    ("qingdao", 11, "hard", "normal", 1),
    ("casual", 13, "normal", "hard", 1),
    ("casual", 23, "hard", "normal", 1),
)
FINGERPRINT = "b7cda57c115835b3824636706e98d2e23367c93d87ffc8f66853b1089cb853cf"


def _decisions() -> list[Decision]:
    out: list[Decision] = []
    for preset, seed, level_a, level_b, games in GAMES:
        match = Match(Rules.preset_named(preset), seed=seed)
        rngs = [random.Random(seed * 6 + s) for s in range(6)]
        for _ in range(games):
            match.new_game()
            while (ask := match.asked()) is not None:
                seat = ask[0]
                level = level_a if seat % 2 == 0 else level_b
                d = decide(match, seat, level, rngs[seat], samples=SAMPLES)
                out.append(d)
                match.apply(d.action)
    return out


def test_decisions_at_fixed_samples_are_unchanged() -> None:
    decisions = _decisions()
    assert {"search", "endgame", "endgame_known"} <= {d.reason for d in decisions}
    text = "\n".join(f"{d.action!r} {d.reason} {sorted(d.params.items())}" for d in decisions)
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert digest == FINGERPRINT, digest

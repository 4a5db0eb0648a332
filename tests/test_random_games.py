"""Seeded random legal games under every preset, checking invariants (cards conserved, every
game ends, ranks a permutation, legal actions apply, refused ones change nothing, a game's record
replays to its own events). Quick by default; ``GOUJI_LONG=1`` plays 2,000 games per preset."""

from __future__ import annotations

import copy
import os
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action, IllegalAction
from engine.cards import fmt, parse
from engine.deal import deal_hands
from engine.game import Game
from engine.match import Match
from engine.playout import random_action
from engine.record import Record, replay
from engine.rules import PRESETS, Rules
from engine.vocab import Do

GAMES = 2000 if os.environ.get("GOUJI_LONG") else 120


def snapshot(game: Game) -> dict[str, Any]:
    return copy.deepcopy({k: v for k, v in vars(game).items() if k != "rules"})


def play_checked(game: Game, rng: random.Random, probe: bool) -> list[dict[str, Any]]:
    start = [list(h) for h in game.hands]
    events: list[dict[str, Any]] = []
    played = [0] * 15
    steps = 0
    while game.asked() is not None:
        seat, _ = game.asked()  # type: ignore[misc]
        if probe and steps % 7 == 0:
            # a refused action leaves the state unchanged
            before = snapshot(game)
            for bad in (
                Action((seat + 1) % 6, Do.PASS),
                Action(seat, Do.PLAY, "BBBBB"),
                Action(seat, Do.PLAY, "9K"),
                Action(seat, Do.YIELD),
            ):
                try:
                    game.check(bad)
                except IllegalAction:
                    assert snapshot(game) == before
            # every offered play applies
            for p in game.legal(seat).plays[:12]:
                copy.deepcopy(game).apply(Action(seat, Do.PLAY, str(p)))
        action = random_action(game, rng)
        new = game.apply(action)
        for e in new:
            if e.type == "play":
                for r, n in enumerate(parse(e.cards or "")):
                    played[r] += n
        events += [e.to_json() for e in new]
        steps += 1
        assert steps < 3000, "the game must end"
    # cards conserved: what is left plus what was played is what was dealt
    left = [sum(h[r] for h in game.hands) for r in range(15)]
    assert [a + b for a, b in zip(left, played, strict=True)] == [
        sum(h[r] for h in start) for r in range(15)
    ]
    assert sorted(game.ranks) == [1, 2, 3, 4, 5, 6]  # type: ignore[type-var]
    assert events[-1]["type"] == "game_over"
    return events


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_games(preset: str) -> None:
    rules = PRESETS[preset]
    for g in range(GAMES):
        rng = random.Random(g * 31 + len(preset))
        hands = deal_hands(rng)
        revolted = []
        if g % 5 == 0:
            # strip one hand of 2s and jokers so 革命 appears in the mix
            seat = rng.randrange(6)
            h = list(hands[seat])
            h[4] += h[12] + h[13] + h[14]
            h[12] = h[13] = h[14] = 0
            hands[seat] = tuple(h)
            revolted = [seat]
        declared = [s for s in range(6) if rules.declare_point and rng.random() < 0.3]
        yaotou = [(revolted[0] + 3) % 6] if revolted and rules.yaotou and g % 2 else []
        leader = rng.randrange(6)
        game = Game(rules, hands, leader, revolted, declared, yaotou)
        events = play_checked(game, rng, probe=g % 10 == 0)
        record = Record(
            rules,
            tuple(fmt(h) for h in hands),
            leader,
            tuple(revolted),
            tuple(declared),
            tuple(yaotou),
            tuple(game.log),
        )
        out, status = replay(record)
        assert status == 0 and out["events"] == events
        assert out["result"]["score"] == {"A": game.score()[0], "B": game.score()[1]}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_matches(preset: str) -> None:
    for seed in range(GAMES // 20):
        rng = random.Random(seed)
        match = Match(Rules.preset_named(preset), seed=seed)
        for _ in range(3):
            match.new_game()
            assert match.setup is not None
            assert sum(sum(h) for h in match.setup.hands) == 216
            while match.asked() is not None:
                seat, _ = match.asked()  # type: ignore[misc]
                if match.game is None:
                    match.apply(rng.choice(match.choices(seat).options))
                else:
                    match.apply(random_action(match.game, rng))
        assert len(match.history) == 3
        assert match.totals == [
            sum(h.score[0] for h in match.history),
            sum(h.score[1] for h in match.history),
        ]


switches = st.fixed_dictionaries(
    {
        "bie3": st.booleans(),
        "burn": st.booleans(),
        "yield": st.booleans(),
        "open_point": st.booleans(),
        "kill_big_joker": st.booleans(),
        "tribute": st.sampled_from(["all", "luo", "off"]),
        "point_table": st.sampled_from(["standard", "double"]),
    }
)


@settings(max_examples=40 if not os.environ.get("GOUJI_LONG") else 400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), flips=switches)
def test_any_switch_combination_plays_out(seed: int, flips: dict[str, Any]) -> None:
    rules = PRESETS["standard"].with_switches(flips)
    rng = random.Random(seed)
    game = Game(rules, deal_hands(rng), rng.randrange(6))
    play_checked(game, rng, probe=False)

"""Per-seat facts of a game record (engine/stats/facts.py), checked against what the events
say: the shared example records (their expected output, worked out from the rulebook) and seeded
random games replayed by the referee."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.cards import BIG, SMALL, TWO
from engine.deal import deal_hands
from engine.game import Game
from engine.playout import play_out
from engine.record import parse_record, replay
from engine.rules import PRESETS
from engine.seats import opposite, team
from engine.stats import FACTS_VERSION, GameNotOver, SeatFacts, game_facts

RECORDS = Path(__file__).parent / "records"
EXAMPLES = sorted(p.stem for p in RECORDS.glob("*.json") if not p.stem.endswith(".out"))


def expected(name: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((RECORDS / f"{name}.out.json").read_text())
    return out


def counted(events: list[dict[str, Any]], kind: str, field: str = "seat") -> Counter[int]:
    return Counter(e[field] for e in events if e["type"] == kind)


def check_against_events(facts: list[SeatFacts], out: dict[str, Any]) -> None:
    """Every fact agrees with the referee's events and result (RECORDS.md)."""
    events, result = out["events"], out["result"]
    assert [f.seat for f in facts] == list(range(6))
    assert [f.rank or None for f in facts] == result["ranks"]
    assert [f.opened for f in facts] == result["opened"]
    a, b = result["score"]["A"], result["score"]["B"]
    assert [f.points for f in facts] == [(a - b) if s % 2 == 0 else (b - a) for s in range(6)]
    burns, counters = counted(events, "burn"), counted(events, "counter_burn")
    wins, fails = counted(events, "burn_success"), counted(events, "burn_fail")
    breaks, tricks = counted(events, "burn_break"), counted(events, "trick_won")
    men_by, men_of = counted(events, "smothered", "by"), counted(events, "smothered")
    victims = counted(events, "burn_success", "victim")
    for f in facts:
        s = f.seat
        assert (f.burns, f.counter_burns, f.burn_wins, f.burn_fails) == (
            burns[s],
            counters[s],
            wins[s],
            fails[s],
        )
        assert (f.burn_breaks, f.tricks, f.men_given, f.smothered, f.burned) == (
            breaks[s],
            tricks[s],
            men_by[s],
            men_of[s] == 1,
            victims[s],
        )
        assert f.foe_opened == result["opened"][opposite(s)]


@pytest.mark.parametrize("name", [n for n in EXAMPLES if expected(n)["ok"]])
def test_examples_facts_follow_their_events(name: str) -> None:
    facts = game_facts((RECORDS / f"{name}.json").read_text(), partial=True)
    check_against_events(facts, expected(name))


def test_example_facts_in_words() -> None:
    """The examples' stories (shared/examples/README.md) as facts."""
    burn = game_facts((RECORDS / "burn.json").read_text(), partial=True)
    assert burn[1].burns == burn[1].burn_wins == 1 and burn[1].rank == 1  # 烧成, 头科
    assert burn[2].burned == 1  # seat 2's QQQ was burned: it owes 1 烧贡
    smothered = game_facts((RECORDS / "smothered.json").read_text(), partial=True)
    assert smothered[1].smothered and smothered[1].rank == 6
    assert smothered[2].men_given == 1
    short = game_facts((RECORDS / "short-game.json").read_text())
    assert [f.rank for f in short] == [3, 6, 4, 1, 5, 2]
    assert [f.points for f in short] == [-4, 4, -4, 4, -4, 4]  # B recorded 4 (§10)
    assert not any(f.opened or f.sweep or f.swept for f in short)


COUNTER_BURN = {
    "rules": {"preset": "standard", "bie3": False},
    "hands": ["KK44", "AA66", "22B5", "77", "88", "99"],
    "leader": 0,
    "actions": [
        {"seat": 0, "do": "play", "cards": "KK"},
        {"seat": 2, "do": "pass"},  # declines to burn its teammate
        {"seat": 1, "do": "play", "cards": "AA"},  # 烧牌
        {"seat": 2, "do": "play", "cards": "22"},  # 反烧
        {"seat": 2, "do": "play", "cards": "B5"},  # its last lead, with a joker: 烧成
    ],
}


def test_a_counter_burn_carried_to_the_end() -> None:
    """§7: seat 1 burns seat 0's KK, seat 2 counter-burns and empties its hand; seat 1 owes
    2 烧贡."""
    facts = game_facts(COUNTER_BURN, partial=True)
    check_against_events(facts, replay(parse_record(COUNTER_BURN))[0])
    assert (facts[1].burns, facts[1].burn_wins, facts[1].burned) == (1, 0, 1)
    assert (facts[2].counter_burns, facts[2].burn_wins, facts[2].counter_burn_wins) == (1, 1, 1)
    assert facts[2].rank == 1 and facts[0].burned == 0


def test_an_unfinished_game_and_an_illegal_one_are_refused() -> None:
    with pytest.raises(GameNotOver):
        game_facts((RECORDS / "burn.json").read_text())
    with pytest.raises(ValueError, match="illegal action"):
        game_facts((RECORDS / "refused.json").read_text(), partial=True)
    with pytest.raises(ValueError):
        game_facts('{"hands": []}')


def random_game(seed: int, preset: str) -> dict[str, Any]:
    """A seeded random finished game (some with a 革命, some of those with 要头)."""
    rules = PRESETS[preset]
    rng = random.Random(seed)
    hands = deal_hands(rng)
    revolted: list[int] = []
    if seed % 4 == 0:  # 革命: one hand swaps its 2s and jokers for the next hand's low cards
        seat = rng.randrange(6)
        nxt = (seat + 1) % 6
        h, g = list(hands[seat]), list(hands[nxt])
        for r in (TWO, SMALL, BIG):
            while h[r]:
                low = next(k for k in range(1, TWO) if g[k])
                h[r], g[r], g[low], h[low] = h[r] - 1, g[r] + 1, g[low] - 1, h[low] + 1
        hands[seat], hands[nxt] = tuple(h), tuple(g)
        revolted = [seat]
    yaotou = [opposite(revolted[0])] if revolted and rules.yaotou and seed % 8 == 0 else []
    declared = [s for s in range(6) if rules.declare_point and s not in revolted and seed % 3 == 0]
    game = Game(rules, hands, rng.randrange(6), revolted, declared, yaotou)
    play_out(game, rng)
    return game.record().to_json()


GAMES = [(seed, preset) for preset in PRESETS for seed in range(40)]


def test_random_games_facts_and_invariants() -> None:
    seen: Counter[str] = Counter()
    for seed, preset in GAMES:
        record = random_game(seed, preset)
        facts = game_facts(json.dumps(record))
        out, status = replay(parse_record(record))
        assert status == 0
        check_against_events(facts, out)
        assert sorted(f.rank for f in facts) == [1, 2, 3, 4, 5, 6]
        assert sum(f.men_given for f in facts) == sum(f.smothered for f in facts)
        assert sum(f.burn_wins for f in facts) == sum(f.burned for f in facts)
        for f in facts:
            assert f.burn_wins + f.burn_fails <= f.burns_tried
            assert f.counter_burn_wins <= f.counter_burns
            assert f.points == -facts[opposite(f.seat)].points  # one team's margin, signed
            assert abs(f.points) <= 12 and (f.points == 12 or not f.sweep)  # §10: 串三户 = 12
            assert f.sweep == facts[opposite(f.seat)].swept
            assert f.open_point == PRESETS[preset].open_point
            if f.revolted:
                assert f.rank in (3, 4) and not f.opened
            if f.yaotou:
                assert facts[opposite(f.seat)].revolted
            assert SeatFacts.from_json(json.loads(json.dumps(f.to_json()))) == f
            for name in ("burns", "counter_burns", "burn_wins", "burn_fails", "burn_breaks"):
                seen[name] += getattr(f, name)
            seen["men"] += f.men_given
            seen["sweep"] += f.sweep
            seen["revolted"] += f.revolted
            seen["yaotou"] += f.yaotou
            seen["opened"] += f.opened
        assert len({team(f.seat) for f in facts if f.won}) <= 1
    # the sample holds each kind of moment, so the checks above are not vacuous
    assert all(seen[k] for k in ("burns", "burn_fails", "men", "revolted", "sweep")), seen
    assert all(seen[k] for k in ("counter_burns", "burn_breaks", "opened", "yaotou")), seen


def test_stored_row_is_small_and_versioned() -> None:
    facts = game_facts(json.dumps(random_game(5, "standard")))
    rows = [json.dumps(f.to_json(), separators=(",", ":")) for f in facts]
    assert all(len(r) < 120 for r in rows), rows
    assert all(json.loads(r)["v"] == FACTS_VERSION for r in rows)
    with pytest.raises(ValueError, match="recompute"):
        SeatFacts.from_json({**facts[0].to_json(), "v": FACTS_VERSION + 1})
    assert SeatFacts.columns()[:3] == ("seat", "rank", "points")
    assert len(facts[0].values()) == len(SeatFacts.columns())

"""Match records (MATCH_RECORDS.md): save a match at any point, restore it indistinguishable from
the original, and referee it with ``python -m engine replay``."""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest

from engine.actions import Action, IllegalAction
from engine.deal import deal
from engine.events import Event
from engine.match import Match
from engine.matchrecord import BadMatchRecord, parse_suited, suited_text
from engine.playout import random_action
from engine.record import parse_record, replay, replay_text
from engine.rules import PRESETS, STANDARD, Rules
from engine.vocab import DEAL_EVENTS, Ask, Do, EventType, Phase

POINTS = 1200 if os.environ.get("GOUJI_LONG") else 1000
SEATS = (None, 0, 1, 2, 3, 4, 5)


def step(match: Match, rng: random.Random) -> list[Event]:
    """One random legal step of either phase (a new deal when no game is running)."""
    if match.over:
        return match.new_game()
    ask = match.asked()
    assert ask is not None
    seat, kind = ask
    choices = match.choices(seat)
    assert choices.ask == kind
    if match.game is None:
        # Deal phase: revolt and 要头 often, so 流局, 要头 and 无头 all happen.
        options = list(choices.options)
        if kind in (Ask.REVOLT, Ask.YAOTOU) and rng.random() < 0.7:
            return match.apply(options[0])
        return match.apply(rng.choice(options))
    return match.apply(random_action(match.game, rng))


def same(a: Match, b: Match) -> None:
    assert a.version == b.version and a.phase == b.phase and a.asked() == b.asked()
    for s in SEATS:
        assert a.view(s) == b.view(s)
    for s in range(6):
        assert a.choices(s) == b.choices(s)
    assert a.totals == b.totals and a.history == b.history and a.number == b.number


RULES = [
    PRESETS["standard"],
    PRESETS["qingdao"],
    PRESETS["casual"],
    STANDARD.with_switches({"point_table": "double", "kill_big_joker": True, "counts_at": 36}),
    PRESETS["qingdao"].with_switches({"bie3": True, "tribute": "all", "yaotou": True}),
]


def test_restore_at_random_points_is_indistinguishable() -> None:
    """At ≥ 1,000 random points of random matches (every preset, tribute, 买3, 革命, 流局),
    restore(record()) gives equal views, and both continue identically — future deals too."""
    rng = random.Random(2024)
    points = 0
    seen_events: set[str] = set()
    match_no = 0
    while points < POINTS:
        rules = RULES[match_no % len(RULES)]
        match = Match(rules, seed=match_no)
        match_no += 1
        games = 0
        while games < 2:  # game 2 brings tribute and 还贡
            events = step(match, rng)
            seen_events.update(e.type for e in events)
            if match.over:
                games += 1
            if rng.random() < 0.04 or match.over:
                doc = json.loads(json.dumps(match.record()))
                got: list[Event] = []
                twin = Match.restore(doc, got)
                same(match, twin)
                points += 1
                if rng.random() < 0.1:  # both continue identically, through the next deal
                    a, b = random.Random(points), random.Random(points)
                    for k in range(200):
                        assert step(match, a) == step(twin, b)
                        if k % 25 == 0:
                            same(match, twin)
                    same(match, twin)
    for kind in ("tribute_paid", "bought_three", "revolution", "game_over"):
        assert kind in seen_events, kind


def test_void_deal_and_redeal_restore() -> None:
    """流局 (two revolutions, §5.4): the re-deal comes from the game's deal seed, so a match
    restored before or after it is the same."""
    for seed in range(3000):
        match = Match(STANDARD, seed=seed)
        match.new_game()
        if match.setup is not None and sum(q.ask == Ask.REVOLT for q in match.setup.pending) >= 2:
            break
    else:
        raise AssertionError("no deal with two possible revolutions")
    events: list[Event] = []
    while match.asked() is not None and match.asked()[1] == Ask.REVOLT:  # type: ignore[index]
        seat = match.asked()[0]  # type: ignore[index]
        events += match.apply(Action(seat, Do.REVOLT))
    assert any(e.type == EventType.VOID_DEAL for e in events)
    twin = Match.restore(match.record())
    same(match, twin)
    a, b = random.Random(1), random.Random(1)
    for _ in range(100):
        assert step(match, a) == step(twin, b)
    same(Match.restore(match.record()), match)


def test_restore_gives_the_current_games_events() -> None:
    rng = random.Random(3)
    match = Match(STANDARD, seed=9)
    all_events: list[Event] = []
    for _ in range(120):
        new = step(match, rng)
        if new and new[0].type == EventType.DEALT:
            all_events = []
        all_events.extend(new)
    got: list[Event] = []
    Match.restore(match.record(), got)
    assert got == all_events and got[0].type == EventType.DEALT


def test_unseeded_match_keeps_its_deals() -> None:
    """Without a seed each deal's seed comes from the OS; the record keeps them, so the
    restored match is the same match."""
    match = Match(PRESETS["casual"])
    match.new_game()
    rng = random.Random(1)
    for _ in range(40):
        step(match, rng)
    doc = match.record()
    assert doc["seed"] is None and doc["actions"][0]["do"] == "deal"
    same(match, Match.restore(doc))


def test_given_deal_round_trips() -> None:
    hands = deal(random.Random(77))
    match = Match(STANDARD, seed=1)
    match.new_game(deal=hands)
    doc = json.loads(json.dumps(match.record()))
    assert [parse_suited(h) for h in doc["actions"][0]["hands"]] == hands
    twin = Match.restore(doc)
    same(match, twin)
    assert suited_text(tuple(hands[0])) == doc["actions"][0]["hands"][0]


def test_version_grows_with_every_deal_and_action() -> None:
    match = Match(STANDARD, seed=4)
    assert match.version == 0 and match.phase == Phase.IDLE and match.over
    idle = match.view(None)
    assert idle.phase == Phase.IDLE and idle.to_act is None and idle.version == 0
    assert match.choices(0).ask is None and not match.choices(0).options
    match.new_game()
    assert match.version == 1 and not match.over
    rng = random.Random(4)
    for n in range(2, 60):
        step(match, rng)
        assert match.version == n == match.view(0).version
    ask = match.asked()
    assert ask is not None
    before = match.version
    with pytest.raises(IllegalAction):
        match.apply(Action((ask[0] + 1) % 6, Do.PASS))
    assert match.version == before


def test_choices_cover_both_phases() -> None:
    rng = random.Random(5)
    match = Match(STANDARD, seed=5)
    match.new_game()
    kinds: set[str] = set()
    while match.asked() is not None:
        seat, kind = match.asked()  # type: ignore[misc]
        kinds.add(kind)
        c = match.choices(seat)
        others = [match.choices(s) for s in range(6) if s != seat]
        assert all(o.ask is None and not o.plays and not o.options for o in others)
        if match.game is None:
            assert c.options and not c.plays
        else:
            assert (c.plays or c.can_pass) and not c.options
        step(match, rng)
    assert {Ask.DECLARE, Ask.LEAD, Ask.ANSWER} <= kinds


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "gouji-match/9"}, "format"),
        ({"extra": 1}, "unknown field"),
        ({"seed": True}, "seed"),
        ({"seed": 10**300}, "seed"),
        ({"actions": [{"seat": 0, "do": "play", "cards": "3"}]}, "starts with a deal"),
        ({"actions": [{"do": "deal", "seed": "xyz"}]}, "hex"),
        ({"actions": [{"do": "deal", "seed": "ab", "hands": ["4s"] * 6}]}, "36 cards"),
        ({"actions": [{"do": "deal", "seed": "ab", "who": 1}]}, "unknown field"),
        ({"actions": [{"do": "deal", "seed": "ab"}, {"seat": 7, "do": "pass"}]}, "seat"),
        ({"actions": [{"do": "deal", "seed": "ab"}, {"seat": 1, "do": "fly"}]}, "unknown do"),
        (
            {"actions": [{"do": "deal", "seed": "ab"}, {"seat": 1, "do": "play", "cards": "q"}]},
            "card",
        ),
        (
            {"actions": [{"do": "deal", "seed": "ab"}, {"seat": 1, "do": "pass", "cards": "Q"}]},
            "no cards",
        ),
    ],
)
def test_malformed_match_records(change: dict[str, Any], message: str) -> None:
    match = Match(STANDARD, seed=1)
    match.new_game()
    doc = {**match.record(), **change}
    with pytest.raises(BadMatchRecord, match=message):
        Match.restore(doc)
    out, status = replay_text(json.dumps(doc))
    assert status == 2 and out["error"]["code"] == "bad_record"


def test_a_seeded_record_whose_deal_seed_was_changed_is_refused() -> None:
    match = Match(STANDARD, seed=1)
    match.new_game()
    doc = match.record()
    doc["actions"][0]["seed"] = "ab"
    with pytest.raises(BadMatchRecord, match="seed"):
        Match.restore(doc)


def test_referee_a_match_record() -> None:
    """``replay`` accepts a match record: every game refereed, the first illegal action found."""
    rng = random.Random(8)
    match = Match(PRESETS["qingdao"], seed=8)
    while len(match.history) < 2:
        step(match, rng)
    step(match, rng)  # the third game is dealt
    out, status = replay_text(json.dumps(match.record()))
    assert status == 0 and out["ok"]
    assert len(out["games"]) == 3 and out["match"]["games"] == 3
    assert out["match"]["score"] == {"A": match.totals[0], "B": match.totals[1]}
    for g, h in zip(out["games"], match.history, strict=False):
        assert g["result"]["ranks"] == list(h.ranks)
        assert g["events"][0]["type"] == "dealt" and g["events"][-1]["type"] == "game_over"
    # each finished game's own record referees to the same play events
    doc = match.record()
    ask = match.asked()
    assert ask is not None
    doc["actions"].append({"seat": (ask[0] + 1) % 6, "do": "pass"})
    out, status = replay_text(json.dumps(doc))
    assert status == 1 and out["error"]["code"] == "not_your_turn"
    assert out["error"]["index"] == len(doc["actions"]) - 1


def test_game_writes_its_own_record() -> None:
    """A dealt game's RECORDS.md record replays to exactly the events the game produced."""
    rng = random.Random(12)
    for preset in PRESETS:
        match = Match(Rules.preset_named(preset), seed=12)
        events = match.new_game()
        while match.asked() is not None:
            events += step(match, rng)
        game = match.game
        assert game is not None and game.over
        doc = json.loads(json.dumps(game.record().to_json()))
        out, status = replay(parse_record(doc))
        assert status == 0
        assert out["events"] == [e.to_json() for e in events if e.type not in DEAL_EVENTS]
        assert out["result"]["ranks"] == list(game.ranks)

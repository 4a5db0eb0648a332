"""``python -m engine replay`` (RECORDS.md): output shape, exit statuses, bad records."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest


def replay(record: Any, raw: str | None = None) -> tuple[dict[str, Any], int]:
    text = raw if raw is not None else json.dumps(record)
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "replay", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    return json.loads(proc.stdout), proc.returncode


GOOD = {
    "rules": "casual",
    "hands": ["66779", "88K4", "5TT", "JJ93", "QQ4", "45A"],
    "leader": 0,
    "actions": [{"seat": 0, "do": "play", "cards": "66"}],
}


def test_stdin_and_exit_zero() -> None:
    out, status = replay(GOOD)
    assert status == 0 and out["ok"] is True
    assert set(out) == {"ok", "events", "state", "result"}
    assert set(out["state"]) == {"phase", "to_act", "top", "burning", "counts"}
    assert set(out["result"]) == {"over", "ranks", "opened", "tributes", "score"}


def test_illegal_action_exit_one() -> None:
    rec = dict(GOOD, actions=[{"seat": 1, "do": "play", "cards": "88"}])
    out, status = replay(rec)
    assert status == 1
    assert out["error"]["code"] == "not_your_turn" and out["error"]["index"] == 0
    assert out["error"]["message"]


@pytest.mark.parametrize(
    "change",
    [
        {"rules": "nowhere"},
        {"rules": {"preset": "standard", "colour": 1}},
        {"hands": ["66779"] * 5},
        {"hands": ["66779", "88K4", "5TT", "JJ93", "QQ4", ""]},
        {"hands": ["66779", "88K4", "5TT", "JJ93", "QQ4", "X"]},
        {"hands": ["BBBBB", "88K4", "5TT", "JJ93", "QQ4", "45A"]},  # five big jokers
        {"leader": 6},
        {"revolted": [1, 1]},
        {"revolted": [0, 1]},
        {"revolted": [3]},  # 3 holds a... see below
        {"revolted": [5]},  # 45A: no 2 or joker — fine in casual? (revolution is on)
        {"declared": [0]},  # declare_point is off in casual
        {"yaotou": [2]},
        {"actions": [{"seat": 0, "do": "burn"}]},
        {"actions": [{"seat": 0, "do": "play"}]},
        {"actions": [{"seat": 0, "do": "play", "cards": "6Z"}]},
        {"colour": "red"},
    ],
)
def test_bad_records_exit_two(change: dict[str, Any]) -> None:
    rec = dict(GOOD, **change)
    if change.get("revolted") in ([3], [5]):
        # a revolutionary holding a 2 or joker is malformed; one holding neither is fine
        rec["hands"] = ["66779", "88K4", "5TT", "JJ932", "QQ4", "45A"]
        out, status = replay(rec)
        assert status == (2 if change["revolted"] == [3] else 0)
        return
    out, status = replay(rec)
    assert status == 2, out
    assert out["ok"] is False and out["error"]["code"] == "bad_record"


def test_bad_json_exit_two() -> None:
    out, status = replay(None, raw="{not json")
    assert status == 2 and out["error"]["code"] == "bad_record"


def test_missing_file_exit_two() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "replay", "/nonexistent.json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["code"] == "bad_record"


def test_a_saved_game_record_round_trips() -> None:
    import random

    from engine.cards import fmt
    from engine.deal import deal_hands
    from engine.game import Game
    from engine.playout import play_out
    from engine.record import Record, parse_record
    from engine.record import replay as replay_record
    from engine.rules import Rules

    rng = random.Random(4)
    rules = Rules.preset_named("qingdao").with_switches({"kill_big_joker": True})
    hands = deal_hands(rng)
    game = Game(rules, hands, 2)
    play_out(game, rng)
    saved = Record(rules, tuple(fmt(h) for h in hands), 2, (), (), (), tuple(game.log))
    text = json.dumps(saved.to_json())
    loaded = parse_record(json.loads(text))
    assert loaded == saved
    out, status = replay(None, raw=text)
    assert status == 0 and out == replay_record(saved)[0]
    assert out["result"]["over"] is True


def test_actions_have_a_compact_text_form() -> None:
    from engine.actions import Action

    for a in (Action(3, "play", "BB22999"), Action(0, "pass"), Action(5, "return", "K3")):
        assert Action.parse(str(a)) == a
    for bad in ("x:play", "1:burn", "1", "1:play:KK:extra"):
        with pytest.raises(ValueError):
            Action.parse(bad)

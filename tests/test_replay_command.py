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
        # strict card notation: no lower case, 10, 0, spaces or look-alikes in records
        {"hands": ["66779", "88k4", "5TT", "JJ93", "QQ4", "45A"]},
        {"hands": ["66779", "88K4", "5 10 10", "JJ93", "QQ4", "45A"]},
        {"hands": ["66779", "88K4", "500", "JJ93", "QQ4", "45A"]},
        {"hands": ["66779", "88K4", "5TT", "JJ93", "QQ4", "45ſ"]},
        {"actions": [{"seat": 0, "do": "play", "cards": "q"}]},
        {"actions": [{"seat": 0, "do": "play", "cards": "6 6"}]},
        {"actions": [{"seat": 0, "do": "play", "cards": "66", "note": "x"}]},
        {"actions": [{"seat": 0, "do": "pass", "cards": "66"}]},
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


def test_revolted_seat_cannot_declare() -> None:
    rec = dict(GOOD, rules="standard", hands=["66779", "88K4", "5TT", "JJ932", "QQ4", "45A"])
    assert replay(dict(rec, revolted=[5], declared=[0]))[1] == 0
    out, status = replay(dict(rec, revolted=[5], declared=[5]))
    assert status == 2 and "declare" in out["error"]["message"]


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
    from engine.vocab import Do

    for a in (Action(3, Do.PLAY, "BB22999"), Action(0, Do.PASS), Action(5, Do.RETURN, "K3")):
        assert Action.parse(str(a)) == a
    for bad in ("x:play", "1:burn", "1", "1:play:KK:extra", "7:pass", "1:deal", "01:pass"):
        with pytest.raises(ValueError):
            Action.parse(bad)


def test_hostile_input_exit_two() -> None:
    """Not UTF-8, huge numbers, deep nesting: a bad_record, never a traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "replay", "-"],
        input=b'{"hands": ["\xff\xfe"]}',
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["code"] == "bad_record"
    for raw in ('{"leader": ' + "9" * 5000 + "}", "[" * 3000 + "]" * 3000, '{"leader": NaN}'):
        out, status = replay(None, raw=raw)
        assert status == 2 and out["error"]["code"] == "bad_record", raw[:20]


def test_mutated_records_never_crash() -> None:
    """Thousands of mutations of valid game and match records: exit 0, 1 or 2, never raise."""
    import random

    from engine.match import Match
    from engine.playout import random_action
    from engine.record import replay_text
    from engine.rules import STANDARD

    rng = random.Random(99)
    match = Match(STANDARD, seed=3)
    match.new_game()
    while match.asked() is not None and match.version < 80:
        seat = match.asked()[0]  # type: ignore[index]
        if match.game is None:
            match.apply(match.choices(seat).options[-1])
        else:
            match.apply(random_action(match.game, rng))
    assert match.game is not None
    texts = [
        json.dumps(GOOD),
        json.dumps(match.game.record().to_json()),
        json.dumps(match.record()),
    ]
    junk = ["", "0", "-1", "1e999", "null", "[]", "{}", '"q"', "true", "99999999999999999999"]
    statuses = set()
    for k in range(3000):
        text = texts[k % 3]
        cut = rng.randrange(len(text))
        kind = rng.randrange(4)
        if kind == 0:  # replace a token-ish span with junk
            end = min(len(text), cut + rng.randrange(1, 8))
            text = text[:cut] + rng.choice(junk) + text[end:]
        elif kind == 1:  # flip one character
            text = text[:cut] + chr(rng.randrange(32, 0x250)) + text[cut + 1 :]
        elif kind == 2:  # drop a span
            text = text[:cut] + text[cut + rng.randrange(1, 20) :]
        else:  # swap two values of the same key kind
            obj = json.loads(text)
            if isinstance(obj.get("actions"), list) and len(obj["actions"]) > 2:
                i, j = rng.randrange(len(obj["actions"])), rng.randrange(len(obj["actions"]))
                obj["actions"][i], obj["actions"][j] = obj["actions"][j], obj["actions"][i]
            text = json.dumps(obj)
        out, status = replay_text(text.encode("utf-8", "surrogatepass"))
        assert status in (0, 1, 2) and isinstance(out, dict)
        assert out["ok"] is (status == 0)
        statuses.add(status)
    assert statuses == {0, 1, 2}

"""docs/rules.md §8: 憋3 (the 3s go last, all together) and 闷 (a beaten penultimate play)."""

from __future__ import annotations

from helpers import error_code, ev, run

CASUAL = "casual"


def test_threes_go_last_alone_and_all_together() -> None:
    hands = ["9933", "43", "53", "63", "73", "83"]
    assert error_code(run(hands, "0 play 3")) == "threes"
    assert error_code(run(hands, "0 play 33")) == "threes"
    assert error_code(run(["2233", "43", "53", "63", "73", "83"], "0 play 2233")) == "threes"
    assert error_code(run(hands, "0 play 99")) is None


def test_penultimate_play_stands_then_the_threes_finish() -> None:
    hands = ["9933", "4433", "5533", "6633", "7733", "8833"]
    out = run(hands, "0 play 99")
    assert ev(out)[-1] == "trick_won 0"
    assert out["state"]["to_act"] == 0
    out = run(hands, "0 play 99, 0 play 33")
    assert ev(out)[-2:] == ["play 0 33", "finished 0 rank=1"]  # 1 may now beat 33 with 44
    assert out["state"]["to_act"] == 1
    assert out["result"]["ranks"][0] == 1


def test_beaten_penultimate_play_is_smothered_and_owes_men() -> None:
    out = run(["9943", "JJ33", "QQ73", "5533", "6633", "8833"], "1 play JJ, 2 play QQ", leader=1)
    assert ev(out)[2:4] == ["smothered 1 by=2", "finished 1 rank=6"]


def test_teammate_can_smother_too() -> None:
    out = run(["9943", "JJ33", "43", "KK3", "6633", "8833"], "1 play JJ, 3 play KK", leader=1)
    assert "smothered 1 by=3" in ev(out)


def test_a_player_with_no_three_is_not_bound() -> None:
    # 1 holds no 3: it may finish with JJ, and its last-but-one play cannot be smothered.
    out = run(["9943", "JJ", "QQ73", "5533", "6633", "8833"], "1 play JJ", leader=1)
    assert ev(out)[1] == "finished 1 rank=1"
    out = run(["9943", "JJ9", "QQ73", "5533", "6633", "8833"], "1 play JJ, 2 play QQ", leader=1)
    assert not any(e.startswith("smothered") for e in ev(out))


def test_a_burner_whose_penultimate_play_is_broken_is_smothered() -> None:
    hands = ["43", "AAA3", "QQQ63", "73", "22253", "53"]
    out = run(hands, "2 play QQQ, 4 pass, 1 play AAA, 4 play 222", leader=2)
    assert ev(out)[:8] == [
        "play 2 QQQ",
        "pass 4",
        "play 1 AAA",
        "burn 1 victim=2",
        "play 4 222",
        "burn_break 4 burner=1",
        "smothered 1 by=4",
        "finished 1 rank=6",
    ]


def test_without_bie3_threes_are_ordinary() -> None:
    out = run(["9933", "43", "53", "63", "73", "83"], "0 play 3", rules=CASUAL)
    assert error_code(out) is None
    out = run(["2233", "43", "53", "63", "73", "83"], "0 play 2233", rules=CASUAL)
    assert ev(out)[:2] == ["play 0 2233", "finished 0 rank=1"]
    # and nobody is smothered
    out = run(
        ["9943", "JJ33", "QQ73", "5533", "6633", "8833"],
        "1 play JJ, 2 play QQ",
        leader=1,
        rules=CASUAL,
    )
    assert not any(e.startswith("smothered") for e in ev(out))

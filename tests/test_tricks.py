"""docs/rules.md §6: leading, who may answer, passing, 让牌, a top standing, 接风, finishing."""

from __future__ import annotations

from helpers import error_code, ev, run

CASUAL = "casual"  # no 憋3, no 让牌: plain climbing
NO_BIE3 = {"preset": "standard", "bie3": False}


def test_6_1_leader_may_lead_any_play_but_not_pass() -> None:
    out = run(["22777K", "4", "4", "4", "4", "4"], "0 pass", rules=CASUAL)
    assert error_code(out) == "must_lead"
    out = run(["22777K", "88888", "5", "5", "5", "5"], "0 play 22777", rules=CASUAL)
    assert ev(out)[0] == "play 0 22777"
    assert out["state"]["top"] == {"seat": 0, "cards": "22777"}


def test_6_2_a_player_who_passed_may_still_answer_their_opposite() -> None:
    hands = ["5Q", "79", "64", "7K", "8A5", "4"]
    out = run(hands, "0 play 5, 1 pass, 2 play 6, 3 pass, 4 play 8, 0 pass, 1 play 9, 4 play A")
    assert ev(out) == [
        "play 0 5",
        "pass 1",
        "play 2 6",
        "pass 3",
        "play 4 8",
        "auto_pass 5",
        "pass 0",
        "play 1 9",  # 1 passed, but 8 is its 对头's play
        "auto_pass 2",  # 3 passed and 9 is not its 对头's: skipped silently
        "play 4 A",
        "auto_pass 1",  # the 对头 is always asked (and cannot beat)
        "trick_won 4",
    ]


def test_6_2_a_passed_player_is_skipped_for_others_plays() -> None:
    out = run(["5Q", "79", "64", "7K", "8A5", "4"], "0 play 5, 1 pass, 2 play 6, 1 play 7")
    assert error_code(out) == "not_your_turn"  # 3 is asked next; 1 is out of this trick


def test_6_2_gouji_top_burn_claims_then_the_opposite() -> None:
    # Everyone could beat KK with AA: teammates 2, 4 are asked first, then the other
    # opponents 1, 5, then the 对头 3.
    hands = ["KK5", "AA4", "AA4", "AA4", "AA4", "AA4"]
    out = run(hands, "0 play KK, 2 pass, 4 pass, 1 pass, 5 pass, 3 pass", rules=NO_BIE3)
    assert ev(out) == [
        "play 0 KK",
        "pass 2",
        "pass 4",
        "pass 1",
        "pass 5",
        "pass 3",
        "trick_won 0",
        "opened 0",
    ]
    out = run(hands, "0 play KK, 1 pass", rules=NO_BIE3)
    assert error_code(out) == "not_your_turn"


def test_6_2_only_the_opposite_answers_gouji_normally() -> None:
    # 1 cannot burn (burn off) and may not answer 0's 够级 play; only 3 is asked.
    rules = {"preset": "standard", "bie3": False, "burn": False}
    out = run(["KK5", "AA4", "4", "AA4", "4", "4"], "0 play KK, 3 play AA", rules=rules)
    assert ev(out)[:2] == ["play 0 KK", "play 3 AA"]


def test_6_3_auto_pass_and_silent_skips() -> None:
    out = run(["66779", "88K4", "5TT", "JJ93", "QQ4", "45A"], "0 play 66", rules=CASUAL)
    assert ev(out) == ["play 0 66"]
    assert out["state"]["to_act"] == 1
    out = run(["66779", "4", "4", "4", "4", "4"], "0 play 66", rules=CASUAL)
    assert ev(out) == [
        "play 0 66",
        "auto_pass 1",
        "auto_pass 2",
        "auto_pass 3",
        "auto_pass 4",
        "auto_pass 5",
        "trick_won 0",
    ]
    assert out["state"]["to_act"] == 0


def test_6_4_yield_then_asked_last() -> None:
    out = run(
        ["4", "99K6", "5", "6", "TTA7", "7"],
        "1 play 99, 4 yield, 4 play TT",
        leader=1,
        rules=NO_BIE3,
    )
    assert "yield 4" in ev(out)
    assert ev(out)[-3:] == ["play 4 TT", "auto_pass 1", "trick_won 4"]


def test_6_4_yield_then_pass_closes_the_trick() -> None:
    out = run(
        ["4", "99K6", "5", "6", "TTA7", "7"], "1 play 99, 4 yield, 4 pass", leader=1, rules=NO_BIE3
    )
    assert ev(out)[-2:] == ["pass 4", "trick_won 1"]


def test_6_4_yield_refused() -> None:
    hands = ["4", "99K6", "TT5", "6", "TTA7", "7"]
    # 2 is not 1's 对头
    out = run(hands, "1 play 99, 2 yield", leader=1, rules=NO_BIE3)
    assert error_code(out) == "cannot_yield"
    # yielding is off in casual
    out = run(hands, "1 play 99, 2 pass, 4 yield", leader=1, rules=CASUAL)
    assert error_code(out) == "cannot_yield"
    # only once: asked last, 4 must play or pass
    out = run(
        ["4", "99K6", "5", "6", "TTA7", "7"], "1 play 99, 4 yield, 4 yield", leader=1, rules=NO_BIE3
    )
    assert error_code(out) == "cannot_yield"
    # not on a 够级 top
    out = run(["4", "KK96", "5", "6", "AAT7", "7"], "1 play KK, 4 yield", leader=1, rules=NO_BIE3)
    assert error_code(out) == "cannot_yield"
    # a lead is no place to yield
    out = run(["4", "KK96", "5", "6", "AAT7", "7"], "1 yield", leader=1, rules=NO_BIE3)
    assert error_code(out) == "must_lead"


def test_6_4_yield_is_void_when_someone_else_beats() -> None:
    # 4 yields on 1's 99; 5 plays JJ; 4, still in the trick, may answer JJ.
    hands = ["4", "99K6", "5", "6", "TTA7", "JJ7"]
    out = run(hands, "1 play 99, 4 yield, 5 play JJ", leader=1, rules=NO_BIE3)
    # Nobody can beat JJ; 2 passed but JJ is its 对头's play, 3 passed and is skipped.
    assert ev(out)[-6:] == [
        "play 5 JJ",
        "auto_pass 0",
        "auto_pass 1",
        "auto_pass 2",
        "auto_pass 4",
        "trick_won 5",
    ]


def test_6_5_wind_goes_to_next_active_player() -> None:
    # 0 plays its last cards and the play stands: 1 leads (接风).
    out = run(["99", "4K", "5", "6", "7", "8"], "0 play 99", rules=CASUAL)
    assert ev(out)[-2:] == ["trick_won 0", "wind 1"]
    assert out["state"]["to_act"] == 1


def test_6_6_finishing_takes_the_best_free_rank() -> None:
    out = run(["9", "T4", "J4", "Q4", "K4", "A4"], "0 play 9, 1 play T", rules=CASUAL)
    assert ev(out)[:2] == ["play 0 9", "finished 0 rank=1"]
    assert out["result"]["ranks"][0] == 1


def test_not_in_hand_and_not_a_play_and_precedence() -> None:
    out = run(["9K", "4", "4", "4", "4", "4"], "0 play 99", rules=CASUAL)
    assert error_code(out) == "not_in_hand"
    out = run(["9K", "4", "4", "4", "4", "4"], "0 play 9K", rules=CASUAL)
    assert error_code(out) == "not_a_play"
    out = run(["9K", "4", "4", "4", "4", "4"], "1 play 9K", rules=CASUAL)
    assert error_code(out) == "not_your_turn"
    assert out["error"]["index"] == 0
    assert out["events"] == []

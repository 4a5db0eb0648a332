"""docs/rules.md §7: 烧牌, 解烧, 反烧, success and 烧贡, 诈烧, the burn duty."""

from __future__ import annotations

from helpers import acts, error_code, ev, run

from engine.actions import Action
from engine.game import Game
from engine.record import parse_record
from engine.vocab import Do

NO_BIE3 = {"preset": "standard", "bie3": False}


def test_burn_break_by_the_burners_opposite() -> None:
    hands = ["4", "AAAB99", "QQQ6", "7", "2225", "5"]
    out = run(hands, "2 play QQQ, 4 pass, 1 play AAA, 4 play 222", leader=2, rules=NO_BIE3)
    assert ev(out) == [
        "play 2 QQQ",
        "pass 4",  # a teammate may burn too; 4 declines
        "play 1 AAA",
        "burn 1 victim=2",
        "play 4 222",  # 1's 对头 beats the burn play: 解烧
        "burn_break 4 burner=1",
        "auto_pass 1",
        "trick_won 4",
    ]
    assert out["state"]["burning"] is None
    assert out["state"]["to_act"] == 4


def test_counter_burn_and_success_owes_two() -> None:
    hands = ["4", "AAA9", "QQQ222S5", "7", "8", "6"]
    record = {
        "rules": NO_BIE3,
        "hands": hands,
        "leader": 2,
        "actions": acts("2 play QQQ, 1 play AAA, 2 play 222, 2 play S5"),
    }
    game = Game.from_record(parse_record(record))
    events = []
    for a in parse_record(record).actions:
        events += [e.to_json() for e in game.apply(a)]
    kinds = [(e["type"], e["seat"]) for e in events]
    assert kinds == [
        ("play", 2),
        ("play", 1),
        ("burn", 1),
        ("play", 2),
        ("counter_burn", 2),
        ("auto_pass", 5),
        ("trick_won", 2),
        ("play", 2),
        ("burn_success", 2),
        ("finished", 2),
        ("auto_pass", 5),
        ("trick_won", 2),
        ("wind", 3),
    ]
    assert events[4]["burner"] == 1
    assert events[8]["victim"] == 1 and events[8]["tribute"] == 2
    assert game.shao == [(1, 2, 2)]  # the player counter-burned pays 2


def test_failed_burn_ranks_at_the_bottom_and_passes_the_lead() -> None:
    hands = ["4", "AAA98", "QQQ6", "7", "5", "5"]
    out = run(hands, "2 play QQQ, 1 play AAA", leader=2, rules=NO_BIE3)
    assert ev(out) == [
        "play 2 QQQ",
        "play 1 AAA",
        "burn 1 victim=2",
        "auto_pass 4",
        "trick_won 1",
        "burn_fail 1",  # no joker, cannot lead out
        "finished 1 rank=6",
        "wind 2",
    ]
    assert out["result"]["ranks"][1] == 6


def test_burn_duty_refuses_a_joker_free_lead() -> None:
    hands = ["4", "AAAS98", "QQQ6", "7", "5", "5"]
    out = run(hands, "2 play QQQ, 1 play AAA, 1 play 9", leader=2, rules=NO_BIE3)
    assert error_code(out) == "burn_duty"
    out = run(hands, "2 play QQQ, 1 play AAA, 1 play S9", leader=2, rules=NO_BIE3)
    assert error_code(out) is None
    assert out["state"]["burning"] == 1
    # the lead that empties the hand needs no joker
    out = run(hands, "2 play QQQ, 1 play AAA, 1 play S9, 1 play 8", leader=2, rules=NO_BIE3)
    assert ev(out)[-10:] == [
        "play 1 8",
        "burn_success 1 victim=2 tribute=1",
        "finished 1 rank=1",
        "auto_pass 2",  # an ordinary top now: everyone may answer it
        "auto_pass 3",
        "auto_pass 4",
        "auto_pass 5",
        "auto_pass 0",
        "trick_won 1",
        "wind 2",
    ]


def test_declining_a_burn_is_not_a_pass() -> None:
    hands = ["KK5", "AA22", "4", "AA6", "4", "4"]
    out = run(hands, "0 play KK, 1 pass, 3 play AA, 1 play 22", rules=NO_BIE3)
    assert ev(out)[:5] == [
        "play 0 KK",
        "pass 1",  # declines to burn
        "play 3 AA",
        "play 1 22",  # and may burn its own teammate's 够级 play later in the trick
        "burn 1 victim=3",
    ]


def test_no_burn_after_passing_in_the_trick() -> None:
    hands = ["94", "ST", "24", "4", "4", "4"]
    out = run(hands, "0 play 9, 1 pass, 2 play 2", rules=NO_BIE3)
    assert ev(out) == ["play 0 9", "pass 1", "play 2 2", "auto_pass 5", "trick_won 2"]


def test_burn_switch_off_means_no_burn_claims() -> None:
    rules = {"preset": "standard", "bie3": False, "burn": False}
    out = run(["4", "AAA9", "QQQ6", "7", "5", "5"], "2 play QQQ", leader=2, rules=rules)
    assert ev(out) == ["play 2 QQQ", "auto_pass 5", "trick_won 2", "opened 2"]


def test_burn_ends_silently_when_four_way_begins() -> None:
    # bie3 on: 2's QQQ is its penultimate play; 1 burns it, 2 is smothered; with 0 revolted
    # only four players remain, so 四户乱缠 begins and the burn simply ends.
    hands = ["44", "AAAS93", "QQQ3", "53", "63", "73"]
    out = run(hands, "2 play QQQ, 1 play AAA", leader=2, revolted=[0])
    assert ev(out) == [
        "play 2 QQQ",
        "play 1 AAA",
        "burn 1 victim=2",
        "smothered 2 by=1",
        "finished 2 rank=6",
        "four_way",
        "auto_pass 3",
        "auto_pass 4",
        "auto_pass 5",
        "trick_won 1",
    ]
    assert out["state"]["burning"] is None
    assert out["state"]["phase"] == "four_way"


def test_burn_feasibility_warning() -> None:
    for hand, burn, feasible in (
        ("AAA98", "AAA", False),
        ("AAAS98", "AAA", True),
        ("AAAS987", "AAA", False),
        ("AAABS987", "AAA", True),
    ):
        rec = parse_record(
            {
                "rules": NO_BIE3,
                "hands": ["4", hand, "QQQ6", "7", "5", "5"],
                "leader": 2,
                "actions": acts("2 play QQQ"),
            }
        )
        game = Game.from_record(rec)
        game.apply(rec.actions[0])
        assert game.asked() == (1, "burn")
        assert game.burn_feasible(1, burn) is feasible, hand
        assert game.burn_feasible(2, burn) is None  # not asked
    game.apply(Action(1, Do.PASS))


def test_declining_a_burn_is_marked_for_the_announcement_but_not_in_records() -> None:
    rec = parse_record(
        {
            "rules": NO_BIE3,
            "hands": ["KK5", "AA22", "4", "AA6", "4", "4"],
            "leader": 0,
            "actions": acts("0 play KK, 1 pass"),
        }
    )
    game = Game.from_record(rec)
    game.apply(rec.actions[0])
    (declined,) = game.apply(rec.actions[1])
    assert declined.claim is True
    assert declined.to_json() == {"type": "pass", "seat": 1}

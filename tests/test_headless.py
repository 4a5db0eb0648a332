"""docs/rules.md §12 (无头, 四户乱缠) and §5.4's 要头 (够死级)."""

from __future__ import annotations

from helpers import acts, ev, run

from engine.game import Game
from engine.record import parse_record

NO_BIE3 = {"preset": "standard", "bie3": False}


def test_headless_player_answers_a_gouji_top_and_is_answered_by_all() -> None:
    hands = ["AA5", "TKK6", "4", "9", "4", "4"]
    out = run(hands, "3 play 9, 0 pass, 1 play T, 1 play KK, 0 play AA", leader=3, rules=NO_BIE3)
    assert ev(out) == [
        "play 3 9",
        "finished 3 rank=1",
        "auto_pass 4",
        "auto_pass 5",
        "pass 0",
        "play 1 T",
        "auto_pass 2",
        "auto_pass 4",  # 4 passed, but T is its 对头's play
        "trick_won 1",
        "play 1 KK",
        "auto_pass 4",  # the 对头 cannot beat
        "play 0 AA",  # 0 is 无头 (3 finished): it answers like a 对头
        "auto_pass 1",  # a 无头 player's 够级 play is answered by all, no burning
        "auto_pass 2",  # (4 passed in this trick and 0 is not its 对头)
        "auto_pass 5",
        "trick_won 0",  # and never opens
    ]


def test_headless_player_beating_a_burn_is_burn_break() -> None:
    hands = ["2225", "AAAS9", "QQQ6", "44", "7", "8"]
    out = run(hands, "2 play QQQ, 1 play AAA, 0 play 222", leader=2, revolted=[3], rules=NO_BIE3)
    assert ev(out) == [
        "play 2 QQQ",  # 0 is 无头 (its 对头 revolted): it may not burn
        "play 1 AAA",
        "burn 1 victim=2",
        "auto_pass 4",
        "play 0 222",
        "burn_break 0 burner=1",
        "auto_pass 1",
        "auto_pass 2",
        "auto_pass 5",
        "trick_won 0",
    ]


def test_four_way_passing_never_removes_a_player() -> None:
    hands = ["9", "J", "A55", "K66", "88", "99"]
    out = run(hands, "0 play 9, 1 play J, 2 pass, 3 play K, 2 play A", rules=NO_BIE3)
    assert ev(out)[:11] == [
        "play 0 9",
        "finished 0 rank=1",
        "play 1 J",
        "finished 1 rank=2",
        "four_way",
        "pass 2",
        "play 3 K",
        "auto_pass 4",
        "auto_pass 5",
        "play 2 A",  # asked again after passing
        "auto_pass 3",
    ]
    assert out["state"]["phase"] == "four_way"


def test_four_way_has_no_gouji_no_burn_no_yield() -> None:
    hands = ["9", "J", "AA55", "KKK66", "88", "99"]
    out = run(hands, "0 play 9, 1 play J, 2 pass, 3 play K, 2 pass, 3 play KK", rules=NO_BIE3)
    plays = [e for e in out["events"] if e["type"] == "play"]
    assert plays[-1] == {"type": "play", "seat": 3, "cards": "KK", "gouji": False}
    # everyone is asked in seat order: 4 and 5 cannot beat, 2 may answer with AA
    assert out["state"]["to_act"] == 2


def test_yaotou_dead_gouji_only_burnable_then_opens_after_three() -> None:
    hands = ["4", "AA4", "KKQQQJJJJ5", "4", "4", "44"]
    record = parse_record(
        {
            "rules": NO_BIE3,
            "hands": hands,
            "leader": 2,
            "revolted": [5],
            "yaotou": [2],
            "actions": acts("2 play KK, 1 pass, 2 play QQQ, 2 play JJJJ"),
        }
    )
    game = Game.from_record(record)
    assert not game.headless(2) and not game.opened[2]
    events = []
    for a in record.actions:
        events += game.apply(a)
    assert [f"{e.type} {e.seat}" for e in events] == [
        "play 2",
        "pass 1",  # 1 could burn the 够死级 KK and declines; nobody else may answer it
        "trick_won 2",
        "play 2",
        "trick_won 2",
        "play 2",
        "trick_won 2",
        "opened 2",  # three 够死级 plays stood: opened, and 无头 from now on
    ]
    assert game.headless(2) and game.opened[2]


def test_wutou_choice_opens_at_once() -> None:
    out = run(
        ["4", "AA4", "KK5", "4", "4", "44"], "2 play KK", leader=2, revolted=[5], rules=NO_BIE3
    )
    # 2 is 无头: its KK is answered as a non-够级 top; 1 may answer with AA.
    assert out["result"]["opened"][2] is True
    assert out["state"]["to_act"] == 1


def test_yaotou_burn_plays_do_not_count_toward_the_three() -> None:
    # 3 chose 要头 (0 revolted). Its burn of 4's KK and its burn leads stand, but burn plays
    # never open (§9), so they are not counted as 够死级 plays and 3 does not open.
    hands = ["44", "5", "6", "AASQBJ7", "KK8", "9"]
    out = run(
        hands,
        "4 play KK, 3 play AA, 3 play SQ, 3 play BJ",
        leader=4,
        revolted=[0],
        yaotou=[3],
        rules=NO_BIE3,
    )
    assert "burn 3 victim=4" in ev(out)
    assert not any(e.startswith("opened") for e in ev(out))
    assert out["result"]["opened"][3] is False

"""docs/rules.md §9: 开点 (opening) and the 点贡 table with 宣点."""

from __future__ import annotations

import pytest
from helpers import ev, run

from engine.ranking import debts, point_debts
from engine.rules import STANDARD, Rules

NO_BIE3 = {"preset": "standard", "bie3": False}


def test_records_md_example_opens() -> None:
    hands = ["QQQ8833", "KK9943", "AA7533", "KKK643", "TT8633", "997543"]
    out = run(hands, "0 play QQQ, 3 pass")
    assert ev(out) == ["play 0 QQQ", "pass 3", "trick_won 0", "opened 0"]
    assert out["state"]["counts"] == [4, 6, 6, 6, 6, 6]
    assert out["result"]["opened"] == [True, False, False, False, False, False]


def test_answering_an_opponents_kaidian_does_not_open() -> None:
    out = run(["KK95", "4", "55", "AA63", "7", "8"], "0 play KK, 3 play AA", rules=NO_BIE3)
    assert "opened 3" not in ev(out)


def test_money_and_flowers_never_open() -> None:
    out = run(["22KK5", "4", "4", "4", "4", "4"], "0 play 22KK", rules=NO_BIE3)
    assert ev(out)[-1] == "trick_won 0"
    out = run(["SKK5", "4", "4", "4", "4", "4"], "0 play SKK", rules=NO_BIE3)
    assert ev(out)[-1] == "trick_won 0"


def test_burn_plays_never_open() -> None:
    out = run(
        ["4", "AAAS99", "QQQ6", "7", "5", "5"], "2 play QQQ, 1 play AAA", leader=2, rules=NO_BIE3
    )
    assert ev(out)[-1] == "trick_won 1"


def test_headless_plays_never_open() -> None:
    hands = ["TKK5", "4", "4", "9", "4", "4"]
    out = run(hands, "3 play 9, 0 play T, 0 play KK", leader=3, rules=NO_BIE3)
    # 3 has finished, so 0 is 无头: its KK is answered by all and does not open.
    assert ev(out)[-5:] == [
        "auto_pass 1",
        "auto_pass 2",
        "auto_pass 4",
        "auto_pass 5",
        "trick_won 0",
    ]


def test_kaidian_that_empties_the_hand_opens() -> None:
    out = run(["KK", "4", "4", "55", "4", "4"], "0 play KK", rules=NO_BIE3)
    assert ev(out) == [
        "play 0 KK",
        "finished 0 rank=1",
        "auto_pass 3",
        "trick_won 0",
        "opened 0",
        "wind 1",
    ]


def test_plays_standing_after_four_way_never_open() -> None:
    # 0 finishes first; 1 empties its hand with KK: 四户乱缠 begins, KK stands, no opening.
    hands = ["99", "KK", "4", "55", "4", "55"]
    out = run(hands, "0 play 99, 1 play KK", rules=NO_BIE3)
    assert "four_way" in ev(out)
    assert not any(e.startswith("opened") for e in ev(out))


def test_open_point_off_nobody_opens() -> None:
    out = run(
        ["QQQ8", "4", "4", "4", "4", "4"],
        "0 play QQQ",
        rules={"preset": "standard", "bie3": False, "open_point": False},
    )
    assert ev(out)[-1] == "trick_won 0"


def test_revolutionarys_opposite_is_opened_from_the_start() -> None:
    out = run(["9", "8", "7", "6", "5", "44"], revolted=[5], rules=NO_BIE3)
    assert out["result"]["opened"] == [False, False, True, False, False, False]
    out = run(["9", "8", "7", "6", "5", "44"], revolted=[5], yaotou=[2], rules=NO_BIE3)
    assert out["result"]["opened"] == [False] * 6


# the table: (X declared, Y declared, X opened, Y opened) -> (X owes Y, Y owes X)
TABLE = {
    (False, False, True, False): (0, 1),
    (False, False, False, True): (1, 0),
    (False, False, False, False): (1, 1),
    (False, False, True, True): (0, 0),
    (True, True, True, False): (0, 4),
    (True, True, False, True): (4, 0),
    (True, True, False, False): (2, 2),
    (True, True, True, True): (2, 2),
    (True, False, True, False): (0, 3),
    (True, False, False, True): (3, 0),
    (True, False, False, False): (1, 2),
    (True, False, True, True): (2, 0),
    # Y only: the mirror of "X only"
    (False, True, False, True): (3, 0),
    (False, True, True, False): (0, 3),
    (False, True, False, False): (2, 1),
    (False, True, True, True): (0, 2),
}


@pytest.mark.parametrize(("key", "owed"), list(TABLE.items()))
def test_point_table(key: tuple[bool, bool, bool, bool], owed: tuple[int, int]) -> None:
    assert point_debts(*key) == owed


def test_double_point_table_and_declared_in_debts() -> None:
    ranks = [1, 2, 3, 4, 5, 6]  # no 串三户: 0, 2, 4 hold 1, 3, 5
    opened = [True, False, False, False, False, False]
    rules = STANDARD.with_switches({"point_table": "double"})
    out = debts(rules, ranks, opened, [0], [], [])
    dian = [(d.src, d.dst, d.cards) for d in out if d.kind == "dian"]
    assert (3, 0, 6) in dian  # X (0) declared and opened, Y (3) not: 3 x2
    assert all(n % 2 == 0 for _, _, n in dian)
    assert debts(Rules.preset_named("qingdao"), ranks, opened, [], [], []) == [
        d
        for d in debts(Rules.preset_named("qingdao"), ranks, opened, [], [], [])
        if d.kind == "luo"
    ]

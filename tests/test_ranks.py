"""docs/rules.md §10: ranks, the end of a game, 串三户 and the score."""

from __future__ import annotations

from helpers import ev, run

from engine.ranking import chuan_team, compute_ranks, score

NO_BIE3 = {"preset": "standard", "bie3": False}


def test_finishers_take_the_best_free_rank() -> None:
    assert compute_ranks([3, 5], [], [], None) == [None, None, None, 1, None, 2]


def test_bottom_fills_with_failed_burns_below_smothered() -> None:
    # 1 smothered first (大落); then 4 fails a burn: 4 is now 大落 and 1 moves up to 二落.
    assert compute_ranks([], [], [1], None)[1] == 6
    ranks = compute_ranks([], [4], [1], None)
    assert ranks[4] == 6 and ranks[1] == 5
    ranks = compute_ranks([0], [4, 2], [1, 3], None)
    assert ranks == [1, 4, 5, 3, 6, None]  # fails earliest lowest, then smothers


def test_revolutionary_rank() -> None:
    # 5 revolted (team B). An opponent takes 头科: 5 is 四科.
    assert compute_ranks([0], [], [], 5)[5] == 4
    # Its teammates take 头科 and 二科: 三科.
    r = compute_ranks([1, 3], [], [], 5)
    assert r[5] == 3 and r[1] == 1 and r[3] == 2
    # a teammate first, then an opponent: 四科, and the next finisher takes 三科
    r = compute_ranks([1, 0, 2], [], [], 5)
    assert (r[1], r[0], r[5], r[2]) == (1, 2, 4, 3)
    # undecided while only a teammate has finished
    assert compute_ranks([1], [], [], 5)[5] is None


def test_revolutionary_rank_is_announced_when_settled() -> None:
    out = run(["9", "4", "4", "4", "4", "44"], "0 play 9", revolted=[5], rules=NO_BIE3)
    assert ev(out)[:3] == ["play 0 9", "finished 0 rank=1", "finished 5 rank=4"]


def test_game_end_remaining_players_by_cards_then_seat_order() -> None:
    # short-game (RECORDS.md): 1 is left alone and takes 大落.
    out = run(
        ["55", "6Q", "7", "88", "9", "TT"],
        "3 play 88, 5 play TT, 0 play 55, 1 play 6, 2 play 7, 4 play 9",
        leader=3,
        rules=NO_BIE3,
    )
    assert out["result"]["ranks"] == [3, 6, 4, 1, 5, 2]
    assert out["result"]["score"] == {"A": 0, "B": 4}


def test_game_end_ties_in_seat_order_after_the_last_actor() -> None:
    # 0, 2, 4 go out in turn; team B is left with equal counts; the last actor is 4, so 5
    # ranks first, then 1, then 3.
    hands = ["9", "44", "T", "44", "J", "44"]
    out = run(hands, "0 play 9, 2 play T, 4 play J", rules="casual")
    assert out["result"]["over"] is True
    assert out["result"]["ranks"] == [1, 5, 2, 6, 3, 4]
    assert ev(out)[-4:] == [
        "finished 5 rank=4",
        "finished 1 rank=5",
        "finished 3 rank=6",
        "game_over",
    ]
    # 串三户: team A holds 头科, 二科, 三科 — 12 points.
    assert out["result"]["score"] == {"A": 12, "B": 0}


def test_chuan_with_a_revolutionary_third_member() -> None:
    ranks = [1, 5, 2, 4, 3, 6]
    assert chuan_team(ranks) == 0
    assert chuan_team([1, 3, 2, 4, 5, 6]) is None
    assert chuan_team([4, 1, 5, 2, 6, 3]) == 1  # revolutionary 5 holding 三科


def test_score_tie_records_nothing() -> None:
    assert score([1, 2, 4, 3, 6, 5]) == (0, 0)  # A: 4+0-4 = 0, B: 2+0-2 = 0
    assert score([6, 1, 5, 2, 4, 3]) == (0, 12)


def test_revolutionary_keeps_its_rank_when_four_players_end_at_the_bottom() -> None:
    # Found by the long random run: 4 (team A) revolted; 3 failed a burn; 1, 2 and 5 were
    # smothered; 0 is left. 2 is 4's teammate at the bottom, so 4 is 四科 and the bottom fill
    # skips it (a decision where docs/rules.md is silent).
    assert compute_ranks([0], [3], [1, 2], 4)[4] is None  # not yet settled by §10
    ranks = compute_ranks([0], [3], [1, 2, 5], 4, over=True)
    assert ranks == [1, 5, 3, 6, 4, 2]
    assert sorted(ranks) == [1, 2, 3, 4, 5, 6]  # type: ignore[type-var]


def test_revolutionary_settled_by_the_game_end_is_announced_before_the_rest() -> None:
    # 2's KK smothers 4 and empties 2's hand: only team B is left, so the game ends; 3 takes
    # 二科, which settles the revolutionary 0 at 四科 — announced before the remaining players.
    out = run(
        ["44", "53", "KK", "63", "QQ33", "73"], "4 play QQ, 2 play KK", leader=4, revolted=[0]
    )
    assert ev(out)[-8:] == [
        "smothered 4 by=2",
        "finished 4 rank=6",
        "finished 2 rank=1",
        "finished 0 rank=4",
        "finished 3 rank=2",
        "finished 5 rank=3",
        "finished 1 rank=5",
        "game_over",
    ]

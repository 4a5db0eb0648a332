"""``review-bench --resample-pair SALT_A SALT_B`` (engine/ai/review_pair.py): the 复盘's lines
looked for in a review of the same game with other rollouts, both ways, by kind — a settled
line settled again, a "not sure" line named again as not sure, a near tie as a near tie."""

from __future__ import annotations

import json

import pytest

from engine.actions import Action
from engine.ai.review import TurningPoint
from engine.ai.review_pair import compare, figures_meet, run_pair, salt_of, shown_lines, tally
from engine.vocab import Ask, Do


def test_lines_are_looked_for_in_the_other_review_by_kind() -> None:
    mine = [([3], [7, 9]), ([], [12])]
    assert shown_lines(mine) == [("settled", [3], 0), ("tie", [7, 9], 0), ("not_sure", [12], 1)]
    # 3 only tied there, 9 in a tie again, 12 settled there: all reappear, only the tie as such
    other = [([], [3, 9]), ([12], [])]
    got = compare(mine, other)
    assert [(kind, again, same) for kind, _, again, same in got] == [
        ("settled", True, False),
        ("tie", True, True),
        ("not_sure", True, False),
    ]
    counts: dict[str, int] = {}
    tally(got, counts)
    tally(compare(mine, [([3], [4, 9]), ([], [])]), counts)
    assert (counts["lines_shown"], counts["lines_reappear"], counts["same_kind"]) == (6, 5, 3)
    assert (counts["not_sure_lines_shown"], counts["not_sure_lines_reappear"]) == (2, 1)
    assert salt_of("-", 4) == "" and salt_of("fa", 4) == "fa:4"


def test_the_pair_bench_prints_json_last(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_pair(1, 1, "standard", 0.02, ("fa", "fb")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("game 1:")
    figures = json.loads(out[-1])
    assert figures["salts"] == ["fa", "fb"] and figures["games"] == 1
    assert {"lines_shown", "lines_reappear", "share", "same_kind_share"} <= set(figures)


def test_two_reviews_figures_meet_when_they_overlap_as_the_message_means_them() -> None:
    def tp(points: float, se: float) -> TurningPoint:
        act = Action(1, Do.PASS)
        return TurningPoint(3, 1, 2, Ask.ANSWER, act, act, points, 0.0, 64, points_se=se)

    assert figures_meet(tp(4.0, 0.2), tp(5.1, 0.2))  # −4 and −5: a point either way
    assert not figures_meet(tp(3.0, 0.2), tp(6.0, 0.2))
    assert figures_meet(tp(4.6, 0.7), tp(2.9, 0.2))  # −3～−6 and −3
    assert not figures_meet(tp(8.0, 0.7), tp(3.0, 0.2))  # −6～−10 and −3

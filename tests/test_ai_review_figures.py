"""The 复盘's figures say what the rollouts know (docs/review.md, "What is shown"): a cost as
one whole figure only when known within a point, else as the range its rollouts span; a win
chance only when known within 10%; and ``review-bench --check-figures`` tests them against
fresh rollouts."""

from __future__ import annotations

import json

import pytest
from test_ai_review import _turning_point

from engine.ai.review import TurningPoint, review_game
from engine.ai.review_bench import DEAL_STRIDE, ai_game_record
from engine.ai.review_check import Check, run_check, shown_figures
from engine.ai.review_lines import points_range
from engine.rules import Rules
from renderers.review_text import cost_text, turning_point_text

NAMES = ["小美", "老王", "张姐", "阿强", "小李", "王叔"]


def _tp(**changes: object) -> TurningPoint:
    """test_ai_review's 老王 passing on 2个K, a cost of 4.6 points on 64 rollouts."""
    return _turning_point(**({"points": 4.6, "win": 0.38, "rollouts": 64} | changes))


def test_a_cost_known_within_a_point_is_one_whole_figure() -> None:
    assert points_range(3.56, 0.24) == (4, 4)
    assert points_range(3.56, 0.4) == (4, 4)  # 2.5 standard errors: exactly a point
    assert points_range(0.3, 0.1) == (1, 1)  # at least 1: a line is a cost
    assert points_range(2.0, 0.0) == (2, 2)  # solved exactly


def test_a_cost_known_less_closely_is_the_range_its_rollouts_span() -> None:
    assert points_range(4.62, 0.71) == (3, 6)
    assert points_range(8.19, 0.98) == (6, 11)
    assert points_range(1.29, 0.53) == (1, 3)  # never below 1
    assert points_range(0.3, 0.41) == (1, 1)  # a range of one figure is that figure


def test_the_message_shows_a_range_in_both_languages() -> None:
    assert cost_text(4.62, 0.0, "zh", 0.71) == "−3～−6 分"
    assert cost_text(4.62, 0.0, "en", 0.71) == "−3 to −6 points"
    assert cost_text(3.56, 0.45, "zh", 0.24) == "−4 分，胜率 −45%"
    tp = _tp(points_se=0.71)
    assert turning_point_text(tp, NAMES, "zh").endswith("（−3～−6 分）")


def test_figures_with_their_doubt_are_stored_and_old_reviews_read_as_one_figure() -> None:
    tp = _tp(points_se=0.71, win_se=0.06)
    assert TurningPoint.from_json(tp.to_json()) == tp
    old = tp.to_json()
    del old["points_se"], old["win_se"]
    back = TurningPoint.from_json(old)
    assert (back.points_se, back.win_se) == (0.0, 0.0)
    assert turning_point_text(back, NAMES, "zh").endswith("（−5 分）")


def test_the_check_reads_a_figure_as_the_message_means_it() -> None:
    def check(shown: tuple[int, int], cost: float, se: float = 0.1) -> Check:
        return Check(1, shown, None, cost, se, 0.0, 0.0)

    assert check((4, 4), 3.2).agrees  # one figure: give or take a point
    assert not check((4, 4), 2.5).agrees
    assert check((3, 6), 2.9).agrees and check((3, 6), 6.6).agrees  # a range, each end ± ½
    assert not check((3, 6), 2.0).agrees
    assert check((4, 4), 2.5, se=0.3).agrees  # the fresh rollouts' own doubt counts
    assert check((2, 2), 0.5, se=0.1).better and not check((2, 2), 0.1, se=0.1).better
    assert not check((2, 2), 0.2, se=0.1).a_point and check((2, 2), 0.8, se=0.1).a_point
    win = Check(1, (4, 4), 0.4, 4.0, 0.1, 0.33, 0.01)
    assert win.win_agrees and not Check(1, (4, 4), 0.4, 4.0, 0.1, 0.25, 0.01).win_agrees


def test_a_win_chance_is_shown_only_on_a_line_known_to_a_point() -> None:
    text = ai_game_record(Rules.preset_named("standard"), 1 * DEAL_STRIDE + 1)
    review = review_game(text, 60.0)
    lines = [tp for side in review.teams for tp in side if tp.rollouts]
    assert any(
        points_range(tp.points, tp.points_se)[0] < points_range(tp.points, tp.points_se)[1]
        for tp in lines
    )
    for tp in lines:
        low, high = points_range(tp.points, tp.points_se)
        assert not (tp.win_sure and low < high)
        assert tp.win_sure <= (2.5 * tp.win_se <= 0.10)


def test_shown_figures_are_the_messages() -> None:
    assert shown_figures(_tp(points_se=0.71)) == ((3, 6), None)
    points, win = shown_figures(_tp(win_sure=True, win=0.38))
    assert points == (5, 5) and win == pytest.approx(0.4)


def test_check_figures_prints_each_line_and_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_check(1, 1, "standard", 60.0, "t", n=16, first=1) == 0
    out = capsys.readouterr().out.splitlines()
    figures = json.loads(out[-1])
    assert figures["lines"] == len(out) - 1 + figures["exact"] > 0
    assert 0 <= figures["agrees"] <= figures["lines"] - figures["exact"]
    assert all(line.startswith("game 2 team ") and "fresh" in line for line in out[:-1])

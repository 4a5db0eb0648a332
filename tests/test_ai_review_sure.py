"""A settled line of the 复盘 is one that other rollouts name again (engine/ai/review.py,
docs/review.md): it is a point and apart from the rest by :data:`Z_SETTLED` standard errors,
stricter than a line's own test (a team's lines are tested against many others); and the
sampling spends more rollouts exactly on the lines whose doubt is whether they cost a point."""

from __future__ import annotations

from test_ai_review_lines import _point, _shown

from engine.ai.review import PRODUCTION, _Point
from engine.ai.review_lines import Z_SETTLED, Z, _doubtful


def test_a_line_a_point_by_z_but_not_by_z_settled_is_shown_as_not_sure() -> None:
    # 3.3 points, 8.6 a rollout on 64 (game 3's 6 on seed 1): 1.15 above a point at Z, 0.6 at
    # Z_SETTLED; other rollouts put it at 2.1 ± 1.2
    high = _point(10, 0, 3.3, 8.6)
    cost, se = high.cost()[1], high.cost()[3]
    assert cost - Z * se >= 1.0 > cost - Z_SETTLED * se
    assert _shown([high]) == ([], [10])
    assert _shown([_point(10, 0, 3.3, 4.0)]) == ([10], [])  # half the spread: settled


def test_a_line_not_clearly_apart_at_z_settled_is_a_tie() -> None:
    # 6.0 against 4.4 (standard errors 0.5): apart by 2, not by 2.5 standard errors
    points = [_point(10, 0, 8.0, 2.0), _point(20, 2, 6.0, 4.0), _point(30, 4, 4.4, 4.0)]
    assert _shown(points) == ([10], [20, 30])
    points[2] = _point(30, 4, 3.9, 4.0)
    assert _shown(points) == ([10, 20], [])


def test_the_doubt_whether_a_line_costs_a_point_gets_more_rollouts() -> None:
    def caps(points: list[_Point]) -> dict[int, int]:
        return {p.index: cap for p, cap in _doubtful(points, 0, PRODUCTION)}

    assert PRODUCTION.sure > PRODUCTION.cap
    near = _point(10, 0, 6.0, 4.0)  # settled: not sampled again
    high = _point(20, 2, 3.3, 8.6)  # a point by Z, not by Z_SETTLED: the sure cap
    outside = _point(30, 4, 3.0, 4.0)  # may enter the team's two: the usual cap
    cheap = _point(40, 4, 0.1, 1.0)  # cannot cost a point: not sampled again
    assert caps([near, high, outside, cheap]) == {20: PRODUCTION.sure, 30: PRODUCTION.cap}
    # clearly a point but not apart from the rest: a near tie, the usual cap
    tie = [_point(10, 0, 6.0, 4.0), _point(20, 2, 5.5, 4.0), _point(30, 4, 5.2, 4.0)]
    assert caps(tie) == {10: PRODUCTION.cap, 20: PRODUCTION.cap, 30: PRODUCTION.cap}

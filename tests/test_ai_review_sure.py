"""A settled line of the 复盘 is one that other rollouts name again (engine/ai/review.py,
docs/review.md): it is a point and apart from the rest by :data:`Z_SETTLED` standard errors,
stricter than a line's own test (a team's lines are tested against many others); and the
sampling spends more rollouts exactly on the lines whose doubt is whether they cost a point."""

from __future__ import annotations

from typing import Any

from test_ai_review_lines import _point, _shown

from engine.actions import Action
from engine.ai.review import PRODUCTION, TURN, _Point
from engine.ai.review_lines import Z_SETTLED, Z, _a_point, _doubtful
from engine.vocab import Ask, Do


def test_a_line_a_point_by_z_but_not_by_z_settled_is_not_shown() -> None:
    # 3.3 points, 8.6 a rollout on 64 (game 3's 6 on seed 1): 1.15 above a point at Z, 0.6 at
    # Z_SETTLED; other rollouts put it at 2.1 ± 1.2 (and 0.8 ± 1.1 on salt sb): not shown
    # alone; in a tie with another such line the two together are a point (test below), and
    # where one of the tie is a point by Z_SETTLED, the tie is shown
    high = _point(10, 0, 3.3, 8.6)
    cost, se = high.cost()[1], high.cost()[3]
    assert cost - Z * se >= 1.0 > cost - Z_SETTLED * se
    assert _shown([high]) == ([], [])
    assert _shown([high, _point(20, 2, 3.2, 8.6)]) == ([], [10, 20])
    tie = [high, _point(20, 2, 3.2, 4.0), _point(30, 4, 2.8, 8.6)]
    assert _shown(tie) == ([], [10, 20, 30])
    # another of a tie not a cost at all by Z_SETTLED standard errors (2.6 ± 1.08): not named
    tie[2] = _point(30, 4, 2.6, 8.6)
    assert _shown(tie) == ([], [10, 20])
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
    outside = _point(30, 4, 3.0, 4.0, n=32)  # may enter the team's two: the usual cap
    cheap = _point(40, 4, 0.1, 1.0)  # cannot cost a point: not sampled again
    assert caps([near, high, outside, cheap]) == {20: PRODUCTION.sure, 30: PRODUCTION.cap}
    # clearly a point but not apart from the rest: a near tie, the usual cap
    tie = [_point(10, 0, 6.0, 4.0), _point(20, 2, 5.5, 4.0), _point(30, 4, 5.2, 4.0, n=32)]
    assert caps(tie) == {10: PRODUCTION.cap, 20: PRODUCTION.cap, 30: PRODUCTION.cap}


def test_three_rollouts_of_nothing_do_not_settle_a_line_against_them() -> None:
    """A decision whose 3 screen rollouts all cost 0 may still cost a few points (a rollout
    that turns out otherwise costs :data:`TURN`): its standard error is not 0, a line near it
    is not settled against it, and it is looked at again."""
    quiet = _point(30, 4, 0.0, 0.0, n=3)
    assert quiet.cost()[3] == TURN / 3
    line = _point(10, 0, 2.5, 2.4)  # 2.5 ± 0.3 on 64 rollouts
    assert _shown([line, quiet]) == ([], [10])  # not settled: not apart from what 3 saw
    assert 30 in {p.index for p, _ in _doubtful([line, quiet], 0, PRODUCTION)}
    again = _point(30, 4, 0.0, 0.0, n=8)  # nothing on 8: the line is settled against it
    assert _shown([line, again]) == ([10], [])


def test_the_sampling_aims_at_the_places_the_message_has() -> None:
    """The two places of a team are its clearly costly decisions (``_lines``), not the two
    highest estimates: a high but uncertain one does not take a place from a clearly costly
    one, which is sampled as one of the team's two."""
    vague = _point(10, 0, 3.5, 16.0)  # 3.5 ± 2.0: not clearly costly
    first = _point(20, 2, 2.5, 2.4)  # 2.5 ± 0.3
    second = _point(30, 4, 2.4, 2.4)  # 2.4 ± 0.3: the message's second place
    wide = _point(40, 4, 2.0, 8.0)  # 2.0 ± 1.0: the likeliest to enter by its upper bound
    assert _shown([vague, first, second, wide]) == ([], [20, 30])
    caps = {p.index: cap for p, cap in _doubtful([vague, first, second, wide], 0, PRODUCTION)}
    assert {20, 30} <= set(caps)


def test_an_alternative_behind_the_best_by_its_mean_may_still_cost_more() -> None:
    """Game 4's 123 on salt gb: on 3 rollouts passing did what the play taken did (0 each)
    and the small joker 8, 4 and -12 (the same mean); on 64 of another salt the joker is 6.6
    points better. The cost's upper bound is the joker's: it is not settled against."""
    taken, alt = Action(1, Do.PLAY, "2"), Action(1, Do.PLAY, "S")
    results = [[4.0, 4.0, 12.0], [4.0, 4.0, 12.0], [12.0, 8.0, 0.0]]
    game: Any = None  # never read: the rollouts are given
    hidden = _Point(123, 1, 1, Ask.ANSWER, game, [], [taken, Action(1, Do.PASS), alt], None, "")
    hidden.results = results
    _, lost, _, se, _ = hidden.cost()
    assert lost == 0.0 and se > 4.0  # the joker's spread, not the pass's 0 ± 4/3
    top = _point(133, 3, 6.4, 4.9)  # 6.4 ± 0.6 on 64
    assert _shown([top, hidden], side=1) == ([], [133])
    assert 123 in {p.index for p, _ in _doubtful([top, hidden], 1, PRODUCTION)}


def test_a_tie_is_shown_when_together_its_decisions_are_a_point() -> None:
    """Game 1's 134 and 136 (1.7 ± 0.36 and 1.5 ± 0.33 points on 128 rollouts): neither is a
    point by Z_SETTLED standard errors alone; that both cost less than a point is as unlikely
    as a cost 2.5 standard errors under its estimate, so the tie is shown. Not so 134 and
    92 on salt sa (1.7 ± 0.33 and 1.1 ± 0.46): named by one of two fresh sets of rollouts."""
    pair = [_point(134, 0, 1.72, 0.36 * 8), _point(136, 2, 1.53, 0.33 * 8)]
    assert not any(_a_point((p.cost()[1], p.cost()[3], p)) for p in pair)
    assert _shown(pair) == ([], [134, 136])
    weak = [_point(134, 0, 1.66, 0.33 * 8), _point(92, 2, 1.06, 0.46 * 8)]
    assert _shown(weak) == ([], [])

"""What the 复盘 shows of a team (engine/ai/review.py ``_lines``, docs/review.md): a line is
settled only when its cost is clearly a point or more, on enough rollouts, and clearly apart
from every decision not shown; a near tie for the places left is shown as a tie, in players'
words; a settled line survives other rollouts; and the bench counts what is shown."""

from __future__ import annotations

import json
from typing import Any

from test_ai_review import NAMES, _blunder_record, _turning_point

from engine.actions import Action
from engine.ai.review import Review, TurningPoint, _Point, review_game
from engine.ai.review_bench import agreeing_shown, lines, reappearing
from engine.ai.review_lines import SETTLED_SAMPLES, _lines
from engine.vocab import Ask, Do
from renderers.review_text import review_text


def _point(index: int, seat: int, cost: float, spread: float, n: int = 64) -> _Point:
    """A decision of ``seat`` whose action taken costs ``cost`` on ``n`` paired rollouts, each
    off by ``spread`` (so its standard error is ``spread / sqrt(n)``)."""
    taken = Action(seat, Do.PASS)
    better = Action(seat, Do.PLAY, "AA")
    diffs = [cost + (spread if k % 2 else -spread) for k in range(n)]
    game: Any = None  # never read: the rollouts are given
    return _Point(
        index, seat, 1, Ask.ANSWER, game, [], [taken, better], None, "", [[0.0] * n, diffs]
    )


def _shown(points: list[_Point], side: int = 0) -> tuple[list[int], list[int]]:
    firm, tied = _lines(points, side)
    return [p.index for _, _, p in firm], [p.index for _, _, p in tied]


def test_a_near_tie_is_not_shown_as_a_settled_line() -> None:
    # 8 points stand out; 3.0 and 2.9 (standard errors 0.5) cannot be told apart for place 2
    points = [_point(10, 0, 8.0, 2.0), _point(20, 2, 3.0, 4.0), _point(30, 4, 2.9, 4.0)]
    points.append(_point(40, 1, 6.0, 2.0))  # the other team's decisions do not count
    assert _shown(points) == ([10], [20, 30])
    # far apart, both settled: no tie
    points[2] = _point(30, 4, 0.2, 1.0)
    assert _shown(points) == ([10, 20], [])


def test_a_line_settles_only_on_enough_rollouts_and_clearly_a_point() -> None:
    few = _point(10, 0, 6.0, 1.0, n=SETTLED_SAMPLES // 2)
    assert _shown([few]) == ([], [10])  # clearly costly, but on too few rollouts: not settled
    assert _shown([_point(10, 0, 6.0, 1.0)]) == ([10], [])
    # a point clearly, not settled (3.0 ± 2 × 0.5, 8 rollouts): shown as not sure
    assert _shown([_point(10, 0, 3.0, 1.4, n=8)]) == ([], [10])
    # clearly costly but not clearly a point (1.3 ± 2 × 0.5): alone, not shown; nor in a near
    # tie with others like it (none of them clearly a point); in a near tie with one that is
    # a point by Z_SETTLED (2.4 ± 2.5 × 0.5), shown as one of it
    assert _shown([_point(10, 0, 1.3, 4.0)]) == ([], [])
    assert _shown([_point(10, 0, 1.3, 4.0), _point(20, 0, 1.2, 4.0)]) == ([], [])
    tie = [_point(10, 0, 2.4, 4.0), _point(20, 0, 2.3, 4.0), _point(30, 0, 1.3, 4.0)]
    assert _shown(tie) == ([], [10, 20, 30])
    # below a point, or not clearly above nothing: not shown at all
    assert _shown([_point(10, 0, 0.8, 0.5), _point(12, 0, 1.5, 16.0)]) == ([], [])


def test_a_cost_alike_on_a_few_rollouts_is_not_taken_as_certain() -> None:
    """Four points on each of 3 rollouts: its standard error is not 0, so a decision near it
    is not settled against it."""
    alike = _point(10, 0, 4.0, 0.0, n=3)
    assert alike.cost()[3] > 1.0
    assert _shown([_point(20, 2, 9.0, 2.0), _point(30, 4, 5.0, 2.0), alike])[0] == [20]


def _review(*teams: list[TurningPoint]) -> Review:
    return Review((tuple(teams[0]), tuple(teams[1])), 100, 30, 10, 0, 500, 9000)


def test_a_tie_is_shown_as_one_in_players_words_and_stored() -> None:
    firm = _turning_point(index=3, seat=0, played=Action(0, Do.PASS), points=6.1)
    tied = [
        _turning_point(index=7, seat=2, played=Action(2, Do.PASS), points=3.1, tied=True),
        _turning_point(index=9, seat=4, played=Action(4, Do.PASS), points=2.9, tied=True),
    ]
    review = _review([firm, *tied], [_turning_point(tied=True)])
    zh = review_text(review, NAMES, "zh").splitlines()
    assert zh[3] == "下面几手电脑分不出哪手代价更大："
    assert zh[4].startswith("「小美 2个K」张姐 没管") and zh[5].startswith("「小美 2个K」阿强 没管")
    assert zh[7] == "下面这手电脑没有十足把握，仅供参考：" and zh[8].startswith("「小美 2个K」老王")
    en = review_text(review, NAMES, "en")
    assert "The computer cannot tell which of these moves costs more:" in en
    stored = Review.from_json(json.loads(json.dumps(review.to_json())))
    assert stored == review and [tp.tied for tp in stored.teams[0]] == [False, True, True]
    old = tied[0].to_json()
    del old["tied"]  # a review stored before ties: its lines read as settled
    assert not TurningPoint.from_json(old).tied


def test_the_bench_counts_what_is_shown() -> None:
    firm = _turning_point(index=3, seat=0, played=Action(0, Do.PASS))
    tied = [_turning_point(index=i, seat=2, tied=True) for i in (7, 9)]
    mine = lines(_review([firm, *tied], []))
    assert mine == [([3], [7, 9]), ([], [])]
    # the settled line and the tie's 9 agree with the reference; team B both empty
    assert agreeing_shown(mine, [[3, 9], []]) == 4
    assert agreeing_shown(mine, [[3, 5], [8]]) == 2
    # other rollouts that name 3 (tied now) and 7: both lines reappear; naming only 9 of the tie
    assert reappearing(mine, _review([firm, tied[0]], [])) == (2, 2)
    assert reappearing(mine, _review([tied[1]], [])) == (2, 1)


def test_a_settled_line_survives_other_rollouts() -> None:
    """The blunder (passing instead of going out, solved or far apart) is settled and shown
    as such whatever rollouts are drawn."""
    text = _blunder_record()
    for salt in ("", "other", "third"):
        review = review_game(text, budget_s=5.0, salt=salt)
        worst = review.teams[0][0]
        assert (worst.index, worst.tied) == (1, False), salt

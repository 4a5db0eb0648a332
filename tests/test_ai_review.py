"""The post-game review (复盘, engine/ai/review.py) and its message (renderers/review_text.py):
the reported decisions are real decisions of the record, their alternatives legal there, a
clear blunder is found with a large cost, a review depends only on the record (not the seed),
and its lines quote the trick as the group's log wrote it, in whole points, with the win
chance only when stable, and a demo's title when the budget was too small to settle.
Budgets are small here: speed and agreement are measured by ``python -m engine review-bench``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.actions import Action
from engine.ai import decide
from engine.ai.review import Review, TurningPoint, review_game
from engine.ai.review_bench import agreeing, ai_game_record
from engine.ai.review_lines import SHOWN, points_range
from engine.cards import fmt, parse
from engine.game import Game
from engine.gamerecord import BadRecord, parse_record
from engine.rules import Rules
from engine.vocab import Ask, Do
from renderers.review_text import review_text, turning_point_text
from renderers.transcript import Transcript

RECORDS = Path(__file__).resolve().parent / "records"  # the shared examples, as committed
NAMES = ["小美", "老王", "张姐", "王叔", "阿强", "小李"]

# casual rules (no 憋3, no 开点): seat 1 leads QQ; seat 2 holds AA, its last cards, and goes
# out 头科 by answering — passing instead lets seat 1 go out first with its 7 and its
# teammates follow with 9 and J, while seat 2 is left near the bottom with its AA
BLUNDER_HANDS = ["555", "QQ7", "AA", "9", "T", "J"]


def _blunder_game() -> tuple[str, list[str]]:
    """The blunder position, seat 2 passing, the rest of the game played by the normal AI:
    its record and the group's log of it."""
    game = Game.from_position(Rules.preset_named("casual"), BLUNDER_HANDS, leader=1)
    log = Transcript(NAMES, "zh")
    log.feed(game.apply(Action(1, Do.PLAY, "QQ")))
    log.feed(game.apply(Action(2, Do.PASS)))
    rng = random.Random(5)
    while (ask := game.asked()) is not None:
        log.feed(game.apply(decide(game, ask[0], "normal", rng).action))
    return json.dumps(game.record().to_json()), log.take_finished()


def _blunder_record() -> str:
    return _blunder_game()[0]


def _checked(text: str, review: Review) -> None:
    """Every turning point is a decision of the record, made by its seat at its index, with
    a legal alternative there; at most three per team, costliest first."""
    record = parse_record(json.loads(text))
    positions: dict[int, Game] = {}
    game = Game.from_record(record)
    for i, act in enumerate(record.actions):
        positions[i] = game.copy()
        game.apply(act)
    for side, points in enumerate(review.teams):
        assert len(points) <= SHOWN
        assert [tp.points for tp in points] == sorted((tp.points for tp in points), reverse=True)
        for tp in points:
            assert tp.seat % 2 == side and tp.points > 0
            taken = record.actions[tp.index]
            assert (tp.seat, tp.played.do) == (taken.seat, taken.do)
            assert parse(tp.played.cards) == parse(taken.cards)
            before = positions[tp.index]
            assert before.asked() == (tp.seat, tp.ask)
            assert tp.suggested != tp.played
            before.check(tp.suggested)  # raises IllegalAction if the engine refuses it


def test_a_shared_example_record_is_reviewed() -> None:
    text = (RECORDS / "short-game.json").read_text(encoding="utf-8")
    review = review_game(text, budget_s=0.5, rng=random.Random(1))
    assert review.decisions == len(json.loads(text)["actions"])
    assert review.compared <= review.decisions
    _checked(text, review)


@pytest.fixture(scope="module")
def seeded_game() -> str:
    """A full game of a seeded match: normal players against random ones (easy)."""
    return ai_game_record(Rules.preset_named("standard"), 7, ("normal", "easy"))


def test_a_seeded_game_is_reviewed_and_any_seed_gives_the_same_review(
    seeded_game: str,
) -> None:
    # a budget that gets past the screen (3 rollouts of every action: on fewer, nothing is
    # clearly costly)
    review = review_game(seeded_game, budget_s=3.0, rng=random.Random(3))
    assert review.decisions > 100 and review.rollouts > 0
    assert 0 < review.compared < review.decisions  # only the decisions that can matter
    assert any(review.teams), "random play leaves no costly decision"
    _checked(seeded_game, review)
    # the rollouts' seeds derive from the record: another seed, the same review
    again = review_game(seeded_game, budget_s=3.0, rng=random.Random(4))
    assert again == review
    stored = json.loads(json.dumps(review.to_json()))
    assert Review.from_json(stored).to_json() == review.to_json()
    # a salt draws other rollouts (the bench's --resample)
    other = review_game(seeded_game, budget_s=3.0, salt="other")
    assert other.rollouts > 0 and other.to_json() != review.to_json()


def test_a_review_stored_before_the_later_fields_still_reads() -> None:
    old = {
        "teams": [[], []],
        "decisions": 3,
        "compared": 1,
        "deep": 0,
        "exact": 0,
        "rollouts": 4,
        "steps": 40,
    }
    review = Review.from_json(old)
    assert review.settled and review.teams == ((), ())


def test_picks_agree_by_place_and_an_empty_place_agrees_with_an_empty_one() -> None:
    assert agreeing([[5, 9], [12]], [[9, 5], [12]]) == 4
    assert agreeing([[5, 9], [12]], [[9, 7], [13, 14]]) == 1
    assert agreeing([[], []], [[], []]) == 4


def test_passing_instead_of_going_out_is_found_as_a_large_cost() -> None:
    text = _blunder_record()
    review = review_game(text, budget_s=0.5, rng=random.Random(2))
    _checked(text, review)
    worst = review.teams[0][0]
    assert (worst.index, worst.seat, worst.ask, worst.played.do) == (1, 2, Ask.ANSWER, Do.PASS)
    assert worst.suggested == Action(2, Do.PLAY, "AA")
    assert worst.points >= 8 and worst.win >= 0.5
    assert worst.win_sure  # solved exactly or many rollouts: the win chance may be shown
    assert (worst.top_seat, worst.top) == (1, "QQ")


def test_the_message_quotes_the_trick_as_the_log_wrote_it_in_whole_points() -> None:
    text, log = _blunder_game()
    review = review_game(text, budget_s=5.0, rng=random.Random(2))
    assert review.settled
    worst = review.teams[0][0]
    zh = turning_point_text(worst, NAMES, "zh")
    assert zh.startswith("「老王 2个Q」张姐 没管：电脑会出 <b>2个A</b>，管上就能把牌权拿回来。")
    assert any(line.startswith("老王 2个Q") for line in log), "the quote is found in the log"
    assert "张姐 最后走了" in zh  # what became of her in the game
    low, high = points_range(worst.points, worst.points_se)  # one figure or a range
    figure = f"−{low}" if low == high else f"−{low}～−{high}"
    assert f"（{figure} 分" in zh and "." not in zh.split("（")[-1]
    assert ("，胜率 −" in zh) == worst.win_sure
    assert "AI" not in zh
    en = turning_point_text(worst, NAMES, "en")
    assert en.startswith("“老王 two queens” 张姐 passed; the computer would play <b>two aces</b>")
    whole = review_text(review, NAMES, "zh")
    assert whole.startswith("📋 <b>复盘</b>：")
    assert whole.splitlines()[1] == "<b>小美·张姐·阿强</b>" and zh in whole


def test_a_budget_too_small_to_settle_is_titled_a_demo() -> None:
    review = review_game(_blunder_record(), budget_s=0.0)
    assert not review.settled
    assert review_text(review, NAMES, "zh").startswith("📋 <b>复盘（演示）</b>")
    assert review_text(review, NAMES, "en").startswith("📋 <b>Review (demo)</b>")


def _turning_point(**changes: object) -> TurningPoint:
    """老王 (seat 1) passing on 小美's 2个K in trick 2 where the computer plays 2个A."""
    base: dict[str, object] = {
        "index": 3,
        "seat": 1,
        "trick": 2,
        "ask": Ask.ANSWER,
        "played": Action(1, Do.PASS),
        "suggested": Action(1, Do.PLAY, "AA"),
        "points": 2.6,
        "win": 0.31,
        "rollouts": 8,
        "top_seat": 0,
        "top": "KK",
        "outcome": "smothered",
    }
    return TurningPoint(**(base | changes))  # type: ignore[arg-type]


def test_the_win_chance_is_shown_only_when_it_is_sure() -> None:
    tp = _turning_point()
    assert turning_point_text(tp, NAMES, "zh") == (
        "「小美 2个K」老王 没管：电脑会出 <b>2个A</b>，管上就能把牌权拿回来。"
        "后来 老王 被闷。（−3 分）"
    )
    sure = _turning_point(win_sure=True)
    assert turning_point_text(sure, NAMES, "zh").endswith("（−3 分，胜率 −30%）")


def test_a_burn_claim_reads_as_burning() -> None:
    tp = _turning_point(
        ask=Ask.BURN,
        played=Action(1, Do.PLAY, fmt(parse("AAA"))),
        suggested=Action(1, Do.PASS),
        points=4.4,
        win=0.231,
        rollouts=64,
        win_sure=True,
        top="KKKKK",
        outcome="out",
        rank=3,
    )
    assert turning_point_text(tp, NAMES, "zh") == (
        "「小美 5个K → 老王 3个A」老王 烧了：电脑会不烧，这把烧牌不划算。"
        "老王 最后走了三科。（−4 分，胜率 −25%）"
    )


def test_a_malformed_record_is_refused() -> None:
    with pytest.raises(BadRecord):
        review_game('{"hands": ["3"]}', budget_s=0.1)


def test_taking_over_a_partners_play_says_so() -> None:
    """A suggestion to beat (or burn) the seat's own 联邦 names that, not "win the lead back"."""
    tp = _turning_point(top_seat=3, outcome="out", rank=2)
    assert turning_point_text(tp, NAMES, "zh") == (
        "「王叔 2个K」老王 没管：电脑会出 <b>2个A</b>，联邦的牌也能接过来，自己的牌更好走。"
        "老王 最后走了二科。（−3 分）"
    )


def test_a_reference_made_in_parts_keeps_the_other_parts(tmp_path: Path) -> None:
    """review-bench --make-reference --first K: processes writing one file keep each other's
    games (the same seed, preset, budget, effort and salt), and a new effort starts afresh."""
    from engine.ai.review_bench import _write_reference

    path = tmp_path / "ref.json"

    def made(games: list[int], cap: int) -> dict[str, object]:
        rows = [{"game": g, "picks": [[g], []]} for g in games]
        head = {"seed": 1, "preset": "standard", "budget_s": 60.0, "salt": "reference"}
        return {**head, "effort": {"cap": cap}, "games": len(rows), "reviews": rows}

    _write_reference(path, made([10, 11], 512))
    _write_reference(path, made([0], 512))
    _write_reference(path, made([0, 1], 512))
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert [row["game"] for row in stored["reviews"]] == [0, 1, 10, 11]
    assert stored["games"] == 4
    _write_reference(path, made([3], 128))
    assert [row["game"] for row in json.loads(path.read_text())["reviews"]] == [3]
    assert not list(tmp_path.glob("*.tmp"))

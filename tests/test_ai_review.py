"""The post-game review (复盘, engine/ai/review.py) and its message (renderers/review_text.py):
the reported decisions are real decisions of the record, their alternatives legal there, a
clear blunder is found with a large cost, and a review depends only on the record and the seed.
Budgets are small here: speed is measured by ``python3 -m engine.ai.review_bench``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.actions import Action
from engine.ai import decide
from engine.ai.review import SHOWN, Review, TurningPoint, review_game
from engine.ai.review_bench import ai_game_record
from engine.cards import fmt, parse
from engine.game import Game
from engine.gamerecord import BadRecord, parse_record
from engine.rules import Rules
from engine.vocab import Ask, Do
from renderers.review_text import review_text, turning_point_text

RECORDS = Path(__file__).resolve().parent / "records"  # the shared examples, as committed
NAMES = ["小美", "老王", "张姐", "王叔", "阿强", "小李"]

# casual rules (no 憋3, no 开点): seat 1 leads QQ; seat 2 holds AA, its last cards, and goes
# out 头科 by answering — passing instead lets seat 1 go out first with its 7 and its
# teammates follow with 9 and J, while seat 2 is left near the bottom with its AA
BLUNDER_HANDS = ["555", "QQ7", "AA", "9", "T", "J"]


def _blunder_record() -> str:
    """The blunder position, seat 2 passing, the rest of the game played by the normal AI."""
    game = Game.from_position(Rules.preset_named("casual"), BLUNDER_HANDS, leader=1)
    game.apply(Action(1, Do.PLAY, "QQ"))
    game.apply(Action(2, Do.PASS))
    rng = random.Random(5)
    while (ask := game.asked()) is not None:
        game.apply(decide(game, ask[0], "normal", rng).action)
    return json.dumps(game.record().to_json())


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


def test_a_seeded_game_is_reviewed_and_the_same_seed_gives_the_same_review(
    seeded_game: str,
) -> None:
    review = review_game(seeded_game, budget_s=1.0, rng=random.Random(3))
    assert review.decisions > 100 and review.rollouts > 0
    assert review.compared > review.decisions // 2
    assert any(review.teams), "random play leaves no costly decision"
    _checked(seeded_game, review)
    again = review_game(seeded_game, budget_s=1.0, rng=random.Random(3))
    assert again == review
    stored = json.loads(json.dumps(review.to_json()))
    assert Review.from_json(stored).to_json() == review.to_json()


def test_passing_instead_of_going_out_is_found_as_a_large_cost() -> None:
    text = _blunder_record()
    review = review_game(text, budget_s=0.5, rng=random.Random(2))
    _checked(text, review)
    worst = review.teams[0][0]
    assert (worst.index, worst.seat, worst.ask, worst.played.do) == (1, 2, Ask.ANSWER, Do.PASS)
    assert worst.suggested == Action(2, Do.PLAY, "AA")
    assert worst.points >= 8 and worst.win >= 0.5


def test_the_message_names_trick_player_play_suggestion_and_cost() -> None:
    review = review_game(_blunder_record(), budget_s=0.5, rng=random.Random(2))
    worst = review.teams[0][0]
    zh = turning_point_text(worst, NAMES, "zh")
    assert zh.startswith("第1轮 张姐 过了，电脑建议 出 <b>2个A</b>（−")
    assert "分，胜率 −" in zh
    en = turning_point_text(worst, NAMES, "en")
    assert en.startswith("Trick 1: 张姐 passed; the AI suggests <b>two aces</b> (−")
    whole = review_text(review, NAMES, "zh")
    assert whole.splitlines()[1] == "<b>小美·张姐·阿强</b>" and zh in whole


def test_a_burn_claim_reads_as_burning() -> None:
    tp = TurningPoint(
        index=3,
        seat=1,
        trick=2,
        ask=Ask.BURN,
        played=Action(1, Do.PLAY, fmt(parse("AAA"))),
        suggested=Action(1, Do.PASS),
        points=4.4,
        win=0.231,
        rollouts=64,
    )
    assert turning_point_text(tp, NAMES, "zh") == (
        "第2轮 老王 用 <b>3个A</b> 烧牌，电脑建议 不烧（−4.4 分，胜率 −23%）"
    )


def test_a_malformed_record_is_refused() -> None:
    with pytest.raises(BadRecord):
        review_game('{"hands": ["3"]}', budget_s=0.1)

"""Hand-made sample views: the renderers' bench, their tests, and the fixed palette the table and
game-over pictures are encoded with (:func:`renderers.png.encode_png`)."""

from __future__ import annotations

from engine.rules import STANDARD
from engine.view import Debt, SeatView, TopView
from engine.vocab import Ask, Phase, Status, TributeKind

SAMPLE_HAND = "BBS22AAKKKQQJJJT99988877766655544433"  # 36 cards
SAMPLE_NAMES = ("老王", "Alice", "小李", "Bob", "张三丰", "<b>Eve</b>")  # the bench: mixed, hostile


def sample_view() -> SeatView:
    """A mid-game table: seat 2 burning seat 5's 够级 play, seat 4 finished 头科, seat 1 opened."""
    return SeatView(
        rules=STANDARD,
        seat=None,
        phase=Phase.PLAY,
        to_act=3,
        asked=Ask.ANSWER,
        hand=None,
        top=TopView(seat=2, cards="BS222", gouji=True, burn=True),
        burning=2,
        counts=(14, 9, 7, None, 0, 12),
        partner_hands=(None,) * 6,
        status=(
            Status.ACTIVE,
            Status.ACTIVE,
            Status.ACTIVE,
            Status.ACTIVE,
            Status.FINISHED,
            Status.ACTIVE,
        ),
        ranks=(None, None, None, None, 1, None),
        opened=(False, True, False, False, True, False),
        headless=(False,) * 6,
        passed=(0,),
        revolted=(),
        declared=(),
        yaotou=(),
        tributes=(),
        score=(0, 0),
    )


def sample_over() -> SeatView:
    """A finished game: A takes 头科 二科 三科 (串三户); seat 5 smothered."""
    return SeatView(
        rules=STANDARD,
        seat=None,
        phase=Phase.OVER,
        to_act=None,
        asked=None,
        hand=None,
        top=None,
        burning=None,
        counts=(0, 3, 0, 5, 0, 6),
        partner_hands=(None,) * 6,
        status=(
            Status.FINISHED,
            Status.FINISHED,
            Status.FINISHED,
            Status.FINISHED,
            Status.FINISHED,
            Status.SMOTHERED,
        ),
        ranks=(2, 4, 1, 5, 3, 6),
        opened=(True, False, True, True, False, False),
        headless=(False,) * 6,
        passed=(),
        revolted=(),
        declared=(),
        yaotou=(),
        tributes=(
            Debt(5, 2, TributeKind.MEN, 1),
            Debt(1, 4, TributeKind.CHUAN, 1),
            Debt(3, 0, TributeKind.CHUAN, 1),
            Debt(5, 2, TributeKind.CHUAN, 1),
        ),
        score=(12, 0),
    )

"""docs/rules.md §2 (cards and notation), §3 (plays and their comparison), §4 (够级, 开点牌)."""

from __future__ import annotations

import pytest

from engine.cards import DECK_SIZE, NotationError, fmt, parse, shoe
from engine.legal import beating_plays, can_beat
from engine.plays import Play, beats


def P(text: str) -> Play:
    p = Play.parse(text)
    assert p is not None, text
    return p


# §2 ------------------------------------------------------------------------------------------
def test_notation_is_canonical_strongest_first() -> None:
    assert fmt(parse("999BB22")) == "BB22999"
    assert fmt(parse("3 4 10 T")) == "TT43"
    assert str(P("88SS8")) == "SS888"


def test_notation_rejects_unknown_characters() -> None:
    with pytest.raises(NotationError):
        parse("9X")


def test_four_decks_with_jokers() -> None:
    cards = shoe()
    assert len(cards) == DECK_SIZE == 216
    assert sum(1 for r, _ in cards if r == 14) == 4  # big jokers
    assert sum(1 for r, _ in cards if r == 0) == 16  # 3s


# §3: what is a play -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text", ["8", "KK", "TTTTT", "222", "22777", "BB22999", "B222", "SS", "BS", "S9999"]
)
def test_plays(text: str) -> None:
    assert Play.parse(text) is not None


@pytest.mark.parametrize("text", ["", "89", "KKQ", "2AK", "BS98"])
def test_not_plays(text: str) -> None:
    assert Play.parse(text) is None


# §3: comparison -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("p", "q", "result"),
    [
        ("99999", "88888", True),
        ("S9999", "88888", True),
        ("22888", "99999", False),  # 2s convert: five 8s
        ("BB999", "SS888", True),
        ("BBB99", "SS888", True),
        ("BB888", "SS888", False),  # 8 is not above 8
        ("99", "888", False),  # sizes differ
        ("888", "99", False),
        ("22", "AA", True),  # 2s alone stay 2s
        ("B222", "S222", False),  # 2 is not above 2
        ("B2", "SA", True),
        ("SAA", "BKK", False),  # nothing beats a big joker on top
        ("BB", "B", False),  # without kill_big_joker
        ("44", "33", True),
        ("33", "22", False),
        ("S", "2", True),
        ("B", "S", True),
        ("S", "S", False),
    ],
)
def test_comparison(p: str, q: str, result: bool) -> None:
    assert beats(P(p), P(q)) is result


@pytest.mark.parametrize(
    ("p", "q", "result"),
    [
        ("BB", "B", True),  # 二杀一
        ("SSS", "B", True),  # 三杀一
        ("BB999", "B888", True),
        ("BBB99", "BS88", True),
        ("BB888", "B888", False),  # the rest must beat the rest
        ("SSSB", "BB", False),  # a top with two B is never killed
        ("BSSS", "B", False),  # three S only with no B; and sizes differ for the BB rule
        ("BB", "BB", False),
    ],
)
def test_kill_big_joker(p: str, q: str, result: bool) -> None:
    assert beats(P(p), P(q), kill_big_joker=True) is result
    if result:
        assert not beats(P(p), P(q), kill_big_joker=False)


# §4 -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "gouji", "kaidian"),
    [
        ("2", True, False),
        ("S", True, False),
        ("2JJJ", True, False),  # four Js
        ("22888", False, False),  # five 8s
        ("TTTTT", True, True),
        ("TTTT", False, False),
        ("JJJJ", True, True),
        ("JJJ", False, False),
        ("QQQ", True, True),
        ("QQ", False, False),
        ("KK", True, True),
        ("K", False, False),
        ("AA", True, True),
        ("A", False, False),
        ("S99", True, False),
        ("9999999", False, False),
    ],
)
def test_gouji_and_kaidian(text: str, gouji: bool, kaidian: bool) -> None:
    assert P(text).gouji is gouji
    assert P(text).kaidian is kaidian


# generation agrees with the comparison --------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "top"),
    [
        ("BBSS2222AAKK99943", "88"),
        ("BBSS2222AAKK99943", "S88"),
        ("BBSS2222AAKK99943", "QQQ"),
        ("BS22KKK", "B"),
        ("BBSSS2299", "BS88"),
        ("B9", "SS"),
    ],
)
def test_beating_plays_are_exactly_the_beating_subsets(hand: str, top: str) -> None:
    from itertools import product

    h = parse(hand)
    q = P(top)
    for kill in (False, True):
        got = {str(p) for p in beating_plays(h, q, kill)}
        expected = set()
        ranges = [range(n + 1) for n in h]
        for counts in product(*ranges):
            p = Play.parse(fmt(counts)) if any(counts) else None
            if p is not None and beats(p, q, kill):
                expected.add(str(p))
        assert got == expected, (hand, top, kill)
        assert can_beat(h, q, kill) is bool(expected)

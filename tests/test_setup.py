"""docs/rules.md §5: the deal, 买3/要3, 革命 (and 流局), 要头, 宣点, the first leader."""

from __future__ import annotations

import random
from collections import Counter

from engine.actions import Action
from engine.cards import RANK_CHARS, fmt, shoe
from engine.deal import buy_threes, counts_of, deal, first_leader
from engine.rules import STANDARD, Rules
from engine.setup import Setup
from engine.vocab import Ask, Do, EventType, TributeKind

NO_BIE3 = STANDARD.with_switches({"bie3": False})


def suited(text: str, suit: str = "S") -> list[tuple[int, str]]:
    """Cards of a notation string, all of one suit (jokers have none)."""
    return [(RANK_CHARS.index(c), "" if c in "SB" else suit) for c in text]


def test_deal_gives_36_each_from_four_decks() -> None:
    hands = deal(random.Random(1))
    assert [len(h) for h in hands] == [36] * 6
    assert Counter(c for h in hands for c in h) == Counter(shoe())


def test_first_leader_by_same_suit_fours() -> None:
    hands = [
        suited("4") + suited("4", "H"),
        suited("44", "H"),
        suited("444", "C"),
        suited("444", "D"),
        suited("9"),
        suited("9"),
    ]
    assert first_leader(hands, bie3=True, rng=random.Random(0)) == (2, "fours")  # tie → seat 2
    hands3 = [suited("33"), suited("9"), suited("9"), suited("9"), suited("9"), suited("9")]
    assert first_leader(hands3, bie3=False, rng=random.Random(0)) == (0, "threes")
    nobody = [suited("4") + suited("4", "H")] + [suited("9")] * 5
    seat, reason = first_leader(nobody, bie3=True, rng=random.Random(5))
    assert reason == "random" and 0 <= seat < 6


def test_buy_three_from_opposite_paying_a_two() -> None:
    hands = [list(counts_of(suited(h))) for h in ("2K", "33K", "3K", "333K", "3K", "3K")]
    moves, forced, redeal = buy_threes(hands)
    assert moves == [("buy", 0, 3, 12)] and not forced and not redeal
    assert fmt(hands[0]) == "K3" and fmt(hands[3]) == "2K33"


def test_free_three_from_a_teammate_when_the_opposite_has_no_spare() -> None:
    hands = [list(counts_of(suited(h))) for h in ("SK", "3K", "33K", "3K", "3K", "3K")]
    moves, _forced, _redeal = buy_threes(hands)
    assert moves == [("give", 0, 2, 0)]
    assert fmt(hands[0]) == "SK3"


def test_no_three_and_nothing_to_pay_revolts_and_no_spare_redeals() -> None:
    hands = [list(counts_of(suited(h))) for h in ("KK", "3K", "3K", "3K", "3K", "3K")]
    assert buy_threes(hands)[1] == [0]
    hands = [list(counts_of(suited(h))) for h in ("2K", "3K", "3K", "3K", "3K", "3K")]
    assert buy_threes(hands)[2] is True


def _answer(setup: Setup, choices: dict[str, str]) -> None:
    while setup.asked() is not None:
        seat, kind = setup.asked()  # type: ignore[misc]
        setup.apply(Action(seat, Do(choices.get(kind, setup.options(seat)[-1].do))))


def test_revolution_then_wutou_and_declarations() -> None:
    deal1 = [suited(h) for h in ("2233K", "2S33", "B33", "2333", "2233", "44Q3")]
    setup = Setup(STANDARD, random.Random(1), deals=[deal1])
    assert setup.asked() == (5, Ask.REVOLT)  # only 5 holds no 2 and no joker
    setup.apply(Action(5, Do.REVOLT))
    assert setup.asked() == (2, Ask.YAOTOU)  # 5's 对头 chooses
    setup.apply(Action(2, Do.WUTOU))
    asked = []
    while setup.asked() is not None:
        seat, kind = setup.asked()  # type: ignore[misc]
        assert kind == Ask.DECLARE
        asked.append(seat)
        setup.apply(Action(seat, Do.DECLARE if seat == 0 else Do.NO_DECLARE))
    assert asked == [0, 1, 3, 4]  # not the revolutionary nor its 对头
    game = setup.game
    assert game is not None
    assert game.revolutionary == 5 and game.declared == (0,) and game.opened[2]
    types = [e.type for e in setup.events]
    assert types[:2] == ["dealt", "revolution"] and types[-1] == "leader"


def test_two_revolutions_void_the_deal() -> None:
    deal1 = [suited(h) for h in ("2233K", "2S33", "B33", "2333", "KK33", "44Q3")]
    deal2 = [suited(h) for h in ("2233K", "2S33", "B33", "2333", "2233", "2233")]
    rules = STANDARD.with_switches({"declare_point": False})
    setup = Setup(rules, random.Random(1), deals=[deal1, deal2])
    setup.apply(Action(4, Do.REVOLT))
    setup.apply(Action(5, Do.REVOLT))
    types = [e.type for e in setup.events]
    assert "void_deal" in types and types.count(EventType.DEALT) == 2
    assert setup.game is not None and setup.game.revolutionary is None


def test_later_games_are_led_by_the_previous_daluo() -> None:
    deal1 = [suited(h) for h in ("2233K", "2S33", "B33", "2333", "2233", "2233")]
    setup = Setup(
        NO_BIE3.with_switches({"declare_point": False}),
        random.Random(1),
        number=2,
        leader=4,
        deals=[deal1],
    )
    assert setup.game is not None
    assert setup.game.asked() == (4, Ask.LEAD)
    assert setup.events[-1].to_json() == {"type": "leader", "seat": 4, "reason": "daluo"}


def test_every_preset_deals_and_reaches_play() -> None:
    for name in ("standard", "qingdao", "casual"):
        rng = random.Random(11)
        setup = Setup(Rules.preset_named(name), rng)
        _answer(setup, {})
        assert setup.game is not None
        assert sum(setup.game.counts()) == 216


def test_switches_off_ask_nothing() -> None:
    deal1 = [suited(h) for h in ("2233K", "2S33", "B33", "2333", "2233", "44Q3")]
    # revolution off: 5 (no 2, no joker) is not asked
    rules = STANDARD.with_switches({"revolution": False, "declare_point": False})
    assert Setup(rules, random.Random(1), deals=[deal1]).game is not None
    # yaotou off: after 5 revolts its 对头 is not asked; 无头 it is
    rules = STANDARD.with_switches({"yaotou": False, "declare_point": False})
    setup = Setup(rules, random.Random(1), deals=[deal1])
    setup.apply(Action(5, Do.REVOLT))
    assert setup.game is not None and setup.game.yaotou == () and setup.game.opened[2]


def test_return_tribute_off_asks_no_return() -> None:
    from engine.view import Debt

    deal1 = [suited(h) for h in ("2233K", "2S33", "B33", "2333", "2233", "2233")]
    debts = [Debt(0, 1, TributeKind.LUO, 2)]
    on = Setup(
        NO_BIE3.with_switches({"declare_point": False, "revolution": False}),
        random.Random(1),
        number=2,
        debts=debts,
        leader=0,
        deals=[deal1],
    )
    assert on.asked() == (1, Ask.RETURN)
    # only ranks the payer still holds, never the 2s just received: the 3s
    assert {a.cards for a in on.options(1)} == {"33"}
    off = Setup(
        NO_BIE3.with_switches(
            {"declare_point": False, "revolution": False, "return_tribute": False}
        ),
        random.Random(1),
        number=2,
        debts=debts,
        leader=0,
        deals=[deal1],
    )
    assert off.asked() is None and off.game is not None
    paid = [e for e in off.events if e.type == "tribute_paid"]
    assert paid[0].cards == "22"  # the payer's highest tribute cards

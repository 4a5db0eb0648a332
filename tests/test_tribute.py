"""docs/rules.md §11: tribute owed at the end of a game, and the exchange after the next deal."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from engine.actions import Action, IllegalAction
from engine.cards import parse
from engine.deal import pay_debt, return_choices
from engine.match import Match
from engine.playout import random_action
from engine.ranking import debts
from engine.rules import STANDARD, Rules
from engine.view import Debt
from engine.vocab import Ask, Code, Do, TributeKind

NOBODY_OPEN = [False] * 6
ALL_OPEN = [True] * 6


def kinds(out: list[Debt]) -> list[tuple[int, int, str, int]]:
    return [(d.src, d.dst, d.kind, d.cards) for d in out]


def test_order_men_shao_dian_luo() -> None:
    ranks = [1, 6, 5, 2, 3, 4]  # 头科 0, 二科 3, 三科 4, 四科 5, 二落 2, 大落 1
    out = debts(STANDARD, ranks, ALL_OPEN, [], men=[(5, 2)], shao=[(3, 0, 1)])
    assert kinds(out) == [
        (5, 2, TributeKind.MEN, 1),
        (3, 0, "shao", 1),
        (1, 0, TributeKind.LUO, 2),  # 大落 → 头科 2 cards
        (2, 3, "luo", 1),  # 二落 → 二科 1 card
    ]
    # payer and receiver on one team: waived
    assert kinds(debts(STANDARD, [2, 1, 4, 3, 5, 6], ALL_OPEN, [], [], [])) == []


def test_team_luo_waived_only_with_the_switch() -> None:
    ranks = [2, 1, 4, 3, 5, 6]
    rules = STANDARD.with_switches({"waive_team_tribute": False})
    out = debts(rules, ranks, ALL_OPEN, [], [], [])
    assert kinds(out) == [(5, 1, TributeKind.LUO, 2), (4, 0, "luo", 1)]


def test_men_and_shao_owed_between_teammates() -> None:
    out = debts(STANDARD, [2, 1, 4, 3, 5, 6], ALL_OPEN, [], men=[(1, 3)], shao=[(0, 2, 2)])
    assert kinds(out)[:2] == [(1, 3, TributeKind.MEN, 1), (0, 2, "shao", 2)]


def test_chuan_replaces_men_shao_luo_and_keeps_point_tribute() -> None:
    ranks = [1, 4, 2, 5, 3, 6]  # team A: 头科 二科 三科
    opened = [True, True, False, False, False, True]
    out = debts(STANDARD, ranks, opened, [], men=[(1, 0)], shao=[(3, 2, 1)])
    # pair (0, 3): 0 opened, 3 not → 3 owes 0 one 点贡 (in place of its 串 card)
    # pair (1, 4): 1 opened, 4 not → 4 owes 1 one (a winner's debt stands); 1 gives 串 to 4
    # pair (2, 5): 5 opened, 2 not → 2 owes 5 one 点贡 (a winner's debt stands); 5 gives 串
    assert kinds(out) == [
        (3, 0, "dian", 1),
        (1, 4, "chuan", 1),
        (4, 1, "dian", 1),
        (2, 5, "dian", 1),
        (5, 2, "chuan", 1),
    ]


def test_luo_only_and_off() -> None:
    qingdao = Rules.preset_named("qingdao")
    ranks = [1, 6, 5, 2, 3, 4]
    assert kinds(debts(qingdao, ranks, NOBODY_OPEN, [], [(5, 2)], [(3, 0, 1)])) == [
        (1, 0, TributeKind.LUO, 2),
        (2, 3, "luo", 1),
    ]
    chuan = [1, 4, 2, 5, 3, 6]
    assert kinds(debts(qingdao, chuan, NOBODY_OPEN, [], [], [])) == [
        (3, 0, "chuan", 1),
        (1, 4, "chuan", 1),
        (5, 2, "chuan", 1),
    ]
    assert debts(Rules.preset_named("casual"), ranks, NOBODY_OPEN, [], [(5, 2)], []) == []


def test_payer_gives_highest_and_never_what_it_received() -> None:
    hands = [list(parse(h)) for h in ("BS2K", "95", "S2", "4", "4", "4")]
    received = [[0] * 15 for _ in range(6)]
    assert pay_debt(hands, received, Debt(0, 2, TributeKind.LUO, 2)) == [14, 13]  # B, then S
    # 2 received B and S in this exchange: it pays its own S, then its 2, never the B
    assert pay_debt(hands, received, Debt(2, 1, TributeKind.DIAN, 3)) == [13, 12]
    assert hands[2][14] == 1
    # a payer with no tribute card gives nothing
    assert pay_debt(hands, received, Debt(3, 0, TributeKind.MEN, 1)) == []


def test_return_choices_are_ranks_the_payer_holds() -> None:
    receiver = parse("BKK9954")
    received = parse("B")
    payer = parse("K5333")
    allowed = return_choices(receiver, received, payer)
    assert allowed == parse("KK5")


def finished_first_game(rng: random.Random) -> Match:
    """A match whose first game was played to its end (random plays, deal choices declined)."""
    match = Match(STANDARD, seed=rng.getrandbits(64))
    match.new_game()
    while (ask := match.asked()) is not None:
        seat = ask[0]
        if match.game is None:
            match.apply(match.choices(seat).options[-1])  # decline / 不宣点 / any return
        else:
            match.apply(random_action(match.game, rng))
    return match


@dataclass
class Asked:
    match: Match
    seat: int
    kind: str


def second_deal_ask(rng: random.Random) -> Asked:
    """The first question of game 2's deal phase (after game 1 was played out)."""
    match = finished_first_game(rng)
    match.new_game()
    ask = match.asked()
    assert ask is not None
    return Asked(match, ask[0], ask[1])


def test_match_exchange_and_next_leader() -> None:
    rng = random.Random(7)
    match = finished_first_game(rng)
    first = match.history[0]
    daluo = first.ranks.index(6)
    events = match.new_game()
    paid = [e for e in events if e.type == "tribute_paid"]
    assert [(e.seat, e.to, e.kind) for e in paid] == [
        (d.src, d.dst, d.kind) for d in first.tributes
    ]
    # 还贡 asked of each 落贡 receiver who got cards, with choices of the payer's ranks
    while match.game is None and match.asked() and match.asked()[1] == Ask.RETURN:  # type: ignore[index]
        seat = match.asked()[0]  # type: ignore[index]
        choices = match.choices(seat).options
        assert choices and all(c.do == Do.RETURN for c in choices)
        match.apply(choices[0])
    while match.game is None and match.asked():
        seat = match.asked()[0]  # type: ignore[index]
        match.apply(match.choices(seat).options[-1])
    leader = [e for e in match.setup.events if e.type == "leader"][-1]  # type: ignore[union-attr]
    assert leader.reason == "daluo"
    assert leader.seat == daluo or match.setup.game.status[daluo] == "revolted"  # type: ignore[union-attr]
    assert match.game is not None
    total = sum(sum(h) for h in match.game.hands)
    assert total == 216


def test_bad_return_is_refused() -> None:
    rng = random.Random(3)
    for _ in range(30):
        ask = second_deal_ask(rng)
        match = ask.match
        if ask.kind == Ask.RETURN:
            with pytest.raises(IllegalAction) as err:
                match.apply(Action(ask.seat, Do.RETURN, "BBBBB"))
            assert err.value.code == Code.BAD_RETURN
            return
    raise AssertionError("no 还贡 was asked in 30 matches")


def test_return_prompt_names_payer_and_count() -> None:
    from renderers import prompt_text

    rng = random.Random(3)
    for _ in range(40):
        ask = second_deal_ask(rng)
        match = ask.match
        if ask.kind == Ask.RETURN:
            view = match.view(ask.seat)
            assert view.returning is not None
            payer, count = view.returning
            assert count == len(match.choices(ask.seat).options[0].cards)
            names = [f"P{i}" for i in range(6)]
            assert f"P{payer}" in prompt_text(view, "en", names)
            assert str(count) in prompt_text(view, "zh", names)
            return
    raise AssertionError("no 还贡 was asked")


def test_check_and_apply_agree_on_returns_in_any_card_order() -> None:
    rng = random.Random(3)
    for _ in range(40):
        ask = second_deal_ask(rng)
        match = ask.match
        options = match.choices(ask.seat).options if ask.kind == Ask.RETURN else []
        two = [a for a in options if len(set(a.cards)) == 2]
        if not two:
            continue
        reordered = Action(ask.seat, Do.RETURN, two[0].cards[::-1])
        before = [list(h) for h in match.setup.hands]  # type: ignore[union-attr]
        with pytest.raises(IllegalAction):
            match.check(Action(ask.seat, Do.RETURN, "33333"))
        assert match.setup.hands == before  # type: ignore[union-attr]
        match.check(reordered)  # accepted exactly as apply accepts it
        events = match.apply(reordered)
        assert events[0].type == "tribute_returned"
        return
    raise AssertionError("no two-card 还贡 with two ranks was asked")

"""The per-seat view (docs/rules.md §13 counts_at, partner_cards_at) and the legal-actions API."""

from __future__ import annotations

from engine.actions import Action, IllegalAction
from engine.cards import parse
from engine.game import Game
from engine.legal import answers, beating_plays
from engine.plays import Play
from engine.rules import Rules
from engine.vocab import Ask, Code, Do

QINGDAO = Rules.preset_named("qingdao")  # counts at ≤ 10, partners' hands at ≤ 10


def test_counts_hidden_above_counts_at_and_own_hand_only() -> None:
    hands = ["KKQQJJ9988776655", "44", "5", "6", "7", "T9876543"]
    game = Game.from_position(QINGDAO, hands, 0)
    view = game.view(1)
    assert view.hand == "44"
    assert view.counts == (None, 2, 1, 1, 1, 8)  # seat 0 holds 16: hidden
    assert game.view(0).counts[0] == 16  # but never from its owner
    spectator = game.view(None)
    assert spectator.hand is None and spectator.counts[0] is None


def test_partner_hands_visible_at_partner_cards_at() -> None:
    hands = ["KKQQJJ9988776655", "44", "5", "6", "7", "T9876543"]
    game = Game.from_position(QINGDAO, hands, 0)
    assert game.view(1).partner_hands == (None, None, None, "6", None, "T9876543")
    assert game.view(0).partner_hands == (None,) * 6  # 16 cards: not yet
    standard = Game.from_position(Rules(), hands, 0)
    assert standard.view(1).partner_hands == (None,) * 6  # switch at 0: never


def test_legal_answers_grouped_for_a_phone() -> None:
    hands = ["884", "BS22AAK99", "4", "4", "4", "4"]
    game = Game.from_position(Rules.preset_named("casual"), hands, 0)
    game.apply(Action(0, Do.PLAY, "88"))
    legal = game.legal(1)
    assert legal.ask == Ask.ANSWER and legal.can_pass and not legal.can_yield
    groups = legal.groups()
    assert list(groups) == ["B", "2", "A", "K", "9"]  # strongest group first
    assert {str(p) for p in groups["9"]} == {"99", "29", "S9", "B9"}
    assert {str(p) for p in groups["A"]} >= {"AA", "2A", "SA", "BA"}
    assert game.legal(2).plays == ()  # not asked: nothing


def test_legal_leads_and_burn_duty_menu() -> None:
    game = Game.from_position(Rules(), ["99433", "4", "4", "4", "4", "4"], 0)
    legal = game.legal(0)
    assert legal.ask == Ask.LEAD and legal.any_lead and not legal.can_pass
    leads = {str(p) for p in legal.plays}
    assert leads == {"9", "99", "4"}  # 3s only at the end, alone (憋3)


def test_refused_play_carries_code_and_params() -> None:
    game = Game.from_position(
        Rules.preset_named("casual"), ["999994", "22888TTTTT", "4", "4", "4", "4"], 0
    )
    game.apply(Action(0, Do.PLAY, "99999"))
    try:
        game.apply(Action(1, Do.PLAY, "22888"))
    except IllegalAction as e:
        assert e.code == Code.CANNOT_BEAT
        assert e.params == {"cards": "22888", "top": "99999"}
    else:
        raise AssertionError("22888 must not beat 99999")


def test_copy_is_independent_and_can_hold_other_hands() -> None:
    game = Game.from_position(Rules(), ["99433", "88", "77", "66", "55", "44"], 0)
    sim = game.copy(hands=[[0] * 15] * 6)
    assert sim.hands[0] == [0] * 15 and sum(game.hands[0]) == 5
    twin = game.copy()
    twin.apply(Action(0, Do.PLAY, "99"))
    assert game.asked() == (0, Ask.LEAD) and game.top is None and sum(game.hands[0]) == 5
    assert twin.log and not game.log


def test_answers_are_remembered_by_hand_and_top() -> None:
    """The offered answers are every beating play, in beating_plays' order, and the same shared
    tuple when the same hand meets the same top again (a search's rollouts do, often)."""
    top = Play.parse("99")
    assert top is not None
    hand = list(parse("TTJJJ2BS"))
    first = answers(hand, top)
    assert first == tuple(beating_plays(hand, top))
    assert {str(p) for p in first} >= {"TT", "JJ", "2T", "2J", "BS"}
    assert answers(list(hand), top) is first
    assert answers(tuple(hand), top) is first  # any sequence of the same counts
    # more cards of a rank than the top has make no other answer, nor do lower ranks
    assert answers(list(parse("TTTTJJJ2BS3333")), top) is first
    assert answers(list(parse("TJJJ2BS")), top) != first  # no TT
    # 二杀一 changes only the answers to a top holding one big joker (§13)
    assert answers(hand, top, kill_big_joker=True) is first
    b = Play.parse("B")
    assert b is not None
    assert answers(list(parse("BBS")), b) == ()
    assert {str(p) for p in answers(list(parse("BBS")), b, kill_big_joker=True)} == {"BB"}

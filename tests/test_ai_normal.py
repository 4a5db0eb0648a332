"""The normal level's club-player judgement (engine.ai.play_policy), position by position."""

from __future__ import annotations

import random

from engine.actions import Action
from engine.ai import decide
from engine.game import Game
from engine.rules import Rules
from engine.vocab import Do

OTHERS = ["4", "4", "4", "4"]


def test_spends_a_two_to_regain_the_lead_when_the_rest_runs_out() -> None:
    # seat 0 leads a Q; seat 1 (S 22 99 33) wins the lead with a 2 and can then lead 99 and,
    # with a joker kept to carry its last play before the 3s (§8), go out — the frozen
    # baseline keeps its 2s and passes
    g = Game.from_position(Rules(), ["Q6666777788889999TT", "S229933", *OTHERS], leader=0)
    g.apply(Action(0, Do.PLAY, "Q"))
    assert g.asked() == (1, "answer")
    d = decide(g, 1, "normal", random.Random(1))
    assert (d.action.cards, d.reason) == ("2", "regain_lead")
    assert decide(g, 1, "baseline", random.Random(1)).action.do == "pass"


def test_keeps_the_two_when_the_hand_cannot_run_out() -> None:
    for hand in ("2995533", "229933"):  # too many groups; no joker to carry the last play
        g = Game.from_position(Rules(), ["Q6666777788889999TT", hand, *OTHERS], leader=0)
        g.apply(Action(0, Do.PLAY, "Q"))
        d = decide(g, 1, "normal", random.Random(1))
        assert d.action.do == "pass" and d.reason == "pass_save", hand


def test_goes_out_over_a_teammate() -> None:
    # seat 2 (a teammate of seat 0) can finish on seat 0's play: it does
    rules = Rules.preset_named("casual")  # no 憋3: TT is the whole hand
    g = Game.from_position(rules, ["99666", "4", "TT", "4", "5", "5"], leader=0)
    g.apply(Action(0, Do.PLAY, "99"))
    assert g.asked() == (2, "answer")
    d = decide(g, 2, "normal", random.Random(1))
    assert (d.action.cards, d.reason) == ("TT", "go_out")


def test_declines_a_burn_the_duty_cannot_complete_and_says_why() -> None:
    # seat 1 could burn seat 0's KK with AA, but 22 and 3s would be left with no joker: under
    # 憋3 the 2s cannot go out with the 3s, so it would be 诈烧
    g = Game.from_position(Rules(), ["KK456789TJ", "AA22333", "3", "QQ3", "3", "3"], leader=0)
    g.apply(Action(0, Do.PLAY, "KK"))
    assert g.asked() == (1, "burn")
    d = decide(g, 1, "normal", random.Random(1))
    assert d.action.do == "pass" and d.reason == "burn_infeasible"
    assert d.params == {"leads": 1, "jokers": 0}
    # with a big joker the burn can be completed: AA, then B22, then 333
    g = Game.from_position(Rules(), ["KK456789TJ", "AAB22333", "3", "QQ3", "3", "3"], leader=0)
    g.apply(Action(0, Do.PLAY, "KK"))
    d = decide(g, 1, "normal", random.Random(1))
    assert d.reason == "burn_feasible" and d.action.do == "play"


def test_a_top_whose_owner_went_out_is_about_the_lead() -> None:
    # §6.5: seat 0 goes out with 99; if it stands, 接风 gives the lead to seat 1. Seat 1 lets
    # it come; seat 2, seat 0's teammate, beats the play rather than hand the lead to the
    # other team (the frozen baseline passes: "a teammate's play")
    rules = Rules.preset_named("casual")
    g = Game.from_position(rules, ["99", "TT5555", "JJ6666", "4444", "7777", "8888"], leader=0)
    g.apply(Action(0, Do.PLAY, "99"))
    d = decide(g, 1, "normal", random.Random(1))
    assert (d.action.do, d.reason) == ("pass", "pass_wind")
    g.apply(d.action)
    assert g.asked() == (2, "answer")
    d = decide(g, 2, "normal", random.Random(1))
    assert (d.action.cards, d.reason) == ("JJ", "beat_cheap")
    assert decide(g, 2, "baseline", random.Random(1)).reason == "pass_teammate"

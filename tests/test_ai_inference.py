"""What the hidden seats' own choices say about their hands (engine.ai.inference): real hands
make their own choices, the public history is read without a hand, and the hard level's deals
agree with those choices more often than deals that ignore them."""

from __future__ import annotations

import copy
import random

from test_ai_blind import _twin_pairs

from engine.ai import decide
from engine.ai.deals import deal_hidden
from engine.ai.inference import Checks, Choice, agrees, recent_choices
from engine.ai.knowledge import from_view
from engine.game import Game
from engine.match import Match
from engine.rules import Rules


def _normal_game(seed: int, steps: int) -> Game:
    """A game of six normal players, ``steps`` actions in."""
    match = Match(Rules(), seed=seed)
    match.new_game()
    for i in range(steps):
        ask = match.asked()
        assert ask is not None
        match.apply(decide(match, ask[0], "normal", random.Random(i)).action)
    assert match.game is not None
    return match.game


def _choices(game: Game, seat: int, window: int) -> list[Choice]:
    """The choices of every active seat but ``seat`` (their counts as the table sees them)."""
    counts = [sum(h) if game.active(s) else 0 for s, h in enumerate(game.hands)]
    hidden = {s for s in range(6) if s != seat and game.active(s)}
    choices = recent_choices(game, hidden, counts, window)
    assert {c.action.seat for c in choices} <= hidden
    return choices


def _key(game: Game, seat: int, window: int) -> list[str]:
    return [repr(c) for c in _choices(game, seat, window)]


def test_real_hands_make_their_own_choices() -> None:
    """Six normal players: with its real hand, the normal policy makes nearly every choice a
    seat made (only its estimates' sampling differs from the table's)."""
    agreed = total = 0
    for seed in (1, 2, 3):
        game = _normal_game(seed, 90)
        choices = _choices(game, game.asked()[0], 40)  # type: ignore[index]
        assert choices
        rng = random.Random(seed)
        for c in choices:
            before = copy.deepcopy(c)
            total += 1
            agreed += agrees(c, game.hands[c.action.seat], rng)
            assert c == before  # a check reads the choice, it does not fill it in
    assert agreed >= 0.95 * total


def test_the_public_history_is_followed_from_search_to_search() -> None:
    """The replayed history is kept with the game and followed on as the log grows: the same
    choices as a fresh replay of a copy."""
    match = Match(Rules(), seed=7)
    match.new_game()
    checked = 0
    for i in range(160):
        ask = match.asked()
        assert ask is not None
        game = match.game
        if game is not None and len(game.log) in (40, 41, 60, 119):
            seat = ask[0]
            assert _key(game, seat, 12) == _key(game.copy(), seat, 12)
            assert _key(game, seat, 20) == _key(game.copy(), seat, 20)  # a wider window
            checked += 1
        match.apply(decide(match, ask[0], "normal", random.Random(i)).action)
    assert checked == 4


def test_twin_games_give_identical_choices() -> None:
    """No hand is read: games whose public histories are identical but whose hidden hands
    differ give the same choices to check, with the same knowledge of the table then."""
    pairs = _twin_pairs(6)
    assert len(pairs) >= 4
    for a, b, seat in pairs:
        assert _key(a, seat, 30) == _key(b, seat, 30)


def test_deals_agree_with_the_seats_choices() -> None:
    """Deals checked against the hidden seats' recent choices (kept to the best of a few
    mixes) agree with all of them more often than deals that ignore them."""
    with_checks = without = 0
    for seed in (4, 5, 6, 8):
        game = _normal_game(seed, 110)
        seat = game.asked()[0]  # type: ignore[index]
        view = game.view(seat)
        k = from_view(view, game.log)
        partners = list(view.partner_hands)
        hidden = {s for s in range(6) if s != seat and k.active[s] and partners[s] is None}
        choices = recent_choices(game, hidden, k.counts, 12)
        assert choices
        checks = Checks(choices, random.Random(seed))
        rng = random.Random(seed)
        for _ in range(12):
            with_checks += not checks.missed(deal_hidden(k, partners, rng, checks))
            without += not checks.missed(deal_hidden(k, partners, rng))
    assert with_checks > without

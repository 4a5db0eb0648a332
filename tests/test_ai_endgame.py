"""The exact endgame search (engine.ai.endgame, docs/rules.md §12 四户乱缠): its positions follow
the engine move by move to the same final score, its alpha-beta value is the plain minimax value,
and the hard level plays the best action when every card left is known."""

from __future__ import annotations

import random

import pytest

from engine.actions import Action
from engine.ai import decide
from engine.ai.endgame import Move, Solver, State, TooBig
from engine.game import Game
from engine.match import Match
from engine.rules import Rules
from engine.vocab import Do


def _four_way(seed: int, until_cards: int = 1000) -> Game | None:
    """A game of six normal players from the first moment of 四户乱缠 with at most
    ``until_cards`` cards in play, or None if the game ends before."""
    match = Match(Rules(), seed=seed)
    match.new_game()
    i = 0
    while (ask := match.asked()) is not None:
        g = match.game  # None in the deal phase
        in_play = 0 if g is None else sum(sum(g.hands[s]) for s in range(6) if g.active(s))
        if g is not None and g.four_way and in_play <= until_cards:
            return g.copy()
        match.apply(decide(match, ask[0], "normal", random.Random(i)).action)
        i += 1
    return None


def _action(st: State, move: Move) -> Action:
    return Action(st.seat, Do.PASS) if move is None else Action(st.seat, Do.PLAY, str(move))


def test_the_solver_plays_the_games_rules() -> None:
    """Random moves from the solver's menu, carried out by the engine too: the same position
    after every move (hands, top, §8 flag, who is asked, ranks so far) and the same score."""
    rng = random.Random(3)
    games = steps = 0
    for seed in range(14):
        start = _four_way(seed)
        if start is None:
            continue
        for _ in range(3):
            game = start.copy()
            solver = Solver(game)
            st = solver.start(game)
            while True:
                assert st == solver.start(game)
                move = rng.choice(solver.moves(st))
                game.apply(_action(st, move))  # the engine checks the move is legal
                steps += 1
                nxt = solver.step(st, move)
                if isinstance(nxt, int):
                    assert game.over
                    sa, sb = game.score()
                    assert nxt == sa - sb
                    games += 1
                    break
                assert not game.over
                st = nxt
    assert games >= 30 and steps > 1000


def _minimax(solver: Solver, st: State) -> int:
    best = None
    for move in solver.moves(st):
        nxt = solver.step(st, move)
        v = nxt if isinstance(nxt, int) else _minimax(solver, nxt)
        if best is None or (v > best if st.seat % 2 == 0 else v < best):
            best = v
    assert best is not None
    return best


def test_alpha_beta_finds_the_minimax_value() -> None:
    checked = 0
    for seed in range(40):
        game = _four_way(seed, until_cards=11)
        if game is None:
            continue
        solver = Solver(game, limit=10**6)
        st = solver.start(game)
        assert solver.value(st) == _minimax(Solver(game), st)
        checked += 1
        if checked == 8:
            break
    assert checked >= 5


def test_the_solver_gives_up_past_its_limit() -> None:
    game = _four_way(0)
    assert game is not None
    solver = Solver(game, limit=50)
    with pytest.raises(TooBig):
        solver.value(solver.start(game))
    fresh = _normal_start(0)
    with pytest.raises(ValueError, match="四户乱缠"):
        Solver(fresh)  # before 四户乱缠 the game has burns, 够级 and 让牌


def _normal_start(seed: int) -> Game:
    """The first play of a game of six normal players."""
    match = Match(Rules(), seed=seed)
    match.new_game()
    i = 0
    while match.game is None:
        ask = match.asked()
        assert ask is not None
        match.apply(decide(match, ask[0], "normal", random.Random(i)).action)
        i += 1
    return match.game


def test_hard_plays_a_known_endgame_best() -> None:
    """Two players left on opposite teams and no dead cards (a revolutionary's, a smothered
    player's): every card left is known, and the hard level's action is one of the actions
    with the best exact value (the normal level's sometimes is not)."""
    found = differs = 0
    for seed in range(150):
        match = Match(Rules(), seed=seed)
        match.new_game()
        i = 0
        while (ask := match.asked()) is not None:
            g = match.game
            seat = ask[0]
            live = [s for s in range(6) if g is not None and g.active(s)]
            dead = g is not None and any(sum(g.hands[s]) for s in range(6) if s not in live)
            if g is not None and len(live) == 2 and not dead and sum(map(sum, g.hands)) <= 16:
                legal = g.legal(seat)
                acts = [Action(seat, Do.PASS)] if legal.can_pass else []
                acts += [Action(seat, Do.PLAY, str(p)) for p in legal.plays]
                values = Solver(g, limit=10**6).values(g, g.hands, acts)
                best = max(values) if seat % 2 == 0 else min(values)
                hard = decide(match, seat, "hard", random.Random(i), samples=4)
                normal = decide(match, seat, "normal", random.Random(i))
                if len(acts) > 1 and hard.action in acts:
                    assert values[acts.index(hard.action)] == best
                    found += 1
                    if normal.action in acts and values[acts.index(normal.action)] != best:
                        differs += 1
                        assert hard.reason == "endgame_known"
            match.apply(decide(match, seat, "normal", random.Random(i)).action)
            i += 1
    assert found >= 20, found
    assert differs >= 1, differs

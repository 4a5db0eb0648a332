"""The rollouts' speed paths make exactly what the plain code made: a rollout seat's knowledge
(engine.ai.rollout._Table) equals the Knowledge built field by field, also when the table is
kept up to date play by play rather than read afresh; an answer's cost
(engine.ai.play_policy.answer_cost, its per-play parts remembered) equals the sums written
out; and the going-out plan after an answer (_runs_out_after) equals the plan written out.
(The AI's decisions are fingerprinted by tests/test_ai_fingerprint.py; the review's rollouts
by these and that.)"""

from __future__ import annotations

import random
from dataclasses import fields

from engine.ai import decide
from engine.ai.knowledge import Knowledge
from engine.ai.play_policy import (
    BROKEN_GROUP,
    COST_BIG,
    COST_SMALL,
    COST_TWO,
    LAST_BIG_CARRIER,
    PLAN_SLACK,
    PLAN_SLACK_BOUND,
    RANK_VALUE,
    SHED_CREDIT,
    WHOLE_GROUP,
    _runs_out_after,
    answer_cost,
    body_ranks,
)
from engine.ai.rollout import _Table
from engine.cards import BIG, DECK_COUNTS, SMALL, THREE, TWO, minus
from engine.game import Game
from engine.match import Match
from engine.plays import Play
from engine.rules import Rules


def _written_out(h: list[int], p: Play, bound: bool) -> float:
    """answer_cost as it was first written (the sums in this order)."""
    c = p.counts
    cost = c[TWO] * COST_TWO + c[SMALL] * COST_SMALL + c[BIG] * COST_BIG - SHED_CREDIT * sum(c)
    for base in range(TWO):
        if c[base]:
            cost += RANK_VALUE[base] + (WHOLE_GROUP if h[base] == c[base] else BROKEN_GROUP)
            break
    if bound and c[BIG] and h[BIG] == c[BIG]:
        cost += LAST_BIG_CARRIER
    return cost


def _runs_out(after: list[int], bound: bool) -> bool:
    """The going-out plan as first written, on the hand after the answer (§6, §8)."""
    groups = len(body_ranks(after, bound))
    control = after[TWO] + after[SMALL] + after[BIG]
    if bound and after[THREE]:
        return groups <= control + PLAN_SLACK_BOUND and (
            groups == 0 or after[SMALL] + after[BIG] > 0
        )
    return groups <= control + PLAN_SLACK


def _knowledge(sim: Game, seat: int, table: _Table, unseen: list[int]) -> Knowledge:
    """The Knowledge of ``seat`` built by its constructor from what the table reads."""
    hand = sim.hands[seat]
    top = sim.top
    ask = sim.ask
    return Knowledge(
        seat=seat,
        rules=sim.rules,
        ask=ask[1] if ask else "",
        hand=hand,
        top_seat=top.seat if top else None,
        top=top.play if top else None,
        top_gouji=top.gouji if top else False,
        top_burn=top.burn if top else False,
        burning=sim.burning,
        four_way=sim.four_way,
        counts=table.counts,
        active=table.active,
        passed=frozenset(sim.passed),
        opened=sim.opened,
        headless=table.headless,
        pool=[u - h if u > h else 0 for u, h in zip(unseen, hand, strict=True)],
        threes_played=table.threes_played,
    )


def test_the_fast_paths_equal_the_plain_ones() -> None:
    seen = plans = 0
    for preset, seed in (("standard", 3), ("qingdao", 5), ("casual", 7)):
        match = Match(Rules.preset_named(preset), seed=seed)
        match.new_game()
        rngs = [random.Random(seed * 6 + s) for s in range(6)]
        while (ask := match.asked()) is not None and match.game is None:
            match.apply(decide(match, ask[0], "normal", rngs[ask[0]]).action)
        game = match.game
        assert game is not None
        unseen = list(DECK_COUNTS)
        kept = _Table(game)  # one table for the whole game, as a rollout keeps it
        while (ask := game.asked()) is not None:
            seat = ask[0]
            table = _Table(game)
            k = table.knowledge(game, seat, unseen)
            want = _knowledge(game, seat, table, unseen)
            assert k == want
            kept.refresh(game)
            assert kept.knowledge(game, seat, unseen) == want  # kept up to date, not read again
            assert {f.name for f in fields(Knowledge)} == set(k.__dict__)
            legal = game.legal(seat)
            for p in legal.plays:
                for bound in (False, True):
                    assert answer_cost(k.hand, p, bound) == _written_out(k.hand, p, bound)
                    seen += 1
                    groups = len(body_ranks(k.hand, bound))
                    plain = _runs_out(list(minus(k.hand, p.counts)), bound)
                    assert _runs_out_after(k.hand, p, bound, groups) == plain
                    plans += plain
            act = decide(game, seat, "normal", rngs[seat]).action
            game.apply(act)
            if act.cards:
                played = Play.parse(act.cards)
                assert played is not None
                unseen = [u - n for u, n in zip(unseen, played.counts, strict=True)]
                kept.played(game, seat, played)
    assert seen > 1000
    assert 100 < plans < seen  # the plan both holds and fails, often

"""The 'hard' player: the normal policy plus determinized rollouts (perfect-information Monte
Carlo) within a time budget.

Each iteration deals the hidden cards at random, consistently with what the seat has seen
(the pool of unseen cards, every seat's count, a 3 for each seat still bound by 憋3, teammates'
hands shown by §13 ``partner_cards_at``), into a copy of the game — the real hands of other seats
are never read: the copy's are overwritten — and plays each candidate action out to the end of
the game with the normal policy for all six seats. The candidate with the best mean result
(a win counts most, the score margin a little) is chosen; the normal choice wins ties.
"""

from __future__ import annotations

import math
import random
import statistics
import time

from ..actions import Action
from ..cards import DECK_COUNTS, NRANKS, THREE, parse
from ..game import Game
from ..legal import Legal
from ..plays import Play
from ..seats import team
from ..vocab import Ask, Do
from .decision import Decision
from .knowledge import Knowledge
from .play_policy import answer_cost, body_ranks, decide_play

MIN_ROUNDS = 6  # below this many determinizations the normal choice is kept
MAX_CANDIDATES = 4
MARGIN = 0.03  # another candidate must beat the normal choice by this much (result units)…
Z = 1.5  # …and by this many standard errors of the paired differences
ROLLOUT_LIMIT = 3000


def deal_hidden(k: Knowledge, partners: list[str | None], rng: random.Random) -> list[list[int]]:
    """Hands for every seat: this seat's own, known teammates' (§13), the rest sampled from the
    pool with each seat's count and, under 憋3, a 3 for each seat that has not played its 3s."""
    me = k.seat
    hands = [[0] * NRANKS for _ in range(6)]
    hands[me] = list(k.hand)
    pool = list(k.pool)
    unknown: list[int] = []
    for s in range(6):
        if s == me or not k.active[s]:
            continue
        shown = partners[s]
        if shown is not None:
            c = parse(shown)
            hands[s] = list(c)
            pool = [max(p - x, 0) for p, x in zip(pool, c, strict=True)]
        else:
            unknown.append(s)
    cards = [r for r in range(NRANKS) for _ in range(pool[r])]
    rng.shuffle(cards)
    need = {s: min(k.counts[s], len(cards)) for s in unknown}
    if k.rules.bie3:
        for s in unknown:
            if need[s] and not k.threes_played[s] and THREE in cards:
                cards.remove(THREE)
                hands[s][THREE] += 1
                need[s] -= 1
    pos = 0
    for s in unknown:
        n = min(need[s], len(cards) - pos)
        for r in cards[pos : pos + n]:
            hands[s][r] += 1
        pos += n
    return hands


def sim_knowledge(sim: Game, seat: int, played: list[int]) -> Knowledge:
    """A rollout seat's knowledge, read from the simulated game (all of it sampled)."""
    hand = sim.hands[seat]
    top = sim.top
    ask = sim.ask
    return Knowledge(
        seat=seat,
        rules=sim.rules,
        ask=ask[1] if ask else "",
        hand=list(hand),
        top_seat=top.seat if top else None,
        top=top.play if top else None,
        top_gouji=top.gouji if top else False,
        top_burn=top.burn if top else False,
        burning=sim.burning,
        four_way=sim.four_way,
        counts=[sum(h) if sim.active(s) else 0 for s, h in enumerate(sim.hands)],
        active=[sim.active(s) for s in range(6)],
        passed=frozenset(sim.passed),
        opened=list(sim.opened),
        headless=[sim.headless(s) for s in range(6)],
        pool=[max(DECK_COUNTS[r] - hand[r] - played[r], 0) for r in range(NRANKS)],
        threes_played=[sim.status[s] != "active" for s in range(6)],
    )


def rollout(sim: Game, me: int, played: list[int], rng: random.Random) -> float:
    """Play ``sim`` out with the normal policy; the result for ``me``'s team: +1 a win, 0.5 a
    tie, 0 a loss, plus a little for the margin."""
    steps = 0
    while (ask := sim.asked()) is not None:
        seat, kind = ask
        top = sim.top
        if kind != Ask.LEAD and top is not None and (top.seat - seat) % 2 == 0:
            sim.apply(Action(seat, Do.PASS))  # the normal policy never beats a teammate
            continue
        legal = sim.legal(seat)
        k = sim_knowledge(sim, seat, played)
        ch = decide_play(k, legal.plays, legal.can_yield, rng)
        sim.apply(Action(seat, Do(ch.do), str(ch.play) if ch.play is not None else ""))
        if ch.play is not None:
            for r, n in enumerate(ch.play.counts):
                played[r] += n
        steps += 1
        if steps > ROLLOUT_LIMIT:
            break
    sa, sb = sim.score()
    diff = (sa - sb) if team(me) == 0 else (sb - sa)
    return (1.0 if diff > 0 else 0.5 if diff == 0 else 0.0) + diff / 240.0


def candidates(k: Knowledge, legal: Legal, normal: Action) -> list[Action]:
    """A few sensible actions to compare, the normal choice first."""
    me = k.seat
    out: list[Action] = [normal]

    def add(act: Action) -> None:
        if act not in out and len(out) < MAX_CANDIDATES:
            out.append(act)

    h = k.hand
    bound = k.bound
    if k.ask == Ask.LEAD:
        if k.burning == me:
            return out
        for r in body_ranks(h, bound)[:3]:
            c = [0] * NRANKS
            c[r] = h[r]
            add(Action(me, Do.PLAY, str(Play(tuple(c)))))
        return out
    ranked = sorted(legal.plays, key=lambda p: answer_cost(h, p, bound))
    if legal.can_pass:
        add(Action(me, Do.PASS))
    if legal.can_yield:
        add(Action(me, Do.YIELD))
    for p in ranked[:2]:
        add(Action(me, Do.PLAY, str(p)))
    return out


def search(
    game: Game,
    k: Knowledge,
    legal: Legal,
    normal: Decision,
    rng: random.Random,
    deadline: float,
) -> Decision | None:
    """The best candidate by rollouts, or None to keep the normal choice (one candidate, or
    not enough time for :data:`MIN_ROUNDS` determinizations)."""
    cands = candidates(k, legal, normal.action)
    if len(cands) < 2:
        return None
    partners = list(game.view(k.seat).partner_hands)
    base_played = [0] * NRANKS
    for r in range(NRANKS):
        base_played[r] = DECK_COUNTS[r] - k.hand[r] - k.pool[r]
    # results[i][j]: candidate i in determinization j (the same deal and rollout seed for all
    # candidates: common random numbers, so differences are compared pair by pair)
    results: list[list[float]] = [[] for _ in cands]
    start = time.perf_counter()
    while True:
        now = time.perf_counter()
        rounds = len(results[0])
        if rounds and now + (now - start) / rounds > deadline:
            break
        hands = deal_hidden(k, partners, rng)
        seed = rng.random()
        for i, act in enumerate(cands):
            sim = game.copy(hands=hands, keep_log=False)  # rollouts count cards themselves
            sim.apply(act)
            played = list(base_played)
            if act.cards:
                for r, n in enumerate(parse(act.cards)):
                    played[r] += n
            results[i].append(rollout(sim, k.seat, played, random.Random(seed)))
    rounds = len(results[0])
    if rounds < MIN_ROUNDS:
        return None
    best, best_gain = 0, 0.0
    for i in range(1, len(cands)):
        diffs = [a - b for a, b in zip(results[i], results[0], strict=True)]
        gain = statistics.fmean(diffs)
        spread = statistics.pstdev(diffs) / math.sqrt(rounds)
        if gain > MARGIN + Z * spread and gain > best_gain:
            best, best_gain = i, gain
    if best == 0:
        return None
    act = cands[best]
    win = statistics.fmean(results[best])
    params: dict[str, str | int] = {"rollouts": rounds, "win": round(100 * min(max(win, 0.0), 1.0))}
    if act.cards:
        params["cards"] = act.cards
    return Decision(act, "search", params)

"""The 'hard' player: the normal policy plus a search over deals of the hidden cards
(perfect-information Monte Carlo with successive halving over a set of candidate actions), and
an exact search of small endgames.

No hidden information: the deals are made from the deciding seat's
:class:`~engine.ai.knowledge.Knowledge` alone (:mod:`engine.ai.deals`). The simulated game is
a copy of the table's game whose hands are all replaced by the dealt ones and whose
hand-derived facts (the top's §8 penultimate flag) are recomputed from them
(``Game.copy(hands=...)``), so nothing of the real hidden hands survives.

The search runs only late in the game (:func:`worth_searching`), where rollouts are short.
Each candidate (:func:`candidates`) is played out to the end of the game by the normal policy
for all six seats (:mod:`engine.ai.rollout`), on the same deals and rollout seeds for every
candidate (common random numbers). Candidates are halved by their mean result; the survivor
replaces the normal choice only when it is better by a margin that the paired differences
support (:func:`_gate`). In §12 四户乱缠 near the end the rest of the game is solved exactly
for each deal instead (:func:`solve_endgame`, :mod:`engine.ai.endgame`). Design and
measurements: docs/ai.md.
"""

from __future__ import annotations

import math
import random
import statistics
import threading
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Literal

from ..actions import Action
from ..cards import BIG, DECK_COUNTS, NRANKS, SMALL, THREE, TWO, minus
from ..game import Game
from ..legal import Legal, duty_feasible
from ..plays import Play, as_play
from ..seats import team
from ..view import SeatView
from ..vocab import Ask, Do
from .deals import deal_hidden
from .endgame import Solver, TooBig
from .inference import Checks, recent_choices
from .knowledge import Knowledge, could_beat, group_evidence
from .play_policy import answer_cost, body_ranks
from .rollout import result_of, rollout, win_part

MIN_ROUNDS = 6  # fewer deals than this and the normal choice is kept: too few to judge by
MAX_CANDIDATES = 4  # actions compared, the normal one included (more spread the deals thin)
MARGIN = 0.02  # another action must beat the normal one by this much (result units)…
Z = 1.5  # …and by this many standard errors of the paired differences (few false overrides)
HALVING_ROUNDS = (4, 8, 16, 32)  # after so many deals the worse half of the others is dropped
SEARCH_FROM_OWN = 14  # search once this seat holds this many cards or fewer (short rollouts)…
SEARCH_FROM_OTHER = 8  # …or another active seat does
EXACT_CARDS = 20  # §12 四户乱缠 with this many cards or fewer in play is solved exactly
EXACT_NODES = 2000  # positions per deal before the exact search gives way (some 45 ms)

Found = tuple[Action, str, dict[str, str | int]]  # the action, its reason and the reason's params


def _group(rank: int, n: int) -> Play | None:
    c = [0] * NRANKS
    c[rank] += n
    return as_play(tuple(c))


def candidates(k: Knowledge, legal: Legal, normal: Action) -> list[Action]:
    """Sensible actions to compare, the normal choice first: for a lead the lowest groups,
    splits of a group, 2s and jokers led to win the lead back, going out; for an answer pass,
    yield and the cheapest beats with and without control cards; for a burn claim the
    burns that keep the duty feasible (§7); while burning, the leads that keep it feasible."""
    me = k.seat
    out: list[Action] = [normal]

    def add(p: Play | None) -> None:
        if p is None:
            return
        act = Action(me, Do.PLAY, str(p))
        if act not in out and len(out) < MAX_CANDIDATES:
            out.append(act)

    h = k.hand
    bound = k.bound
    if k.ask == Ask.LEAD:
        if k.burning == me:
            for p in legal.plays:
                after = minus(h, p.counts)
                if sum(after) == 0 or duty_feasible(after, bound and after[THREE] > 0):
                    add(p)
            return out
        body = body_ranks(h, bound)
        for r in body[:2]:
            add(_group(r, h[r]))
        if body:
            add(_group(body[-1], h[body[-1]]))  # the strongest group, to keep the lead
        if body and h[body[0]] >= 2:
            add(_group(body[0], h[body[0]] - 1))  # keep one back (a split)
        if h[TWO]:
            add(_group(TWO, h[TWO]))
        if h[BIG]:
            add(_group(BIG, 1))
        if h[SMALL]:
            add(_group(SMALL, 1))
        return out
    if k.ask == Ask.BURN:
        if legal.can_pass and Action(me, Do.PASS) not in out:
            out.append(Action(me, Do.PASS))
        for p in sorted(legal.plays, key=lambda p: answer_cost(h, p, bound)):
            after = minus(h, p.counts)
            if sum(after) == 0 or duty_feasible(after, bound and after[THREE] > 0):
                add(p)
        return out
    if legal.can_pass and Action(me, Do.PASS) not in out:
        out.append(Action(me, Do.PASS))
    if legal.can_yield and Action(me, Do.YIELD) not in out:
        out.append(Action(me, Do.YIELD))
    ranked = sorted(legal.plays, key=lambda p: answer_cost(h, p, bound))
    plain = [p for p in ranked if not (p.counts[TWO] or p.counts[SMALL] or p.counts[BIG])]
    ctrl = [p for p in ranked if p not in plain]
    for p in plain[:2]:
        add(p)
    for p in ctrl[:2]:
        add(p)
    return out


def worth_searching(k: Knowledge) -> bool:
    """The search is spent where rollouts are short and decisions weigh most: once this seat
    or another active one is near the end of its hand (early on, the normal choice is kept:
    long rollouts are few and noisy within the budget)."""
    mate = k.top_seat is not None and team(k.top_seat) == team(k.seat) and k.active[k.top_seat]
    if k.ask != Ask.LEAD and mate:  # (a teammate gone out: the lead is at stake, 接风 §6.5)
        return sum(k.hand) <= (k.top.size if k.top else 0)  # a teammate's trick: go out or not
    live = [k.counts[s] for s in range(6) if k.active[s] and s != k.seat]
    return sum(k.hand) <= SEARCH_FROM_OWN or (bool(live) and min(live) <= SEARCH_FROM_OTHER)


def search(
    game: Game,
    view: SeatView,
    k: Knowledge,
    legal: Legal,
    normal: Action,
    rng: random.Random,
    deadline: float,
    samples: int | None = None,
    stop: threading.Event | None = None,
) -> Found | None:
    """The best candidate by rollouts (or, near the end of 四户乱缠, by the exact search), or
    None to keep the normal choice (one candidate, too few deals, no candidate clearly better,
    or ``stop`` set). With ``samples`` the search makes exactly that many deals, whatever the
    time. ``k`` (the seat's knowledge, :func:`~engine.ai.knowledge.from_view`) is only read."""
    # §12 near the end: solved exactly, or by the rollouts when too big
    exact = k.four_way and sum(k.counts[s] for s in range(6) if k.active[s]) <= EXACT_CARDS
    cands = candidates(k, legal, normal)
    by_rollouts = worth_searching(k) and len(cands) >= 2
    if not exact and not by_rollouts:
        return None
    # the evidence only the deals read (the normal level does not spend the passes over the
    # log), in a new value: the caller's knowledge is left as it was
    k = replace(
        k,
        not_held=k.not_held if k.not_held is not None else group_evidence(game.log, k.rules),
        beat_then=k.beat_then if k.beat_then is not None else could_beat(game.log, k.rules),
        # how many cards were dealt is public (every seat's count at the start is shown)
        all_dealt=sum(map(sum, game.start_hands)) == sum(DECK_COUNTS),
    )
    partners = list(view.partner_hands)
    hidden = {s for s in range(6) if s != k.seat and k.active[s] and partners[s] is None}
    checks = Checks(recent_choices(game, hidden, k.counts), random.Random(rng.random()))
    if exact:
        found = solve_endgame(
            game, k, legal, normal, partners, hidden, rng, checks, deadline, samples, stop
        )
        if found is not False:
            return found
        if not by_rollouts:
            return None
    base_unseen = [k.hand[r] + k.pool[r] for r in range(NRANKS)]  # not played yet
    # results[i][j]: candidate i in deal j (the same deal and rollout seed for all live
    # candidates: common random numbers, so differences are compared pair by pair)
    results: list[list[float]] = [[] for _ in cands]
    alive = list(range(len(cands)))
    start = time.perf_counter()
    rounds = 0
    while True:
        if stop is not None and stop.is_set():
            return None
        if samples is not None:
            if rounds >= samples:
                break
        else:
            now = time.perf_counter()
            per = (now - start) / rounds if rounds else 0.0
            if rounds and now + per > deadline:
                break
        hands = deal_hidden(k, partners, rng, checks)
        seed = rng.random()
        for i in alive:
            results[i].append(rollout(game, hands, cands[i], k.seat, base_unseen, seed))
        rounds += 1
        # successive halving: keep the better half (the normal choice always stays, as the
        # reference)
        if rounds in HALVING_ROUNDS and len(alive) > 2:
            means = {i: statistics.fmean(results[i][-rounds:]) for i in alive}
            ranked = sorted((i for i in alive if i != 0), key=lambda i: -means[i])
            keep = ranked[: max(1, (len(ranked) + 1) // 2)]
            alive = [0, *keep]
    if rounds < MIN_ROUNDS:
        return None
    best = _gate(results, alive[1:], True)
    if best == 0:
        return None
    act = cands[best]
    win = statistics.fmean(win_part(r) for r in results[best])  # (each 0, ½ or 1)
    params: dict[str, str | int] = {"rollouts": rounds, "win": round(100 * win)}
    if act.cards:
        params["cards"] = act.cards
    return act, "search", params


def _gate(results: list[list[float]], rows: Iterable[int], noisy: bool) -> int:
    """The row of ``rows`` whose results beat the reference's (row 0, paired with its last as
    many) most on average — by more than :data:`MARGIN` and :data:`Z` standard errors of the
    paired differences when the results are ``noisy`` (several deals), by anything when not
    (one determined deal); 0 when none does."""
    best, best_gain = 0, 0.0
    for i in rows:
        n = len(results[i])
        diffs = [a - b for a, b in zip(results[i], results[0][-n:], strict=True)]
        gain = statistics.fmean(diffs)
        need = MARGIN + Z * statistics.pstdev(diffs) / math.sqrt(n) if noisy else 0.0
        if gain > need and gain > best_gain:
            best, best_gain = i, gain
    return best


def solve_endgame(
    game: Game,
    k: Knowledge,
    legal: Legal,
    normal: Action,
    partners: list[str | None],
    hidden: set[int],
    rng: random.Random,
    checks: Checks,
    deadline: float,
    samples: int | None,
    stop: threading.Event | None,
) -> Found | Literal[False] | None:
    """§12 四户乱缠 near the end: every legal action (pass, every answer; the lead menu) is
    valued by solving the rest of the game exactly (:mod:`engine.ai.endgame`) for each deal
    of the hidden cards, and the best on average replaces the normal choice when it is better
    by :data:`MARGIN` (and, over several distinct deals, by :data:`Z` standard errors of the
    paired differences). False when an endgame is too big to solve in time: the rollouts
    decide then; None keeps the normal choice."""
    me = k.seat
    acts = [normal]
    if legal.can_pass and Action(me, Do.PASS) not in acts:
        acts.append(Action(me, Do.PASS))
    acts += [a for p in legal.plays if (a := Action(me, Do.PLAY, str(p))) not in acts]
    if len(acts) < 2:
        return None
    solver = Solver(game, EXACT_NODES)
    # every deal the same (no hidden hand, or one holding all the cards not seen: none are
    # dead, as a revolutionary's or a smothered player's are): one solve is the whole answer,
    # and its deal needs no checks
    shown = sum(len(p) for s, p in enumerate(partners) if p is not None and k.active[s])
    one_deal = not hidden or (len(hidden) == 1 and k.counts[min(hidden)] == sum(k.pool) - shown)
    results: list[list[float]] = [[] for _ in acts]
    start = time.perf_counter()
    deals = 0
    while True:
        if stop is not None and stop.is_set():
            return None
        if samples is not None:
            if deals >= (1 if one_deal else samples):
                break
        elif deals and (
            one_deal or time.perf_counter() + (time.perf_counter() - start) / deals > deadline
        ):
            break
        hands = deal_hidden(k, partners, rng, None if one_deal else checks)
        try:
            values = solver.values(game, hands, acts)
        except TooBig:
            if deals == 0:
                return False
            break  # the deals solved so far decide
        for row, v in zip(results, values, strict=True):
            row.append(result_of(v, me))
        deals += 1
    best = _gate(results, range(1, len(acts)), not one_deal)
    if best == 0:
        return None
    act = acts[best]
    win = statistics.fmean(win_part(r) for r in results[best])
    params: dict[str, str | int] = {} if one_deal else {"deals": deals, "win": round(100 * win)}
    if act.cards:
        params["cards"] = act.cards
    return act, "endgame_known" if one_deal else "endgame", params

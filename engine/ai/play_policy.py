"""The 'normal' player of the play phase: a heuristic club player (docs/rules.md §6–§8, §12).

A hand is seen as *groups* (all cards of one rank, 3s apart under 憋3) plus *control* cards
(2s and jokers). It leads its lowest group, keeps control cards to beat with and to carry its last
play before the 3s safely, answers opponents with whole groups when that is cheap, fights harder
against its 对头's 够级 plays and against players about to finish, never beats its teammates,
burns only when the duty can be met, and never makes a penultimate play it expects to be beaten.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..cards import BIG, NRANKS, SMALL, THREE, TWO, minus
from ..legal import duty_feasible, duty_leads
from ..plays import Play, as_play, play_of
from ..seats import ccw, opposite, team
from ..vocab import Ask, Do
from .estimate import beat_chance, burn_success_chance, likely_penultimate
from .knowledge import Knowledge

# What an answer costs (answer_cost): control cards spent win leads later, breaking a group
# leaves one more to lead, shedding cards brings going out nearer.
COST_TWO = 2.5  # the cost of each 2 an answer spends…
COST_SMALL = 4.0  # …of each small joker…
COST_BIG = 6.0  # …of each big joker, the strongest card
RANK_VALUE = (0, 0, 0, 0, 0, 0, 0, 0.2, 0.4, 0.7, 1.0, 1.4, 0, 0, 0)  # of a group by rank, J..A
SHED_CREDIT = 0.3  # the gain of each card an answer sheds
WHOLE_GROUP = -2.0  # an answer with a whole group breaks nothing: a gain…
BROKEN_GROUP = 1.0  # …one that breaks a group a cost
LAST_BIG_CARRIER = 3.0  # §8: the last big joker is the safest carrier of the play before the 3s
# How much an answer may cost, by why it beats the top (_threshold)
SPEND_SMOTHER = 100.0  # anything, to smother a likely penultimate play (闷, §8)
SPEND_RUNNER = 7.0  # up to a big joker, to stop an opponent about to go out
RUNNER_CARDS = 5  # an opponent with this many cards or fewer is about to go out
SPEND_OPPOSITE_GOUJI = 3.0  # up to a 2, to beat the 对头's 够级 play lest it stand (§9)
SPEND_BREAK_BURN = 5.0  # up to a small joker, to break a burn that would succeed (解烧, §7)
SPEND_CHEAP = -0.5  # otherwise answers that shed more than they spend: whole groups, mostly
REGAIN_LIMIT = 13.0  # an answer this dear is made when it shortens the going-out plan
PLAN_SLACK = 1  # groups the plan may exceed control cards by (one group goes last)…
PLAN_SLACK_BOUND = 0  # …none under 憋3: the last play before the 3s needs its carrier
SAFE = 0.15  # a penultimate play is made when the chance it is beaten is below this
KEEP_WINNER_GAIN = 0.1  # the control cards are kept for the last play if its risk drops this
BREAK_BURN_FROM = 0.5  # 解烧 is worth strong cards when the burn would succeed this often
BURN_GROUPS = 3  # a burn is claimed with this many groups left to lead or fewer (or to smother)


@dataclass
class Choice:
    """A chosen play-phase action: ``do`` (play/pass/yield), the play, and the reason."""

    do: str
    play: Play | None
    reason: str
    params: dict[str, str | int] = field(default_factory=dict)


def _play(p: Play, reason: str) -> Choice:
    return Choice(Do.PLAY, p, reason, {"cards": str(p)})


def _group(rank: int, n: int) -> Play:
    c = [0] * NRANKS
    c[rank] = n
    return play_of(tuple(c))


def body_ranks(hand: Sequence[int], bound: bool) -> list[int]:
    """Ranks below 2 held, the 3s left out when they are bound to go last (§8)."""
    return [r for r in range(TWO) if hand[r] and not (bound and r == THREE)]


def rest_without_threes(hand: Sequence[int], bound: bool) -> list[int]:
    rest = list(hand)
    if bound:
        rest[THREE] = 0
    return rest


def decide_play(
    k: Knowledge, plays: tuple[Play, ...], can_yield: bool, rng: random.Random
) -> Choice:
    """The normal level's action for the asked seat (``plays`` are the engine's offered plays)."""
    if k.ask == Ask.LEAD:
        if k.burning == k.seat:
            return _burn_lead(k, plays)
        return _lead(k, rng)
    if k.ask == Ask.BURN:
        return _burn(k, plays, rng)
    return _answer(k, plays, can_yield, rng)


# -- leading ---------------------------------------------------------------------------------
def _lead(k: Knowledge, rng: random.Random) -> Choice:
    h = k.hand
    bound = k.bound
    rest = rest_without_threes(h, bound)
    if sum(rest) == 0:
        return _play(_group(THREE, h[THREE]), "lead_threes")
    body = body_ranks(h, bound)  # the ranks below 2 of ``rest``: one at most, and it is a play
    whole = as_play(tuple(rest)) if len(body) <= 1 else None
    if whole is not None:
        if not bound:
            return _play(whole, "go_out")
        return _last_before_threes(k, rest, whole, rng)
    if (
        k.rules.open_point
        and not k.opened[k.seat]
        and not k.four_way
        and not k.headless[k.seat]
        and len(body) <= 6
    ):
        kd = [r for r in body if _group(r, h[r]).kaidian]
        if kd:
            return _play(_group(kd[0], h[kd[0]]), "open_point")
    # Lead the lowest group; the 2s and jokers stay for control (and are never in ``body``).
    r = body[0]
    return _play(_group(r, h[r]), "lead_low")


def _last_before_threes(k: Knowledge, rest: list[int], whole: Play, rng: random.Random) -> Choice:
    """Everything but the 3s is one play: lead it if it should stand (else 闷, §8); otherwise
    lead a part and keep the strongest part (control cards) as the last play before the 3s."""
    risk = beat_chance(k, whole, rng)
    if risk < SAFE:
        return _play(whole, "safe_penultimate")
    ctrl = [rest[TWO], rest[SMALL], rest[BIG]]
    has_body = any(rest[r] for r in range(TWO))
    if any(ctrl) and has_body:
        keep = [0] * NRANKS
        keep[TWO], keep[SMALL], keep[BIG] = ctrl
        finisher = Play(tuple(keep))
        if beat_chance(k, finisher, rng) + KEEP_WINNER_GAIN < risk:
            lead = as_play(tuple(r - c for r, c in zip(rest, keep, strict=True)))
            if lead is not None:
                return _play(lead, "keep_winner")
    return _play(whole, "keep_threes")


def burn_leads(hand: Sequence[int], bound: bool) -> list[Play]:
    """The leads a burner may make (§7), the useful ones: each group carrying one joker or all
    of them, with or without all the 2s (under 憋3 the 2s cannot wait for the 3s, §3 §8);
    the 2s with a joker; a joker alone; the last lead emptying the hand."""
    h = hand
    jokers = [j for j in (BIG, SMALL) if h[j]]
    out: dict[Play, None] = {}

    def add(c: list[int]) -> None:
        p = as_play(tuple(c))
        if p is not None:
            out[p] = None

    for r in range(TWO + 1):
        if not h[r] or (bound and r == THREE):
            continue
        for carry in [[j] for j in jokers] + ([jokers] if len(jokers) > 1 else []):
            for twos in (0, h[TWO]) if r != TWO else (0,):
                c = [0] * NRANKS
                c[r] = h[r]
                c[TWO] += twos
                for j in carry:
                    c[j] += 1 if len(carry) == 1 else h[j]
                add(c)
    for j in jokers:
        c = [0] * NRANKS
        c[j] = 1
        add(c)
        c = [0] * NRANKS
        c[j] = h[j]
        add(c)
    if not bound or h[THREE] == sum(h):
        add(list(h))
    return list(out)


def _burn_lead(k: Knowledge, plays: tuple[Play, ...]) -> Choice:
    """§7: a burner leads a joker each time until the lead that empties the hand: the lead
    that keeps the duty feasible, empties the hand soonest, and stands (a big joker on top)."""
    h = k.hand
    bound = k.bound
    best: tuple[tuple[int, int, int, int], Play] | None = None
    for p in burn_leads(h, bound):
        after = minus(h, p.counts)
        left = sum(after)
        after_bound = bound and after[THREE] > 0
        if left and not duty_feasible(after, after_bound):
            continue
        finishing = left == 0 or (after_bound and left == after[THREE])
        sh = p.shape
        key = (0 if finishing else 1, duty_leads(after, after_bound), -sh.big, sh.base)
        if best is None or key < best[0]:
            best = (key, p)
    chosen = best[1] if best else min(plays, key=lambda p: (p.shape.big, p.shape.base))
    return _play(chosen, "burn_lead")


# -- answering -------------------------------------------------------------------------------
def answer_cost(h: list[int], p: Play, bound: bool) -> float:
    """How much an answer spends: control cards, broken groups, high ranks; minus what it sheds."""
    try:
        spent, base, n, big = p._answer_parts  # type: ignore[attr-defined]
    except AttributeError:
        spent, base, n, big = _answer_parts(p)
    # the same sums, in the same order, as written out in _answer_parts (identical floats)
    cost: float = spent
    if base >= 0:
        cost += RANK_VALUE[base] + (WHOLE_GROUP if h[base] == n else BROKEN_GROUP)
    if bound and big and h[BIG] == big:
        cost += LAST_BIG_CARRIER
    return cost


def _answer_parts(p: Play) -> tuple[float, int, int, int]:
    """What :func:`answer_cost` reads of a play whatever the hand, kept in the play's own
    ``__dict__`` (plays are shared, engine.plays.play_of): the control cards spent minus the
    cards shed, the play's lowest rank below 2 (-1: none) and its count, its big jokers."""
    c = p.counts
    spent = c[TWO] * COST_TWO + c[SMALL] * COST_SMALL + c[BIG] * COST_BIG - SHED_CREDIT * sum(c)
    base = next((r for r in range(TWO) if c[r]), -1)
    parts = (spent, base, c[base] if base >= 0 else 0, c[BIG])
    p.__dict__["_answer_parts"] = parts
    return parts


def _threshold(k: Knowledge, owner: int, rng: random.Random) -> tuple[float, str]:
    """How much this seat will spend to beat the top, and why."""
    if not k.active[owner]:
        return SPEND_CHEAP, "beat_cheap"  # gone out: only the lead is at stake (接风, §6.5)
    if likely_penultimate(k, owner):
        return SPEND_SMOTHER, "smother"
    if k.counts[owner] <= RUNNER_CARDS:
        return SPEND_RUNNER, "stop_runner"
    if k.top_gouji and opposite(k.seat) == owner:
        return SPEND_OPPOSITE_GOUJI, "stop_opposite_gouji"
    if k.top_burn and burn_success_chance(k, owner, rng) >= BREAK_BURN_FROM:
        return SPEND_BREAK_BURN, "break_burn"  # §7: a burn that would fail anyway is left to fail
    return SPEND_CHEAP, "beat_cheap"


def _answer(k: Knowledge, plays: tuple[Play, ...], can_yield: bool, rng: random.Random) -> Choice:
    owner = k.top_seat
    assert owner is not None
    h = k.hand
    total = sum(h)
    for p in plays:
        if p.shape.size == total:  # (the cards of a play, §3)
            return _play(p, "go_out")  # a teammate's trick too: one more of the team out
    if not k.active[owner]:
        # §6.5: the top's owner has gone out; if the top stands, 接风 — the lead goes to the
        # owner's next active seat. Beating it only takes that lead over: not when it comes
        # to this team anyway, whoever played it (a teammate's last play included)
        wind = next(s for s in ccw(owner + 1) if k.active[s])
        if team(wind) == team(k.seat):
            return Choice(Do.PASS, None, "pass_wind")
    elif team(owner) == team(k.seat):
        return Choice(Do.PASS, None, "pass_teammate")
    bound = k.bound
    limit, why = _threshold(k, owner, rng)
    costed = sorted([(answer_cost(h, p, bound), i) for i, p in enumerate(plays)])
    ranked = [plays[i] for _, i in costed]
    dearest = max(limit, REGAIN_LIMIT)
    groups = -1  # the hand's groups (body_ranks), read when first needed
    for cost, i in costed:
        p = plays[i]
        if cost > dearest:
            break
        c = p.counts
        # (the cards left after it are all 3s: total - size == h[THREE] - c[THREE])
        if (
            bound
            and total - p.shape.size == h[THREE] - c[THREE]
            and beat_chance(k, p, rng, gouji=False) >= SAFE
        ):
            continue  # §8: this would be a penultimate play likely to be beaten (闷)
        if cost > limit:
            if why == "beat_cheap":
                if groups < 0:
                    groups = len(body_ranks(h, bound))
                if _runs_out_after(h, p, bound, groups):
                    return _play(p, "regain_lead")
            continue
        if can_yield and why == "beat_cheap" and _teammate_to_come(k):
            return Choice(Do.YIELD, None, "yield_to_team")
        return _play(p, why)
    if ranked and bound:
        p = ranked[0]
        if total - p.shape.size == h[THREE] - p.counts[THREE] and costed[0][0] <= limit:
            return Choice(Do.PASS, None, "avoid_smother")
    return Choice(Do.PASS, None, "pass_save")


def _runs_out_after(h: Sequence[int], p: Play, bound: bool, groups: int) -> bool:
    """The going-out plan (§6) of the hand ``h`` after the answer ``p`` (``groups``:
    ``len(body_ranks(h, bound))``): once the answer wins the lead, the hand can lead out with
    each remaining group, using its control cards (2s, jokers) to win the lead back — at most
    one more group than control cards. Read from the hand and the play, without making the
    hand after (the inner loop of answers; tests/test_ai_rollout_speed.py checks it against
    the plan written out on the hand after)."""
    c = p.counts
    for r, n in p.by_rank:
        if r < TWO and h[r] == n and not (bound and r == THREE):
            groups -= 1  # the play takes a whole group
    jokers = h[SMALL] - c[SMALL] + h[BIG] - c[BIG]
    control = h[TWO] - c[TWO] + jokers
    # under 憋3 the last play before the 3s needs a carrier too (or it is beaten: 闷, §8): a
    # joker (a 2 is beaten by any)
    if bound and h[THREE] > c[THREE]:
        return groups <= control + PLAN_SLACK_BOUND and (groups == 0 or jokers > 0)
    return groups <= control + PLAN_SLACK


def _teammate_to_come(k: Knowledge) -> bool:
    """A teammate still entitled to answer this trick after this seat, with fewer cards."""
    me = k.seat
    for s in (me + 2, me + 4):
        m = s % 6
        if k.active[m] and m not in k.passed and k.counts[m] < k.counts[me]:
            return True
    return False


# -- burning (§7) ----------------------------------------------------------------------------
def _burn(k: Knowledge, plays: tuple[Play, ...], rng: random.Random) -> Choice:
    owner = k.top_seat
    assert owner is not None
    if team(owner) == team(k.seat):
        return Choice(Do.PASS, None, "no_burn_teammate")
    h = k.hand
    bound = k.bound
    smother = likely_penultimate(k, owner)
    best: tuple[float, Play] | None = None
    short: tuple[int, int] | None = None  # (leads needed, jokers) of the nearest miss
    for p in plays:
        after = minus(h, p.counts)
        left = sum(after)
        if left == 0:
            return _play(p, "go_out")
        after_bound = bound and after[THREE] > 0
        leads = duty_leads(after, after_bound)
        jokers = after[SMALL] + after[BIG]
        if jokers < leads:
            if short is None or leads - jokers < short[0] - short[1]:
                short = (leads, jokers)
            continue
        groups = len(body_ranks(after, after_bound))
        if groups > BURN_GROUPS and not smother:
            continue
        # §7: every lead must stand for the burn to succeed; one without a big joker can be
        # beaten (解烧, 反烧), so at most one such lead is risked
        if leads - after[BIG] > 1 + p.counts[BIG] and not smother:
            continue
        if after_bound and left == after[THREE] and beat_chance(k, p, rng, gouji=False) >= SAFE:
            continue
        cost = answer_cost(h, p, bound) + groups
        if best is None or cost < best[0]:
            best = (cost, p)
    if best is None:
        if short is None:
            return Choice(Do.PASS, None, "burn_unsafe")
        return Choice(Do.PASS, None, "burn_infeasible", {"leads": short[0], "jokers": short[1]})
    return _play(best[1], "smother" if smother else "burn_feasible")

"""The frozen ``baseline`` level: the normal player as it was before the search-era rework,
kept verbatim (its burn-duty estimate included) so that ``python -m engine arena`` measures
progress against a fixed opponent. For the arena only; not offered to players.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..actions import Action
from ..cards import ACE, BIG, KING, NRANKS, SMALL, THREE, TWO, minus, parse
from ..legal import can_beat
from ..plays import GOUJI_THRESHOLD, Play, as_play
from ..seats import opposite, team
from ..vocab import Ask, Do
from .knowledge import Knowledge


def duty_feasible(hand: Sequence[int], bound_by_threes: bool) -> bool:
    """The old estimate of the burn duty (it lets 2s go out with the 3s)."""
    jokers = hand[SMALL] + hand[BIG]
    groups = [r for r in range(NRANKS) if r not in (SMALL, BIG) and hand[r]]
    plain = [r for r in groups if r != TWO]
    if not plain and hand[TWO]:
        plain = [TWO]
    if bound_by_threes and hand[THREE]:
        need = len([r for r in plain if r != THREE])
    else:
        need = max(len(plain) - 1, 0)
    return jokers >= need


SAMPLES = 10  # sampled hands per opponent


def pool_list(pool: list[int]) -> list[int]:
    return [r for r in range(NRANKS) for _ in range(pool[r])]


def _sample_beats(cards: list[int], n: int, play: Play, kbj: bool, rng: random.Random) -> float:
    if n <= 0 or n < play.size:
        return 0.0
    n = min(n, len(cards))
    hits = 0
    for _ in range(SAMPLES):
        hand = [0] * NRANKS
        for r in rng.sample(cards, n):
            hand[r] += 1
        if can_beat(hand, play, kbj):
            hits += 1
    return hits / SAMPLES


def beat_chance(k: Knowledge, play: Play, rng: random.Random, gouji: bool | None = None) -> float:
    """Chance that some opponent who may answer ``play`` (if it were on top, owned by
    ``k.seat``) can beat it. For a 够级 play (§6.2) the 对头 answers and the other opponents
    may burn (§7), counted at half weight; otherwise every active opponent may answer."""
    kbj = k.rules.kill_big_joker
    if not can_beat(k.pool, play, kbj):
        return 0.0
    if gouji is None:
        gouji = play.gouji and not k.four_way and not k.headless[k.seat]
    cards = pool_list(k.pool)
    me = k.seat
    miss = 1.0
    for s in range(6):
        if s == me or not k.active[s] or team(s) == team(me):
            continue
        weight = 1.0
        if gouji and s != opposite(me) and not k.headless[s]:
            if not k.rules.burn:
                continue
            weight = 0.5
        p = _sample_beats(cards, k.counts[s], play, kbj, rng)
        miss *= 1.0 - weight * p
    return 1.0 - miss


def likely_penultimate(k: Knowledge, seat: int) -> bool:
    """Is ``seat``'s play on top probably its penultimate one (§8): only a few cards left, and
    it has not played its 3s (so under 憋3 it still holds at least one)?"""
    if not k.rules.bie3 or not k.active[seat] or k.threes_played[seat]:
        return False
    n = k.counts[seat]
    return 0 < n <= min(3, k.pool[THREE])


COST_TWO, COST_SMALL, COST_BIG = 2.5, 4.0, 6.0  # what an answer spends per 2, small, big joker
RANK_VALUE = (0, 0, 0, 0, 0, 0, 0, 0.2, 0.4, 0.7, 1.0, 1.4, 0, 0, 0)  # of a group by rank, J..A
SAFE = 0.15  # a penultimate play is made when the chance it is beaten is below this


@dataclass
class Choice:
    """A chosen play-phase action: ``do`` (play/pass/yield), the play, and the reason."""

    do: str
    play: Play | None
    reason: str
    params: dict[str, str] = field(default_factory=dict)


def _play(p: Play, reason: str) -> Choice:
    return Choice(Do.PLAY, p, reason, {"cards": str(p)})


def _group(rank: int, n: int) -> Play:
    c = [0] * NRANKS
    c[rank] = n
    return Play(tuple(c))


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
    whole = as_play(tuple(rest))
    if whole is not None:
        if not bound:
            return _play(whole, "go_out")
        return _last_before_threes(k, rest, whole, rng)
    body = body_ranks(h, bound)
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
        if beat_chance(k, finisher, rng) + 0.1 < risk:
            lead = as_play(tuple(r - c for r, c in zip(rest, keep, strict=True)))
            if lead is not None:
                return _play(lead, "keep_winner")
    return _play(whole, "keep_threes")


def _burn_lead(k: Knowledge, plays: tuple[Play, ...]) -> Choice:
    """§7: a burner leads a joker each time until the lead that empties the hand."""
    h = k.hand
    bound = k.bound
    best: tuple[tuple[int, int, int], Play] | None = None
    for p in plays:
        after = minus(h, p.counts)
        left = sum(after)
        if left and not duty_feasible(after, bound and after[THREE] > 0):
            continue
        sh = p.shape
        # empty the hand first; then shed the lowest group with the smallest joker
        key = (0 if left == 0 or (bound and left == after[THREE]) else 1, sh.base, sh.big)
        if best is None or key < best[0]:
            best = (key, p)
    chosen = best[1] if best else min(plays, key=lambda p: (p.shape.big, p.shape.base))
    return _play(chosen, "burn_lead")


# -- answering -------------------------------------------------------------------------------
def answer_cost(h: list[int], p: Play, bound: bool) -> float:
    """How much an answer spends: control cards, broken groups, high ranks; minus what it sheds."""
    c = p.counts
    cost = c[TWO] * COST_TWO + c[SMALL] * COST_SMALL + c[BIG] * COST_BIG - 0.3 * sum(c)
    for base in range(TWO):
        if c[base]:
            cost += RANK_VALUE[base] + (-2.0 if h[base] == c[base] else 1.0)
            break
    if bound and c[BIG] and h[BIG] == c[BIG]:
        cost += 3.0  # the last big joker is the safest carrier of the last play before the 3s
    return cost


def _threshold(k: Knowledge, owner: int) -> tuple[float, str]:
    """How much this seat will spend to beat the top, and why."""
    if likely_penultimate(k, owner):
        return 100.0, "smother"
    if k.counts[owner] <= 5:
        return 7.0, "stop_runner"
    if k.top_gouji and opposite(k.seat) == owner:
        return 3.0, "stop_opposite_gouji"
    if k.top_burn:
        return 5.0, "break_burn"
    return -0.5, "beat_cheap"


def _answer(k: Knowledge, plays: tuple[Play, ...], can_yield: bool, rng: random.Random) -> Choice:
    owner = k.top_seat
    assert owner is not None
    if team(owner) == team(k.seat):
        return Choice(Do.PASS, None, "pass_teammate")
    h = k.hand
    bound = k.bound
    limit, why = _threshold(k, owner)
    total = sum(h)
    for p in plays:
        if sum(p.counts) == total:
            return _play(p, "go_out")
    costed = sorted((answer_cost(h, p, bound), i) for i, p in enumerate(plays))
    ranked = [plays[i] for _, i in costed]
    for cost, i in costed:
        p = plays[i]
        after = minus(h, p.counts)
        left = sum(after)
        if cost > limit:
            break
        if bound and left == after[THREE] and beat_chance(k, p, rng, gouji=False) >= SAFE:
            continue  # §8: this would be a penultimate play likely to be beaten (闷)
        if can_yield and why == "beat_cheap" and _teammate_to_come(k):
            return Choice(Do.YIELD, None, "yield_to_team")
        return _play(p, why)
    if ranked and bound:
        p = ranked[0]
        after = minus(h, p.counts)
        if sum(after) == after[THREE] and answer_cost(h, p, bound) <= limit:
            return Choice(Do.PASS, None, "avoid_smother")
    return Choice(Do.PASS, None, "pass_save")


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
    for p in plays:
        after = minus(h, p.counts)
        left = sum(after)
        if left == 0:
            return _play(p, "go_out")
        after_bound = bound and after[THREE] > 0
        if not duty_feasible(after, after_bound):
            continue
        groups = len(body_ranks(after, after_bound))
        if groups > 3 and not smother:
            continue
        if after_bound and left == after[THREE] and beat_chance(k, p, rng, gouji=False) >= SAFE:
            continue
        cost = answer_cost(h, p, bound) + groups
        if best is None or cost < best[0]:
            best = (cost, p)
    if best is None:
        return Choice(Do.PASS, None, "burn_infeasible")
    return _play(best[1], "smother" if smother else "burn_feasible")


REVOLT_BELOW = 6  # §5.4: a hand without 2s or jokers revolts with fewer aces and kings than this


def gouji_groups(hand: Sequence[int]) -> int:
    """Groups that are 够级 on their own (§4), plus each 2 or joker (each can make one)."""
    n = sum(1 for r, need in GOUJI_THRESHOLD.items() if r != TWO and hand[r] >= need)
    return n + hand[TWO] + hand[SMALL] + hand[BIG]


def strength(hand: Sequence[int]) -> float:
    """A rough worth of a hand: control cards, high cards, few groups to lead."""
    groups = sum(1 for r in range(THREE + 1, TWO) if hand[r])
    return (
        3.0 * hand[BIG]
        + 2.0 * hand[SMALL]
        + 1.2 * hand[TWO]
        + 0.5 * hand[ACE]
        + 0.3 * hand[KING]
        + 1.0 * gouji_groups(hand)
        - 0.8 * groups
    )


def decide_deal(ask: str, hand: Sequence[int], options: list[Action]) -> tuple[Action, str]:
    """The action for a deal-phase ask, and its reason code."""
    seat = options[0].seat
    if ask == Ask.REVOLT:
        if hand[ACE] + hand[KING] < REVOLT_BELOW:
            return Action(seat, Do.REVOLT), "revolt_weak"
        return Action(seat, Do.NO_REVOLT), "keep_playing"
    if ask == Ask.YAOTOU:
        if gouji_groups(hand) >= 6:
            return Action(seat, Do.YAOTOU), "yaotou_strong"
        return Action(seat, Do.WUTOU), "take_wutou"
    if ask == Ask.DECLARE:
        if strength(hand) >= 14.0:
            return Action(seat, Do.DECLARE), "declare_strong"
        return Action(seat, Do.NO_DECLARE), "no_declare"
    best = min(options, key=lambda a: return_cost(hand, parse(a.cards)))
    return best, "return_low"


def return_cost(hand: Sequence[int], give: Sequence[int]) -> float:
    """What giving ``give`` back (还贡, §11) costs: control cards dear, high ranks dearer than
    low, and emptying a rank (one group fewer to lead) a gain."""
    cost = 0.0
    for r in range(NRANKS):
        n = give[r]
        if not n:
            continue
        if r >= TWO:
            cost += 10.0 * n
            continue
        cost += 0.1 * r * n
        cost += -1.0 if hand[r] == n else 0.3
        if r == THREE and hand[r] == n:
            cost += 5.0  # without a 3 this seat would have to buy one with a 2 (§5.3)
    return cost

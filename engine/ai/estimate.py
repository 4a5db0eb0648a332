"""Estimates over hidden cards: can an opponent beat a play? (docs/rules.md §3, §6.2, §7)

The hidden pool is what a seat cannot see (``Knowledge.pool``); an opponent's hand is estimated
by drawing as many cards from the pool as that opponent holds. Cheap exact tests first (nothing
in the whole pool beats it), then a few sampled hands.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import NRANKS, THREE
from ..legal import can_beat, duty_feasible
from ..plays import Play
from ..seats import opposite, team
from .knowledge import Knowledge

SAMPLES = 10  # sampled hands per opponent and estimate: cheap enough to run in rollouts
PENULT_LIKELY = 0.5  # a top is taken for a penultimate play from this chance on
PENULT_GUESS = 3  # a bound seat with this few cards (and as many unseen 3s) is taken for 3s only
BURN_WEIGHT = 0.5  # an opponent who may only burn a 够级 play (§7) may well not: half weight


class Pool:
    """The cards of a pool (counts by rank) as a list of ranks, to draw hands from. Each draw is
    a partial Fisher–Yates shuffle of the list this object owns, so it costs only the cards
    drawn (the hot path of estimates and rollouts), and each draw starts from the order the
    last one left."""

    __slots__ = ("cards",)

    def __init__(self, pool: Sequence[int]) -> None:
        self.cards = [r for r in range(NRANKS) for _ in range(pool[r])]

    def draw(self, n: int, rng: random.Random) -> list[int]:
        """A hand of ``n`` cards drawn uniformly without replacement, as counts by rank."""
        cards = self.cards
        hand = [0] * NRANKS
        m = len(cards)
        rand = rng.random
        for i in range(min(n, m)):
            j = i + int(rand() * (m - i))
            c = cards[j]  # (the swap written out: a quarter faster than a tuple swap)
            cards[j] = cards[i]
            cards[i] = c
            hand[c] += 1
        return hand


def _sample_beats(cards: Pool, n: int, play: Play, kbj: bool, rng: random.Random) -> float:
    if n <= 0 or n < play.size:
        return 0.0
    hits = 0
    for _ in range(SAMPLES):
        if can_beat(cards.draw(n, rng), play, kbj):
            hits += 1
    return hits / SAMPLES


def beat_chance(k: Knowledge, play: Play, rng: random.Random, gouji: bool | None = None) -> float:
    """Chance that some opponent who may answer ``play`` (if it were on top, owned by
    ``k.seat``) can beat it. For a 够级 play (§6.2) the 对头 answers and the other opponents
    may burn (§7), counted at :data:`BURN_WEIGHT`; otherwise every active opponent may answer."""
    kbj = k.rules.kill_big_joker
    if not can_beat(k.pool, play, kbj):
        return 0.0
    if gouji is None:
        gouji = play.gouji and not k.four_way and not k.headless[k.seat]
    cards = Pool(k.pool)
    me = k.seat
    miss = 1.0
    for s in range(6):
        if s == me or not k.active[s] or team(s) == team(me):
            continue
        weight = 1.0
        if gouji and s != opposite(me) and not k.headless[s]:
            if not k.rules.burn:
                continue
            weight = BURN_WEIGHT
        p = _sample_beats(cards, k.counts[s], play, kbj, rng)
        miss *= 1.0 - weight * p
    return 1.0 - miss


def penult_chance(k: Knowledge, seat: int) -> float:
    """The chance that ``seat``'s play on top was its penultimate one (§8): that its remaining
    cards are all 3s. It holds at least one 3 (it has not played them under 憋3); the others
    are drawn from the pool without the 3s reserved for the other bound hidden seats."""
    if not k.rules.bie3 or not k.active[seat] or k.threes_played[seat]:
        return 0.0
    n = k.counts[seat]
    if n <= 0:
        return 0.0
    if n >= 2 and k.pool[THREE] - 1 <= n - 2:
        return 0.0  # (the loop below would: fewer unseen 3s than the seat's other cards)
    reserved = sum(
        1
        for s in range(6)
        if s not in (seat, k.seat) and k.active[s] and not k.threes_played[s] and k.counts[s]
    )
    threes = k.pool[THREE] - 1 - reserved
    size = sum(k.pool) - 1 - reserved
    p = 1.0
    for i in range(n - 1):
        if threes - i <= 0 or size - i <= 0:
            return 0.0
        p *= (threes - i) / (size - i)
    return p


def likely_penultimate(k: Knowledge, seat: int) -> bool:
    """Is ``seat``'s play on top probably its penultimate one (§8)? Players keep their 3s to
    the end, so a bound seat with only a few cards left (no more than the unseen 3s) is
    taken to hold only 3s (:data:`PENULT_GUESS`): this guess smothers more often than the
    card-counting chance of :func:`penult_chance` alone, which it adds to (docs/ai.md)."""
    if penult_chance(k, seat) >= PENULT_LIKELY:
        return True
    if not k.rules.bie3 or not k.active[seat] or k.threes_played[seat]:
        return False
    n = k.counts[seat]
    return 0 < n <= min(PENULT_GUESS, k.pool[THREE])


def burn_success_chance(k: Knowledge, burner: int, rng: random.Random) -> float:
    """The chance that the burning ``burner`` can meet the burn duty (§7) with its hidden hand,
    if its leads stand: hands of its count drawn from the pool (a 3 kept under 憋3)."""
    n = k.counts[burner]
    pool = list(k.pool)
    bound = k.rules.bie3 and not k.threes_played[burner]
    if bound and pool[THREE]:
        pool[THREE] -= 1
        n -= 1
    cards = Pool(pool)
    n = min(max(n, 0), len(cards.cards))
    hits = 0
    for _ in range(SAMPLES):
        hand = cards.draw(n, rng)
        if bound:
            hand[THREE] += 1
        if duty_feasible(hand, bound):
            hits += 1
    return hits / SAMPLES

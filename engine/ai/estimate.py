"""Estimates over hidden cards: can an opponent beat a play? (RULES.md §3, §6.2, §7)

The hidden pool is what a seat cannot see (``Knowledge.pool``); an opponent's hand is estimated
by drawing as many cards from the pool as that opponent holds. Cheap exact tests first (nothing
in the whole pool beats it), then a few sampled hands.
"""

from __future__ import annotations

import random

from ..cards import NRANKS, THREE
from ..legal import can_beat
from ..plays import Play
from ..view import opposite, team
from .knowledge import Knowledge

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
    sim = k.sim_hands
    cards = pool_list(k.pool) if sim is None else []
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
        if sim is not None:
            p = 1.0 if can_beat(sim[s], play, kbj) else 0.0
        else:
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

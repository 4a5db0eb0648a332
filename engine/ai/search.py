"""The 'hard' player: the normal policy plus a search over determinized deals (perfect-
information Monte Carlo with successive halving over a wide set of candidate actions).

No hidden information: every determinization is made from the deciding seat's
:class:`~engine.ai.knowledge.Knowledge` alone (its view and the public log): the pool of unseen
cards, every seat's count, a 3 for each seat still bound by 憋3, teammates' hands shown by §13
``partner_cards_at``, and what each seat's leads and passes say (``Knowledge.floors``: players
lead their lowest group, so no seat is dealt a rank below its lowest lead; ``cannot_beat``,
``sat_out``: a seat the game passed for cannot beat that top; ``declined``: a seat that passed
up an opponent's top holds no whole group beating it; ``beat_then``: a seat the game asked
about a top could beat it then, §6.3 — its hand now and the cards it has played since, read
over the whole game: a pass is the log's best evidence of the 2s and jokers a seat keeps (the
deals' 2s and jokers hit the real ones markedly better with it: Brier of "holds one"
0.161 -> 0.144 for 2s, 0.206 -> 0.188 for big jokers, 0.218 -> 0.195 for small ones, at 200
positions of arena games where the search runs); ``not_held``: the counts of a rank a
seat's answers in the whole game rule out; ``spent``: a seat seldom holds more of a rank it
has played, since groups are played whole — and hands are dealt with their 2s and jokers in
proportion to their size and nearly every rank their evidence allows, as real hands are,
see :data:`MIX`), and with which the normal player would have made each hidden seat's recent
choices (:mod:`engine.ai.inference`). The simulated game is a copy
of the table's game whose hands are all replaced by the sampled ones and whose hand-derived
facts (the top's §8 penultimate flag) are recomputed from them (``Game.copy(hands=...)``), so
nothing of the real hidden hands survives.

The search runs only late in the game (:func:`worth_searching`), where rollouts are short.
Each candidate is played out to the end of the game with the normal policy for all six seats,
on the same deals and rollout seeds for every candidate (common random numbers). Each rollout
seat decides as at a real table, from its own hand and the cards it has not seen (its
estimates sample them), never from the simulated hands of the others: rollouts whose players
see through the cards play a different game from the one at the table (the arena agrees).
Moves are carried out without the game's checks (``Game.carry_out``: the policy only picks
legal ones). Candidates are halved by their mean result; the survivor replaces the normal
choice only when it is better by a margin that the paired differences support.
"""

from __future__ import annotations

import math
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterable
from typing import Literal, NamedTuple

from ..actions import Action
from ..cards import BIG, DECK_COUNTS, NRANKS, SMALL, THREE, TWO, minus, parse
from ..game import Game
from ..legal import Legal, can_beat, duty_feasible
from ..plays import Play, as_play
from ..ranking import compute_ranks, score
from ..seats import team
from ..view import SeatView
from ..vocab import Ask, Do, Status
from .endgame import Solver, TooBig
from .inference import Checks, recent_choices
from .knowledge import Asked, Knowledge, could_beat, group_evidence
from .play_policy import answer_cost, body_ranks, decide_play

MIN_ROUNDS = 6  # below this many determinizations the normal choice is kept
MAX_CANDIDATES = 4
MARGIN = 0.02  # another candidate must beat the normal choice by this much (result units)…
Z = 1.5  # …and by this many standard errors of the paired differences
ROLLOUT_LIMIT = 3000
SEARCH_FROM_OWN = 14  # search once this seat holds this many cards or fewer…
SEARCH_FROM_OTHER = 8  # …or another active seat does
DEAL_TRIES = 20  # looks (MIX_AGAIN more swaps each, 2s and jokers too) for a deal fitting
# every top a seat could not beat or passed up and every recent choice (the best is kept)
# §12 四户乱缠 with this many cards or fewer in play: solved exactly for each deal (about 10 ms
# for 20 cards, the median; a few take ten times as long and give way to the rollouts)
EXACT_CARDS = 20
EXACT_NODES = 2000  # positions per deal before the exact search gives up (about 0.1 s)
HORIZON = ROLLOUT_LIMIT  # policy decisions simulated before a rollout is cut short and evaluated
# A rollout's result is the win (1, ½, 0) plus the score margin (§10) over this: the margin
# tells candidates apart in deals the win does not (measured: the paired differences' mean
# |z| rises from 3.44 to 3.70, some 15% fewer deals for the same confidence, and they agree
# with the win's in sign 42 times in 43)
MARGIN_SCALE = 24.0
# Hidden hands are dealt as real ones look. Measured against the real hidden hands at 677
# positions of 60 games where the search runs: uniform deals scattered each hand over too
# many groups and gave the 2s and jokers regardless of hand size. So the spent ranks are kept
# out (knowledge.spent_ranks), and the 2s and jokers are dealt first, in proportion to the
# cards each seat holds, each joker a seat already got weighing it down by SPREAD (jokers are
# spread wider than by chance: a seat keeps its few to the end). A real hand holds 93% of the
# ranks 4..A its floor and spent ranks allow it (groups leave whole, lowest first, so what is
# left is nearly all it was dealt of the others), and rank-by-rank dealing missed that: the
# last, high ranks found the hands full (an allowed A held 41% of the time, K 70%). So the
# plain cards are then mixed (_mix): MIX tries per card at swapping two cards between holders
# that may hold each other's, which leaves a deal uniform among those the evidence allows,
# with the counts the seats' answers rule out kept out (_bans). Now every rank is held as
# often as in real hands (K 28% of seats, real 26%; A 19%, 21%), 3.50 groups a hand (real
# 3.52), and a seat's count of each rank 4..A is right 79% of the time (70% before). In the
# arena against normal: +2.5 points at 100 ms and at 16 deals a decision on one set of 100
# deals (seed 41), none on two others (seeds 11, 12): within the noise.
SPREAD = 1.0
# Each try picks two holders, then a card of each (a first version picked two cards, two in
# three tries wasted on one holder or on cards no other holder may take, and needed 30 per
# card): the figures above settle by 10 tries per card, and a deal without the seats'
# choices checked takes 0.7 ms instead of 2.3 on the 200 positions measured (the mixing's
# state kept from one try to the next; can-beat Brier 0.0656 -> 0.0645)
MIX = 10.0
MIX_AGAIN = 1.0  # more tries per card of the seats that break something (the figures as
# with 3 tries of every seat, at half the time)
DEAL_ORDER = (TWO, SMALL, BIG, *range(TWO))  # control cards first, then 3 up to A

Found = tuple[Action, str, dict[str, str | int]]  # the action, its reason and the reason's params


def deal_hidden(
    k: Knowledge, partners: list[str | None], rng: random.Random, checks: Checks | None = None
) -> list[list[int]]:
    """Hands for every seat: this seat's own, known teammates' (§13), the rest sampled from the
    pool with each seat's count and, under 憋3, a 3 for each seat that has not played its 3s;
    no seat below its lead floor, none with a spent rank or a count its answers rule out
    where the cards can go elsewhere, the plain cards mixed (:data:`MIX`), and (of a few
    mixes tried, the one that fits best) none able to beat a top the game passed for it
    (§6.3), none holding a whole group that beats an opponent's top it chose to pass
    (:mod:`engine.ai.knowledge`)."""
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
    # what the public log says of each hidden hand (the deal is mixed a little more a few
    # times and the one breaking the fewest of these is kept)
    facts = _evidence(k, unknown)
    dealt = _deal_once(k, hands, unknown, pool, rng)
    bie3 = k.rules.bie3
    allow = _allowed(unknown, k.floors or [0] * 6, k.spent or [0] * 6, bie3, k.all_dealt)
    keep3 = [1 if bie3 and not k.threes_played[s] and dealt[s][THREE] else 0 for s in range(6)]
    bans = _bans(k, unknown, facts.cannot)
    _mix(dealt, unknown, pool, allow, keep3, MIX, rng.random, bans)
    if not facts and not checks:
        return dealt
    best: tuple[int, list[list[int]]] | None = None
    mixer: _Mixer | None = None
    for _ in range(DEAL_TRIES):
        bad = _faults(dealt, facts, checks, bie3)
        if best is None or len(bad) < best[0]:
            best = (len(bad), [list(h) for h in dealt])
        if not bad:
            break
        # a little more mixing of the seats that break something, the 2s and jokers too (a
        # top may be beaten with them)
        if mixer is None:
            mixer = _Mixer(dealt, unknown, pool, allow, keep3, bans, NRANKS)
        mixer.run(MIX_AGAIN, rng.random, set(bad))
        mixer.write(dealt)
    assert best is not None
    return best[1]


class _Facts(NamedTuple):
    """What the public log says of the hidden seats' hands (:func:`_evidence`)."""

    cannot: list[tuple[int, Play]]  # tops it could not beat: §6.3 auto passes, tricks sat out
    declined: list[tuple[int, Play]]  # opponents' tops it chose to pass up
    beat: list[Asked]  # tops it was asked about, so could beat then (§6.3)

    def __bool__(self) -> bool:
        return bool(self.cannot or self.declined or self.beat)


def _evidence(k: Knowledge, unknown: list[int]) -> _Facts:
    """The facts of :class:`_Facts` for the ``unknown`` seats (:mod:`engine.ai.knowledge`:
    ``cannot_beat``, ``sat_out``, ``declined``, ``beat_then``)."""
    cannot: list[tuple[int, Play]] = [(s, p) for s, p in k.sat_out if s in unknown]
    if k.top is not None:
        cannot += [(s, k.top) for s in unknown if s in k.cannot_beat]
    return _Facts(
        cannot,
        [(s, p) for s, p in k.declined if s in unknown],
        [b for b in k.beat_then or () if b[0] in unknown],
    )


def _faults(hands: list[list[int]], facts: _Facts, checks: Checks | None, bie3: bool) -> list[int]:
    """The seats (once per fault) whose hand could beat a top it could not, holds a whole
    group beating an opponent's top it passed up, could not have beaten a top it was asked
    about, or would not have made one of its recent choices."""
    bad = [s for s, p in facts.cannot if can_beat(hands[s], p)]
    bad += [s for s, p in facts.declined if _whole_beat(hands[s], p, bie3)]
    for s, p, since in facts.beat:
        if not can_beat([a + b for a, b in zip(hands[s], since, strict=True)], p):
            bad.append(s)
    if checks:
        bad += checks.missed(hands)
    return bad


def _bans(
    k: Knowledge, unknown: list[int], cannot: list[tuple[int, Play]]
) -> list[list[int]] | None:
    """Per seat and rank 4..A, a bit for each count the public log rules out: the counts its
    answers say it does not hold (:func:`~engine.ai.knowledge.group_evidence`; not for a
    seat bound by 憋3 near its end, which may have passed up its last group before the 3s,
    §8), and, where it could not beat a top of n cards, n or more of any higher rank."""
    out = [[0] * NRANKS for _ in range(6)]
    found = False
    ev = k.not_held
    for s in unknown:
        if ev is not None and any(ev[s]):
            row = ev[s]
            if k.rules.bie3 and not k.threes_played[s]:
                cap = (1 << max(k.counts[s] - 4, 0)) - 1  # a group of n and the 3s: all of it
                row = [m & cap for m in row]
            out[s] = list(row)
            found = found or any(row)
    for s, p in cannot:
        sh = p.shape
        if sh.big or sh.small or sh.base < 0 or sh.base >= TWO:
            continue
        many = ~((1 << sh.size) - 1) & 0xFFFF  # n cards or more
        row = out[s]
        for r in range(max(sh.base + 1, THREE + 1), TWO):
            row[r] |= many
        found = True
    return out if found else None


def _whole_beat(h: list[int], top: Play, bie3: bool) -> bool:
    """Does ``h`` hold a whole plain group beating ``top`` that a player would not have passed
    up (:func:`~engine.ai.knowledge.declined`)?"""
    sh = top.shape
    if sh.big or sh.small or sh.base < 0:
        return False
    rest = sum(h) - (h[THREE] if bie3 else 0)
    return any(
        h[b] == sh.body and not (bie3 and h[THREE] and rest == h[b])
        for b in range(sh.base + 1, TWO)
    )


def _deal_once(
    k: Knowledge,
    known: list[list[int]],
    unknown: list[int],
    pool: list[int],
    rng: random.Random,
) -> list[list[int]]:
    hands = [list(h) for h in known]
    left = list(pool)
    total = sum(left)
    need = {s: min(k.counts[s], total) for s in unknown}
    if k.rules.bie3:
        for s in unknown:
            if need[s] and not k.threes_played[s] and left[THREE]:
                left[THREE] -= 1
                total -= 1
                hands[s][THREE] += 1
                need[s] -= 1
    floors = k.floors or [0] * 6
    spent = k.spent or [0] * 6
    bie3 = k.rules.bie3
    full = k.all_dealt
    if any(spent[s] for s in unknown) and _deal_by_evidence(
        hands, unknown, need, floors, spent, left, bie3, rng, full
    ):
        return hands
    if any(floors[s] for s in unknown) and _deal_by_evidence(
        hands, unknown, need, floors, [0] * 6, left, bie3, rng, full
    ):
        return hands  # with the spent ranks out a floor left a seat short (4%): floors alone
    cards = [r for r in range(SMALL if full else NRANKS) for _ in range(left[r])]
    rng.shuffle(cards)
    if full:
        # the cards of seats out of play, none a joker (§5.4 §7 §8: see _deal_by_evidence)
        dead = max(len(cards) + left[SMALL] + left[BIG] - sum(need.values()), 0)
        cards = cards[dead:] + [SMALL] * left[SMALL] + [BIG] * left[BIG]
        rng.shuffle(cards)
    pos = 0
    for s in unknown:
        n = min(need[s], len(cards) - pos)
        h = hands[s]
        for r in cards[pos : pos + n]:
            h[r] += 1
        pos += n
    return hands


def _deal_by_evidence(
    hands: list[list[int]],
    unknown: list[int],
    need: dict[int, int],
    floors: list[int],
    spent: list[int],
    pool: list[int],
    bie3: bool,
    rng: random.Random,
    all_dealt: bool = False,
) -> bool:
    """Deal the ``pool`` (counts by rank) to the ``unknown`` seats so that none gets a rank
    below its floor (:func:`~engine.ai.knowledge.lead_floors`; 3s exempt under 憋3) or, where
    some seat may take the card, a rank it has spent (``spent`` bits,
    :func:`~engine.ai.knowledge.spent_ranks`): rank by rank in :data:`DEAL_ORDER`, each card
    to a seat that may hold it, chosen in proportion to the cards it still needs (the plain
    ranks are spread afterwards, :func:`_mix`) — the cards nobody needs (those of seats out
    of play) being one more such recipient, of any card but a joker when they are dead hands
    (``all_dealt``, :attr:`~engine.ai.knowledge.Knowledge.all_dealt`). False (``hands``
    untouched) when the floors cannot all be met."""
    left = dict(need)
    dead = sum(pool) - sum(left.values())
    got = [[0] * NRANKS for _ in range(6)]
    jokers_got = [0] * 6
    rand = rng.random  # uniform draws over the weights, without randrange's overhead
    allow = _allowed(unknown, floors, spent, bie3, all_dealt)
    by_floor = _allowed(unknown, floors, [0] * 6, bie3, all_dealt)
    for r in DEAL_ORDER:
        cnt = pool[r]
        if not cnt:
            continue
        plain = r < TWO
        ok = [s for s in unknown if left[s] and (not plain or allow[s] >> r & 1)]
        joker = r > TWO
        weights = [
            left[s] / (1.0 + SPREAD * jokers_got[s]) if joker else float(left[s]) for s in ok
        ]
        live = sum(weights)
        for _ in range(cnt):
            if not ok:
                if dead:
                    dead -= 1
                    continue
                # nobody may hold it by the spent ranks: it goes to a seat the floors allow
                # (that seat broke a group), in proportion to the cards it still needs
                relaxed = [s for s in unknown if left[s] and (not plain or by_floor[s] >> r & 1)]
                if not relaxed:
                    return False
                x = rand() * sum(left[s] for s in relaxed)
                for s in relaxed:
                    x -= left[s]
                    if x < 0:
                        break
                left[s] -= 1
                got[s][r] += 1
                continue
            # §5.4 §7 §8: no dead card is a joker (a revolutionary holds none, a failed burner
            # none left, a smothered player only 3s)
            room = 0 if joker and all_dealt else dead
            x = rand() * (room + live)
            if x < room:
                dead -= 1
                continue
            x -= room
            i = 0
            last = len(ok) - 1
            while i < last:
                x -= weights[i]
                if x < 0:
                    break
                i += 1
            s = ok[i]
            left[s] -= 1
            got[s][r] += 1
            live -= weights[i]
            if left[s]:
                if joker:
                    jokers_got[s] += 1
                    weights[i] = left[s] / (1.0 + SPREAD * jokers_got[s])
                else:
                    weights[i] = float(left[s])
                live += weights[i]
            else:
                del ok[i], weights[i]
    if any(left.values()):
        return False
    for s in unknown:
        h, g = hands[s], got[s]
        for r in range(NRANKS):
            h[r] += g[r]
    return True


def _allowed(
    unknown: list[int], floors: list[int], spent: list[int], bie3: bool, all_dealt: bool = False
) -> list[int]:
    """Per seat (index 6: the dead cards), a bit for each rank 3..A it may hold by its floor
    and spent ranks (3s: any, under 憋3); the dead cards hold no joker when they are dead
    hands (``all_dealt``: §5.4 §7 §8)."""
    allow = [0] * 7
    allow[6] = (1 << SMALL) - 1 if all_dealt else (1 << NRANKS) - 1
    control = ((1 << NRANKS) - 1) ^ ((1 << TWO) - 1)  # 2s and jokers: any seat
    for s in unknown:
        allow[s] = control | sum(
            1 << r
            for r in range(TWO)
            if (r == THREE and bie3) or (r >= floors[s] and not spent[s] >> r & 1)
        )
    return allow


def _mix(
    hands: list[list[int]],
    unknown: list[int],
    pool: list[int],
    allow: list[int],
    keep3: list[int],
    swaps: float,
    rand: Callable[[], float],
    bans: list[list[int]] | None = None,
) -> None:
    """Mix the plain cards (3 up to A) between the holders, ``swaps`` tries per card
    (:class:`_Mixer`)."""
    mixer = _Mixer(hands, unknown, pool, allow, keep3, bans, TWO)
    mixer.run(swaps, rand)
    mixer.write(hands)


class _Mixer:
    """Random swaps of two cards between holders that may hold each other's (``allow``; the
    dead cards, holder 6, hold anything but jokers; ``keep3``: the 3s a seat bound by 憋3
    keeps). The deal drifts to a uniform one among those that fit the floors and the spent
    ranks, each seat's count and each rank's supply kept (a rank-by-rank deal alone gives the
    first ranks dealt too much: the last, high ranks find the hands full), and a swap never
    adds a count a seat's answers rule out (``bans``).

    Each try picks two holders (a pair uniformly), a card of each (uniformly among its cards
    some other holder may take) and swaps them if each holder may take the other's: the
    chance of a try and of its reverse are the same (holders' card counts never change), so
    the deals are drawn uniformly (cards no other holder may take stay where they are)."""

    __slots__ = ("allow", "ban", "cards", "cnt", "fixed", "keep3", "live", "unknown", "upto")

    def __init__(
        self,
        hands: list[list[int]],
        unknown: list[int],
        pool: list[int],
        allow: list[int],
        keep3: list[int],
        bans: list[list[int]] | None,
        upto: int,
    ) -> None:
        dead = [pool[r] - sum(hands[s][r] for s in unknown) for r in range(upto)]
        holders = (*unknown, 6) if any(n > 0 for n in dead) else tuple(unknown)
        held = [0] * NRANKS  # the holders that may take each rank, as bits
        for s in holders:
            a = allow[s]
            for r in range(upto):
                if a >> r & 1:
                    held[r] |= 1 << s
        cards: list[list[int]] = [[] for _ in range(7)]
        fixed = [[0] * NRANKS for _ in range(7)]
        for r in range(upto):
            for s in holders:
                g = dead[r] if s == 6 else hands[s][r] - (keep3[s] if r == THREE else 0)
                if g <= 0:
                    continue
                if held[r] & ~(1 << s):  # another holder may take it
                    cards[s] += [r] * g
                else:
                    fixed[s][r] += g
        self.unknown = unknown
        self.allow = allow
        self.keep3 = keep3
        self.upto = upto
        self.cards = cards
        self.fixed = fixed
        self.live = [s for s in holders if cards[s]]
        # with counts some seats cannot hold (``bans``), a swap may not add a cell holding one
        self.ban = [*bans, [0] * NRANKS] if bans is not None else None
        self.cnt = [[0] * NRANKS for _ in range(7)]
        if self.ban is not None:
            for s in self.live:
                c, f = self.cnt[s], fixed[s]
                for r in cards[s]:
                    c[r] += 1
                for r in range(upto):
                    c[r] += f[r]
            for s in unknown:
                self.cnt[s][THREE] += keep3[s]

    def run(self, swaps: float, rand: Callable[[], float], focus: set[int] | None = None) -> None:
        """``swaps`` tries per card (with ``focus``, only swaps with those seats: tries per
        card of theirs)."""
        cards, allow, ban, cnt, live = self.cards, self.allow, self.ban, self.cnt, self.live
        pairs = [
            (a, b, len(cards[a]), len(cards[b]))
            for i, a in enumerate(live)
            for b in live[i + 1 :]
            if focus is None or a in focus or b in focus
        ]
        if not pairs:
            return
        m = sum(len(cards[s]) for s in live if focus is None or s in focus)
        npairs = len(pairs)
        # (one try more half the time: with every try taken, a chain would alternate)
        for _ in range(int(swaps * m) + (rand() < 0.5)):
            u = rand() * npairs
            p = int(u)
            a, b, la, lb = pairs[p]
            ca, cb = cards[a], cards[b]
            x = int((u - p) * la)
            y = int(rand() * lb)
            ra, rb = ca[x], cb[y]
            if ra == rb or not (allow[a] >> rb & 1 and allow[b] >> ra & 1):
                continue
            if ban is not None:
                na, nb = cnt[a], cnt[b]
                ba, bb = ban[a], ban[b]
                before = (
                    (ba[ra] >> na[ra] & 1)
                    + (ba[rb] >> na[rb] & 1)
                    + (bb[ra] >> nb[ra] & 1)
                    + (bb[rb] >> nb[rb] & 1)
                )
                after = (
                    (ba[ra] >> (na[ra] - 1) & 1)
                    + (ba[rb] >> (na[rb] + 1) & 1)
                    + (bb[ra] >> (nb[ra] + 1) & 1)
                    + (bb[rb] >> (nb[rb] - 1) & 1)
                )
                if after > before:
                    continue
                na[ra] -= 1
                na[rb] += 1
                nb[ra] += 1
                nb[rb] -= 1
            ca[x], cb[y] = rb, ra

    def write(self, hands: list[list[int]]) -> None:
        """The mixed cards back into ``hands``."""
        upto, keep3 = self.upto, self.keep3
        for s in self.unknown:
            h, f = hands[s], self.fixed[s]
            for r in range(upto):
                h[r] = f[r]
            h[THREE] += keep3[s]
            for r in self.cards[s]:
                h[r] += 1


class _Table:
    """What every rollout seat sees of the simulated game alike, read once per change: the
    live counts, who is active, 无头 (Flow.headless on the active seats, §12, §5.4 要头) and,
    per seat, the cards it has not seen."""

    __slots__ = ("active", "counts", "headless", "pools", "threes_played")

    def __init__(self, sim: Game) -> None:
        status = sim.status
        active = [st is Status.ACTIVE for st in status]
        yaotou = sim.yaotou
        stood = sim.yaotou_stood
        self.active = active
        self.counts = [sum(h) if a else 0 for h, a in zip(sim.hands, active, strict=True)]
        self.headless = [
            active[s] and not active[(s + 3) % 6] and not (s in yaotou and stood[s] < 3)
            for s in range(6)
        ]
        self.threes_played = [not a for a in active]
        self.pools: list[list[int] | None] = [None] * 6


def sim_knowledge(
    sim: Game, seat: int, unseen: list[int], table: _Table | None = None
) -> Knowledge:
    """A rollout seat's knowledge, read from the simulated game (all of it sampled);
    ``unseen`` counts the cards not played yet, by rank; ``table``: what every seat sees
    alike, when already read (:class:`_Table`)."""
    if table is None:
        table = _Table(sim)
    hand = sim.hands[seat]
    pool = table.pools[seat]
    if pool is None:
        pool = [u - h if u > h else 0 for u, h in zip(unseen, hand, strict=True)]
        table.pools[seat] = pool
    top = sim.top
    ask = sim.ask
    return Knowledge(
        seat=seat,
        rules=sim.rules,
        ask=ask[1] if ask else "",
        hand=hand,  # read only by the policy
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
        pool=pool,
        threes_played=table.threes_played,
    )


def evaluate(sim: Game, me: int) -> float:
    """The result for ``me``'s team of a game cut short: the seats still playing are taken to
    finish in the order of their going-out plans (groups to lead, less control cards, §6)."""
    if sim.over:
        sa, sb = sim.score()
    else:
        live = [s for s in range(6) if sim.active(s)]
        live.sort(key=lambda s: (_plan(sim.hands[s], sim.rules.bie3), sum(sim.hands[s])))
        ranks = compute_ranks(
            [*sim.top_order, *live], sim.fails, sim.smothers, sim.revolutionary, True
        )
        sa, sb = score(ranks)
    return result_of(sa - sb, me)


def result_of(diff: int, me: int) -> float:
    """:func:`evaluate`'s result for ``me``'s team of a final signed score (team A's minus
    team B's)."""
    mine = diff if team(me) == 0 else -diff
    return (1.0 if mine > 0 else 0.5 if mine == 0 else 0.0) + mine / MARGIN_SCALE


def win_part(result: float) -> float:
    """The win (1, ½, 0) of an :func:`evaluate` result: the margin term is at most ½ (a score
    of ±12 over :data:`MARGIN_SCALE`), and a positive margin is a win."""
    return 1.0 if result > 0.75 else 0.5 if result >= 0.25 else 0.0


def _plan(h: list[int], bie3: bool) -> float:
    groups = sum(1 for r in range(THREE if not bie3 else THREE + 1, TWO) if h[r])
    return groups - 0.8 * (h[TWO] > 0) - 1.0 * h[SMALL] - 1.2 * h[BIG]


def rollout(
    sim: Game, me: int, unseen: list[int], rng: random.Random, horizon: int = ROLLOUT_LIMIT
) -> float:
    """Play ``sim`` with the normal policy, to the end or for ``horizon`` decisions (then
    :func:`evaluate`); the result for ``me``'s team: +1 a win, 0.5 a tie, 0 a loss, plus a
    little for the margin."""
    steps = 0
    # what all seats see alike changes only with a play or the end of a trick (a status may
    # change then: 诈烧, §7; a 够死级 play stood, §5.4): read again only then
    plays = 0
    read: tuple[int, bool] | None = None
    table: _Table | None = None
    while not sim.over:
        seat, kind = sim.ask  # type: ignore[misc]
        top = sim.top
        if (
            kind != Ask.LEAD
            and top is not None
            and (top.seat - seat) % 2 == 0
            and sim.status[top.seat] is Status.ACTIVE
            and not (kind != Ask.BURN and sum(sim.hands[seat]) <= top.play.size)
        ):
            sim.carry_out(Do.PASS, None)  # the normal policy rarely beats a teammate
            continue
        now = (plays, top is None)
        if table is None or now != read:
            table, read = _Table(sim), now
        k = sim_knowledge(sim, seat, unseen, table)
        if kind == Ask.LEAD and sim.burning != seat:
            ch = decide_play(k, (), False, rng)  # an ordinary lead reads the hand only
        else:
            legal = sim.legal(seat)
            ch = decide_play(k, legal.plays, legal.can_yield, rng)
        # the policy picks among legal moves, so the game's checks are skipped (a speed path)
        sim.carry_out(ch.do, ch.play)
        if ch.play is not None:
            plays += 1
            for r, n in enumerate(ch.play.counts):
                unseen[r] -= n
        steps += 1
        if steps > horizon:
            break
    return evaluate(sim, me)


def _group(rank: int, n: int, extra: dict[int, int] | None = None) -> Play | None:
    c = [0] * NRANKS
    c[rank] += n
    for r, m in (extra or {}).items():
        c[r] += m
    return as_play(tuple(c))


def candidates(k: Knowledge, legal: Legal, normal: Action) -> list[Action]:
    """Sensible actions to compare, the normal choice first: for a lead the lowest groups,
    splits of a group, 2s and jokers led to win the lead back, going out; for an answer pass,
    yield and the cheapest beats with and without control cards; for a burn claim the
    burns that keep the duty feasible; while burning, the leads that keep it feasible."""
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
    """The best candidate by rollouts, or None to keep the normal choice (one candidate, too
    few determinizations, no candidate clearly better, or ``stop`` set). With ``samples`` the
    search makes exactly that many determinizations, whatever the time."""
    # §12 near the end: solved exactly, or by the rollouts when too big
    exact = k.four_way and sum(k.counts[s] for s in range(6) if k.active[s]) <= EXACT_CARDS
    cands = candidates(k, legal, normal)
    by_rollouts = worth_searching(k) and len(cands) >= 2
    if not exact and not by_rollouts:
        return None
    if k.not_held is None:
        k.not_held = group_evidence(game.log, k.rules)
    if k.beat_then is None:
        k.beat_then = could_beat(game.log, k.rules)
    # how many cards were dealt is public (every seat's count at the start is shown)
    k.all_dealt = sum(map(sum, game.start_hands)) == sum(DECK_COUNTS)
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
    # results[i][j]: candidate i in determinization j (the same deal and rollout seed for all
    # live candidates: common random numbers, so differences are compared pair by pair)
    results: list[list[float]] = [[] for _ in cands]
    alive = list(range(len(cands)))
    start = time.perf_counter()
    rounds = 0
    budget_rounds = samples
    while True:
        if stop is not None and stop.is_set():
            return None
        if budget_rounds is not None:
            if rounds >= budget_rounds:
                break
        else:
            now = time.perf_counter()
            per = (now - start) / rounds if rounds else 0.0
            if rounds and now + per > deadline:
                break
        hands = deal_hidden(k, partners, rng, checks)
        seed = rng.random()
        for i in alive:
            act = cands[i]
            sim = game.copy(hands=hands, keep_log=False)  # rollouts count cards themselves
            sim.apply(act)
            unseen = list(base_unseen)
            if act.cards:
                for r, n in enumerate(parse(act.cards)):
                    unseen[r] -= n
            results[i].append(rollout(sim, k.seat, unseen, random.Random(seed), HORIZON))
        rounds += 1
        # successive halving: after 4, 8, 16… rounds keep the better half (the normal choice
        # always stays, as the reference)
        if rounds in (4, 8, 16, 32) and len(alive) > 2:
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
        solver.nodes = 0
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

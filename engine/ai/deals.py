"""Deals of the hidden cards for the hard level's search, consistent with what the deciding
seat may know.

No hidden information: every deal is made from the deciding seat's
:class:`~engine.ai.knowledge.Knowledge` alone (its view and the public log): the pool of unseen
cards, every seat's count, a 3 for each seat still bound by 憋3 (§8), teammates' hands shown by
§13 ``partner_cards_at``, and what each seat's leads, answers and passes say:

- ``floors``: players lead their lowest group, so no seat is dealt a rank below its lowest
  lead; ``spent``: a seat seldom holds more of a rank it has played, since groups are played
  whole (§6);
- ``cannot_beat``, ``sat_out``: a seat the game passed for cannot beat that top (§6.3);
  ``declined``: a seat that passed up an opponent's top holds no whole group beating it;
  ``beat_then``: a seat the game asked about a top could beat it then (§6.3) — its hand now
  and the cards it has played since; ``not_held``: the counts of a rank a seat's answers in
  the whole game rule out;
- and the hidden seats' recent choices: the normal player, dealt the hand, would have made
  them (:mod:`engine.ai.inference`).

Hands are dealt as real ones look: the 2s and jokers first, in proportion to the cards each
seat holds (jokers spread wider than by chance, :data:`SPREAD`), then the plain ranks, then the
plain cards mixed (:mod:`engine.ai.mixing`) so that a hand holds nearly every rank its evidence
allows. Of a few mixes the deal breaking the fewest facts and choices is kept. The measurements
behind these choices are in docs/ai.md.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from ..cards import BIG, NRANKS, SMALL, THREE, TWO, parse
from ..legal import can_beat
from ..plays import Play
from .inference import Checks
from .knowledge import Asked, Knowledge
from .mixing import DEAD, HOLDERS, Mixer, mix

DEAL_TRIES = 20  # mixes tried for a deal that breaks no fact or choice (bounds a deal's time)
SPREAD = 1.0  # each joker a seat already got lowers its weight for the next: jokers spread wide
MIX = 10.0  # swap tries per plain card of a fresh deal: enough for a uniform deal (docs/ai.md)
MIX_AGAIN = 1.0  # swap tries per card of the seats breaking something, at each further try
DEAL_ORDER = (TWO, SMALL, BIG, *range(TWO))  # ranks dealt: control cards first, then 3 up to A
ANY_RANK = (1 << NRANKS) - 1  # a rank mask of every rank
PLAIN = (1 << TWO) - 1  # a rank mask of the plain ranks, 3 up to A
NO_JOKER = (1 << SMALL) - 1  # a rank mask of every rank but the jokers (dead hands', §5.4 §7 §8)
THREES_KEPT = 4  # the 3s a bound seat is taken to hold at most, for what its passes say (§8)
COUNT_BITS = 0xFFFF  # a bit per count 0..15 of one rank, as Knowledge.not_held holds them


def deal_hidden(
    k: Knowledge, partners: list[str | None], rng: random.Random, checks: Checks | None = None
) -> list[list[int]]:
    """Hands for every seat: this seat's own, known teammates' (§13), the rest sampled from the
    pool with each seat's count and, under 憋3, a 3 for each seat that has not played its 3s;
    no seat below its lead floor, none with a spent rank or a count its answers rule out
    where the cards can go elsewhere, the plain cards mixed (:data:`MIX`), and (of a few
    mixes tried, the one that fits best) none able to beat a top the game passed for it
    (§6.3), none holding a whole group that beats an opponent's top it chose to pass, each
    able to beat the tops it was asked about, each making its recent choices (``checks``)."""
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
    facts = _evidence(k, unknown)
    dealt = _deal_once(k, hands, unknown, pool, rng)
    bie3 = k.rules.bie3
    allow = allowed_ranks(unknown, k.floors or [0] * 6, k.spent or [0] * 6, bie3, k.all_dealt)
    keep3 = [1 if bie3 and not k.threes_played[s] and dealt[s][THREE] else 0 for s in range(6)]
    bans = _bans(k, unknown, facts.cannot)
    dealt = mix(dealt, unknown, pool, allow, keep3, MIX, rng.random, bans)
    if not facts and not checks:
        return dealt
    best: tuple[int, list[list[int]]] | None = None
    mixer: Mixer | None = None
    for _ in range(DEAL_TRIES):
        bad = _faults(dealt, facts, checks, bie3)
        if best is None or len(bad) < best[0]:
            best = (len(bad), dealt)
        if not bad:
            break
        # a little more mixing of the seats that break something, the 2s and jokers too (a
        # top may be beaten with them)
        if mixer is None:
            mixer = Mixer(dealt, unknown, pool, allow, keep3, bans, NRANKS)
        mixer.run(MIX_AGAIN, rng.random, set(bad))
        dealt = mixer.hands(dealt)
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
                # §8: a group that with its 3s was all it held may have been passed up, so
                # only the counts below that stay ruled out
                cap = (1 << max(k.counts[s] - THREES_KEPT, 0)) - 1
                row = [m & cap for m in row]
            out[s] = list(row)
            found = found or any(row)
    for s, p in cannot:
        sh = p.shape
        if sh.big or sh.small or sh.base < 0 or sh.base >= TWO:
            continue
        many = ~((1 << sh.size) - 1) & COUNT_BITS  # n cards or more
        row = out[s]
        for r in range(max(sh.base + 1, THREE + 1), TWO):
            row[r] |= many
        found = True
    return out if found else None


def _whole_beat(h: list[int], top: Play, bie3: bool) -> bool:
    """Does ``h`` hold a whole plain group beating ``top`` that a player would not have passed
    up (:func:`~engine.ai.knowledge.declined`)? Under 憋3 a group that is all a bound seat
    holds besides its 3s may be passed up (§8: its last play before the 3s)."""
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
    """``known`` with the ``pool`` dealt to the ``unknown`` seats: by the evidence of the
    floors and spent ranks (:func:`_deal_by_evidence`), by the floors alone when the spent
    ranks leave a seat short, else a plain shuffle."""
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
    if any(spent[s] for s in unknown):
        dealt = _deal_by_evidence(hands, unknown, need, floors, spent, left, bie3, rng, full)
        if dealt is not None:
            return dealt
    if any(floors[s] for s in unknown):  # the spent ranks left a seat short: floors alone
        dealt = _deal_by_evidence(hands, unknown, need, floors, [0] * 6, left, bie3, rng, full)
        if dealt is not None:
            return dealt
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
) -> list[list[int]] | None:
    """``hands`` with the ``pool`` (counts by rank) dealt to the ``unknown`` seats (``need``:
    the cards each still needs) so that none gets a rank below its floor
    (:func:`~engine.ai.knowledge.lead_floors`; 3s exempt under 憋3) or, where some seat may
    take the card, a rank it has spent (``spent`` bits,
    :func:`~engine.ai.knowledge.spent_ranks`): rank by rank in :data:`DEAL_ORDER`, each card
    to a seat that may hold it, chosen in proportion to the cards it still needs (the plain
    ranks are spread afterwards, :mod:`engine.ai.mixing`) — the cards nobody needs (those of
    seats out of play) being one more such recipient, of any card but a joker when they are
    dead hands (``all_dealt``, :attr:`~engine.ai.knowledge.Knowledge.all_dealt`). None when
    the floors cannot all be met."""
    left = dict(need)
    dead = sum(pool) - sum(left.values())
    got = [[0] * NRANKS for _ in range(6)]
    jokers_got = [0] * 6
    rand = rng.random  # uniform draws over the weights, without randrange's overhead
    allow = allowed_ranks(unknown, floors, spent, bie3, all_dealt)
    by_floor = allowed_ranks(unknown, floors, [0] * 6, bie3, all_dealt)
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
                    return None
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
        return None
    out = [list(h) for h in hands]
    for s in unknown:
        h, g = out[s], got[s]
        for r in range(NRANKS):
            h[r] += g[r]
    return out


def allowed_ranks(
    unknown: list[int], floors: list[int], spent: list[int], bie3: bool, all_dealt: bool = False
) -> list[int]:
    """Per holder (:data:`~engine.ai.mixing.DEAD`: the dead cards), a bit for each rank it may
    hold: the 2s and jokers, and the ranks 3..A its floor and spent ranks allow (3s: any,
    under 憋3); the dead cards hold anything, but no joker when they are dead hands
    (``all_dealt``: §5.4 §7 §8)."""
    allow = [0] * HOLDERS
    allow[DEAD] = NO_JOKER if all_dealt else ANY_RANK
    control = ANY_RANK ^ PLAIN  # 2s and jokers: any seat
    for s in unknown:
        allow[s] = control | sum(
            1 << r
            for r in range(TWO)
            if (r == THREE and bie3) or (r >= floors[s] and not spent[s] >> r & 1)
        )
    return allow

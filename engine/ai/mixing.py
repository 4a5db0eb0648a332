"""Mixing a deal of the hidden cards by random swaps, for the hard level's deals
(:mod:`engine.ai.deals`).

A deal made rank by rank gives the first ranks dealt too much: the last, high ranks find the
hands full. Swapping two cards between holders that may hold each other's leaves each seat's
count and each rank's supply as they are and drifts to a deal drawn uniformly among those the
evidence allows (the lead floors and spent ranks of :mod:`engine.ai.knowledge`, as per-holder
rank masks, and the counts a seat's answers rule out).

Holders are the six seats and the dead cards (:data:`DEAD`): the cards of seats out of play,
which hold no joker in a game of all four decks (a revolutionary holds no 2 or joker, a failed
burner no joker left, a smothered player only 3s: §5.4 §7 §8).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..cards import NRANKS, THREE, TWO

DEAD = 6  # the holder index of the dead cards, after the six seats
HOLDERS = DEAD + 1  # the six seats and the dead cards


def mix(
    hands: Sequence[Sequence[int]],
    unknown: list[int],
    pool: Sequence[int],
    allow: Sequence[int],
    keep3: Sequence[int],
    swaps: float,
    rand: Callable[[], float],
    bans: Sequence[Sequence[int]] | None = None,
) -> list[list[int]]:
    """``hands`` with the plain cards (3 up to A) of the ``unknown`` seats mixed between the
    holders, ``swaps`` tries per card (:class:`Mixer`); ``hands`` are left as they are."""
    mixer = Mixer(hands, unknown, pool, allow, keep3, bans, TWO)
    mixer.run(swaps, rand)
    return mixer.hands(hands)


class Mixer:
    """Random swaps of two cards between holders that may hold each other's (``allow``: a bit
    per rank for each holder, :data:`DEAD` included; ``keep3``: the 3s a seat bound by 憋3
    keeps, §8), ranks below ``upto`` only. Each seat's count and each rank's supply are kept,
    and a swap never adds a count a seat's answers rule out (``bans``: a bit per count, per
    seat and rank).

    Each try picks two holders (a pair uniformly), a card of each (uniformly among its cards
    some other holder may take) and swaps them if each holder may take the other's: the
    chance of a try and of its reverse are the same (holders' card counts never change), so
    the deals are drawn uniformly (cards no other holder may take stay where they are). The
    mixer keeps its own state from one :meth:`run` to the next; :meth:`hands` reads it out."""

    __slots__ = ("allow", "ban", "cards", "cnt", "fixed", "keep3", "live", "unknown", "upto")

    def __init__(
        self,
        hands: Sequence[Sequence[int]],
        unknown: list[int],
        pool: Sequence[int],
        allow: Sequence[int],
        keep3: Sequence[int],
        bans: Sequence[Sequence[int]] | None,
        upto: int,
    ) -> None:
        dead = [pool[r] - sum(hands[s][r] for s in unknown) for r in range(upto)]
        holders = (*unknown, DEAD) if any(n > 0 for n in dead) else tuple(unknown)
        held = [0] * NRANKS  # the holders that may take each rank, as bits
        for s in holders:
            a = allow[s]
            for r in range(upto):
                if a >> r & 1:
                    held[r] |= 1 << s
        cards: list[list[int]] = [[] for _ in range(HOLDERS)]
        fixed = [[0] * NRANKS for _ in range(HOLDERS)]
        for r in range(upto):
            for s in holders:
                g = dead[r] if s == DEAD else hands[s][r] - (keep3[s] if r == THREE else 0)
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
        self.cnt = [[0] * NRANKS for _ in range(HOLDERS)]
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

    def hands(self, base: Sequence[Sequence[int]]) -> list[list[int]]:
        """New hands: ``base`` with the mixed cards in place of the unknown seats' (ranks below
        ``upto``; their other cards as in ``base``)."""
        upto, keep3 = self.upto, self.keep3
        out = [list(h) for h in base]
        for s in self.unknown:
            h, f = out[s], self.fixed[s]
            for r in range(upto):
                h[r] = f[r]
            h[THREE] += keep3[s]
            for r in self.cards[s]:
                h[r] += 1
        return out

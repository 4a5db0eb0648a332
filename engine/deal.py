"""Dealing (docs/rules.md §5.1), 买3 and 要3 (§5.3), the first leader (§5.6), and paying tribute
(§11). Pure functions over counts by rank; suits only for the first-leader rule."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .cards import BIG, FOUR, NRANKS, SMALL, THREE, TWO, Counts, shoe
from .ranking import Debt
from .seats import opposite, teammates
from .vocab import LeaderReason

SuitedHand = list[tuple[int, str]]


def deal(rng: random.Random) -> list[SuitedHand]:
    """§5.1: 36 cards to each seat from a shuffled 216-card shoe. Pass ``random.SystemRandom()``
    in play (a CSPRNG); tests pass a seeded ``random.Random``."""
    cards = shoe()
    rng.shuffle(cards)
    return [cards[i * 36 : (i + 1) * 36] for i in range(6)]


def counts_of(hand: SuitedHand) -> Counts:
    c = [0] * NRANKS
    for r, _ in hand:
        c[r] += 1
    return tuple(c)


def deal_hands(rng: random.Random) -> list[Counts]:
    return [counts_of(h) for h in deal(rng)]


def first_leader(
    hands: Sequence[SuitedHand], bie3: bool, rng: random.Random
) -> tuple[int, LeaderReason]:
    """§5.6, game 1: the most same-suit 4s (憋3 on) or 3s (off), at least two; ties to the seat
    reached first counterclockwise from seat 0; nobody → a seat drawn at random."""
    rank = FOUR if bie3 else THREE
    best, best_n = -1, 1
    for seat, hand in enumerate(hands):
        per_suit: dict[str, int] = {}
        for r, suit in hand:
            if r == rank:
                per_suit[suit] = per_suit.get(suit, 0) + 1
        n = max(per_suit.values(), default=0)
        if n > best_n:
            best, best_n = seat, n
    if best < 0:
        return rng.randrange(6), LeaderReason.RANDOM
    return best, LeaderReason.FOURS if bie3 else LeaderReason.THREES


def highest_tribute_card(hand: Sequence[int], received: Sequence[int]) -> int | None:
    """§11: the payer's highest B, S or 2 not received in this same exchange (吃了不吐)."""
    for r in (BIG, SMALL, TWO):
        if hand[r] - received[r] > 0:
            return r
    return None


def pay_debt(hands: list[list[int]], received: list[list[int]], debt: Debt) -> list[int]:
    """Carry out one debt (§11) on mutable hands; the ranks of the cards actually given."""
    given: list[int] = []
    for _ in range(debt.cards):
        r = highest_tribute_card(hands[debt.src], received[debt.src])
        if r is None:
            break  # a payer with no tribute card gives nothing for the rest of this debt
        hands[debt.src][r] -= 1
        hands[debt.dst][r] += 1
        received[debt.dst][r] += 1
        given.append(r)
    return given


def return_choices(
    receiver_hand: Sequence[int], received: Sequence[int], payer_hand: Sequence[int]
) -> Counts:
    """§11 还贡: how many cards of each rank the receiver may return — ranks the payer holds,
    never a card received in this exchange (吃了不吐, which the project applies to both sides)."""
    return tuple(
        max(receiver_hand[r] - received[r], 0) if payer_hand[r] else 0 for r in range(NRANKS)
    )


def buy_threes(hands: list[list[int]]) -> tuple[list[tuple[str, int, int, int]], list[int], bool]:
    """§5.3 买3 / 要3 on mutable hands, buyers served in seat order 0→5.

    Returns (moves, forced revolutionaries, re-deal needed). A move is
    ("buy", buyer, seller, paid rank) or ("give", receiver, giver, 3)."""
    moves: list[tuple[str, int, int, int]] = []
    forced: list[int] = []
    for buyer in range(6):
        h = hands[buyer]
        if h[THREE]:
            continue
        pay = next((r for r in (TWO, SMALL, BIG) if h[r]), None)
        if pay is None:
            forced.append(buyer)  # no 3 and nothing to pay with: revolts (§5.3 → §5.4)
            continue
        seller = opposite(buyer)
        if hands[seller][THREE] >= 2:
            h[pay] -= 1
            hands[seller][pay] += 1
            hands[seller][THREE] -= 1
            h[THREE] += 1
            moves.append(("buy", buyer, seller, pay))
            continue
        # 要3: the nearest teammate counterclockwise holding two or more 3s gives one free.
        giver = next((m for m in teammates(buyer) if hands[m][THREE] >= 2), None)
        if giver is None:
            return moves, forced, True  # a 3 cannot be had: re-deal
        hands[giver][THREE] -= 1
        h[THREE] += 1
        moves.append(("give", buyer, giver, THREE))
    return moves, forced, False

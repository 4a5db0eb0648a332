"""The 'normal' player's deal-phase decisions (docs/rules.md §5.4 革命 and 要头, §5.5 宣点,
§11 还贡), judged on the seat's own hand only."""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import Action
from ..cards import ACE, BIG, DECK_COUNTS, KING, NRANKS, SMALL, THREE, TWO, parse
from ..plays import GOUJI_THRESHOLD
from ..vocab import Ask, Do

REVOLT_BELOW = 6  # §5.4: a hand without 2s or jokers revolts with fewer aces and kings than this
YAOTOU_FROM = 6  # §5.4: 要头 with this many 够级 groups or more, enough to make three stand
# 宣点 (§9): the chances of opening, fitted in normal self-play (docs/ai.md)
OPEN_BASE = 0.55  # a seat opens this often…
OPEN_SLOPE = 0.02  # …and this much more often per point of its strength
OPP_OPEN_BASE = 0.68  # its 对头 opens this often…
OPP_OPEN_SLOPE = 0.01  # …and this much less often per point the seat is stronger than the table
P_MIN, P_MAX = 0.05, 0.95  # those chances are kept within these (the fits are straight lines)


def gouji_groups(hand: Sequence[float]) -> float:
    """Groups that are 够级 on their own (§4), plus each 2 or joker (each can make one)."""
    n = sum(1 for r, need in GOUJI_THRESHOLD.items() if r != TWO and hand[r] >= need)
    return n + hand[TWO] + hand[SMALL] + hand[BIG]


def strength(hand: Sequence[float]) -> float:
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
        if gouji_groups(hand) >= YAOTOU_FROM:
            return Action(seat, Do.YAOTOU), "yaotou_strong"
        return Action(seat, Do.WUTOU), "take_wutou"
    if ask == Ask.DECLARE:
        if declare_gain(hand) > 0.0:
            return Action(seat, Do.DECLARE), "declare_strong"
        return Action(seat, Do.NO_DECLARE), "no_declare"
    best = min(options, key=lambda a: return_cost(hand, parse(a.cards)))
    return best, "return_low"


def table_strength(hand: Sequence[int]) -> float:
    """The expected :func:`strength` of another seat's hand (the 对头's, for 宣点, §9): its
    cards drawn from those this seat does not hold, as expected counts by rank."""
    unseen = [DECK_COUNTS[r] - hand[r] for r in range(NRANKS)]
    size = sum(unseen)
    n = sum(hand)
    if size <= 0 or n <= 0:
        return 0.0
    return strength([u * n / size for u in unseen])


def declare_gain(hand: Sequence[int]) -> float:
    """The expected 点贡 gained by declaring 宣点 alone rather than not (§9's table): +2 if this
    seat opens and its 对头 does not, +1 if neither opens, −2 if the 对头 opens — judged with the
    seat's strength against the table's (the 对头's hand is drawn from the unseen cards)."""
    mine = strength(hand)
    p_me = min(max(OPEN_BASE + OPEN_SLOPE * mine, P_MIN), P_MAX)
    p_opp = OPP_OPEN_BASE - OPP_OPEN_SLOPE * (mine - table_strength(hand))
    p_opp = min(max(p_opp, P_MIN), P_MAX)
    return (1.0 - p_opp) * (1.0 + p_me) - 2.0 * p_opp


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
        need = GOUJI_THRESHOLD.get(r)
        if need is not None and hand[r] >= need > hand[r] - n:
            cost += 2.0  # it would break a 够级 group (§4): keep the hand's structure
        if r == THREE and hand[r] == n:
            cost += 5.0  # without a 3 this seat would have to buy one with a 2 (§5.3)
    return cost

"""Which plays a hand can make (docs/rules.md §3): the answers that beat a top, and leads.

Generation follows the shape of the top rather than searching subsets: a beating play has the
same size, at least as many big jokers as the top has small ones, and a body of a higher rank
(DouZero's classify → generate → filter, on counts by rank).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .actions import Action
from .cards import BIG, DECK_COUNTS, NRANKS, RANK_CHARS, SMALL, THREE, TWO, Counts
from .plays import Play, Shape, as_play, limit_interned, play_of
from .vocab import Ask


@dataclass(frozen=True, init=False)
class Legal:
    """What a seat may do now, whatever the phase (``Match.choices``). In the play: ``plays``
    are concrete plays to offer (for an answer: every distinct beating play; for a lead: a
    compact menu, any legal lead being accepted), grouped by :meth:`groups` for a phone UI. In
    the deal phase: ``options``, every action the seat may take (革命, 要头, 宣点, 还贡). A seat
    that is not asked gets ``ask=None`` and nothing to do."""

    seat: int
    ask: Ask | None
    plays: tuple[Play, ...]
    can_pass: bool
    can_yield: bool
    any_lead: bool
    options: tuple[Action, ...] = ()

    def __init__(
        self,
        seat: int,
        ask: Ask | None,
        plays: tuple[Play, ...],
        can_pass: bool,
        can_yield: bool,
        any_lead: bool,
        options: tuple[Action, ...] = (),
    ) -> None:
        # the dataclass's own __init__, without a frozen object.__setattr__ per field (one
        # Legal is made per decision: hot in random games and a search's rollouts)
        self.__dict__.update(
            seat=seat,
            ask=ask,
            plays=plays,
            can_pass=can_pass,
            can_yield=can_yield,
            any_lead=any_lead,
            options=options,
        )

    def groups(self) -> dict[str, list[Play]]:
        """Plays keyed by the notation character of their body rank ("J", "2") or "S"/"B"
        for joker-only plays, strongest group first."""
        out: dict[str, list[Play]] = {}
        for p in sorted(self.plays, key=_group_key, reverse=True):
            sh = p.shape
            key = RANK_CHARS[sh.base] if sh.base >= 0 else ("B" if sh.big else "S")
            out.setdefault(key, []).append(p)
        return out


def _group_key(p: Play) -> tuple[int, int, int]:
    sh = p.shape
    return (sh.base if sh.base >= 0 else 20 + sh.big, -sh.size, -(sh.big + sh.small))


_EMPTY = [0] * NRANKS


def _counts(big: int, small: int, base: int, plain: int, twos: int) -> Counts:
    c = list(_EMPTY)
    c[BIG] = big
    c[SMALL] = small
    if base >= 0:
        c[base] += plain
    c[TWO] += twos
    return tuple(c)


def _beating_shapes(
    hand: Sequence[int], q: Shape, no_big: bool = False
) -> Iterator[tuple[int, int, int, int, int]]:
    """(big, small, base, plain, twos) of every play in ``hand`` beating shape ``q`` by the
    ordinary rule of §3 (same size, card by card higher)."""
    n = q.size
    if q.big or n == 0:
        return
    max_big = 0 if no_big else min(n, hand[BIG])
    for big in range(q.small, max_big + 1):
        for small in range(min(n - big, hand[SMALL]) + 1):
            rest = n - big - small
            if rest == 0:
                yield big, small, -1, 0, 0
                continue
            # a body of `rest` cards, rank above q.base (a 3 never beats: it is the lowest rank)
            for base in range(max(q.base + 1, THREE + 1), TWO):
                have = hand[base]
                if not have:
                    continue
                for plain in range(max(1, rest - hand[TWO]), min(have, rest) + 1):
                    yield big, small, base, plain, rest - plain
            if q.base < TWO and hand[TWO] >= rest:
                yield big, small, TWO, 0, rest


_SHAPED: dict[tuple[int, int, int, int, int], Play] = {}


def _shaped(key: tuple[int, int, int, int, int]) -> Play:
    """The shared play of (big, small, base, plain, twos); such keys are few (a few thousand)."""
    p = _SHAPED.get(key)
    if p is None:
        p = _SHAPED[key] = play_of(_counts(*key))
    return p


def _ordinary_plays(hand: Sequence[int], q: Shape) -> list[Play]:
    """The plays of :func:`_beating_shapes` (``no_big`` false), in its order, each distinct."""
    out: list[Play] = []
    n = q.size
    if q.big or n == 0:
        return out
    get = _SHAPED.get
    twos = hand[TWO]
    lo = q.base + 1 if q.base >= THREE else THREE + 1
    bases = [(b, hand[b]) for b in range(lo, TWO) if hand[b]]
    two_ok = q.base < TWO
    hand_small = hand[SMALL]
    for big in range(q.small, min(n, hand[BIG]) + 1):
        for small in range(min(n - big, hand_small) + 1):
            rest = n - big - small
            if rest == 0:
                key: tuple[int, int, int, int, int] = (big, small, -1, 0, 0)
                out.append(get(key) or _shaped(key))
                continue
            least = rest - twos if rest - twos > 1 else 1
            for base, have in bases:
                for plain in range(least, (have if have < rest else rest) + 1):
                    key = (big, small, base, plain, rest - plain)
                    out.append(get(key) or _shaped(key))
            if two_ok and twos >= rest:
                key = (big, small, TWO, 0, rest)
                out.append(get(key) or _shaped(key))
    return out


def beating_plays(hand: Sequence[int], top: Play, kill_big_joker: bool = False) -> list[Play]:
    """Every distinct play in ``hand`` that beats ``top`` (§3, with §13 kill_big_joker)."""
    q = top.shape
    if not (kill_big_joker and q.big == 1):
        # each (big, small, base, plain, twos) is a different set of cards: nothing repeats
        return _ordinary_plays(hand, q)
    # A top with a big joker has no ordinary answer, only 二杀一 (two B in the place of the
    # one B) and 三杀一 (three S and no B), the rest beating the rest.
    found: dict[Counts, None] = {}
    rest_q = Shape(0, q.small, q.base, q.body)
    for killer, n, no_big in ((BIG, 2, False), (SMALL, 3, True)):
        if hand[killer] < n:
            continue
        h = list(hand)
        h[killer] -= n
        for shape in _rests(h, rest_q, no_big=no_big):
            c = list(_counts(*shape))
            c[killer] += n
            found[tuple(c)] = None
    return [play_of(c) for c in found]


_ANSWERS: dict[tuple[object, ...], tuple[Play, ...]] = {}
_ANSWERS_LIMIT = 20_000  # a few MB; the table is only ever cleared


def limit_caches(answers: int, plays: int) -> None:
    """The process's shared tables of answers (:func:`answers`) and plays
    (:func:`engine.plays.play_of`) kept to these sizes instead of 20,000 and 50,000 (some MB
    each, once full): for a process that plays no rollouts, such as the bot's own (it only
    checks and offers the asked seat's plays), where those tables would grow with every table
    it serves until full. Results are the same; a miss costs microseconds."""
    global _ANSWERS_LIMIT
    _ANSWERS_LIMIT = answers
    limit_interned(plays)
    if len(_ANSWERS) > answers:
        _ANSWERS.clear()


def answers(hand: Sequence[int], top: Play, kill_big_joker: bool = False) -> tuple[Play, ...]:
    """:func:`beating_plays` as a shared tuple, remembered by top and what of the hand can
    answer it: the ranks above the top's body, each count capped at the top's size (more cards
    of a rank make no other answer). A search's rollouts, and random games, meet the same
    again and again."""
    q = top.shape
    key: tuple[object, ...]
    if kill_big_joker and q.big == 1:
        key = (top, -1, *hand)  # (-1: no capped count; the whole hand matters)
    else:
        n = q.size
        key = (top, *[h if h < n else n for h in hand[q.base + 1 if q.base >= 0 else 1 :]])
    found = _ANSWERS.get(key)
    if found is None:
        if len(_ANSWERS) >= _ANSWERS_LIMIT:
            _ANSWERS.clear()
        found = _ANSWERS[key] = tuple(beating_plays(hand, top, kill_big_joker))
    return found


def _rests(
    hand: Sequence[int], rest_q: Shape, no_big: bool
) -> Iterator[tuple[int, int, int, int, int]]:
    if rest_q.size == 0:
        yield 0, 0, -1, 0, 0  # two empty rests count as beating
    else:
        yield from _beating_shapes(hand, rest_q, no_big=no_big)


def can_beat(hand: Sequence[int], top: Play, kill_big_joker: bool = False) -> bool:
    """Whether ``hand`` has a play beating ``top`` (:func:`beating_plays` is not empty),
    without generating: for the ordinary rule of §3 the most jokers leave the smallest body to
    find, so only that one choice needs checking (the inner loop of
    :func:`engine.tricks.Flow._advance` and of a search's rollouts)."""
    q = top.shape
    if q.big:  # nothing is above a big joker, but 二杀一 and 三杀一 may take its place
        return kill_big_joker and q.big == 1 and bool(beating_plays(hand, top, True))
    n = q.size
    big = hand[BIG]
    if n == 0 or big < q.small:
        return False
    rest = n - big - hand[SMALL]  # what the jokers leave for the body
    if rest <= 0:
        return True
    twos = hand[TWO]
    lo = q.base + 1 if q.base >= THREE else THREE + 1
    if twos >= rest:
        return lo <= TWO
    # a rank above the top's with enough cards to make the body with the 2s (3s never beat)
    return lo < TWO and max(hand[lo:TWO]) >= rest - twos


def _groups(joker: int) -> tuple[tuple[tuple[Play, ...], ...], ...]:
    """By rank r and count h: the leads of one to h cards of rank r (with one ``joker`` added
    to each lead of a rank other than the jokers, when ``joker`` is one)."""
    table: list[tuple[tuple[Play, ...], ...]] = []
    for r in range(NRANKS):
        leads: list[Play] = []
        upto: list[tuple[Play, ...]] = [()]
        for n in range(1, DECK_COUNTS[r] + 1):
            c = list(_EMPTY)
            c[r] = n
            if joker >= 0 and r not in (SMALL, BIG):
                c[joker] += 1
            leads.append(play_of(tuple(c)))
            upto.append(tuple(leads))
        table.append(tuple(upto))
    return tuple(table)


_LEADS = _groups(-1)
_LEADS_WITH = {BIG: _groups(BIG), SMALL: _groups(SMALL)}


def lead_plays(hand: Sequence[int], bie3: bool, need_joker: bool = False) -> list[Play]:
    """A compact menu of leads: every plain group (n cards of one rank, 3s only as the whole
    hand under 憋3), 2s alone, jokers alone; with ``need_joker`` (a burner's duty, §7) each
    group comes with one joker added instead, and the whole hand when it is itself a play.
    Any other legal lead (more 2s or jokers attached) is accepted by the game too."""
    plays: list[Play] = []
    holds_three = hand[THREE] > 0
    joker = BIG if hand[BIG] else SMALL if hand[SMALL] else -1
    # with the duty, a joker rides along with each group (jokers lead alone); no group may go
    # without one, so a hand without jokers has only its whole hand (below) to offer
    table = _LEADS_WITH.get(joker) if need_joker else _LEADS
    for r, have in enumerate(hand):
        if not have:
            continue
        if r == THREE and bie3:
            if have == sum(hand):
                plays.append(_LEADS[THREE][have][-1])
        elif table is not None:
            plays.extend(table[r][have])
    if need_joker and not (bie3 and holds_three):
        p = as_play(tuple(hand))
        if p is not None and p not in plays:
            plays.append(p)
    return plays


def duty_feasible_now(hand: Sequence[int], bound_by_threes: bool) -> bool:
    """§7: a burner who must lead has a lead the duty allows — one with a joker, or one that
    empties the hand (under 憋3, the 3s)."""
    if hand[SMALL] or hand[BIG]:
        return True
    whole = as_play(tuple(hand))
    if whole is None:
        return False
    return not bound_by_threes or hand[THREE] == sum(hand)


def duty_leads(hand: Sequence[int], bound_by_threes: bool) -> int:
    """§7: how many joker-carrying leads a burner holding ``hand`` needs before the last lead,
    if every lead stands. 2s ride along with any group but the 3s (贴钱; under 憋3 the 3s go
    last, alone, §3 §8), so they need a lead of their own only when no other group can take
    them. Without 憋3 one group (2s attached) may go last without a joker."""
    plain = [r for r in range(TWO) if hand[r]]
    if bound_by_threes and hand[THREE]:
        others = [r for r in plain if r != THREE]
        return len(others) + (1 if hand[TWO] and not others else 0)
    if not plain:
        return 0  # only 2s and jokers: one lead (2s with every joker) empties the hand
    return len(plain) - 1


def duty_feasible(hand: Sequence[int], bound_by_threes: bool) -> bool:
    """Whether a burner holding ``hand`` can lead out under the duty if every lead stands: each
    lead but the last needs a joker, so the jokers must cover every group that cannot go last
    (:func:`duty_leads`). Jokers may also be led alone or ride along with any lead."""
    jokers = hand[SMALL] + hand[BIG]
    return jokers >= duty_leads(hand, bound_by_threes)

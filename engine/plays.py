"""Plays (一手牌), their comparison, 贴钱 and 挂花 (docs/rules.md §3), 够级 and 开点牌 (§4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .cards import (
    ACE,
    BIG,
    JACK,
    KING,
    KNOWN_TEXTS,
    NRANKS,
    QUEEN,
    SMALL,
    TEN,
    THREE,
    TWO,
    Counts,
    fmt,
    parse,
)

# §4: the smallest count of a rank that is 够级 on its own (2s, jokers: one card).
GOUJI_THRESHOLD: dict[int, int] = {TEN: 5, JACK: 4, QUEEN: 3, KING: 2, ACE: 2, TWO: 1}


@dataclass(frozen=True, slots=True)
class Shape:
    """A play seen the way §3 compares it: big jokers, small jokers, then ``body`` cards of
    rank ``base`` (2s already converted; ``base`` is ``TWO`` when the body is only 2s)."""

    big: int
    small: int
    base: int  # -1 when the play is jokers only
    body: int
    size: int = field(init=False, repr=False, compare=False)  # big + small + body

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", self.big + self.small + self.body)


class _Derived:
    """What a :class:`Play`'s counts imply, read in the engine's innermost loops (see
    ``Play.__getattr__``)."""

    shape: Shape  # the play as §3 compares it
    gouji: bool  # §4: a joker, rank 2 after converting, or the threshold count for T J Q K A
    by_rank: tuple[tuple[int, int], ...]  # (rank, count) of the ranks it holds, low to high


@dataclass(frozen=True)
class Play(_Derived):
    """A legal play by §3, built from counts by rank. Use :meth:`parse` or :func:`as_play`."""

    counts: Counts

    @staticmethod
    def parse(text: str) -> Play | None:
        """The play written ``text`` in notation, or None when those cards are no play (§3)."""
        return as_play(parse(text))

    def __str__(self) -> str:
        memo: str | None = self.__dict__.get("_text")
        if memo is None:
            memo = self.__dict__["_text"] = fmt(self.counts)
            if _INTERNED.get(self.counts) is self:
                KNOWN_TEXTS[memo] = self.counts  # parse() of this text needs no parsing
        return memo

    def __hash__(self) -> int:
        # the dataclass's own hash, remembered (plays key the answer tables of engine.legal)
        memo: int | None = self.__dict__.get("_hash")
        if memo is None:
            memo = self.__dict__["_hash"] = hash((self.counts,))
        return memo

    def __repr__(self) -> str:
        return f"Play.parse({fmt(self.counts)!r})"

    if not TYPE_CHECKING:  # (to mypy, the attributes of _Derived are simply there)

        def __getattr__(self, name: str) -> object:
            """The attributes of :class:`_Derived`, computed at their first read and kept in
            the play's own ``__dict__``: every later read is a plain instance attribute, the
            cheapest read there is (functools.cached_property takes a lock on every read in
            Python 3.11, and a property is a call)."""
            if name == "shape":
                value: object = self._shape()
            elif name == "gouji":
                value = self._gouji()
            elif name == "by_rank":
                value = tuple((r, n) for r, n in enumerate(self.counts) if n)
            else:
                raise AttributeError(name)
            self.__dict__[name] = value
            return value

    def _shape(self) -> Shape:
        c = self.counts
        base = -1
        for r in range(TWO):
            if c[r]:
                base = r
                break
        twos = c[TWO]
        if base < 0 and twos:
            return Shape(c[BIG], c[SMALL], TWO, twos)
        return Shape(c[BIG], c[SMALL], base, (c[base] + twos) if base >= 0 else 0)

    @property
    def size(self) -> int:
        return self.shape.size

    @property
    def has_three(self) -> bool:
        return self.counts[THREE] > 0

    @property
    def has_money_or_flower(self) -> bool:
        c = self.counts
        return bool(c[TWO] or c[SMALL] or c[BIG])

    def _gouji(self) -> bool:
        sh = self.shape
        if sh.big or sh.small or sh.base == TWO:
            return True
        need = GOUJI_THRESHOLD.get(sh.base)
        return need is not None and sh.body >= need

    @property
    def kaidian(self) -> bool:
        """§4: a 开点牌 is 够级 with no 2s and no jokers."""
        return self.gouji and not self.has_money_or_flower


_INTERNED: dict[Counts, Play] = {}
_INTERN_LIMIT = 50_000  # distinct plays are a few thousand; the table is only ever cleared


def play_of(counts: Counts) -> Play:
    """The one shared :class:`Play` of ``counts``, which must be a play (§3): its shape,
    notation and 够级 are then computed once per process, not once per use (the inner loops
    of legal-move generation and of a search's rollouts)."""
    p = _INTERNED.get(counts)
    if p is None:
        if len(_INTERNED) >= _INTERN_LIMIT:
            _INTERNED.clear()
            KNOWN_TEXTS.clear()
        p = _INTERNED[counts] = Play(counts)
    return p


def limit_interned(most: int) -> None:
    """At most ``most`` shared plays kept (engine.legal.limit_caches)."""
    global _INTERN_LIMIT
    _INTERN_LIMIT = most
    if len(_INTERNED) > most:
        _INTERNED.clear()
        KNOWN_TEXTS.clear()


def as_play(counts: Counts) -> Play | None:
    """§3: a non-empty set whose cards other than 2, S, B share one rank."""
    counts = tuple(counts)
    p = _INTERNED.get(counts)
    if p is not None:
        return p
    if len(counts) != NRANKS or any(n < 0 for n in counts):
        return None
    plain = [r for r in range(TWO) if counts[r]]
    if len(plain) > 1 or not any(counts):
        return None
    return play_of(counts)


def _shape_beats(p: Shape, q: Shape) -> bool:
    """§3 comparison on shapes of equal size: every card of P strictly above its partner in Q,
    both sorted high to low (big jokers, small jokers, then body cards)."""
    if p.size != q.size:
        return False
    if q.big:
        return False  # nothing is above a big joker
    if p.big < q.small:
        return False  # each small joker of Q needs a big joker above it
    if p.body:
        # P's body faces Q's body (p.big + p.small >= q.small), so it must be a higher rank.
        return p.base > q.base
    return True


def beats(p: Play, q: Play, kill_big_joker: bool = False) -> bool:
    """Does play ``p`` beat the top ``q`` (§3), with the ``kill_big_joker`` switch (§13)?"""
    ps, qs = p.shape, q.shape
    # 3s never beat anything (§3): nothing is lower, and the comparison says so by itself.
    if ps.size == qs.size and _shape_beats(ps, qs):
        return True
    if kill_big_joker and qs.big == 1:
        # §3 / §13 二杀一 and 三杀一: two B (or three S and no B) take the place of the one B;
        # the rests compare by the ordinary rule, two empty rests counting as beating.
        q_rest = Shape(0, qs.small, qs.base, qs.body)
        if ps.big >= 2:
            p_rest = Shape(ps.big - 2, ps.small, ps.base, ps.body)
        elif ps.big == 0 and ps.small >= 3:
            p_rest = Shape(0, ps.small - 3, ps.base, ps.body)
        else:
            return False
        if p_rest.size == 0 and q_rest.size == 0:
            return True
        return p_rest.size == q_rest.size and _shape_beats(p_rest, q_rest)
    return False

"""What the hidden seats' own choices say about their hands: the hard level's deals are kept
to hands with which the normal player would have made the same recent choices.

Players act on their hands, so a hand that would have led, answered, passed or burned
otherwise than the seat did is unlikely. The normal policy, given a seat's real hand, makes
nearly every choice the seat made; given a dealt hand, far fewer (docs/ai.md). So the search's
deals are checked against each hidden seat's choices among the last :data:`WINDOW` actions
(:meth:`Checks.missed`; the deal that agrees best of a few is kept, as with the tops a seat
could not beat) — at a table of people too: they do not play like the normal level, but they
lead low, answer cheaply and keep strong cards for a reason, as it does.

No hidden information: a seat's past choices are read from a replay of the game's public
history (the spectator's view before each action, never a hand), and checked with a hand
the deal gives it (its cards then: those dealt now plus those it has played since).
"""

from __future__ import annotations

import random
import weakref
from dataclasses import dataclass

from ..actions import Action
from ..cards import DECK_COUNTS, NRANKS, THREE, contains, parse
from ..game import Game
from ..legal import answers, lead_plays
from ..plays import Play
from ..view import SeatView
from ..vocab import Ask, Do, Status
from .knowledge import Knowledge, table_knowledge
from .play_policy import decide_play

WINDOW = 12  # the last actions whose hidden seats' choices are checked: wider leaves fewer deals


@dataclass(frozen=True)
class Choice:
    """A hidden seat's past action and what it saw then, its hand left out."""

    action: Action
    k: Knowledge  # its knowledge then, without its hand: each check adds one to a copy
    unseen: tuple[int, ...]  # every card not played then
    later: tuple[int, ...]  # the cards it has played since, this action's included
    top: Play | None
    burn_lead: bool  # it led as a burner (§7: a joker with every lead)
    can_yield: bool


@dataclass(frozen=True)
class _Before:
    """What the table saw before one action of the log."""

    spec: SeatView  # the spectator's view
    ask: str
    top: Play | None
    burn_lead: bool
    can_yield: bool
    played: tuple[tuple[int, ...], ...]  # each seat's cards played before it


class _History:
    """A game's public history, replayed as far as its log goes."""

    def __init__(self, game: Game) -> None:
        self.replay = Game(
            game.rules,
            game.start_hands,
            game.leader,
            (game.revolutionary,) if game.revolutionary is not None else (),
            game.declared,
            game.yaotou,
        )
        self.before: list[_Before | None] = []
        self.played = [[0] * NRANKS for _ in range(6)]

    def follow(self, log: list[Action], window: int) -> None:
        """Replay ``log`` on from where it stopped; only the last ``window`` actions' views
        are kept (the window only moves on)."""
        replay, played = self.replay, self.played
        keep_from = len(log) - window
        for act in log[len(self.before) :]:
            if len(self.before) < keep_from:
                self.before.append(None)
                self._play(act)
                continue
            seat, ask = replay.ask  # type: ignore[misc]
            top = replay.top
            self.before.append(
                _Before(
                    spec=replay.view(None),
                    ask=ask,
                    top=top.play if top is not None else None,
                    burn_lead=ask == Ask.LEAD and replay.burning == seat,
                    can_yield=replay._may_yield(seat, ask),
                    played=tuple(tuple(p) for p in played),
                )
            )
            self._play(act)

    def _play(self, act: Action) -> None:
        if act.do == Do.PLAY:
            mine = self.played[act.seat]
            for r, n in enumerate(parse(act.cards)):
                mine[r] += n
        self.replay.apply(act)


# each game's history, followed on from one search to the next (the hard seats search the
# same game again and again); gone with the game
_HISTORIES: weakref.WeakKeyDictionary[Game, _History] = weakref.WeakKeyDictionary()


def recent_choices(
    game: Game, seats: set[int], counts: list[int], window: int = WINDOW
) -> list[Choice]:
    """The choices of ``seats`` among the last ``window`` actions of ``game``'s log
    (``counts``: every seat's cards now, as the deciding seat knows them). The game is
    replayed from its start to read what the table saw before each action: the spectator's
    view (§13 visibility applied) and the flow's public facts, never a hand."""
    log = game.log
    first = max(len(log) - window, 0)
    if not seats or not any(a.seat in seats for a in log[first:]):
        return []
    hist = _HISTORIES.get(game)
    n = len(hist.before) if hist is not None else 0
    if (
        hist is None
        or n > len(log)
        or (n and hist.replay.log[n - 1] != log[n - 1])
        or any(b is None for b in hist.before[first:])  # an earlier search's window was narrower
    ):
        hist = _HISTORIES[game] = _History(game)
    hist.follow(log, window)
    since = [[0] * NRANKS for _ in range(6)]  # each seat's cards played from each action on
    out: list[Choice] = []
    for i in range(len(log) - 1, first - 1, -1):
        act = log[i]
        if act.do == Do.PLAY:
            mine = since[act.seat]
            for r, c in enumerate(parse(act.cards)):
                mine[r] += c
        if act.seat not in seats:
            continue
        b = hist.before[i]
        assert b is not None
        k = _knowledge_then(b.spec, act.seat, b.ask, b.played, counts, since)
        out.append(
            Choice(
                action=act,
                k=k,
                unseen=tuple(k.pool),
                later=tuple(since[act.seat]),
                top=b.top,
                burn_lead=b.burn_lead,
                can_yield=b.can_yield,
            )
        )
    return out


def _knowledge_then(
    spec: SeatView,
    seat: int,
    ask: str,
    played: tuple[tuple[int, ...], ...],
    now: list[int],
    since: list[list[int]],
) -> Knowledge:
    """``seat``'s knowledge before an action, from the spectator's view then (``played``:
    each seat's cards played before it; ``now``, ``since``: each seat's count now and the
    cards it has played since): its hand and the evidence only the search's deals read are
    left out."""
    total = [sum(p[r] for p in played) for r in range(NRANKS)]
    active = [st == Status.ACTIVE for st in spec.status]
    counts = [
        (c if c is not None else now[s] + sum(since[s])) if active[s] else 0
        for s, c in enumerate(spec.counts)
    ]
    pool = [DECK_COUNTS[r] - total[r] for r in range(NRANKS)]
    k = table_knowledge(spec, seat, ask, [0] * NRANKS, counts, pool)
    k.threes_played = [played[s][THREE] > 0 for s in range(6)]
    return k


def agrees(c: Choice, hand: list[int], rng: random.Random) -> bool:
    """Would the normal policy, holding ``hand`` now (so its cards then: these and those it
    has played since), have made the seat's choice ``c``?"""
    then = [h + x for h, x in zip(hand, c.later, strict=True)]
    counts = list(c.k.counts)
    counts[c.k.seat] = sum(then)
    pool = [p - h if p > h else 0 for p, h in zip(c.unseen, then, strict=True)]
    k = c.k.with_hand(then, pool, counts)  # c.k stays as it was
    act = c.action
    if c.top is None:  # a lead
        plays: tuple[Play, ...] = ()
        if c.burn_lead:
            plays = tuple(lead_plays(then, k.bound, need_joker=True))
    else:
        plays = answers(then, c.top, k.rules.kill_big_joker)
        if not plays:
            return False  # it was asked, so it could beat the top (§6.3 auto passes)
    if act.do == Do.PLAY and not contains(then, parse(act.cards)):
        return False  # the policy plays from the hand: no need to ask it
    ch = decide_play(k, plays, c.can_yield, rng)
    if ch.do != act.do:
        return False
    return ch.play is None or ch.play.counts == parse(act.cards)


class Checks:
    """The recent choices of the hidden seats, for the deals of one search: which seats a
    deal's hands would not have made them with (remembered by seat and hand)."""

    def __init__(self, choices: list[Choice], rng: random.Random) -> None:
        self.by_seat: dict[int, list[Choice]] = {}
        for c in sorted(choices, key=lambda c: CHECK_ORDER.get(c.k.ask, len(CHECK_ORDER))):
            self.by_seat.setdefault(c.action.seat, []).append(c)
        self.rng = rng
        self._seen: dict[tuple[int, tuple[int, ...]], bool] = {}

    def __bool__(self) -> bool:
        return bool(self.by_seat)

    def missed(self, hands: list[list[int]]) -> list[int]:
        """The seats whose dealt hand would not have made one of their choices."""
        out = []
        for s, cs in self.by_seat.items():
            h = hands[s]
            key = (s, tuple(h))
            bad = self._seen.get(key)
            if bad is None:
                bad = self._seen[key] = not all(agrees(c, h, self.rng) for c in cs)
            if bad:
                out.append(s)
        return out


# the kinds of choice checked first: those a dealt hand misses most often (burn claims passed
# up, then answers, then leads), since a seat's check stops at its first miss
CHECK_ORDER: dict[str, int] = {Ask.BURN: 0, Ask.ANSWER: 1, Ask.LAST: 1, Ask.LEAD: 2}

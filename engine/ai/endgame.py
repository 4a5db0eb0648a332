"""Exact search of small endgames, for the hard level (docs/rules.md §12 四户乱缠).

Once 四户乱缠 has begun, four players or fewer are active and the game is a plain climbing game:
no 够级, burns, 让牌 or 开点; everyone is asked in seat order, passing removes nobody, and a top
stands after a full round of passes; 闷 still applies (§8) and the game ends as soon as every
active player is on one team (§10). With a deal of the hidden cards the rest of the game is then
one of perfect information, and near the end it is small enough to be solved outright: the
:class:`Solver` finds the score both teams reach with best play (alpha-beta over the team
score, with a table of positions already solved), or gives up past its node limit.

The solver keeps its own compact state (hands as count tuples, the top, the seats still to be
asked) and follows :class:`engine.tricks.Flow` step by step for 四户乱缠; a test plays it against
the engine move by move. Moves: every answer that beats the top (:func:`engine.legal.answers`)
and passing; for a lead, the lead menu of the rest of the AI (:func:`engine.legal.lead_plays`:
every plain group, 2s alone, jokers alone), so a lead with 2s or jokers attached is not tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..actions import Action
from ..cards import NRANKS, THREE
from ..game import Game
from ..legal import answers, can_beat, lead_plays
from ..plays import Play
from ..ranking import compute_ranks, score
from ..seats import ccw, team
from ..vocab import Do

NODE_LIMIT = 20_000  # positions per call before giving up, by default (some 0.5 s of Python)
EMPTY: tuple[int, ...] = (0,) * NRANKS  # the hand of a seat out of play (its cards dead)
WORST, BEST = -13, 13  # outside every score (±12, §10)


class TooBig(Exception):
    """The endgame did not fit in the solver's node limit."""


class State(NamedTuple):
    """A position of 四户乱缠: ``hands`` of all six seats (empty for those out of play, whose
    cards are dead), the top as (owner, play, §8 penultimate) or None, ``queue`` the seats
    still to be asked about the top with the asked one first (for a lead: the leader alone),
    the finishing order so far and the smothered seats in order."""

    hands: tuple[tuple[int, ...], ...]
    top: tuple[int, Play, bool] | None
    queue: tuple[int, ...]
    order: tuple[int, ...]
    smothers: tuple[int, ...]

    @property
    def seat(self) -> int:
        """The seat asked now."""
        return self.queue[0]


Move = Play | None  # a play, or None: pass


class Solver:
    """Best play in the 四户乱缠 of one game (its rules and the ranks settled before), for any
    hands. Values are signed scores: team A's game score minus team B's (§10), ±12 at most."""

    def __init__(self, game: Game, limit: int = NODE_LIMIT) -> None:
        if not game.four_way or game.over:
            raise ValueError("the exact search is for 四户乱缠 (§12) only")
        self.fails = tuple(game.fails)
        self.rev = game.revolutionary
        self.bie3 = game.rules.bie3
        self.kbj = game.rules.kill_big_joker
        self.limit = limit
        self.nodes = 0
        self.table: dict[State, tuple[int, int]] = {}  # lower and upper bound of a value

    # -- the rules, as the engine plays them in 四户乱缠 ----------------------------------------
    def start(self, game: Game, hands: Sequence[Sequence[int]] | None = None) -> State:
        """The position of ``game`` now, with ``hands`` in place of its own (a deal)."""
        src = game.hands if hands is None else hands
        held = tuple(tuple(src[s]) if game.active(s) else EMPTY for s in range(6))
        ask = game.ask
        assert ask is not None
        top = game.top
        if top is None:
            return State(held, None, (ask[0],), tuple(game.top_order), tuple(game.smothers))
        h = held[top.seat]
        penult = self.bie3 and h[THREE] > 0 and h[THREE] == sum(h)  # from these hands (§8)
        queue = tuple(s for s, _ in game.queue)
        order, smothers = tuple(game.top_order), tuple(game.smothers)
        return State(held, (top.seat, top.play, penult), queue, order, smothers)

    def moves(self, st: State) -> Sequence[Move]:
        h = st.hands[st.seat]
        if st.top is None:
            return lead_plays(h, self.bie3 and h[THREE] > 0)
        return [None, *answers(h, st.top[1], self.kbj)]

    def step(self, st: State, move: Move) -> State | int:
        """The position after the asked seat's ``move``, or the game's final score."""
        seat = st.seat
        if move is None:  # a pass: the next seat is asked (§12)
            assert st.top is not None
            return self._advance(st.hands, st.top, st.queue[1:], st.order, st.smothers)
        h = st.hands[seat]
        bound = self.bie3 and h[THREE] > 0
        nh = tuple([a - b for a, b in zip(h, move.counts, strict=True)])
        left = sum(nh)
        hands = list(st.hands)
        hands[seat] = nh
        order, smothers = st.order, st.smothers
        ranked = left == 0
        top = st.top
        if top is not None and top[2] and any(hands[top[0]]):
            smothers = (*smothers, top[0])  # §8 闷: the penultimate play was beaten
            hands[top[0]] = EMPTY  # its cards are dead
            ranked = True
        if left == 0:
            order = (*order, seat)  # §6.6 走科
        live = [s for s in ccw(seat + 1) if any(hands[s])]
        if ranked and len({s % 2 for s in live}) <= 1:
            return self._final(hands, live, order, smothers)
        penult = bound and left > 0 and nh[THREE] == left
        queue = tuple(s for s in live if s != seat)
        return self._advance(tuple(hands), (seat, move, penult), queue, order, smothers)

    def _advance(
        self,
        hands: tuple[tuple[int, ...], ...],
        top: tuple[int, Play, bool],
        queue: tuple[int, ...],
        order: tuple[int, ...],
        smothers: tuple[int, ...],
    ) -> State:
        """Ask the next seat that can beat the top (the engine passes for the others, §6.3);
        after a full round the top stands and its owner leads, or by 接风 the next active
        seat (§6.5)."""
        play = top[1]
        for i, s in enumerate(queue):
            if any(hands[s]) and can_beat(hands[s], play, self.kbj):
                return State(hands, top, queue[i:], order, smothers)
        owner = top[0]
        leader = next(s for s in ccw(owner) if any(hands[s]))
        return State(hands, None, (leader,), order, smothers)

    def _final(
        self,
        hands: list[tuple[int, ...]],
        live: list[int],
        order: tuple[int, ...],
        smothers: tuple[int, ...],
    ) -> int:
        """§10: the remaining players take the remaining ranks, fewer cards ranking higher,
        ties in seat order after the player who acted last (``live`` is in that order: the
        game ends on a play, by the seat asked)."""
        rest = sorted(live, key=lambda s: sum(hands[s]))  # a stable sort keeps the seat order
        sa, sb = score(compute_ranks((*order, *rest), self.fails, smothers, self.rev, True))
        return sa - sb

    # -- the search -------------------------------------------------------------------------
    def value(self, st: State, alpha: int = WORST, beta: int = BEST) -> int:
        """The score with best play for both teams from ``st`` (alpha-beta: exact when it
        lies strictly between ``alpha`` and ``beta``, else a bound on the same side)."""
        bounds = self.table.get(st)
        if bounds is not None:
            lo, hi = bounds
            if lo == hi or lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            alpha, beta = max(alpha, lo), min(beta, hi)
        else:
            lo, hi = WORST, BEST
        self.nodes += 1
        if self.nodes > self.limit:
            raise TooBig
        a0, b0 = alpha, beta
        maximize = team(st.seat) == 0
        best = WORST if maximize else BEST
        for move in self._ordered(st):
            nxt = self.step(st, move)
            v = nxt if isinstance(nxt, int) else self.value(nxt, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                    alpha = max(alpha, v)
            elif v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if best <= a0:
            hi = min(hi, best)  # failed low: an upper bound
        elif best >= b0:
            lo = max(lo, best)  # failed high: a lower bound
        else:
            lo = hi = best
        self.table[st] = (lo, hi)
        return best

    def _ordered(self, st: State) -> list[Move]:
        """Moves in an order that cuts the search early: going out first, then the plays that
        shed most cards, passing last."""
        total = sum(st.hands[st.seat])

        def rank(m: Move) -> tuple[int, int]:
            return (2, 0) if m is None else (0 if m.size == total else 1, -m.size)

        return sorted(self.moves(st), key=rank)

    def values(
        self, game: Game, hands: Sequence[Sequence[int]], acts: Sequence[Action]
    ) -> list[int]:
        """The score with best play after each of ``acts`` (the asked seat's legal actions)
        in ``game`` with ``hands``; :class:`TooBig` past the node limit, counted afresh for
        each call (each deal of a search has its own)."""
        self.nodes = 0
        st = self.start(game, hands)
        out = []
        for act in acts:
            move: Move = None if act.do != Do.PLAY else Play.parse(act.cards)
            nxt = self.step(st, move)
            out.append(nxt if isinstance(nxt, int) else self.value(nxt))
        return out

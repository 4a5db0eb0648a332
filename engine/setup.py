"""Before the first play of a game (docs/rules.md §5, in its order): deal, tribute exchange (§11),
买3, 革命, 要头/无头, 宣点, the first leader. Decisions are asked one seat at a time, like play."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from .actions import Action, IllegalAction
from .cards import BIG, NRANKS, RANK_CHARS, SMALL, TWO, Counts, contains, fmt, minus, parse
from .deal import SuitedHand, buy_threes, counts_of, deal, first_leader, pay_debt, return_choices
from .events import Event
from .game import Game
from .ranking import Debt
from .rules import Rules
from .seats import opposite
from .view import SeatView
from .vocab import Ask, Code, Do, EventType, LeaderReason, Phase, Status, TributeKind

MAX_REDEALS = 100  # a safety valve: re-deals are rare (two revolutions, no 3 to be had)


@dataclass(frozen=True)
class Question:
    """A deal-phase decision still to ask: for 还贡, how many cards and to whom (§11)."""

    seat: int
    ask: Ask
    cards: int = 0
    payer: int = -1


# What each deal-phase question may be answered with.
_ANSWERS = {
    Ask.REVOLT: (Do.REVOLT, Do.NO_REVOLT),
    Ask.YAOTOU: (Do.YAOTOU, Do.WUTOU),
    Ask.DECLARE: (Do.DECLARE, Do.NO_DECLARE),
    Ask.RETURN: (Do.RETURN,),
}


_SPENT = random.Random(0)  # a setup's generator once its play began (never drawn from)


class Setup:
    """The deal phase of game ``number`` (1-based) of a match."""

    def __init__(
        self,
        rules: Rules,
        rng: random.Random,
        number: int = 1,
        debts: Sequence[Debt] = (),
        leader: int | None = None,
        deals: Sequence[Sequence[Sequence[tuple[int, str]]]] = (),
    ) -> None:
        """``deals`` (tests, puzzles): deals to use, in order, before shuffling new ones."""
        self.rules = rules
        self._deals = [list(d) for d in deals]
        self.rng = rng
        self.number = number
        self.debts = tuple(debts) if rules.tribute != "off" else ()
        self.prev_leader = leader  # the previous game's 大落 (§5.6), None in game 1
        self.events: list[Event] = []
        self.game: Game | None = None
        self.redeals = 0
        self._start()

    # -- the steps -----------------------------------------------------------------------------
    def _start(self) -> None:
        self.suited: list[SuitedHand] = (
            [list(h) for h in self._deals.pop(0)] if self._deals else deal(self.rng)
        )
        self.hands: list[list[int]] = [list(counts_of(h)) for h in self.suited]
        self.received = [[0] * NRANKS for _ in range(6)]
        self.revolted: list[int] = []
        self.declared: list[int] = []
        self.yaotou: list[int] = []
        self.pending: list[Question] = []  # still to ask, in order
        self.events.append(Event(EventType.DEALT, None, game=self.number))
        # §11: debts paid in their order; 还贡 for 落贡 asked afterwards.
        for debt in self.debts:
            given = pay_debt(self.hands, self.received, debt)
            self.events.append(
                Event(
                    EventType.TRIBUTE_PAID,
                    debt.src,
                    to=debt.dst,
                    kind=debt.kind,
                    cards="".join(RANK_CHARS[r] for r in given),
                )
            )
            if debt.kind == TributeKind.LUO and self.rules.return_tribute and given:
                self.pending.append(Question(debt.dst, Ask.RETURN, len(given), debt.src))
        self.stage = "return"
        self._next()

    def _next(self) -> None:
        """Carry out the automatic steps until a seat must decide, or the play begins."""
        while True:
            if self.pending:
                return
            if self.stage == "return":
                self.stage = "buy3"
                if self.rules.bie3 and not self._buy3():
                    return  # re-dealt: the new deal has run its own steps
                self._queue_revolts()
                continue
            if self.stage == "revolt":
                if len(self.revolted) >= 2:
                    # §5.4: two or more revolutions void the deal (流局): re-deal, same leader.
                    self.events.append(Event(EventType.VOID_DEAL, None))
                    self._redeal()
                    return
                self.stage = "yaotou"
                if self.revolted and self.rules.yaotou:
                    self.pending.append(Question(opposite(self.revolted[0]), Ask.YAOTOU))
                continue
            if self.stage == "yaotou":
                self.stage = "declare"
                if self.rules.declare_point:
                    # §5.5: each player may declare. The project asks neither a revolutionary
                    # nor their 对头: that pair's outcome is settled by §9 already.
                    fixed = (
                        {self.revolted[0], opposite(self.revolted[0])} if self.revolted else set()
                    )
                    self.pending.extend(
                        Question(s, Ask.DECLARE) for s in range(6) if s not in fixed
                    )
                continue
            if self.stage == "declare":
                self._begin_play()
                return

    def _buy3(self) -> bool:
        """§5.3; False when a re-deal happened instead."""
        moves, forced, redeal = buy_threes(self.hands)
        for kind, a, b, paid in moves:
            if kind == "buy":
                self.events.append(
                    Event(EventType.BOUGHT_THREE, a, source=b, paid=RANK_CHARS[paid])
                )
            else:
                self.events.append(Event(EventType.GIVEN_THREE, a, source=b))
        if redeal or (forced and not self.rules.revolution):
            self.events.append(Event(EventType.NO_THREE, None))
            self._redeal()
            return False
        for s in forced:
            self.revolted.append(s)
            self.events.append(Event(EventType.REVOLUTION, s, forced=True))
        return True

    def _queue_revolts(self) -> None:
        self.stage = "revolt"
        if not self.rules.revolution:
            return
        for s in range(6):
            h = self.hands[s]
            if s not in self.revolted and not (h[TWO] or h[SMALL] or h[BIG]):
                self.pending.append(Question(s, Ask.REVOLT))

    def _redeal(self) -> None:
        self.redeals += 1
        if self.redeals > MAX_REDEALS:
            raise RuntimeError("too many re-deals")
        self.pending = []
        self._start()

    def _begin_play(self) -> None:
        if self.prev_leader is not None:
            leader, reason = self.prev_leader, LeaderReason.DALUO  # §5.6: the previous 大落 leads
        else:
            leader, reason = first_leader(self.suited, self.rules.bie3, self.rng)
        self.game = Game(
            self.rules,
            [tuple(h) for h in self.hands],
            leader,
            self.revolted,
            self.declared,
            self.yaotou,
        )
        ask = self.game.asked()
        self.events.append(Event(EventType.LEADER, ask[0] if ask else leader, reason=reason))
        # the deal's suits and its generator served their turn (no re-deal once the play is
        # on): a table in play does not keep them (a sixth of its memory)
        self.suited = []
        self.rng = _SPENT
        self.received = []  # 吃了不吐 is checked only in the exchange
        self.hands = self.game.hands  # (the deal phase's copy is not kept beside the game's)

    # -- questions and actions ---------------------------------------------------------------
    def asked(self) -> tuple[int, Ask] | None:
        if self.game is not None or not self.pending:
            return None
        q = self.pending[0]
        return q.seat, q.ask

    def options(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now."""
        ask = self.asked()
        if ask is None or ask[0] != seat:
            return []
        kind = ask[1]
        if kind == Ask.REVOLT:
            return [Action(seat, Do.REVOLT), Action(seat, Do.NO_REVOLT)]
        if kind == Ask.YAOTOU:
            return [Action(seat, Do.YAOTOU), Action(seat, Do.WUTOU)]
        if kind == Ask.DECLARE:
            return [Action(seat, Do.DECLARE), Action(seat, Do.NO_DECLARE)]
        allowed, n = self._return_allowed()
        ranks = [r for r in range(NRANKS) for _ in range(min(allowed[r], n))]
        combos = sorted(set(itertools.combinations(ranks, n)))
        return [Action(seat, Do.RETURN, "".join(RANK_CHARS[r] for r in c)) for c in combos]

    def _return_allowed(self) -> tuple[Counts, int]:
        q = self.pending[0]
        allowed = return_choices(self.hands[q.seat], self.received[q.seat], self.hands[q.payer])
        return allowed, min(q.cards, sum(allowed))

    def check(self, action: Action) -> Counts | None:
        """Raise :class:`IllegalAction` if ``action`` is refused now (changing nothing); the
        cards of a valid 还贡, if that is what was asked."""
        ask = self.asked()
        if ask is None or action.seat != ask[0]:
            raise IllegalAction(Code.NOT_YOUR_TURN, "It is not your turn.")
        if action.do not in _ANSWERS[ask[1]]:
            raise IllegalAction(Code.NOT_ASKED, f"{action.do!r} is not what you are asked for now.")
        if ask[1] != Ask.RETURN:
            return None
        allowed, n = self._return_allowed()
        try:
            want = parse(action.cards)
        except ValueError:
            raise IllegalAction(Code.BAD_RETURN, "Those are not cards.") from None
        if sum(want) != n or not contains(allowed, want):
            raise IllegalAction(
                Code.BAD_RETURN,
                f"Return {n} card(s) of ranks your payer holds, not ones you just received (§11).",
                n=n,
            )
        return want

    def apply(self, action: Action) -> list[Event]:
        want = self.check(action)
        q = self.pending.pop(0)
        seat = q.seat
        start = len(self.events)
        if want is not None:  # §11 还贡
            self.hands[seat] = list(minus(self.hands[seat], want))
            self.hands[q.payer] = [h + w for h, w in zip(self.hands[q.payer], want, strict=True)]
            self.events.append(Event(EventType.TRIBUTE_RETURNED, seat, to=q.payer, cards=fmt(want)))
        elif action.do == Do.REVOLT:
            self.revolted.append(seat)
            self.events.append(Event(EventType.REVOLUTION, seat, forced=False))
        elif action.do in (Do.YAOTOU, Do.WUTOU):
            if action.do == Do.YAOTOU:
                self.yaotou.append(seat)
            self.events.append(Event(EventType.YAOTOU, seat, choice=action.do))
        elif action.do == Do.DECLARE:
            self.declared.append(seat)
            self.events.append(Event(EventType.DECLARED, seat))
        self._next()
        return self.events[start:]

    def view(self, seat: int | None) -> SeatView:
        return setup_view(self, seat)

    def returning(self) -> tuple[int, int] | None:
        """(payer, cards) of the 还贡 being asked, public as the whole exchange is (§11)."""
        ask = self.asked()
        if ask is None or ask[1] != Ask.RETURN:
            return None
        return self.pending[0].payer, self._return_allowed()[1]


def setup_view(setup: Setup, seat: int | None, version: int = 0) -> SeatView:
    """The deal phase (§5): own hand, counts per ``counts_at``, who revolted and declared."""
    ask = setup.asked()
    counts = tuple(sum(h) for h in setup.hands)
    status = tuple(Status.REVOLTED if s in setup.revolted else Status.ACTIVE for s in range(6))
    return SeatView(
        rules=setup.rules,
        seat=seat,
        phase=Phase.SETUP,
        to_act=ask[0] if ask else None,
        asked=ask[1] if ask else None,
        hand=fmt(setup.hands[seat]) if seat is not None else None,
        top=None,
        burning=None,
        counts=tuple(c if c <= setup.rules.counts_at else None for c in counts),
        partner_hands=(None,) * 6,
        status=status,
        ranks=(None,) * 6,
        opened=(False,) * 6,
        headless=(False,) * 6,
        passed=(),
        revolted=tuple(setup.revolted),
        declared=tuple(setup.declared),
        yaotou=tuple(setup.yaotou),
        tributes=(),
        score=(0, 0),
        returning=setup.returning(),
        number=setup.number,
        version=version,
    )

"""One game from its first play to its end: tricks (docs/rules.md §6), 烧牌 (§7), 憋3 and 闷 (§8),
开点 (§9), ranks (§10), 无头 and 四户乱缠 (§12).

The game asks one seat at a time (:meth:`Game.asked`); :meth:`Game.apply` checks an action
(raising :class:`IllegalAction` and changing nothing when it is refused), carries it out, makes
every automatic move that follows (auto passes, the end of a trick, 接风, 诈烧) and returns the
events, until a seat must decide again or the game is over. What each seat may see of it
(docs/rules.md §13) is :func:`game_view`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from .actions import Action, IllegalAction
from .cards import BIG, SMALL, THREE, Counts, contains, fmt, minus, parse
from .events import Event
from .gamerecord import Record
from .legal import Legal, answers, duty_feasible, lead_plays
from .plays import Play, as_play, beats
from .ranking import Debt, score
from .rules import Rules
from .seats import opposite, team, teammates
from .tricks import Flow, Top
from .view import SeatView, TopView
from .vocab import Ask, Code, Do, EventType, Phase, Status

# Enum members read on every action (an enum's class attribute costs ~0.3 µs to look up).
_LEAD, _ANSWER, _BURN, _LAST = Ask.LEAD, Ask.ANSWER, Ask.BURN, Ask.LAST
_PLAY, _PASS, _YIELD = Do.PLAY, Do.PASS, Do.YIELD
_PLAYED, _PASSED, _YIELDED = EventType.PLAY, EventType.PASS, EventType.YIELD
_PASSES = tuple(Event(_PASSED, s) for s in range(6))  # (immutable: made once)


class Game(Flow):
    """The play phase of one game. Build it with :meth:`from_position` (records, tests, the
    deal of :mod:`engine.setup`)."""

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Counts],
        leader: int,
        revolted: Sequence[int] = (),
        declared: Sequence[int] = (),
        yaotou: Sequence[int] = (),
    ) -> None:
        self.rules = rules
        self.start_hands: tuple[Counts, ...] = tuple(tuple(h) for h in hands)
        self.leader = leader  # as given: a revolted leader's lead passes on (§5.6)
        self.hands: list[list[int]] = [list(h) for h in hands]
        self.status: list[Status] = [Status.ACTIVE] * 6
        self.revolutionary: int | None = revolted[0] if revolted else None
        for s in revolted:
            self.status[s] = Status.REVOLTED
        self.declared: tuple[int, ...] = tuple(declared)
        self.yaotou: tuple[int, ...] = tuple(yaotou)
        self.yaotou_stood = [0] * 6  # 够死级 plays that stood (§5.4 要头)
        # §9: a revolutionary is not opened; their 对头 is, unless they chose 要头.
        self.opened = [False] * 6
        for s in revolted:
            if opposite(s) not in self.yaotou and rules.open_point:
                self.opened[opposite(s)] = True
        self.top_order: list[int] = []
        self.fails: list[int] = []
        self.smothers: list[int] = []
        self.ranks: list[int | None] = [None] * 6
        self.men: list[tuple[int, int]] = []  # 闷贡 owed (from, to)
        self.shao: list[tuple[int, int, int]] = []  # 烧贡 owed (from, to, cards)
        self._debts: tuple[Debt, ...] = ()  # what the finished game leaves (§11), set once
        self.four_way = False
        self.over = False
        self.top: Top | None = None
        self.passed: set[int] = set()
        self.yielded: int | None = None
        self.queue: list[tuple[int, Ask]] = []
        self.ask: tuple[int, Ask] | None = None
        self.burning: int | None = None
        self.burn_victim: int | None = None
        self.burn_tribute = 1
        self.last_actor = leader
        self.log: list[Action] = []
        if self.status[leader] != Status.ACTIVE:
            leader = self._next_active(leader)
        self.ask = (leader, Ask.LEAD)
        self.four_way = sum(1 for s in self.status if s == Status.ACTIVE) <= 4  # §12

    @staticmethod
    def from_position(
        rules: Rules,
        hands: Sequence[str] | Sequence[Counts],
        leader: int,
        revolted: Sequence[int] = (),
        declared: Sequence[int] = (),
        yaotou: Sequence[int] = (),
    ) -> Game:
        counts = [parse(h) if isinstance(h, str) else tuple(h) for h in hands]
        return Game(rules, counts, leader, revolted, declared, yaotou)

    @staticmethod
    def from_record(record: Record) -> Game:
        """The starting position of a RECORDS.md game record, before its actions."""
        return Game.from_position(
            record.rules,
            record.hands,
            record.leader,
            record.revolted,
            record.declared,
            record.yaotou,
        )

    # -- questions ---------------------------------------------------------------------------
    def asked(self) -> tuple[int, Ask] | None:
        """(seat, ask kind) of the seat that must act now, or None when the game is over."""
        return None if self.over else self.ask

    def counts(self) -> list[int]:
        return [sum(h) for h in self.hands]

    def legal(self, seat: int) -> Legal:
        """The legal actions of ``seat`` (empty when it is not asked)."""
        if self.over or self.ask is None or self.ask[0] != seat:
            return Legal(seat, None, (), False, False, False)
        _, ask = self.ask
        hand = self.hands[seat]
        if ask == _LEAD:
            duty = self.burning == seat
            plays = lead_plays(hand, self._bound_by_threes(seat), need_joker=duty)
            return Legal(seat, ask, tuple(plays), False, False, True)
        offered, may_yield = self.answer_options(seat, ask)
        return Legal(seat, ask, offered, True, may_yield, False)

    def answer_options(self, seat: int, ask: str) -> tuple[tuple[Play, ...], bool]:
        """What :meth:`legal` offers ``seat``, asked ``ask`` about the top (an answer or a
        burn claim, not a lead): the plays beating it (§3) and whether it may yield (§6.4);
        rollouts, which ask only the asked seat, read it without the checks and the
        :class:`Legal` (a speed path)."""
        assert self.top is not None
        offered = answers(self.hands[seat], self.top.play, self.rules.kill_big_joker)
        return offered, self._may_yield(seat, ask)

    def burn_feasible(self, seat: int, cards: str) -> bool | None:
        """For the bot's warning before a burn (§7): can ``seat``, after burning with ``cards``,
        still meet the duty — enough jokers to lead every group but the last? A conservative
        estimate: None when the play would not be a burn; True when the remaining hand splits
        into groups that each carry a joker plus at most one joker-free emptying play."""
        if self.ask is None or self.ask[0] != seat or self.ask[1] != Ask.BURN:
            return None
        played = parse(cards)
        if not contains(self.hands[seat], played):
            return None
        return duty_feasible(minus(self.hands[seat], played), self._bound_by_threes(seat))

    # -- actions -----------------------------------------------------------------------------
    def check(self, action: Action) -> Play | None:
        """Raise :class:`IllegalAction` if ``action`` is refused now; the play it makes, if any."""
        if self.over or self.ask is None or action.seat != self.ask[0]:
            raise IllegalAction(Code.NOT_YOUR_TURN, "It is not your turn.")
        seat, ask = self.ask
        if action.do == _PLAY:
            return self._check_play(seat, ask, action.cards)
        if action.do in (_PASS, _YIELD):
            if ask == _LEAD:
                raise IllegalAction(Code.MUST_LEAD, "You won the trick: you must lead a play.")
            if action.do == _YIELD and not self._may_yield(seat, ask):
                raise IllegalAction(
                    Code.CANNOT_YIELD,
                    "You may yield (让牌) only when asked about your 对头's non-够级 play.",
                )
            return None
        raise IllegalAction(Code.NOT_ASKED, f"{action.do!r} is not what you are asked for now.")

    def apply(self, action: Action) -> list[Event]:
        play = self.check(action)
        self.log.append(action)
        return self.carry_out(action.do, play)

    def carry_out(self, do: str, play: Play | None) -> list[Event]:
        """The effects of the asked seat's action, already checked (:meth:`check` gave
        ``play``), without logging it: :meth:`apply` after its checks, and a search's rollouts,
        which only make legal moves, directly (a speed path: nothing is checked twice)."""
        seat, ask = self.ask  # type: ignore[misc]
        self.last_actor = seat
        events: list[Event] = []
        if play is not None:
            self._play(seat, ask, play, events)
        elif do == _YIELD:
            events.append(Event(_YIELDED, seat))
            del self.queue[0]
            self.yielded = seat
            self.queue.append((seat, _LAST))  # §6.4: asked once more, last
        else:
            del self.queue[0]
            if ask == _BURN:  # §7: declining a burn is not a pass
                events.append(Event(_PASSED, seat, claim=True))
            else:
                events.append(_PASSES[seat])
                self.passed.add(seat)
        if not self.over:
            self._advance(events)
        return events

    def _check_play(self, seat: int, ask: str, cards: str) -> Play:
        try:
            counts = parse(cards)
        except ValueError:
            raise IllegalAction(
                Code.NOT_A_PLAY, f"{cards!r} is not written in card notation."
            ) from None
        hand = self.hands[seat]
        play = as_play(counts)
        if play is not None:  # (a play's own ranks are the ones to look at)
            held = all([hand[r] >= n for r, n in play.by_rank])
        else:
            held = contains(hand, counts)
        if not held:
            raise IllegalAction(
                Code.NOT_IN_HAND, f"You do not hold {fmt(counts) or 'those cards'}."
            )
        if play is None:
            raise IllegalAction(
                Code.NOT_A_PLAY,
                f"{fmt(counts) or 'Nothing'} is not a play: apart from 2s and jokers, "
                "all cards must share one rank (§3).",
            )
        if counts[THREE] and self._bound_by_threes(seat):
            only_threes = counts[THREE] == sum(counts)
            if not (only_threes and counts[THREE] == sum(hand)):
                raise IllegalAction(
                    Code.THREES,
                    "Under 憋3 your 3s go last, all together and alone (§3, §8).",
                )
        if ask == _LEAD:
            if (
                self.burning == seat
                and not (counts[SMALL] or counts[BIG])
                and sum(counts) < sum(hand)
            ):
                raise IllegalAction(
                    Code.BURN_DUTY,
                    "You are burning (烧牌): every lead needs a joker until your last (§7).",
                )
            return play
        assert self.top is not None
        if not beats(play, self.top.play, self.rules.kill_big_joker):
            raise IllegalAction(
                Code.CANNOT_BEAT,
                f"{play} does not beat {self.top.play}: a play must have as many cards, "
                "each strictly higher (§3).",
                cards=str(play),
                top=str(self.top.play),
            )
        return play

    def _may_yield(self, seat: int, ask: str) -> bool:
        """§6.4 让牌: asked (first time) about a non-够级 top owned by their 对头."""
        top = self.top
        return (
            self.rules.yield_
            and ask == _ANSWER
            and not self.four_way
            and top is not None
            and not top.gouji
            and top.seat == opposite(seat)
            and self.yielded != seat
        )

    # -- the play and its consequences ------------------------------------------------------
    def _play(self, seat: int, ask: str, play: Play, events: list[Event]) -> None:
        prev = self.top
        headless_before = self.headless(seat)
        hand = self.hands[seat]
        bound = self.rules.bie3 and hand[THREE] > 0  # §8 憋3, as _bound_by_threes
        for r, n in play.by_rank:
            hand[r] -= n
        left = sum(hand)
        penult = bound and left > 0 and hand[THREE] == left
        gouji = play.gouji and not self.four_way
        events.append(Event(_PLAYED, seat, str(play), gouji))

        # §7/§9: the play that starts a burn and every lead of the burner never open.
        burn_play = ask == _BURN or (ask == _LEAD and self.burning == seat)
        if ask == _BURN:
            assert prev is not None
            if prev.burn:  # §7 反烧: the counter-burner now burns; the one burned owes 2
                events.append(Event(EventType.COUNTER_BURN, seat, burner=prev.seat))
                self.burn_tribute = 2
            else:  # §7 烧牌
                events.append(Event(EventType.BURN, seat, victim=prev.seat))
                self.burn_tribute = 1
            self.burning, self.burn_victim = seat, prev.seat
        elif prev is not None and prev.burn:
            # §7 解烧 by the burner's 对头 (or §12 by a 无头 player): the burn ends, nobody pays.
            events.append(Event(EventType.BURN_BREAK, seat, burner=prev.seat))
            self.burning = None

        ranked = left == 0
        if prev is not None and prev.penult and self.active(prev.seat):
            # §8 闷: the penultimate play was beaten.
            self.status[prev.seat] = Status.SMOTHERED
            self.smothers.append(prev.seat)
            self.men.append((prev.seat, seat))
            events.append(Event(EventType.SMOTHERED, prev.seat, by=seat))
            self._rank(prev.seat, events)
            ranked = True

        if left == 0 and self.burning == seat:
            # §7 success: the burn is paid for by the one burned (2 after a counter-burn).
            assert self.burn_victim is not None
            self.shao.append((self.burn_victim, seat, self.burn_tribute))
            events.append(
                Event(
                    EventType.BURN_SUCCESS, seat, victim=self.burn_victim, tribute=self.burn_tribute
                )
            )
            self.burning = None  # its last play is an ordinary top: beating it is no 反烧
        if left == 0:
            self.status[seat] = Status.FINISHED  # §6.6 走科
            self.top_order.append(seat)
            self._rank(seat, events)

        can_open = (
            self.rules.open_point
            and not self.four_way
            and play.kaidian
            and not burn_play
            and not headless_before
            and not (seat in self.yaotou and self.yaotou_stood[seat] < 3)
            # §9 打点不开点: beating an opponent's 开点牌 does not open.
            and not (prev is not None and prev.play.kaidian and team(prev.seat) != team(seat))
        )
        self.top = Top(seat, play, gouji, self.burning == seat, can_open, burn_play, penult)
        if ranked:  # nobody left play: nothing to settle (a speed path for rollouts)
            self._after_ranking(events)
        if not self.over:
            self._open_queue()

    def copy(self, hands: Sequence[Sequence[int]] | None = None, keep_log: bool = True) -> Game:
        """An independent copy, for search. With ``hands`` the copy holds those instead of the
        real hands (an AI's determinization never reads the hidden ones)."""
        sim = copy.copy(self)
        sim.hands = [list(h) for h in (self.hands if hands is None else hands)]
        sim.status = list(self.status)
        sim.yaotou_stood = list(self.yaotou_stood)
        sim.opened = list(self.opened)
        sim.top_order = list(self.top_order)
        sim.fails = list(self.fails)
        sim.smothers = list(self.smothers)
        sim.ranks = list(self.ranks)
        sim.men = list(self.men)
        sim.shao = list(self.shao)
        sim.passed = set(self.passed)
        sim.queue = self.queue.copy()
        sim.log = list(self.log) if keep_log else []
        top = sim.top
        if hands is not None and top is not None:
            # §8: whether the top is its owner's penultimate play follows from the owner's hand,
            # so it is recomputed from the given hands (a determinization must not inherit it).
            h = sim.hands[top.seat]
            penult = self.rules.bie3 and h[THREE] > 0 and h[THREE] == sum(h)
            if penult != top.penult:
                sim.top = Top(
                    top.seat, top.play, top.gouji, top.burn, top.can_open, top.burn_play, penult
                )
        return sim

    # -- results -----------------------------------------------------------------------------
    def tributes(self) -> list[Debt]:
        """The tributes owed for the next game (§11); empty until the game is over."""
        return list(self._debts)

    @property
    def phase(self) -> Phase:
        """RECORDS.md ``state.phase``: play, four_way or over."""
        return Phase.OVER if self.over else Phase.FOUR_WAY if self.four_way else Phase.PLAY

    def score(self) -> tuple[int, int]:
        return score(self.ranks) if self.over else (0, 0)

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may see (None: the spectator's view for the group)."""
        return game_view(self, seat)

    def record(self) -> Record:
        """This game as a RECORDS.md game record: its starting position and every action."""
        return Record(
            self.rules,
            tuple(fmt(h) for h in self.start_hands),
            self.leader,
            (self.revolutionary,) if self.revolutionary is not None else (),
            self.declared,
            self.yaotou,
            tuple(self.log),
        )


def game_view(game: Game, seat: int | None, number: int = 0, version: int = 0) -> SeatView:
    """The play (§6–§12): own hand, counts per ``counts_at`` (always for players out of play),
    teammates' hands per ``partner_cards_at`` (看联邦牌), and everything public."""
    rules = game.rules
    counts: list[int | None] = []
    for s, h in enumerate(game.hands):
        n = sum(h)
        shown = s == seat or n <= rules.counts_at or game.status[s] != Status.ACTIVE
        counts.append(n if shown else None)
    partners: list[str | None] = [None] * 6
    if seat is not None and 0 < sum(game.hands[seat]) <= rules.partner_cards_at:
        for m in teammates(seat):
            partners[m] = fmt(game.hands[m])  # §13 看联邦牌
    top = game.top
    ask = game.asked()
    return SeatView(
        rules=rules,
        seat=seat,
        phase=game.phase,
        to_act=ask[0] if ask else None,
        asked=ask[1] if ask else None,
        hand=fmt(game.hands[seat]) if seat is not None else None,
        top=TopView(top.seat, str(top.play), top.gouji, top.burn) if top else None,
        burning=game.burning,
        counts=tuple(counts),
        partner_hands=tuple(partners),
        status=tuple(game.status),
        ranks=tuple(game.ranks),
        opened=tuple(game.opened),
        headless=tuple(game.headless(s) for s in range(6)),
        passed=tuple(sorted(game.passed)),
        revolted=(game.revolutionary,) if game.revolutionary is not None else (),
        declared=game.declared,
        yaotou=game.yaotou,
        tributes=tuple(game.tributes()),
        score=game.score(),
        number=number,
        version=version,
    )

"""How a game flows between decisions (docs/rules.md §6–§12): who is asked about a top and in what
order, auto passes, the end of a trick, 开点, 接风 and 诈烧; ranks as players leave play, 四户乱缠
and the end of the game. :class:`engine.game.Game` builds on it and adds the checks and plays.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action
from .cards import THREE
from .events import Event
from .legal import can_beat, duty_feasible_now
from .plays import Play
from .ranking import Debt, compute_ranks, debts, revolutionary_rank
from .rules import Rules
from .seats import ccw, opposite, team
from .vocab import Ask, EventType, Status


@dataclass(frozen=True, init=False)
class Top:
    """The current top play of a trick (§6) and what follows from it."""

    seat: int
    play: Play
    gouji: bool  # 够级 when played (never during 四户乱缠)
    burn: bool  # a play of the burning seat (烧牌 in progress), answered with 解烧/反烧 names
    can_open: bool  # would open its owner if it stands (§9)
    burn_play: bool  # starts or continues a burn (§7), its last lead included
    penult: bool  # its owner's penultimate play under 憋3 (§8)

    def __init__(
        self,
        seat: int,
        play: Play,
        gouji: bool,
        burn: bool,
        can_open: bool,
        burn_play: bool,
        penult: bool,
    ) -> None:
        # the dataclass's own __init__, without a frozen object.__setattr__ per field (one
        # Top is made per play: hot in random games and a search's rollouts)
        self.__dict__.update(
            seat=seat,
            play=play,
            gouji=gouji,
            burn=burn,
            can_open=can_open,
            burn_play=burn_play,
            penult=penult,
        )


# Enum members looked up in the innermost loops (a class attribute lookup costs there).
_ACTIVE, _BURN, _AUTO_PASS = Status.ACTIVE, Ask.BURN, EventType.AUTO_PASS
_ANSWER, _LEAD = Ask.ANSWER, Ask.LEAD
_TRICK_WON, _WIND = EventType.TRICK_WON, EventType.WIND
# The events that carry only a seat, made once (events are immutable; these come by the dozen
# in every game).
AUTO_PASSES = tuple(Event(_AUTO_PASS, s) for s in range(6))
TRICKS_WON = tuple(Event(_TRICK_WON, s) for s in range(6))
# The other five seats counterclockwise after each seat (§6.2: who is asked about its play).
_AFTER = tuple(tuple((owner + k) % 6 for k in range(1, 6)) for owner in range(6))


class Flow:
    """The state of a game in play and its automatic steps (no checks: see ``Game``)."""

    rules: Rules
    hands: list[list[int]]
    status: list[Status]
    revolutionary: int | None
    # set on the instance only once a revolutionary's rank is announced (rare): a game's
    # attributes stay under CPython's 30 of a compact instance (a 30th makes every game carry
    # a dict of its own, 1.3 KB more a table)
    rev_announced: bool = False
    declared: tuple[int, ...]
    yaotou: tuple[int, ...]
    yaotou_stood: list[int]
    opened: list[bool]
    top_order: list[int]
    fails: list[int]
    smothers: list[int]
    ranks: list[int | None]
    men: list[tuple[int, int]]
    shao: list[tuple[int, int, int]]
    _debts: tuple[Debt, ...]
    four_way: bool
    over: bool
    top: Top | None
    passed: set[int]
    yielded: int | None
    # the seats still to ask about the top, in order: a list (a handful of seats; a deque
    # would keep a 624-byte block for every game in memory)
    queue: list[tuple[int, Ask]]
    ask: tuple[int, Ask] | None
    burning: int | None
    burn_victim: int | None
    burn_tribute: int
    last_actor: int
    log: list[Action]

    def active(self, seat: int) -> bool:
        return self.status[seat] is _ACTIVE

    def headless(self, seat: int) -> bool:
        """§12 无头: active with an inactive 对头 — except a 要头 player until three of their
        够死级 plays have stood (§5.4)."""
        status = self.status
        if status[seat] is not _ACTIVE or status[(seat + 3) % 6] is _ACTIVE:  # (the 对头)
            return False
        return not (seat in self.yaotou and self.yaotou_stood[seat] < 3)

    def _bound_by_threes(self, seat: int) -> bool:
        """§8: 憋3 binds a player who holds a 3."""
        return self.rules.bie3 and self.hands[seat][THREE] > 0

    def _rank(self, seat: int, events: list[Event]) -> None:
        """Recompute ranks after ``seat`` left play and announce its rank."""
        self.ranks = compute_ranks(
            self.top_order, self.fails, self.smothers, self.revolutionary, self.over
        )
        events.append(Event(EventType.FINISHED, seat, rank=self.ranks[seat]))

    def _after_ranking(self, events: list[Event]) -> None:
        """A revolutionary's rank once settled; then 四户乱缠, or the end of the game (§10, §12)."""
        self._settle_revolutionary(events)
        live = [s for s in range(6) if self.active(s)]
        if len({team(s) for s in live}) <= 1:
            # §10: the remaining players take the remaining ranks, fewer cards ranking higher,
            # ties in seat order starting after the player who acted last.
            after = self.last_actor
            live.sort(key=lambda s: (sum(self.hands[s]), (s - after - 1) % 6))
            for s in live:
                self.status[s] = Status.FINISHED
            self.top_order.extend(live)
            self.over = True
            # RECORDS.md order: a revolutionary settled by this action, then the remaining players.
            self._settle_revolutionary(events)
            self.ranks = compute_ranks(
                self.top_order, self.fails, self.smothers, self.revolutionary, self.over
            )
            events.extend(Event(EventType.FINISHED, s, rank=self.ranks[s]) for s in live)
            self._debts = tuple(
                debts(self.rules, self.ranks, self.opened, self.declared, self.men, self.shao)
            )
            self.burning = None
            self.top = None
            self.ask = None
            self.queue.clear()
            events.append(Event(EventType.GAME_OVER, None))
            return
        if len(live) <= 4 and not self.four_way:
            self.four_way = True
            self.burning = None  # §12: a running burn simply ends
            if self.top is not None and self.top.burn:
                t = self.top
                self.top = Top(t.seat, t.play, t.gouji, False, False, t.burn_play, t.penult)
            events.append(Event(EventType.FOUR_WAY, None))

    def _settle_revolutionary(self, events: list[Event]) -> None:
        rev = self.revolutionary
        if rev is None or self.rev_announced:
            return
        if revolutionary_rank(self.top_order, rev, self.over) is not None:
            self.rev_announced = True
            self.ranks = compute_ranks(self.top_order, self.fails, self.smothers, rev, self.over)
            events.append(Event(EventType.FINISHED, rev, rank=self.ranks[rev]))

    # -- who is asked ------------------------------------------------------------------------
    def _open_queue(self) -> None:
        """§6.2: the seats to ask about the new top, in order, each with its ask kind."""
        top = self.top
        assert top is not None
        owner = top.seat
        status = self.status
        order = [s for s in _AFTER[owner] if status[s] is _ACTIVE]
        if self.four_way:  # §12: everyone, passes do not count
            self.queue = [(s, _ANSWER) for s in order]
        elif not top.gouji or self.headless(owner):
            passed = self.passed
            opp = opposite(owner)
            self.queue = [
                (s, _ANSWER) for s in order if s not in passed or s == opp
            ]  # §6.2 对头 re-entry
        else:
            self.queue = self._gouji_queue(top, order)
        self.yielded = None

    def _gouji_queue(self, top: Top, order: list[int]) -> list[tuple[int, Ask]]:
        """§6.2 §7: the seats asked about a 够级 play (burn claims first), ``order`` being the
        active seats after its owner."""
        owner = top.seat
        q: list[tuple[int, Ask]] = []
        if self.rules.burn:
            # §7 burn claims: the owner's teammates, then the other opponents.
            mates = [s for s in order if team(s) == team(owner)]
            others = [s for s in order if team(s) != team(owner) and s != opposite(owner)]
            q.extend(
                (s, _BURN) for s in mates + others if s not in self.passed and not self.headless(s)
            )
        dead = self._dead_gouji(top)
        if not dead:
            q.extend(
                (s, _ANSWER)
                for s in order
                if s == opposite(owner) or (self.headless(s) and s not in self.passed)
            )
        return q

    def _advance(self, events: list[Event]) -> None:
        """Ask the next seat that can act; pass for those who cannot (§6.3); close the trick
        when nobody is left to ask (§6.5)."""
        kill = self.rules.kill_big_joker
        while not self.over:
            top = self.top
            if top is None:
                return  # the leader is asked
            queue, status, hands, play = self.queue, self.status, self.hands, top.play
            while queue:
                seat, ask = queue[0]
                active = status[seat] is _ACTIVE
                if active and can_beat(hands[seat], play, kill):
                    self.ask = (seat, ask)
                    return
                del queue[0]
                if active and ask is not _BURN:
                    events.append(AUTO_PASSES[seat])
                    self.passed.add(seat)
            self._close_trick(events)

    def _close_trick(self, events: list[Event]) -> None:
        top = self.top
        assert top is not None
        owner = top.seat
        events.append(TRICKS_WON[owner])
        if top.can_open and not self.four_way and not self.opened[owner]:
            self.opened[owner] = True  # §9 开点
            events.append(Event(EventType.OPENED, owner))
        if self._dead_gouji(top) and not self.four_way:
            self.yaotou_stood[owner] += 1  # §5.4: a 够死级 play stood
            if self.yaotou_stood[owner] == 3 and self.rules.open_point:
                self.opened[owner] = True
                events.append(Event(EventType.OPENED, owner))
        self.top = None
        self.passed = set()
        self.queue.clear()
        self.yielded = None
        if self.burning == owner and not duty_feasible_now(
            self.hands[owner], self._bound_by_threes(owner)
        ):
            # §7 诈烧: no lead the duty allows; the lead passes on as in 接风.
            self.status[owner] = Status.FAILED
            self.fails.append(owner)
            self.burning = None
            events.append(Event(EventType.BURN_FAIL, owner))
            self._rank(owner, events)
            self._after_ranking(events)
            if self.over:
                return
        if self.active(owner):
            self.ask = (owner, _LEAD)
        else:
            self._wind(owner, events)

    def _dead_gouji(self, top: Top) -> bool:
        """§5.4 够死级: a 够级 play of a 要头 player before three have stood. Burn plays are not
        counted (the project's reading: §9 says plays that start or continue a burn never open,
        and three 够死级 standing is how a 要头 player opens)."""
        return (
            top.gouji
            and not top.burn_play
            and top.seat in self.yaotou
            and self.yaotou_stood[top.seat] < 3
        )

    def _wind(self, after: int, events: list[Event]) -> None:
        """§6.5 接风 (and §7 after 诈烧): the next active player counterclockwise leads."""
        nxt = self._next_active(after)
        events.append(Event(_WIND, nxt))
        self.ask = (nxt, _LEAD)

    def _next_active(self, seat: int) -> int:
        for s in ccw(seat + 1):
            if self.active(s):
                return s
        raise AssertionError("no active player")

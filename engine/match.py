"""A match: consecutive games of the same six seats, linked by tribute (docs/rules.md §11) and the
next leader (§5.6), with a running score (§10). The one object the bot and the AI drive.

One question-and-answer interface serves both phases of every game::

    match = Match(STANDARD)             # seed=… for reproducible deals (tests, demos)
    match.new_game()                    # deal; events of the deal phase
    while (ask := match.asked()) is not None:
        seat, kind = ask
        legal = match.choices(seat)     # plays, pass/yield, or the deal phase's options
        events = match.apply(action)    # IllegalAction (nothing changed) if refused
    match.record()                      # a JSON document; Match.restore(doc) rebuilds it

``version`` counts what the match has done (deals and actions); the bot puts it in every button
so a stale one is told apart from a fresh one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action, IllegalAction
from .deal import SuitedHand
from .events import Event
from .game import Game, game_view
from .legal import Legal
from .matchrecord import BadMatchRecord, DealEntry, MatchRecord
from .ranking import Debt
from .rules import Rules
from .setup import Setup, setup_view
from .view import SeatView, idle_view
from .vocab import Ask, Code, Phase

_SYSTEM = random.SystemRandom()  # unseeded matches' deal seeds (shared: it keeps no state)


@dataclass(frozen=True)
class GameSummary:
    """A finished game of the match."""

    number: int
    ranks: tuple[int | None, ...]
    score: tuple[int, int]
    tributes: tuple[Debt, ...]


class Match:
    """Games at one table. ``seed`` makes every deal reproducible; without it each game's deal
    seed is drawn from the operating system's CSPRNG (§5.1). Either way the seeds used are kept
    in :meth:`record`, so a restored match is the same match."""

    def __init__(self, rules: Rules, seed: int | str | None = None) -> None:
        self.rules = rules
        self.seed = seed
        # deal seeds drawn so far from ``seed``'s generator: the generator itself (2.5 KB) is
        # made again when the next one is drawn, not kept by every table between its games
        self._drawn = 0
        self.number = 0  # games dealt so far
        self.totals = [0, 0]  # match score of teams A and B
        self.history: list[GameSummary] = []
        self.setup: Setup | None = None
        self.log: list[Action | DealEntry] = []  # everything done, in order
        self._open_setup: int | None = None  # log index of the current deal

    # -- the questions ---------------------------------------------------------------------
    @property
    def version(self) -> int:
        """How many deals and actions the match has taken; grows by one with each."""
        return len(self.log)

    @property
    def game(self) -> Game | None:
        """The play of the current game, once its deal phase is over."""
        return self.setup.game if self.setup else None

    @property
    def phase(self) -> Phase:
        """idle (nothing dealt yet), setup, play, four_way or over (the current game is)."""
        if self.setup is None:
            return Phase.IDLE
        g = self.setup.game
        return Phase.SETUP if g is None else g.phase

    @property
    def over(self) -> bool:
        """No game is running: none dealt yet, or the current one is over (a new deal may
        follow with :meth:`new_game`)."""
        return self.phase in (Phase.IDLE, Phase.OVER)

    def asked(self) -> tuple[int, Ask] | None:
        """(seat, :class:`~engine.vocab.Ask`) of the seat that must act now; None when no game
        is running."""
        if self.setup is None:
            return None
        g = self.setup.game
        return g.asked() if g is not None else self.setup.asked()

    def choices(self, seat: int) -> Legal:
        """Everything ``seat`` may do now, whatever the phase: plays, pass and yield in the
        play; the deal phase's options (革命, 要头, 宣点, 还贡) as ``options``."""
        g = self.game
        if g is not None:
            return g.legal(seat)
        ask = self.asked()
        if self.setup is None or ask is None or ask[0] != seat:
            return Legal(seat, None, (), False, False, False)
        return Legal(seat, ask[1], (), False, False, False, tuple(self.setup.options(seat)))

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may see (None: the spectator, i.e. the group), in any phase."""
        if self.setup is None:
            return idle_view(self.rules, seat, 0, self.version)
        g = self.setup.game
        if g is None:
            return setup_view(self.setup, seat, self.version)
        return game_view(g, seat, self.number, self.version)

    # -- the answers -------------------------------------------------------------------------
    def new_game(self, deal: Sequence[SuitedHand] | None = None) -> list[Event]:
        """Deal the next game: the last game's tribute, its 大落 leading (§5.6, §11). ``deal``
        (tests, puzzles) gives the hands instead of shuffling; re-deals shuffle."""
        if not self.over:
            raise RuntimeError("the current game is not over")
        seed = self._next_seed()
        return self._deal(DealEntry(seed, tuple(tuple(h) for h in deal) if deal else None))

    def _next_seed(self) -> str:
        """The next game's deal seed: the next draw of ``seed``'s generator, or from the
        operating system's CSPRNG (§5.1)."""
        rng = random.Random(self.seed) if self.seed is not None else _SYSTEM
        for _ in range(self._drawn if self.seed is not None else 0):
            rng.getrandbits(128)
        self._drawn += 1
        return f"{rng.getrandbits(128):032x}"

    def _deal(self, entry: DealEntry) -> list[Event]:
        last = self.history[-1] if self.history else None
        debts: tuple[Debt, ...] = last.tributes if last else ()
        leader = None
        if last is not None:
            leader = next(s for s, r in enumerate(last.ranks) if r == 6)
        self.number += 1
        self.log.append(entry)
        deals = [list(entry.hands)] if entry.hands else []
        rng = random.Random(entry.seed)
        self.setup = Setup(self.rules, rng, self.number, debts, leader, deals=deals)
        return list(self.setup.events)

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalAction` if ``action`` would be refused now; changes nothing."""
        g = self.game
        if g is not None:
            g.check(action)
        elif self.setup is None:
            raise IllegalAction(Code.NOT_YOUR_TURN, "No game is running.")
        else:
            self.setup.check(action)

    def apply(self, action: Action) -> list[Event]:
        """Carry out ``action`` and every automatic move after it; the events, in order.
        Refused (:class:`IllegalAction`, nothing changed) unless ``action`` is legal now."""
        if self.setup is None:
            raise IllegalAction(Code.NOT_YOUR_TURN, "No game is running.")
        g = self.setup.game
        events = self.setup.apply(action) if g is None else g.apply(action)
        self.log.append(action)
        g = self.setup.game
        if g is not None and g.over and len(self.history) < self.number:
            a, b = g.score()
            self.totals[0] += a
            self.totals[1] += b
            self.history.append(
                GameSummary(self.number, tuple(g.ranks), (a, b), tuple(g.tributes()))
            )
        return events

    # -- saving and restoring ----------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """The match record (MATCH_RECORDS.md): rules, seed and everything done, in order."""
        return MatchRecord(self.rules, self.seed, tuple(self.log)).to_json()

    @staticmethod
    def restore(doc: Any, events: list[Event] | None = None) -> Match:
        """The match a :meth:`record` describes, indistinguishable from the original: the same
        views, questions and future deals. ``events``, when given, receives the events of the
        current game from its deal on (to rebuild a transcript). Raises
        :class:`~engine.matchrecord.BadMatchRecord` for a malformed or inconsistent record."""
        rec = MatchRecord.from_json(doc)
        try:
            return Match.replay(rec, events)
        except IllegalAction as e:
            raise BadMatchRecord(f"action {e.params.get('index')}: {e.message}") from None

    @staticmethod
    def replay(rec: MatchRecord, events: list[Event] | None = None) -> Match:
        """Carry out a match record's deals and actions. An illegal action raises
        :class:`IllegalAction` with its position in ``params["index"]``; the match as it stood
        before it is in ``params``' ``match``... see :func:`engine.record.replay_match`."""
        m = Match(rec.rules, rec.seed)
        m.replay_into(rec.entries, events)
        return m

    def replay_into(
        self,
        entries: Sequence[Action | DealEntry],
        events: list[Event] | None = None,
        on_step: Callable[[int, list[Event]], None] | None = None,
    ) -> None:
        """Apply ``entries`` in order. ``events`` receives the current game's events (cleared
        at each deal); ``on_step(k, events)`` is called after each entry. An illegal action
        raises :class:`IllegalAction` with ``params["index"] = k`` and leaves the match as it
        stood before it."""
        for k, entry in enumerate(entries):
            if isinstance(entry, DealEntry):
                if not self.over:
                    raise BadMatchRecord(f"action {k}: a deal while a game is running")
                if self.seed is not None:
                    drawn = self._next_seed()
                    if drawn != entry.seed:
                        raise BadMatchRecord(f"action {k}: the deal's seed is not the match's")
                step = self._deal(entry)
                if events is not None:
                    events.clear()
            else:
                try:
                    step = self.apply(entry)
                except IllegalAction as e:
                    e.params["index"] = k
                    raise
            if events is not None:
                events.extend(step)
            if on_step is not None:
                on_step(k, step)

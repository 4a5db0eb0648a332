"""What every seat at the table saw played in the current game: the cards of every play and the
plays of the trick in progress.

Built from the engine's events only, and only from plays, which every seat sees as they are made
(docs/rules.md §6): no hand, no tribute, no dead card, no declined burn claim enters it, so it
is the same for every seat and for the group. The bot's
:class:`~renderers.transcript.Transcript` keeps one (it is fed every event of the game, rebuilt
the same after a restart); the DM's table lines
(:func:`renderers.dm.table_lines`) read it beside the seat's own view.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import NRANKS, Counts, parse
from engine.events import Event
from engine.vocab import EventType

# Events after which the trick in progress is over: it was won, or the burner failed and the
# lead passes on (§7 诈烧).
_TRICK_ENDS = frozenset({EventType.TRICK_WON, EventType.BURN_FAIL})


class Played:
    """The current game's plays as the table saw them. ``feed`` it the events in order."""

    def __init__(self) -> None:
        self._counts: list[int] = []
        self.trick: list[tuple[int, str]] = []  # (seat, cards) of the trick in progress
        self._closed = False  # the trick ended: the next play starts a new one
        self._reset()

    def _reset(self) -> None:
        self._counts = [0] * NRANKS
        self.trick = []
        self._closed = False

    @property
    def counts(self) -> Counts:
        """Cards played so far this game, per rank (engine.cards order)."""
        return tuple(self._counts)

    def feed(self, events: Iterable[Event]) -> None:
        for ev in events:
            if ev.type == EventType.DEALT:
                self._reset()  # a new game: nothing played yet
            elif ev.type == EventType.PLAY and ev.seat is not None:
                if self._closed:
                    self.trick, self._closed = [], False
                cards = ev.cards or ""
                for r, n in enumerate(parse(cards)):
                    self._counts[r] += n
                self.trick.append((ev.seat, cards))
            elif ev.type in _TRICK_ENDS:
                self._closed = True

    def current(self) -> list[tuple[int, str]]:
        """The plays of the trick in progress, oldest first (empty between tricks)."""
        return [] if self._closed else list(self.trick)

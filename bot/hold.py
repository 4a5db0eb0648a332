"""Passes at a human pace: what the table shows while the engine's automatic passes play out.

The engine passes at once for an entitled player who cannot beat (``auto_pass``, §6.3) and asks
for burn claims only of players who can beat a 够级 play (§7). A real table shows neither: a
player who cannot beat still looks at their cards before saying 过, and after a 够级 play
everyone waits a moment to see whether someone burns. So after an action whose events hold
automatic passes (or a 够级 play nobody could burn), the next question is held back: the group's
table shows each skipped seat as the one to act for a think-time, and the burn window for a few
seconds, exactly as if they were deciding.

The match is authoritative and already stored; a :class:`Hold` is presentation only (in memory,
never stored: a restart shows the match as it is). Pure: the bot's timers drive it
(:mod:`bot.moves`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.events import Event
from engine.seats import opposite
from engine.view import SeatView, TopView
from engine.vocab import Ask, EventType, Status

from .outbox import Out

THINK_S = (1.5, 4.0)  # a seeded random think-time per skipped seat, seconds (Config None)
# Events after the automatic passes that end the trick: shown only once the hold is over.
_CLOSING = frozenset({EventType.TRICK_WON, EventType.BURN_FAIL, EventType.FOUR_WAY})


@dataclass(frozen=True)
class HoldStep:
    """One moment of a hold: ``seat`` shown as the one to act, or the burn window (None)."""

    seat: int | None
    seconds: float


@dataclass
class Hold:
    """An action's automatic passes being shown at a human pace (set for one match version).

    ``head``: the events up to the first automatic pass (shown at once); ``tail``: the rest
    (shown when the hold ends). ``public``: the public fields of a view as they stand after the
    head (the table's top, passes, ranks…), put over any seat's view while the hold lasts.
    ``current``: the trick's line after the head; ``later``: the messages of the tail (its
    cheers, stored in the outbox with the action) to send when the hold ends."""

    version: int
    steps: list[HoldStep]
    head: list[Event]
    tail: list[Event]
    public: dict[str, Any]
    current: str | None = None
    lines: list[str] = field(default_factory=list)  # the tail's finished lines
    later: list[Out] = field(default_factory=list)
    actor: int | None = None  # whose action it was (their DM follows the hold)
    step: int = 0

    @property
    def now(self) -> HoldStep:
        return self.steps[self.step]

    def shown(self, view: SeatView) -> SeatView:
        """``view`` as the table is to look now: the public fields after the head, and the
        current step's seat asked (or the burn window open)."""
        step = self.now
        ask = Ask.BURN if step.seat is None else Ask.ANSWER
        skipped = {s.seat for s in self.steps[self.step :] if s.seat is not None}
        passed = tuple(s for s in self.public["passed"] if s not in skipped)
        return replace(view, **{**self.public, "passed": passed}, to_act=step.seat, asked=ask)


def split(events: Sequence[Event]) -> tuple[list[Event], list[Event]]:
    """The events before the first automatic pass, and the rest."""
    for i, ev in enumerate(events):
        if ev.type == EventType.AUTO_PASS:
            return list(events[:i]), list(events[i:])
    return list(events), []


def plan(
    before: SeatView,
    after: SeatView,
    events: Sequence[Event],
    think: Callable[[int | None], float],
) -> Hold | None:
    """The hold an action's ``events`` call for (None: nothing to hold), from the spectator's
    view ``before`` and ``after`` the action; ``think(seat)``: a skipped seat's think-time (the
    burn window's for None)."""
    if any(e.type == EventType.GAME_OVER for e in events):
        return None  # the game is over: everything is shown at once
    head, tail = split(events)
    steps: list[HoldStep] = []
    if _burn_window(after, head):
        steps.append(HoldStep(None, think(None)))
    for ev in tail:
        if ev.type == EventType.AUTO_PASS and ev.seat is not None:
            steps.append(HoldStep(ev.seat, think(ev.seat)))
    steps = [s for s in steps if s.seconds > 0]
    if not steps:
        return None
    return Hold(after.version, steps, head, tail, _public(before, after, head, tail))


def _burn_window(after: SeatView, head: Sequence[Event]) -> bool:
    """Whether a 够级 play in ``head`` opens a burn window that the engine did not ask anyone
    about (§7: nobody could burn): some seat was entitled to burn."""
    plays = [e for e in head if e.type == EventType.PLAY]
    if not plays or not plays[-1].gouji or not after.rules.burn or after.asked == Ask.BURN:
        return False
    owner = plays[-1].seat
    if owner is None or after.headless[owner]:
        return False
    return any(
        s not in (owner, opposite(owner))
        and after.status[s] == Status.ACTIVE
        and s not in after.passed
        and not after.headless[s]
        for s in range(6)
    )


def _public(
    before: SeatView, after: SeatView, head: Sequence[Event], tail: Sequence[Event]
) -> dict[str, Any]:
    """The public fields of the table after ``head``: those of ``after`` where the tail changed
    nothing, those of ``before`` (with the head's own plays and passes) where it did."""
    closes = any(e.type in _CLOSING for e in tail)
    skipped = {e.seat for e in tail if e.type == EventType.AUTO_PASS and e.seat is not None}
    out: dict[str, Any] = {
        "top": after.top,
        "burning": after.burning,
        "passed": tuple(s for s in after.passed if s not in skipped) + tuple(sorted(skipped)),
    }
    if closes:
        plays = [e for e in head if e.type == EventType.PLAY]
        burner = next((e.seat for e in head if e.type == EventType.BURN), before.burning)
        top = before.top
        last = plays[-1] if plays else None
        if last is not None and last.seat is not None:
            burn = last.seat == burner
            top = TopView(last.seat, last.cards or "", bool(last.gouji), burn)
        passes = {e.seat for e in head if e.type == EventType.PASS and not e.claim}
        kept = tuple(s for s in before.passed if s not in skipped)
        out |= {
            "top": top,
            "burning": burner,
            "passed": kept
            + tuple(sorted(s for s in passes if s is not None and s not in kept))
            + tuple(sorted(skipped)),
            "opened": before.opened,
            "phase": before.phase,
        }
    ranked = {e.seat for e in tail if e.type in (EventType.FINISHED, EventType.BURN_FAIL)}
    if ranked:
        out["status"] = tuple(
            before.status[s] if s in ranked else after.status[s] for s in range(6)
        )
        out["ranks"] = tuple(before.ranks[s] if s in ranked else after.ranks[s] for s in range(6))
    return out


def think_time(setting: float | None, table_id: int, version: int, seat: int | None) -> float:
    """A skipped seat's think-time: ``setting`` seconds (``Config.pass_think_s``), or when
    None a seeded random one in :data:`THINK_S`, the same after a restart."""
    if setting is not None:
        return setting
    rng = random.Random(f"{table_id}:{version}:{seat}:think")
    return round(rng.uniform(*THINK_S), 2)

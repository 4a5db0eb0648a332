"""How fast the bot calls Telegram: :class:`Pacing` (the limits, as one value), the turns in
the budget of calls over all chats — this process's (:class:`Pace`) or, with several
processes, all of theirs together (:class:`SharedPace`, bot.coord) — and a group's rhythm: its
table and log edited once a beat at most (:class:`Beat`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from .coord import PgCoord
from .outbox import Out, Slot, SlotKind

# A group's table and log are edited at most once in this many seconds: the decisions of a
# burst (a pass, a one-tap answer, the next play) show in one edit. A player sees each
# decision at once in their own chat; the group, a table at most this old. With one new
# question, the old one retired and the actor's message edited (three private calls a
# decision), the group's writes are what keeps a decision within four calls (issue 35).
BEAT_S = 9.0


@dataclass(frozen=True)
class Pacing:
    """How fast the sender calls Telegram: seconds between two calls to one group and to one
    private chat, and calls a second over all chats after a first ``burst``. Telegram's
    limits: about 20 messages a minute in a group, about one a second in a private chat, about
    30 a second in all (25 a second after a burst of 5 never makes more than 30 in a second)."""

    group_s: float = 3.0
    private_s: float = 1.0
    overall_per_s: float = 25.0
    burst: int = 5
    beat_s: float = BEAT_S  # a group's table and log: edited once a beat at most (Beat)

    @staticmethod
    def telegram() -> Pacing:
        return Pacing()

    @staticmethod
    def off() -> Pacing:
        """No pacing (a local server without limits)."""
        return Pacing(0.0, 0.0, 0.0, beat_s=0.0)

    def faster(self, factor: float) -> Pacing:
        """The same pacing on a clock ``factor`` times as fast (tests and demos against a
        local server whose limits run as fast: ``RateLimits.faster``)."""
        return Pacing(
            self.group_s / factor,
            self.private_s / factor,
            self.overall_per_s * factor,
            self.burst,
            self.beat_s / factor,
        )

    def interval(self, chat_id: int) -> float:
        return self.group_s if chat_id < 0 else self.private_s


class Pace:
    """At most ``per_s`` calls a second over all chats (after a first ``burst``), granted in the
    order asked; 0: no limit. A chat's worker waits for its turn *before* it takes its next
    message, so under load the message stays in the chat's queue, where newer content replaces
    it, and its picture is drawn only when its call can go out: the bot keeps no backlog of
    calls waiting for Telegram's budget, only each chat's newest content."""

    def __init__(self, per_s: float, burst: int = 5) -> None:
        self.interval = 1.0 / per_s if per_s > 0 else 0.0
        self.burst = burst
        self._next = 0.0  # when the budget is free again, at this pace

    async def turn(self) -> None:
        if not self.interval:
            return
        now = time.monotonic()
        self._next = max(self._next, now) + self.interval
        wait = self._next - now - self.burst * self.interval
        if wait > 0:
            await asyncio.sleep(wait)


class SharedPace(Pace):
    """:class:`Pace` over all processes of the bot (bot.coord): their calls together stay
    within the bot's budget."""

    def __init__(self, coord: PgCoord, per_s: float, burst: int = 5) -> None:
        super().__init__(per_s, burst)
        self.coord = coord

    async def turn(self) -> None:
        if not self.interval:
            return
        at = await self.coord.pace(self.interval)
        wait = at - time.time() - self.burst * self.interval
        if wait > 0:
            await asyncio.sleep(wait)


class Beat:
    """The rhythm of each table's kept group messages — its table picture and its log page:
    a change after a quiet beat is shown at once, and opens a beat of ``seconds``; what
    changes during it waits for its end and is shown then, once, as the table stands then
    (``flush``: the table's part rebuilds the messages, under the table's lock). Only edits
    wait: a message sent anew, the first of a log page, an act (delete, pin) go at once; a
    waiting edit of a message sent anew is then moot (it goes with the newest content), one of
    a message unpinned still comes (the game's last lines in its log)."""

    def __init__(
        self,
        seconds: float,
        flush: Callable[[int], Coroutine[Any, Any, None]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.flush = flush
        self.clock = clock
        self.opened: dict[int, float] = {}  # table → when its current beat opened
        self.waiting: dict[int, set[Slot]] = {}  # table → kept messages to edit at its end
        self._tasks: set[asyncio.Task[None]] = set()

    def sort(
        self, table_id: int, chat_id: int, log_kept: bool, outs: list[Out], now: bool = False
    ) -> list[Out]:
        """What of ``outs`` (one change's messages) goes now; the table's kept edits wait for
        the end of a beat that is open. ``log_kept``: the log page in place exists (an edit
        of it may wait; the first of a page goes now); ``now``: everything goes now (the
        game's end: its last lines)."""
        if self.seconds <= 0 or chat_id > 0:
            return outs
        waiting = self.waiting.setdefault(table_id, set())
        at = self.clock()
        open_ = now or (
            not waiting and at - self.opened.get(table_id, -self.seconds) >= self.seconds
        )
        if now:
            waiting.clear()  # what waited goes with these, the newest content
        if open_:
            self.opened[table_id] = at
        go: list[Out] = []
        for out in outs:
            if out.chat_id != chat_id or out.slot is None or out.slot.table != table_id:
                go.append(out)
                continue
            kind = out.slot.kind
            edit = kind == SlotKind.TABLE or (kind == SlotKind.LOG and log_kept)
            if not edit or out.new or out.act:
                if not out.act:  # the newest content goes now: what waited is moot
                    waiting.discard(out.slot)
                go.append(out)
            elif open_:
                go.append(out)
            else:
                if not waiting:
                    self._at_end(table_id, at)
                waiting.add(out.slot)
        return go

    def _at_end(self, table_id: int, now: float) -> None:
        delay = max(0.0, self.opened.get(table_id, now) + self.seconds - now)
        loop = asyncio.get_running_loop()
        loop.call_later(delay, self._spawn, table_id)

    def _spawn(self, table_id: int) -> None:
        task = asyncio.get_running_loop().create_task(self.flush(table_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def take(self, table_id: int) -> set[Slot]:
        """The beat's end: the kept messages waiting for it (to edit now); a new beat opens."""
        waiting = self.waiting.pop(table_id, set())
        if waiting:
            self.opened[table_id] = self.clock()
        return waiting

    def forget(self, table_id: int) -> None:
        self.waiting.pop(table_id, None)
        self.opened.pop(table_id, None)

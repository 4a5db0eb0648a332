"""How fast the bot calls Telegram: :class:`Pacing` (the limits, as one value), the turns in
the budget of calls over all chats — this process's (:class:`Pace`) or, with several
processes, all of theirs together (:class:`SharedPace`, bot.coord) — and a group's rhythm: its
table and log edited once a beat at most (:class:`Beat`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from .coord import PgCoord
from .outbox import Out, Slot, SlotKind

# A group's table and log are edited at most once in this many seconds: the decisions of a
# burst (a pass, a one-tap answer, the next play) show in one edit. A player sees each
# decision at once in their own chat; the group, a table at most this old (a change after a
# quiet beat at once). With one new question, the old one retired and the actor's message
# edited (three private calls a decision, 3.3 at people's tapping), the group's writes are
# what keeps a decision within four calls (issue 35): `python -m bot bench --game` measured
# 4.45 calls a decision at a 9 s beat, 4.07 at 15 s, 3.94 at 20 s.
BEAT_S = 20.0
LOG_BEATS = 3  # the log page: edited once in so many beats at most
log = logging.getLogger("gouji.pacing")


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
    within the bot's budget. The turns wanted meanwhile are taken together, one statement at a
    time for the whole process (never one a call: the budget's row would be the database's
    busiest, and every call waiting for it would hold a connection)."""

    def __init__(self, coord: PgCoord, per_s: float, burst: int = 5) -> None:
        super().__init__(per_s, burst)
        self.coord = coord
        self._wanted: list[asyncio.Future[float]] = []  # turns asked, not yet taken
        self._taking: asyncio.Task[None] | None = None

    async def turn(self) -> None:
        if not self.interval:
            return
        want = asyncio.get_running_loop().create_future()
        self._wanted.append(want)
        if self._taking is None or self._taking.done():
            self._taking = asyncio.get_running_loop().create_task(self._take())
        at = await want
        wait = at - time.time() - self.burst * self.interval
        if wait > 0:
            await asyncio.sleep(wait)

    async def _take(self) -> None:
        """The turns asked for, in one statement; those asked meanwhile, in the next."""
        while self._wanted:
            wanted, self._wanted = self._wanted, []
            try:
                first = await self.coord.pace(self.interval, len(wanted))
            except Exception as e:  # the database away a moment: those callers see it
                for want in wanted:
                    if not want.done():
                        want.set_exception(e)
                continue
            for i, want in enumerate(wanted):
                if not want.done():  # a caller gone meanwhile: its turn goes unused
                    want.set_result(first + i * self.interval)


class Beat:
    """The rhythm of each table's kept group messages — its table picture and its log page:
    a change after a quiet beat is shown at once, and opens a beat of ``seconds``; what
    changes during it waits for its end and is shown then, once, as the table stands then
    (``flush``: the table's part rebuilds the messages, under the table's lock). The log page
    keeps a slower beat, ``log_beats`` beats (its lines not yet in it are shown on the table
    meanwhile: bot.table.Table.table_out). Only edits wait: a message sent anew, the first of
    a log page, an act (delete, pin) go at once; a waiting edit of a message sent anew is then
    moot (it goes with the newest content), one of a message unpinned still comes (the game's
    last lines in its log)."""

    def __init__(
        self,
        seconds: float,
        flush: Callable[[int], Coroutine[Any, Any, None]],
        clock: Callable[[], float] = time.monotonic,
        log_beats: int = LOG_BEATS,
    ) -> None:
        self.seconds = seconds
        self.log_s = seconds * log_beats
        self.flush = flush
        self.clock = clock
        self.opened: dict[int, float] = {}  # table → when its current beat opened
        self.logged: dict[int, float] = {}  # table → when its log was last edited
        self.waiting: dict[int, set[Slot]] = {}  # table → kept messages to edit at its end
        self._wake_at: dict[int, float] = {}  # table → when its flush is due
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
        others = [s for s in waiting if s.kind != SlotKind.LOG]  # (the log may wait longer)
        open_ = now or (not others and self._due(self.opened, table_id, at, self.seconds))
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
            log = kind == SlotKind.LOG
            edit = kind == SlotKind.TABLE or (log and log_kept)
            if not edit or out.new or out.act:
                if not out.act:  # the newest content goes now: what waited is moot
                    waiting.discard(out.slot)
                if log and not out.act:
                    self.logged[table_id] = at
                go.append(out)
            elif open_ and (not log or now or self._due(self.logged, table_id, at, self.log_s)):
                if log:
                    self.logged[table_id] = at
                go.append(out)
            else:
                waiting.add(out.slot)
        if waiting:
            self._wake(table_id, at)
        return go

    def _due(self, since: dict[int, float], table_id: int, at: float, seconds: float) -> bool:
        return at - since.get(table_id, at - seconds) >= seconds * 0.999

    def _wake(self, table_id: int, at: float) -> None:
        """A flush when the next of the waiting messages is due (unless one comes sooner)."""
        waiting = self.waiting.get(table_id, set())
        ends = [self.opened.get(table_id, at) + self.seconds]
        if any(s.kind == SlotKind.LOG for s in waiting):
            ends.append(self.logged.get(table_id, at) + self.log_s)
        if all(s.kind == SlotKind.LOG for s in waiting):
            ends = [max(ends)]  # the log alone waits for its own beat
        # nothing goes before the table's beat ends (take): waking sooner, at a log's end
        # already past, was a busy loop of flushes until then
        when = ends[0]
        due = self._wake_at.get(table_id)
        if due is not None and due <= when:
            return
        self._wake_at[table_id] = when
        asyncio.get_running_loop().call_later(max(0.0, when - at), self._spawn, table_id)

    def _spawn(self, table_id: int) -> None:
        task = asyncio.get_running_loop().create_task(self._flush(table_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _flush(self, table_id: int) -> None:
        """The flush, its failure told, never raised (the process stopping, the table moved to
        another process: the next change, or the table resumed there, shows it)."""
        try:
            await self.flush(table_id)
        except Exception as e:  # a task of its own: nobody awaits it
            log.warning("table %d: its beat's edits not shown (%r)", table_id, e)

    def take(self, table_id: int) -> set[Slot]:
        """A flush: the kept messages due now (to edit); a new beat opens with them."""
        at = self.clock()
        self._wake_at.pop(table_id, None)
        waiting = self.waiting.get(table_id, set())
        out: set[Slot] = set()
        if self._due(self.opened, table_id, at, self.seconds):
            log_due = self._due(self.logged, table_id, at, self.log_s)
            out = {s for s in waiting if s.kind != SlotKind.LOG or log_due}
        if out:
            waiting -= out
            self.opened[table_id] = at
            if any(s.kind == SlotKind.LOG for s in out):
                self.logged[table_id] = at
        if waiting:
            self._wake(table_id, at)
        return out

    def log_waits(self, table_id: int) -> bool:
        """Whether an edit of the log page waits (its new lines then shown on the table)."""
        return any(s.kind == SlotKind.LOG for s in self.waiting.get(table_id, ()))

    def forget(self, table_id: int) -> None:
        for kept in (self.waiting, self.opened, self.logged, self._wake_at):
            kept.pop(table_id, None)

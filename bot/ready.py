"""再来一局 as a short ready check (issue 34 §7): one player's tap no longer starts the next game
for everyone while grandma is in the kitchen.

The first 再来一局 opens the check: a group message lists the seated people, each with ⏳ until
they tap ✅ (再来一局 counts as ✅ too). The next game starts as soon as every seated person is
ready, or when the check's countdown — :data:`READY_S` seconds, never longer than the lobby's
pickup countdown — runs out: then a person who did not tap plays in 托管 (the AI plays their seat
until they take it back with the 托管 button, as the AFK ladder does), the way the lobby fills
an empty seat with the computer. A table with a single person starts at once, as before.

The check is stored with the table (:class:`bot.model.TableState` ``ready``, ``ready_until``),
so a restart keeps it and its countdown runs on (:meth:`Ready.resumed`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace

from engine.matchrecord import entry_text
from renderers import t

from .buttons import Kind, OverOp
from .keyboards import Keyboard, _b
from .model import TableStatus
from .moves import Moves
from .outbox import Answer, Out, Slot, SlotKind
from .router import Press, Router
from .table import Table
from .tables import Config, Tables, timer_name
from .tenure import Poster
from .timers import Job, Scheduler, TimerKind

log = logging.getLogger("gouji.ready")
READY_S = 30.0


class Ready:
    """The ready check between two games of a match: the game-over message's 再来一局 and the
    check's ✅."""

    def __init__(
        self, tables: Tables, moves: Moves, *, poster: Poster, timers: Scheduler, cfg: Config
    ) -> None:
        self.tables = tables
        self.cfg = cfg
        self.moves = moves
        self.sender = poster
        self.timers = timers
        self.timers.on(TimerKind.READY, self._expired)
        tables.on_resume(TableStatus.OVER, self.resumed)

    def register(self, router: Router) -> None:
        router.on(Kind.OVER, OverOp.AGAIN, self.press)  # 再来一局 counts as ✅
        router.on(Kind.OVER, OverOp.READY, self.press)

    def seconds(self) -> float:
        return min(READY_S, self.cfg.countdown_s)

    # -- presses -----------------------------------------------------------------------------
    async def press(self, table: Table, p: Press) -> Answer:
        """✅ (or 再来一局: the same seats, the next game of the match, tribute §11): this
        seated person is ready; the first press opens the check."""
        lang = table.lang
        m = table.match
        if m is None or table.status != TableStatus.OVER or p.cb.version != m.version:
            return Answer(t(lang, "bot.stale"))
        seat = table.seat_of(p.user.id)
        if seat is None:
            return Answer(t(lang, "bot.not_seated"))
        other = await self.tables.find_at(table.chat_id, table.thread_id)
        if other is not None and other.id != table.id:
            return Answer(t(lang, "bot.stale"))
        st = table.st
        opening = st.ready_until is None
        if opening:
            st.ready_until = time.time() + self.seconds()
            st.ready = []
            job = Job(TimerKind.READY, table.id, m.version)
            self.timers.schedule(timer_name(TimerKind.READY, table.id), self.seconds(), job)
        if seat not in st.ready:
            st.ready.append(seat)
        if all(s in st.ready for s in self.people(table)):
            await self.start(table, absent=())
            return Answer(t(lang, "bot.go"))
        await self.tables.save(table)
        out = self.check_out(table)
        # opening: a new message that buzzes — the call to come back to the table
        self.sender.post(replace(out, new=True, silent=False) if opening else out)
        return Answer(t(lang, "ready.me"))

    @staticmethod
    def people(table: Table) -> list[int]:
        return [i for i, _ in table.humans()]

    async def _expired(self, job: Job) -> None:
        """The check's countdown is over: whoever did not tap plays in 托管 for now."""
        table = await self.tables.find(job.table_id)
        if table is None:
            return
        async with self.tables.locked(table):
            m = table.match
            if (
                m is None
                or table.status != TableStatus.OVER
                or table.st.ready_until is None
                or m.version != job.version
            ):
                return
            absent = [s for s in self.people(table) if s not in table.st.ready]
            await self.start(table, absent)

    async def start(self, table: Table, absent: Sequence[int]) -> None:
        """The next game of the match (tribute, §11); ``absent`` seats in 托管."""
        m = table.match
        assert m is not None
        self.timers.cancel(timer_name(TimerKind.READY, table.id))
        for seat in absent:
            s = table.st.seats[seat]
            if s is not None:
                s.auto = True
                s.timeouts = 0
        checked = table.st.ready_until is not None
        table.st.ready_until = None
        table.st.ready = []
        first = [self.check_out(table, absent)] if checked else []
        events = m.new_game()
        table.status = TableStatus.PLAYING
        table.version = m.version
        entries = [entry_text(m.log[-1])]
        await self.moves.commit(table, entries, events, actor=None, everyone=True, first=first)
        self.moves.schedule(table)

    # -- the message -------------------------------------------------------------------------
    def check_out(self, table: Table, absent: Sequence[int] | None = None) -> Out:
        """The check as the group sees it: each seated person ✅ or ⏳; once over (``absent``
        given), who plays in 托管, without buttons."""
        lang = table.lang
        st = table.st
        marks = "  ".join(
            f"{'✅' if s in st.ready or (absent is not None and s not in absent) else '⏳'}"
            f" {table.name(s)}"
            for s in self.people(table)
        )
        if absent is None:
            left = max(0, round((st.ready_until or time.time()) - time.time()))
            lines = [t(lang, "ready.title", s=left), marks]
            kb: Keyboard | None = self.keyboard(table)
        else:
            lines = [marks]
            if absent:
                names = "、".join(table.name(s) for s in absent)
                lines.append(t(lang, "ready.auto", names=names))
            kb = None
        slot = Slot(table.id, SlotKind.READY)
        return Out(table.chat_id, "\n".join(lines), kb, table.thread_id, slot, silent=True)

    @staticmethod
    def keyboard(table: Table) -> Keyboard:
        m = table.match
        version = m.version if m is not None else 0
        return [[_b(t(table.lang, "ready.btn"), Kind.OVER, table.id, version, OverOp.READY)]]

    def resumed(self, table: Table) -> None:
        """After a restart: an open check shown again, its countdown running on."""
        m = table.match
        if table.st.ready_until is None or m is None or table.status != TableStatus.OVER:
            return
        self.sender.post(self.check_out(table))
        left = max(0.0, table.st.ready_until - time.time())
        job = Job(TimerKind.READY, table.id, m.version)
        self.timers.schedule(timer_name(TimerKind.READY, table.id), left, job)

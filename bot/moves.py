"""Moving a match: an action applied, stored with the messages it causes before they are
shown; AI seats and turn timers as scheduled steps; what a timeout plays, the AFK ladder."""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from engine.actions import Action, IllegalAction
from engine.ai import Decision, decide, timeout_action
from engine.events import Event
from engine.matchrecord import entry_text
from engine.view import SeatView
from engine.vocab import Ask, Do, EventType, Phase
from renderers import card_text, t

from . import storage as S
from .aimove import decide_snapshot, signature, snapshot
from .hold import Hold, plan, think_time
from .model import AiLevel, TableStatus
from .outbox import Out, Slot, SlotKind
from .pacing import Beat
from .pins import Pins, sight_outs
from .quiet import OWN_SIDE_BURN_S, own_side_burn
from .table import Table, built_once
from .tables import Config, Tables, UserInfo, timer_name
from .tenure import Poster
from .timers import Job, Scheduler, TimerKind
from .workers import Workers

AI_TRIES = 3  # an AI move decided again when the table changed during its search
log = logging.getLogger("gouji.moves")


class Moves:
    """A table's match moving: actions, AI moves, turn timers, reminders, holds."""

    def __init__(
        self,
        tables: Tables,
        workers: Workers,
        pins: Pins,
        game_stored: Callable[[Table], Awaitable[None]],
        *,
        poster: Poster,
        timers: Scheduler,
        cfg: Config,
        storage: S.Storage,
        beat_s: float = 0.0,
    ) -> None:
        """``beat_s``: a group's table and log edited once in so many seconds at most
        (bot.pacing.Beat; 0: at once)."""
        self.tables = tables
        self.cfg = cfg
        self.storage = storage
        self.sender = poster
        self.pins = pins  # the game kept in sight: the log pinned, or the table sent anew
        self.timers = timers
        self.workers = workers  # the hard AI searches there
        self.game_stored = game_stored  # after each game: its facts, badges, 复盘 (game_end)
        self.beat = Beat(beat_s, self._beat_end)  # the group's table and log, to one rhythm
        self.timers.on(TimerKind.STEP, self._step)
        self.timers.on(TimerKind.HOLD, self._hold_step)
        self.timers.on(TimerKind.REMIND, self._remind)
        tables.on_resume(TableStatus.PLAYING, self.resumed)

    # -- a table's hands ---------------------------------------------------------------------
    def returned(self, table: Table, seat: int) -> bool:
        """The player of ``seat`` plays again: votes about the seat are void, and its AFK
        notice, if there is one, says they are back (its buttons gone): True then."""
        table.votes.pop(seat, None)
        table.st.afk_ver[seat] = table.st.afk_ver.get(seat, 0) + 1  # old vote buttons die
        if seat not in table.st.afk_msgs:
            return False
        text = t(table.lang, "bot.back", name=table.mention(seat))
        slot = Slot(table.id, SlotKind.AFK, seat)
        self.sender.post(Out(table.chat_id, text, None, table.thread_id, slot))
        return True

    def post_hand(self, table: Table, seat: int, new: bool = False) -> None:
        """The seat's hand message as it is now (``new``: sent anew at the bottom)."""
        out = table.hand_out(seat)
        if out is not None:
            self.sender.post(replace(out, new=True) if new else out)

    async def resend_hand(self, user: UserInfo) -> bool:
        """The hand message again, as a new message at the bottom of the DM (``/hand``)."""
        found = False
        for table in await self.tables.of_user(user.id):
            seat = table.seat_of(user.id)
            if seat is None or table.match is None:
                continue
            if table.status not in (TableStatus.PLAYING, TableStatus.OVER):
                continue
            async with self.tables.locked(table):
                out = table.hand_out(seat)
                if out is not None:
                    self.sender.post(replace(out, new=True))
                    found = True
        return found

    async def act(
        self, table: Table, action: Action, note: str = "", auto: bool = False
    ) -> list[Event]:
        """Apply ``action`` (IllegalAction: nothing changed), store it with the messages it
        causes, then send them. The caller holds the table's lock. ``auto``: the AI plays a
        seat for its player (托管), whose hand message waits already: it changes only with
        what the seat shows of itself (a pass changes nothing there)."""
        m = table.match
        assert m is not None
        before = m.view(None)
        own = _own_part(table, action.seat)[:-1] if auto else None
        events = m.apply(action)
        table.version = m.version
        table.selection.pop(action.seat, None)
        table.hinted.pop(action.seat, None)
        if m.phase == Phase.OVER:
            table.status = TableStatus.OVER
        table.note = note
        table.hold = self._hold_for(table, before, events, action.seat)
        same = own is not None and _own_part(table, action.seat)[:-1] == own
        try:
            await self.commit(table, [entry_text(action)], events, None if same else action.seat)
        except Exception:
            # not stored: the action must not stand either — rebuild from what is stored
            await self.tables.reload(table)
            raise
        if m.phase == Phase.OVER:
            await self._store_game(table)
        self.schedule(table)
        return events

    def _hold_for(
        self, table: Table, before: SeatView, events: list[Event], actor: int
    ) -> Hold | None:
        """The pause the action's automatic passes are shown with (bot.hold), unless the chat
        plays 快速过牌 or ``Config.pass_think_s`` is 0."""
        m = table.match
        assert m is not None
        setting = self.cfg.pass_think_s
        if table.st.settings.instant_passes or setting == 0:
            return None
        version = m.version

        def think(seat: int | None) -> float:
            return think_time(setting, table.id, version, seat)

        hold = plan(before, m.view(None), events, think)
        if hold is not None:
            hold.actor = actor
        return hold

    async def commit(
        self,
        table: Table,
        entries: list[str],
        events: list[Event],
        actor: int | None,
        everyone: bool = False,
        first: Sequence[Out] = (),
    ) -> None:
        """Store the table with its new log ``entries``, then show what ``events`` change
        (after ``first``).
        The messages that are not kept in place (cheers, the game-over picture) are stored in
        the outbox in the same transaction and leave it once delivered: a kill after the
        commit loses none of them (they are sent after the restart). Those of a hold's tail
        are stored now and sent when the hold ends."""
        await self.pins.may_pin(table.chat_id)  # known for sight_outs (cached)
        with built_once():  # the group's table made once (bot.table.built_once)
            await self._commit(table, entries, events, actor, everyone, first)

    async def _commit(
        self,
        table: Table,
        entries: list[str],
        events: list[Event],
        actor: int | None,
        everyone: bool,
        first: Sequence[Out],
    ) -> None:
        outs = [*first, *self.outs(table, events, actor, everyone)]
        if table.match is not None and table.match.phase == Phase.OVER:
            outs += table.game_over_outs()
        hold = table.held()
        later = hold.later if hold is not None else []
        lasting = [o for o in [*outs, *later] if o.slot is None]
        ids = await self.tables.save(table, entries, [o.dumps() for o in lasting])
        stored = dict(zip(map(id, lasting), ids, strict=True))
        if hold is not None:
            hold.later = [replace(o, outbox_id=stored.get(id(o))) for o in later]
        ready = [
            o if (oid := stored.get(id(o))) is None else replace(o, outbox_id=oid) for o in outs
        ]
        self._post(table, ready)

    def _post(self, table: Table, outs: list[Out]) -> None:
        """A change's messages sent, the group's table and log edits to the beat's rhythm (the
        game's end at once)."""
        log_kept = table.st.log_page in table.st.log_msgs
        over = table.match is not None and table.match.phase == Phase.OVER
        go = self.beat.sort(table.id, table.chat_id, log_kept, outs, now=over)
        if over:
            self.beat.forget(table.id)  # nothing waits: no memory kept for the table
        if self.beat.log_waits(table.id):  # its new lines shown on the table meanwhile
            go = [self._unlogged(table, o) for o in go]
        for out in go:
            self._logged(table, out)
            self.sender.post(out)

    @staticmethod
    def _unlogged(table: Table, out: Out) -> Out:
        """The table message with the lines its log does not show yet."""
        if out.slot != Slot(table.id, SlotKind.TABLE) or out.act or table.match is None:
            return out
        return replace(table.table_out(table.lines[table.log_shown :]), new=out.new)

    @staticmethod
    def _logged(table: Table, out: Out) -> None:
        """``out`` is the log page as it stands: it shows every line so far."""
        slot = out.slot
        page = Slot(table.id, SlotKind.LOG, table.st.log_page)
        if slot == page and not out.act and out.chat_id == table.chat_id:
            table.log_shown = len(table.lines)

    async def _beat_end(self, table_id: int) -> None:
        """A beat over: the group's table and log as they stand now, if they changed during it
        (bot.pacing.Beat)."""
        table = self.tables.get(table_id)
        if table is None:
            self.beat.forget(table_id)
            return
        async with self.tables.locked(table):
            slots = self.beat.take(table.id)
            m = table.match
            if any(s.kind == SlotKind.LOG and s.index == table.st.log_page for s in slots):
                self.sender.post(table.log_out(table.lines))
                table.log_shown = len(table.lines)
            playing = table.status == TableStatus.PLAYING and m is not None and not m.over
            if playing and any(s.kind == SlotKind.TABLE for s in slots):
                self.sender.post(table.table_out(table.lines[table.log_shown :]))

    def outs(
        self, table: Table, events: list[Event], actor: int | None, everyone: bool = False
    ) -> list[Out]:
        """What the new events change, in the order to send: cheers, the log, the table, the
        DMs concerned. While a hold lasts (bot.hold), only what its head changes: the tail's
        lines and cheers wait on the hold."""
        m = table.match
        assert m is not None
        outs: list[Out] = []
        hold = table.held()
        finished, cheers = table.feed(hold.head if hold is not None else events)
        if hold is not None:
            hold.current = table.transcript.current() if table.transcript else None
            hold.lines, tail_cheers = table.feed(hold.tail)
            hold.later = table.cheer_outs(tail_cheers)
        dealt = bool(events) and events[0].type == EventType.DEALT
        page = table.st.log_page
        if dealt:  # a new game: a new table message, its log below it, new hand messages
            table.lines = []
            table.st.log_first = 0
            table.st.log_page += 1
            everyone = True
            outs.append(replace(table.table_out(), new=True))
        outs += table.cheer_outs(cheers)
        outs += table.log_outs(finished)
        outs += sight_outs(table, self.pins, 0 if dealt else len(cheers), dealt, page)
        if (
            (m.setup is not None and m.game is None)
            or any(e.type == EventType.LEADER for e in events)
            or m.phase == Phase.OVER
        ):
            everyone = True  # deal phase: tribute and 买3 move cards; game over: all final
        ask = m.asked() if hold is None else None  # held: the next player is not asked yet
        seats = (
            set(range(6)) if everyone else {s for s in (actor, _asked(table, ask)) if s is not None}
        )
        return outs + table.hand_outs(seats, ask, dealt)

    async def _store_game(self, table: Table) -> None:
        """A game over: its record stored (once; the game-over message went with the action)."""
        m = table.match
        assert m is not None and m.game is not None
        if table.st.stored_games < m.number:
            await self.storage.save_game(
                table.id, table.chat_id, m.number, m.game.record().to_json()
            )
            table.st.stored_games = m.number
            await self.tables.save(table)
            await self.game_stored(table)  # the story: facts, badges, the 复盘 (bot.game_end)

    def resumed(self, table: Table) -> None:
        """After a restart: the group and every player see the table again; the asked player
        gets the question as a new message (it notifies), others lose old buttons."""
        self.sender.post(
            Out(table.chat_id, t(table.lang, "bot.resumed"), None, table.thread_id, silent=True)
        )
        self.sender.post(table.log_out(table.lines))
        table.log_shown = len(table.lines)
        self.sender.post(table.table_out())
        ask = table.match.asked() if table.match else None
        for seat, _ in table.humans():
            self.post_hand(table, seat, new=ask is not None and seat == ask[0])
        self.schedule(table)

    def schedule(self, table: Table) -> None:
        """The table's next step: an AI move soon, or the asked player's turn timer (with a
        reminder at half time: the AFK ladder's first rung)."""
        step = timer_name(TimerKind.STEP, table.id)
        remind = timer_name(TimerKind.REMIND, table.id)
        self.timers.cancel(step)
        self.timers.cancel(remind)
        m = table.match
        if m is None or table.status != TableStatus.PLAYING:
            return
        hold = table.held()
        if hold is not None:  # the next player is asked when the hold is over
            job = Job(TimerKind.HOLD, table.id, hold.version, step=hold.step)
            self.timers.schedule(step, hold.now.seconds, job)
            return
        ask = m.asked()
        if ask is None:
            return
        s = table.st.seats[ask[0]]
        version = m.version
        cfg = self.cfg
        if s is None or s.ai_plays:
            self.timers.schedule(step, cfg.ai_delay, Job(TimerKind.STEP, table.id, version))
        else:
            turn = float(cfg.turn_s if cfg.turn_s is not None else table.st.settings.turn_s)
            timeout = Job(TimerKind.STEP, table.id, version, timeout=True)
            if own_side_burn(m, ask):  # bot.quiet: declines itself soon, no reminder
                self.timers.schedule(step, min(turn, OWN_SIDE_BURN_S), timeout)
                return
            self.timers.schedule(step, turn, timeout)
            left = Job(TimerKind.REMIND, table.id, version, left=turn / 2)
            self.timers.schedule(remind, turn / 2, left)

    @staticmethod
    def _unchanged(table: Table, version: int) -> bool:
        """Whether the table a timer was set for still plays at the version it was set at."""
        m = table.match
        return m is not None and m.version == version and table.status == TableStatus.PLAYING

    async def _remind(self, job: Job) -> None:
        """Half the turn is gone: the asked player is reminded (the AFK ladder's first rung)."""
        table = await self.tables.find(job.table_id)
        if table is None:
            return
        async with self.tables.locked(table):
            m = table.match
            if not self._unchanged(table, job.version) or m is None:
                return
            ask = m.asked()
            s = table.st.seats[ask[0]] if ask else None
            if ask is None or s is None or s.user is None or s.auto:
                return
            seat = ask[0]
            lang = table.seat_lang(seat)
            left = job.left
            # a new message in the DM (an edit would not make the phone buzz)
            self.sender.post(Out(s.user, t(lang, "bot.remind.dm", s=int(left)), None))
            # §7: never say who is asked to burn; §5: nor who decides in the deal phase
            if ask[1] != Ask.BURN and m.game is not None:
                text = t(table.lang, "bot.remind.group", name=table.mention(seat), s=int(left))
                self.sender.post(Out(table.chat_id, text, None, table.thread_id))

    async def _hold_step(self, job: Job) -> None:
        """A skipped seat's think-time is over: the next one is shown thinking, or after the
        last the action's tail is shown and the next player asked."""
        table = await self.tables.find(job.table_id)
        if table is None:
            return
        async with self.tables.locked(table):
            with built_once():  # the group's table made once (bot.table.built_once)
                self._next_step(table, job)

    def _next_step(self, table: Table, job: Job) -> None:
        """:meth:`_hold_step`, under the table's lock."""
        hold = table.held()
        if not self._unchanged(table, job.version) or hold is None or hold.step != job.step:
            return
        held = _own_part(table, hold.actor)  # as the actor's message shows it
        hold.step += 1
        if hold.step < len(hold.steps):
            # the group's table follows each step (its caption); the players' private
            # chats wait for the hold's end, when the asked one's changes
            self._post(table, [table.table_out()])
            self.schedule(table)
            return
        table.hold = None
        m = table.match
        assert m is not None
        ask = m.asked()
        # the actor's message was put in place at their press: a snapshot of that moment,
        # like every waiting hand message; it changes again only if the tail changed their
        # own part (their hand, their rank), not for the trick's line alone
        changed = hold.actor is not None and _own_part(table, hold.actor) != held
        actor = {hold.actor} if changed and hold.actor is not None else set()
        page = table.st.log_page
        outs = [*hold.later, *table.log_outs(hold.lines)]
        outs += sight_outs(table, self.pins, len(hold.later), False, page)
        asked = _asked(table, ask)
        seats = actor | ({asked} if asked is not None else set())
        outs += table.hand_outs(seats, ask)
        self._post(table, outs)
        self.schedule(table)

    async def _step(self, job: Job) -> None:
        """An AI seat's move, or a human's turn timed out. The hard AI's search runs outside
        the table's lock (bot.aimove): its move is applied only if the table is still where
        it was asked, otherwise decided again."""
        table = await self.tables.find(job.table_id)
        if table is None:
            return
        searched: tuple[tuple[object, ...], Decision] | None = None
        for _ in range(AI_TRIES):
            async with self.tables.locked(table):
                m = table.match
                if not self._unchanged(table, job.version) or m is None:
                    return  # something happened meanwhile
                ask = m.asked()
                if ask is None:
                    return
                seat = ask[0]
                s = table.st.seats[seat]
                if job.timeout and s is not None and not s.ai_plays:
                    await self._timeout(table, seat)
                    return
                level = s.level if s is not None else AiLevel.NORMAL
                if searched is not None and searched[0] == signature(table):
                    d = searched[1]  # decided outside the lock, the table unchanged since
                elif level == AiLevel.HARD:
                    at, work = signature(table), self._search(table, seat, level)
                    d = None
                else:
                    d = await self.decide(table, seat, level)
                if d is not None:
                    try:
                        await self.act(table, d.action, auto=s is not None and s.auto)
                    except IllegalAction as e:
                        log.error("table %d: the AI's action was refused (%s)", table.id, e.code)
                        await self.act(table, timeout_action(m, seat))
                    return
            searched = (at, await work())  # the search, the table's lock free meanwhile

    def _search(self, table: Table, seat: int, level: AiLevel) -> Callable[[], Awaitable[Decision]]:
        """The hard AI's search on the match as it stands now (a snapshot taken under the
        lock), to run in a worker once the lock is free."""
        m = table.match
        assert m is not None
        rng = random.Random(f"{table.id}:{m.version}:{seat}")
        data, budget = snapshot(m), self.cfg.hard_budget_ms
        return lambda: self.workers.run(decide_snapshot, data, seat, level, rng, budget)

    async def decide(self, table: Table, seat: int, level: AiLevel) -> Decision:
        """An AI decision for ``seat`` (the table's lock is held, so the match does not change
        meanwhile). The hard level searches for ``Config.hard_budget_ms``: in a worker process,
        off the event loop; the others decide in well under a millisecond, so here."""
        m = table.match
        assert m is not None
        rng = random.Random(f"{table.id}:{m.version}:{seat}")
        if level == AiLevel.HARD:
            budget = self.cfg.hard_budget_ms
            return await self.workers.run(decide, m, seat, level, rng, budget)
        return decide(m, seat, level, rng)

    async def _timeout(self, table: Table, seat: int) -> None:
        s = table.st.seats[seat]
        assert s is not None
        assert table.match is not None
        action = timeout_action(table.match, seat)
        s.timeouts += 1
        what = (
            t(table.lang, "bot.timeout.pass")
            if action.do == Do.PASS
            else t(table.lang, "bot.timeout.play", cards=card_text(action.cards, table.lang))
            if action.do == Do.PLAY
            else t(table.lang, "bot.timeout.choice")
        )
        # a burn claim that timed out is silent, like any declined claim (§7), and does not
        # count: the group would learn who could have burned
        burn_claim = table.match is not None and (table.match.asked() or (0, None))[1] == Ask.BURN
        if burn_claim:
            s.timeouts -= 1
        # §5: nor who timed out deciding in the deal phase (革命 asks only some hands)
        dealing = table.match is not None and table.match.game is None
        silent = burn_claim or dealing
        note = "" if silent else t(table.lang, "bot.timeout", name=table.name(seat), what=what)
        if s.timeouts >= table.st.settings.afk:
            s.auto = True  # the AFK ladder: repeated timeouts hand the seat to the AI (托管)
            table.votes.pop(seat, None)
            table.st.afk_ver[seat] = table.st.afk_ver.get(seat, 0) + 1  # old notices die
            need = table.votes_needed(seat)
            self.sender.post(replace(table.afk_out(seat, 0, need), new=True))
        await self.act(table, action, note=note)


def _own_part(table: Table, seat: int | None) -> tuple[object, ...]:
    """What a seat's waiting hand message shows of the seat itself (its hand, status and rank,
    the phase, its partner's cards): what a hold's tail may change besides the trick's line."""
    if seat is None or table.match is None:
        return ()
    v = table.view(seat)
    return (v.hand, v.status[seat], v.ranks[seat], v.phase, v.partner_hands, v.to_act == seat)


def _asked(table: Table, ask: tuple[int, Ask] | None) -> int | None:
    """The seat whose hand message a question changes: nobody's when the AI plays the seat for
    its player (托管): its message waits already, and changes when the AI acts for it."""
    seat = ask[0] if ask is not None else None
    s = table.st.seats[seat] if seat is not None else None
    return None if s is not None and s.auto else seat

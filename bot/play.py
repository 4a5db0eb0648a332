"""Moving a match: a player's hand buttons, applying an action (stored before it is shown), AI
seats and turn timers as scheduled steps, what each action changes on screen."""

from __future__ import annotations

import html
import logging
import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from engine.actions import Action, IllegalAction
from engine.ai import Decision, decide
from engine.cards import fmt, parse
from engine.events import Event
from engine.matchrecord import entry_text
from engine.view import SeatView
from engine.vocab import Ask, Do, EventType, Phase
from renderers import card_text, hint_text, refusal_text, t
from renderers.terms import failed_rank

from .aimove import decide_snapshot, signature, snapshot
from .buttons import HandOp, Kind
from .handkeys import AUTO, Pending, caution_text, duty_shortfall, moves, one_taps, situation, tap
from .hold import Hold, plan, think_time
from .keyboards import EMPTY_SELECTION, option_for, smallest_first
from .model import AiLevel, TableStatus
from .outbox import Answer, Out, Slot, SlotKind
from .pins import pins_of, sight_outs
from .quiet import OWN_SIDE_BURN_S, own_side_burn
from .router import CommandCall, Menu, Press, Router
from .table import Table
from .tables import Tables, UserInfo, timer_name
from .timers import Job
from .workers import Workers

AI_TRIES = 3  # an AI move decided again when the table changed during its search

log = logging.getLogger("gouji.play")
UNTIMED = (HandOp.AUTO, HandOp.AUTO_YES, HandOp.CANCEL)  # 托管 and its confirmation: any time


class Play:
    """A table's match: presses on hand messages, actions, AI moves, turn timers."""

    def __init__(
        self, tables: Tables, workers: Workers, game_stored: Callable[[Table], Awaitable[None]]
    ) -> None:
        self.tables = tables
        self.sender = tables.sender
        self.timers = tables.timers
        self.workers = workers  # the hard AI searches there
        self.game_stored = game_stored  # after each game: its facts, badges, 复盘 (game_end)
        tables.on_resume(TableStatus.PLAYING, self.resumed)
        self.timers.on("step", self._step)
        self.timers.on("hold", self._hold_step)
        self.timers.on("remind", self._remind)

    def register(self, router: Router) -> None:
        router.command("hand", self._cmd_hand, menu=Menu.BOTH)
        router.guard(Kind.HAND, self._guard)
        router.on(Kind.HAND, HandOp.AUTO, self._auto)
        router.on(Kind.HAND, HandOp.AUTO_YES, self._auto_yes)
        router.on(Kind.HAND, HandOp.CANCEL, self._cancel)
        for op in (HandOp.RANK, HandOp.COUNT, HandOp.EXTRA, HandOp.RETURN_RANK):
            router.on(Kind.HAND, op, self._choose)
        router.on(Kind.HAND, HandOp.CLEAR, self._clear)
        router.on(Kind.HAND, HandOp.HINT, self._hint)
        submitting = (HandOp.PLAY, HandOp.QUICK, HandOp.CONFIRM, HandOp.SURE, HandOp.OPTION)
        for op in (*submitting, HandOp.PASS, HandOp.YIELD):
            router.on(Kind.HAND, op, self._submit)

    # -- a player's buttons ------------------------------------------------------------------
    def _guard(self, table: Table, p: Press) -> Answer | None:
        """A hand button counts for the match as it is: the table plays at its version, and
        only 托管 (and its confirmation) may be pressed at any time, whoever's turn it is."""
        assert p.seat is not None
        lang = table.seat_lang(p.seat)
        m = table.match
        if m is None or table.status != TableStatus.PLAYING:
            return Answer(t(lang, "bot.stale"))
        if p.cb.op in UNTIMED:
            return None
        if p.cb.version != m.version:
            return Answer(t(lang, "bot.stale"))
        ask = m.asked()
        if ask is None or ask[0] != p.seat:
            return Answer(t(lang, "bot.not_your_turn"))
        return None

    async def _auto(self, table: Table, p: Press) -> Answer:
        """托管: off at once; on only after 确认托管 (a mis-tap beside the cards must not hand
        the seat to the AI in front of the group)."""
        seat = _seat(p)
        s = table.st.seats[seat]
        assert s is not None
        if s.auto:
            return await self._auto_switch(table, seat)
        waiting = table.confirm.get(seat)
        if waiting is not None and waiting.what != AUTO:
            table.hinted.pop(seat, None)  # the play waiting for its confirmation: dropped
        table.confirm[seat] = Pending(table.version, AUTO)
        self.post_hand(table, seat)
        return Answer(t(table.seat_lang(seat), "taps.auto.ask"))

    async def _auto_yes(self, table: Table, p: Press) -> Answer:
        """确认托管: the AI plays the seat from now on."""
        seat = _seat(p)
        s = table.st.seats[seat]
        assert s is not None
        pending = table.confirm.get(seat)
        if s.auto or pending is None or pending.what != AUTO:
            return Answer(t(table.seat_lang(seat), "bot.stale"))
        del table.confirm[seat]
        return await self._auto_switch(table, seat)

    async def _cancel(self, table: Table, p: Press) -> Answer:
        """取消: the confirmation asked for (托管, or a play tapped once) is dropped."""
        seat = _seat(p)
        pending = table.confirm.pop(seat, None)
        if pending is not None and pending.what != AUTO:
            table.hinted.pop(seat, None)  # its reason, shown in the hinted line
        self.post_hand(table, seat)
        return Answer(t(table.seat_lang(seat), "taps.cancelled"))

    async def _auto_switch(self, table: Table, seat: int) -> Answer:
        """托管 on or off."""
        s = table.st.seats[seat]
        assert s is not None
        lang = table.seat_lang(seat)
        s.auto = not s.auto
        s.timeouts = 0
        if not s.auto:
            self.returned(table, seat)
        await self.tables.save(table)
        self.post_hand(table, seat)
        key = "bot.auto_on" if s.auto else "bot.auto_off"
        self.sender.post(
            Out(
                table.chat_id,
                t(table.lang, key, name=table.name(seat)),
                None,
                table.thread_id,
                silent=True,
            )
        )
        self.schedule(table)
        return Answer(t(lang, "bot.auto_on_me" if s.auto else "bot.auto_off_me"))

    async def _choose(self, table: Table, p: Press) -> Answer:
        """A rank, a count, 2s or jokers tapped: cards chosen for a play (bot.handkeys), or a
        rank for 还贡 (§11)."""
        seat = _seat(p)
        m = table.match
        assert m is not None
        view = m.view(seat)
        hand = parse(view.hand or "")
        sel = table.selection.get(seat, EMPTY_SELECTION)
        if p.cb.op != HandOp.RETURN_RANK:
            legal = m.choices(seat)
            move = (HandOp(p.cb.op), p.cb.arg)
            if move not in moves(legal, hand, sel):
                return Answer(t(table.seat_lang(seat), "bot.stale"))
            table.selection[seat] = tap(legal, hand, sel, *move)
            self.post_hand(table, seat)
            return Answer()
        rank = p.cb.rank
        if not hand[rank]:
            return Answer(t(table.seat_lang(seat), "bot.bad_button"))
        # 还贡: one card more of that rank, up to what may be returned
        cap = table.returnable(m.choices(seat))[rank]
        n = view.returning[1] if view.returning else 0
        new = list(sel)
        new[rank] = 0 if sel[rank] >= cap or sum(sel) >= n else sel[rank] + 1
        table.selection[seat] = tuple(new)
        self.post_hand(table, seat)
        return Answer()

    async def _clear(self, table: Table, p: Press) -> Answer:
        seat = _seat(p)
        table.selection.pop(seat, None)
        self.post_hand(table, seat)
        return Answer()

    async def _hint(self, table: Table, p: Press) -> Answer:
        """提示: what the normal AI would do, chosen for the player to play or change."""
        seat = _seat(p)
        m = table.match
        assert m is not None
        legal = m.choices(seat)
        d = await self.decide(table, seat, AiLevel.NORMAL)
        cards = d.action.cards
        declines = legal.ask == Ask.BURN and d.action.do == Do.PASS
        lang = table.seat_lang(seat)
        text = hint_text(d.action.do, cards, d.reason, d.params, lang, claim=declines)
        if cards:
            table.selection[seat] = parse(cards)
        table.hinted[seat] = text  # the catalog's sentence starts with 💡
        self.post_hand(table, seat)
        return Answer(html.unescape(re.sub(r"<[^>]+>", "", text))[:190])  # a toast: plain

    def _action_of(self, table: Table, p: Press) -> Action | Answer:
        """The action a submitting button stands for, or the answer refusing it."""
        seat = _seat(p)
        m = table.match
        assert m is not None
        lang = table.seat_lang(seat)
        legal = m.choices(seat)
        match p.cb.op:
            case HandOp.PLAY:
                sel = table.selection.get(seat, EMPTY_SELECTION)
                if legal.ask != Ask.RETURN:
                    return Action(seat, Do.PLAY, fmt(sel))
                action = option_for(legal, sel)
                if action is None:
                    returning = m.view(seat).returning
                    n = returning[1] if returning else 0
                    return Answer(t(lang, "bot.pick_return", n=n), alert=True)
                return action
            case HandOp.QUICK:
                # only the ▶ plays the keyboard offers (answers to a top, 2s or jokers led)
                quick = one_taps(legal, situation(m, seat))
                if p.cb.index >= len(quick):
                    return Answer(t(lang, "bot.stale"))
                return Action(seat, Do.PLAY, str(quick[p.cb.index]))
            case HandOp.CONFIRM | HandOp.SURE:
                pending = table.confirm.get(seat)
                if pending is None or pending.what == AUTO or pending.version != m.version:
                    return Answer(t(lang, "bot.stale"))
                return Action(seat, Do.PLAY, pending.what)
            case HandOp.OPTION:
                if p.cb.index >= len(legal.options):
                    return Answer(t(lang, "bot.stale"))
                return legal.options[p.cb.index]
            case HandOp.PASS:
                return Action(seat, Do.PASS)
            case HandOp.YIELD:
                return Action(seat, Do.YIELD)
        return Answer(t(lang, "bot.bad_button"))

    async def _submit(self, table: Table, p: Press) -> Answer:
        """出牌, a ▶ play, a deal-phase answer, 过 or 让牌: the action applied. A burn that
        cannot meet its duty is warned about first and played on 确认 (§7 诈烧); a ▶ play that
        spends 2s or jokers or splits a 够级 (§4) is played on its confirmation too, the reason
        shown above the keyboard until then."""
        seat = _seat(p)
        action = self._action_of(table, p)
        if isinstance(action, Answer):
            return action
        lang = table.seat_lang(seat)
        confirmed = p.cb.op in (HandOp.CONFIRM, HandOp.SURE)
        warning = self._burn_warning(table, action) if not confirmed else None
        why = self._second_tap(table, action) if p.cb.op == HandOp.QUICK else ""
        if (warning is not None or why) and table.match is not None:
            table.confirm[seat] = Pending(table.match.version, action.cards)
            table.hinted[seat] = warning or t(lang, "taps.sure.line", why=why)
            self.post_hand(table, seat)
            if warning is not None:
                return Answer(warning, alert=True)
            return Answer(t(lang, "taps.sure.toast", why=why))
        table.confirm.pop(seat, None)
        s = table.st.seats[seat]
        assert s is not None
        s.timeouts = 0
        table.votes.pop(seat, None)  # the player plays: no vote about them stands
        try:
            await self.act(table, action)
        except IllegalAction as e:
            return Answer(refusal_text(e.code, lang, **e.params), alert=True)
        if action.do == Do.PLAY:
            return Answer(t(lang, "bot.played", cards=card_text(action.cards, lang)))
        return Answer(t(lang, f"bot.did.{action.do}"))

    def _second_tap(self, table: Table, action: Action) -> str:
        """Why a ▶ play waits for its confirmation (bot.handkeys.caution), or ""."""
        m = table.match
        if m is None or action.do != Do.PLAY:
            return ""
        hand = parse(m.view(action.seat).hand or "")
        return caution_text(hand, action.cards, table.seat_lang(action.seat))

    def _burn_warning(self, table: Table, action: Action) -> str | None:
        """The warning before a burn (or 反烧) that cannot meet its duty (§7): None for any
        other action."""
        m = table.match
        game = m.game if m is not None else None
        if game is None or action.do != Do.PLAY:
            return None
        if game.burn_feasible(action.seat, action.cards) is not False:
            return None
        top = game.top
        kind = "counter" if top is not None and top.burn else "burn"
        hand = tuple(game.hands[action.seat])
        leads, jokers = duty_shortfall(hand, action.cards, game.rules.bie3)
        lang = table.seat_lang(action.seat)
        bottom = failed_rank(game.status, lang)  # §10: 大落, or 二落 after an earlier 诈烧
        return t(lang, f"taps.{kind}.warn", leads=leads, jokers=jokers, bottom=bottom)

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
        for table in self.tables.all():
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

    async def _cmd_hand(self, c: CommandCall) -> None:
        if not await self.resend_hand(c.user):
            lang = await self.tables.lang_of(c.chat_id, c.user)
            self.tables.reply(c.chat_id, c.thread_id, t(lang, "bot.no_hand"))

    # -- moving the match --------------------------------------------------------------------
    async def act(self, table: Table, action: Action, note: str = "") -> list[Event]:
        """Apply ``action`` (IllegalAction: nothing changed), store it with the messages it
        causes, then send them. The caller holds the table's lock."""
        m = table.match
        assert m is not None
        before = m.view(None)
        events = m.apply(action)
        table.version = m.version
        table.selection.pop(action.seat, None)
        table.hinted.pop(action.seat, None)
        if m.phase == Phase.OVER:
            table.status = TableStatus.OVER
        table.note = note
        table.hold = self._hold_for(table, before, events, action.seat)
        try:
            await self.commit(table, [entry_text(action)], events, actor=action.seat)
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
        setting = self.tables.cfg.pass_think_s
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
        await pins_of(self.sender).may_pin(table.chat_id)  # known for sight_outs (cached)
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
        for out in outs:
            oid = stored.get(id(out))
            self.sender.post(out if oid is None else replace(out, outbox_id=oid))

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
        pins = pins_of(self.sender)
        outs += sight_outs(table, pins, bool(cheers) and not dealt, dealt, page)
        if (
            (m.setup is not None and m.game is None)
            or any(e.type == EventType.LEADER for e in events)
            or m.phase == Phase.OVER
        ):
            everyone = True  # deal phase: tribute and 买3 move cards; game over: all final
        ask = m.asked() if hold is None else None  # held: the next player is not asked yet
        seats = (
            set(range(6))
            if everyone
            else {s for s in (actor, ask[0] if ask else None) if s is not None}
        )
        return outs + table.hand_outs(seats, ask, dealt)

    async def _store_game(self, table: Table) -> None:
        """A game over: its record stored (once; the game-over message went with the action)."""
        m = table.match
        assert m is not None and m.game is not None
        if table.st.stored_games < m.number:
            await self.tables.storage.save_game(
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
        self.sender.post(table.table_out())
        ask = table.match.asked() if table.match else None
        for seat, _ in table.humans():
            self.post_hand(table, seat, new=ask is not None and seat == ask[0])
        self.schedule(table)

    # -- the next step -----------------------------------------------------------------------
    def schedule(self, table: Table) -> None:
        """The table's next step: an AI move soon, or the asked player's turn timer (with a
        reminder at half time: the AFK ladder's first rung)."""
        step = timer_name("step", table.id)
        remind = timer_name("remind", table.id)
        self.timers.cancel(step)
        self.timers.cancel(remind)
        m = table.match
        if m is None or table.status != TableStatus.PLAYING:
            return
        hold = table.held()
        if hold is not None:  # the next player is asked when the hold is over
            job = Job("hold", table.id, {"version": hold.version, "step": hold.step})
            self.timers.schedule(step, hold.now.seconds, job)
            return
        ask = m.asked()
        if ask is None:
            return
        s = table.st.seats[ask[0]]
        version = m.version
        cfg = self.tables.cfg
        if s is None or s.ai_plays:
            self.timers.schedule(step, cfg.ai_delay, Job("step", table.id, {"version": version}))
        else:
            turn = float(cfg.turn_s if cfg.turn_s is not None else table.st.settings.turn_s)
            timeout = Job("step", table.id, {"version": version, "timeout": True})
            if own_side_burn(m, ask):  # bot.quiet: declines itself soon, no reminder
                self.timers.schedule(step, min(turn, OWN_SIDE_BURN_S), timeout)
                return
            self.timers.schedule(step, turn, timeout)
            left = {"version": version, "left": turn / 2}
            self.timers.schedule(remind, turn / 2, Job("remind", table.id, left))

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
            if not self._unchanged(table, job.args["version"]) or m is None:
                return
            ask = m.asked()
            s = table.st.seats[ask[0]] if ask else None
            if ask is None or s is None or s.user is None or s.auto:
                return
            seat = ask[0]
            lang = table.seat_lang(seat)
            left = float(job.args["left"])
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
            hold = table.held()
            if (
                not self._unchanged(table, job.args["version"])
                or hold is None
                or hold.step != job.args["step"]
            ):
                return
            hold.step += 1
            actor = {hold.actor} if hold.actor is not None else set()
            if hold.step < len(hold.steps):
                # the group's table follows each step (its caption); the players' private
                # chats wait for the hold's end, when the actor's and the asked one's change
                self.sender.post(table.table_out())
                self.schedule(table)
                return
            table.hold = None
            m = table.match
            assert m is not None
            ask = m.asked()
            page = table.st.log_page
            outs = [*hold.later, *table.log_outs(hold.lines)]
            outs += sight_outs(table, pins_of(self.sender), bool(hold.later), False, page)
            seats = actor | ({ask[0]} if ask is not None else set())
            outs += table.hand_outs(seats, ask)
            for out in outs:
                self.sender.post(out)
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
                if not self._unchanged(table, job.args["version"]) or m is None:
                    return  # something happened meanwhile
                ask = m.asked()
                if ask is None:
                    return
                seat = ask[0]
                s = table.st.seats[seat]
                if job.args.get("timeout") and s is not None and not s.ai_plays:
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
                        await self.act(table, d.action)
                    except IllegalAction as e:
                        log.error("table %d: the AI's action was refused (%s)", table.id, e.code)
                        await self.act(table, self._default_action(table, seat))
                    return
            searched = (at, await work())  # the search, the table's lock free meanwhile

    def _search(self, table: Table, seat: int, level: AiLevel) -> Callable[[], Awaitable[Decision]]:
        """The hard AI's search on the match as it stands now (a snapshot taken under the
        lock), to run in a worker once the lock is free."""
        m = table.match
        assert m is not None
        rng = random.Random(f"{table.id}:{m.version}:{seat}")
        data, budget = snapshot(m), self.tables.cfg.hard_budget_ms
        return lambda: self.workers.run(decide_snapshot, data, seat, level, rng, budget)

    async def decide(self, table: Table, seat: int, level: AiLevel) -> Decision:
        """An AI decision for ``seat`` (the table's lock is held, so the match does not change
        meanwhile). The hard level searches for ``Config.hard_budget_ms``: in a worker process,
        off the event loop; the others decide in well under a millisecond, so here."""
        m = table.match
        assert m is not None
        rng = random.Random(f"{table.id}:{m.version}:{seat}")
        if level == AiLevel.HARD:
            budget = self.tables.cfg.hard_budget_ms
            return await self.workers.run(decide, m, seat, level, rng, budget)
        return decide(m, seat, level, rng)

    def _default_action(self, table: Table, seat: int) -> Action:
        """What a timeout does (§ per-turn timer): pass when passing is allowed, otherwise the
        smallest legal lead; in the deal phase, decline (or the first 还贡 choice)."""
        m = table.match
        assert m is not None
        legal = m.choices(seat)
        if legal.options:
            for o in legal.options:
                if o.do in (Do.NO_REVOLT, Do.WUTOU, Do.NO_DECLARE):
                    return o
            return legal.options[0]
        if legal.can_pass:
            return Action(seat, Do.PASS)
        return Action(seat, Do.PLAY, str(smallest_first(legal.plays)[0]))

    async def _timeout(self, table: Table, seat: int) -> None:
        s = table.st.seats[seat]
        assert s is not None
        action = self._default_action(table, seat)
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
            need = votes_needed(table, seat)
            self.sender.post(replace(table.afk_out(seat, 0, need), new=True))
        await self.act(table, action, note=note)


def votes_needed(table: Table, seat: int) -> int:
    """Votes that leave ``seat`` to the AI for the rest of the match: a majority of the other
    seated players, and at least two when three or more players sit."""
    others = [i for i, s in table.humans() if i != seat]
    majority = len(others) // 2 + 1
    return max(majority, 2) if len(others) >= 2 else majority


def _seat(p: Press) -> int:
    assert p.seat is not None  # the router sets it for every hand button
    return p.seat

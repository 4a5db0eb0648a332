"""Moving a match: a player's buttons, applying an action (stored before it is shown), AI
seats and turn timers as scheduled steps, what each action changes on screen."""

from __future__ import annotations

import html
import logging
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace

from engine.actions import Action, IllegalAction
from engine.ai import Decision, decide
from engine.cards import RANK_CHARS, fmt, parse
from engine.events import Event
from engine.matchrecord import entry_text
from engine.vocab import Ask, Do, EventType, Phase
from renderers import card_text, hint_text, refusal_text, t

from .codec import Callback
from .core import Core, UserInfo
from .keyboards import EMPTY_SELECTION, QUICK, Button, option_for, smallest_first, toggle
from .model import Seat
from .outbox import Answer, Out
from .table import LOG_LIMIT, Table

log = logging.getLogger("gouji.play")
ANSWERS = (Ask.ANSWER, Ask.BURN, Ask.LAST)  # asks the one-tap answers are offered for


class PlayOps(Core):
    async def _hand_press(self, table: Table, cb: Callback, user: UserInfo) -> Answer:
        lang = user.lang or table.lang
        seat = table.seat_of(user.id)
        m = table.match
        if seat is None:
            return Answer(t(lang, "bot.not_yours"))
        lang = table.seat_lang(seat)
        if m is None or table.status != "playing" or cb.version != m.version:
            return Answer(t(lang, "bot.stale"))
        s = table.st.seats[seat]
        assert s is not None
        op = cb.op
        if op == "a":  # 托管 on or off, at any time
            s.auto = not s.auto
            s.timeouts = 0
            await self._save(table)
            self._post_hand(table, seat)
            self.sender.post(
                Out(
                    table.chat_id,
                    t(
                        table.lang,
                        "bot.auto_on" if s.auto else "bot.auto_off",
                        name=table.name(seat),
                    ),
                    None,
                    table.thread_id,
                    silent=True,
                )
            )
            self._schedule(table)
            return Answer(t(lang, "bot.auto_on_me" if s.auto else "bot.auto_off_me"))
        ask = m.asked()
        if ask is None or ask[0] != seat:
            return Answer(t(lang, "bot.not_your_turn"))
        legal = m.choices(seat)
        view = m.view(seat)
        hand = parse(view.hand or "")
        sel = table.selection.get(seat, EMPTY_SELECTION)
        action: Action | None = None
        if op[0] in "rt" and len(op) == 2 and op[1] in RANK_CHARS:
            rank = RANK_CHARS.index(op[1])
            if not hand[rank]:
                return Answer(t(lang, "bot.bad_button"))
            if op[0] == "r":
                table.selection[seat] = toggle(sel, hand, rank)
            else:  # 还贡: one card more of that rank, up to what may be returned
                cap = table.returnable(legal)[rank]
                n = view.returning[1] if view.returning else 0
                new = list(sel)
                new[rank] = 0 if sel[rank] >= cap or sum(sel) >= n else sel[rank] + 1
                table.selection[seat] = tuple(new)
            self._post_hand(table, seat)
            return Answer()
        if op == "c":
            table.selection.pop(seat, None)
            self._post_hand(table, seat)
            return Answer()
        if op == "i":
            d = await self._decide(table, seat, "normal")
            cards = d.action.cards
            declines = legal.ask == Ask.BURN and d.action.do == Do.PASS
            text = hint_text(d.action.do, cards, d.reason, d.params, lang, claim=declines)
            if cards:
                table.selection[seat] = parse(cards)
            table.hinted[seat] = text  # the catalog's sentence starts with 💡
            self._post_hand(table, seat)
            return Answer(html.unescape(re.sub(r"<[^>]+>", "", text))[:190])  # a toast: plain
        if op == "p":
            if legal.ask == Ask.RETURN:
                action = option_for(legal, sel)
                if action is None:
                    return Answer(
                        t(lang, "bot.pick_return", n=view.returning[1] if view.returning else 0),
                        alert=True,
                    )
            else:
                action = Action(seat, Do.PLAY, fmt(sel))
        elif op[0] == "q" and op[1:].isdigit():
            # only the one-tap answers the keyboard offers (answers to a top, the first few)
            quick = smallest_first(legal.plays)[:QUICK] if legal.ask in ANSWERS else []
            k = int(op[1:])
            if k >= len(quick):
                return Answer(t(lang, "bot.stale"))
            action = Action(seat, Do.PLAY, str(quick[k]))
        elif op[0] == "o" and op[1:].isdigit():
            k = int(op[1:])
            if k >= len(legal.options):
                return Answer(t(lang, "bot.stale"))
            action = legal.options[k]
        elif op == "x":
            action = Action(seat, Do.PASS)
        elif op == "y":
            action = Action(seat, Do.YIELD)
        if action is None:
            return Answer(t(lang, "bot.bad_button"))
        s.timeouts = 0
        try:
            await self._act(table, action)
        except IllegalAction as e:
            return Answer(refusal_text(e.code, lang, **e.params), alert=True)
        if action.do == Do.PLAY:
            return Answer(t(lang, "bot.played", cards=card_text(action.cards, lang)))
        return Answer(t(lang, f"bot.did.{action.do}"))

    def _post_hand(self, table: Table, seat: int) -> None:
        out = table.hand_out(seat)
        if out is not None:
            self.sender.post(out)

    # -- moving the match --------------------------------------------------------------------
    async def _act(self, table: Table, action: Action, note: str = "") -> list[Event]:
        """Apply ``action`` (IllegalAction: nothing changed), store it, then show it."""
        m = table.match
        assert m is not None
        events = m.apply(action)
        table.version = m.version
        table.selection.pop(action.seat, None)
        table.hinted.pop(action.seat, None)
        if m.phase == Phase.OVER:
            table.status = "over"
        try:
            await self._save(table, [entry_text(action)])
        except Exception:
            # not stored: the action must not stand either — rebuild from what is stored
            await self._reload(table)
            raise
        table.note = note
        self._show(table, events, actor=action.seat)
        if m.phase == Phase.OVER:
            await self._game_over(table)
        self._schedule(table)
        return events

    def _show(
        self, table: Table, events: list[Event], actor: int | None, everyone: bool = False
    ) -> None:
        """Post what the new events change: cheers, the log, the table, the DMs concerned."""
        m = table.match
        assert m is not None
        finished, cheers = table.feed(events)
        dealt = bool(events) and events[0].type == EventType.DEALT
        if dealt:  # a new game: a new table message, its log below it, new hand messages
            table.lines = []
            table.st.log_first = 0
            table.st.log_page += 1
            everyone = True
            self.sender.post(replace(table.table_out(), new=True))
        table.lines.extend(finished)
        for out in table.cheer_outs(cheers):
            self.sender.post(out)
        if finished:
            shown = "\n".join(table.lines[table.st.log_first :])
            if len(shown) > LOG_LIMIT:
                # this log message is full: it keeps its lines, the next ones start a new one
                keep = len(table.lines) - len(finished)
                self.sender.post(table.log_out(table.lines[:keep]))
                table.st.log_first = keep
                table.st.log_page += 1
            self.sender.post(table.log_out(table.lines))
        self.sender.post(table.table_out())
        if (
            (m.setup is not None and m.game is None)
            or any(e.type == EventType.LEADER for e in events)
            or m.phase == Phase.OVER
        ):
            everyone = True  # deal phase: tribute and 买3 move cards; game over: all final
        ask = m.asked()
        seats = (
            set(range(6))
            if everyone
            else {s for s in (actor, ask[0] if ask else None) if s is not None}
        )
        for seat in sorted(seats):
            hand = table.hand_out(seat)
            if hand is not None:
                self.sender.post(replace(hand, new=dealt))

    async def _game_over(self, table: Table) -> None:
        m = table.match
        assert m is not None and m.game is not None
        for out in table.game_over_outs():
            self.sender.post(out)
        if table.st.stored_games < m.number:
            await self.storage.save_game(
                table.id, table.chat_id, m.number, m.game.record().to_json()
            )
            table.st.stored_games = m.number
            await self._save(table)

    def _schedule(self, table: Table) -> None:
        """The table's next step: an AI move soon, or the asked player's turn timer (with a
        reminder at half time: the AFK ladder's first rung)."""
        name = f"step:{table.id}"
        self.timers.cancel(name)
        self.timers.cancel(f"remind:{table.id}")
        m = table.match
        if m is None or table.status != "playing":
            return
        ask = m.asked()
        if ask is None:
            return
        s = table.st.seats[ask[0]]
        version = m.version
        if s is None or s.ai_plays:
            self.timers.schedule(name, self.cfg.ai_delay, self._step_job(table.id, version))
        else:
            turn = self.cfg.turn_s if self.cfg.turn_s is not None else table.st.settings.turn_s
            self.timers.schedule(name, float(turn), self._step_job(table.id, version, timeout=True))
            self.timers.schedule(
                f"remind:{table.id}", float(turn) / 2, self._remind_job(table.id, version, turn / 2)
            )

    def _unchanged(self, table_id: int, version: int) -> Table | None:
        """The table a timer was set for, if it still plays at the version it was set at."""
        table = self.tables.get(table_id)
        m = table.match if table is not None else None
        if table is None or m is None or m.version != version or table.status != "playing":
            return None
        return table

    def _remind_job(
        self, table_id: int, version: int, left: float
    ) -> Callable[[], Awaitable[None]]:
        async def job() -> None:
            table = self._unchanged(table_id, version)
            if table is None:
                return
            async with table.lock:
                m = table.match
                if self._unchanged(table_id, version) is None or m is None:
                    return
                ask = m.asked()
                s = table.st.seats[ask[0]] if ask else None
                if ask is None or s is None or s.user is None or s.auto:
                    return
                seat = ask[0]
                lang = table.seat_lang(seat)
                # a new message in the DM (an edit would not make the phone buzz)
                self.sender.post(Out(s.user, t(lang, "bot.remind.dm", s=int(left)), None))
                if ask[1] != Ask.BURN:  # §7: never say who is asked to burn
                    self.sender.post(
                        Out(
                            table.chat_id,
                            t(
                                table.lang,
                                "bot.remind.group",
                                name=table.mention(seat),
                                s=int(left),
                            ),
                            None,
                            table.thread_id,
                        )
                    )

        return job

    def _step_job(
        self, table_id: int, version: int, timeout: bool = False
    ) -> Callable[[], Awaitable[None]]:
        async def job() -> None:
            table = self._unchanged(table_id, version)
            if table is None:
                return
            async with table.lock:
                m = table.match
                if self._unchanged(table_id, version) is None or m is None:
                    return  # something happened meanwhile
                ask = m.asked()
                if ask is None:
                    return
                seat = ask[0]
                s = table.st.seats[seat]
                if timeout and s is not None and not s.ai_plays:
                    await self._timeout(table, seat)
                    return
                level = s.level if s is not None else "normal"
                d = await self._decide(table, seat, level)
                try:
                    await self._act(table, d.action)
                except IllegalAction:
                    log.exception("table %d: the AI's action was refused", table.id)
                    await self._act(table, self._default_action(table, seat))

        return job

    async def _decide(self, table: Table, seat: int, level: str) -> Decision:
        """An AI decision for ``seat`` (the table's lock is held, so the match does not change
        meanwhile). The hard level searches for a quarter of a second: in a worker process, off
        the event loop; the others decide in well under a millisecond, so here."""
        m = table.match
        assert m is not None
        rng = random.Random(f"{table.id}:{m.version}:{seat}")
        if level == "hard":
            return await self.workers.run(decide, m, seat, level, rng, self.cfg.hard_budget_ms)
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
        note = "" if burn_claim else t(table.lang, "bot.timeout", name=table.name(seat), what=what)
        if s.timeouts >= table.st.settings.afk:
            s.auto = True  # the AFK ladder: repeated timeouts hand the seat to the AI (托管)
            self.sender.post(self._afk_out(table, seat))
        await self._act(table, action, note=note)

    def _afk_out(self, table: Table, seat: int) -> Out:
        """The group hears the seat went to the AI; it may vote to leave the seat to the AI
        for the rest of the game, or a member who does not play may take it over."""
        votes = len(table.votes.get(seat, ()))
        need = self._votes_needed(table, seat)
        lang = table.lang
        kb = [
            [
                Button(
                    t(lang, "bot.btn.vote_ai", n=votes, need=need),
                    Callback("v", table.id, seat, "a").encode(),
                ),
                Button(t(lang, "bot.btn.take_over"), Callback("v", table.id, seat, "t").encode()),
            ]
        ]
        text = t(lang, "bot.afk", name=table.mention(seat))
        return Out(table.chat_id, text, kb, table.thread_id, slot=(table.id, f"afk{seat}"))

    @staticmethod
    def _votes_needed(table: Table, seat: int) -> int:
        others = [i for i, s in table.humans() if i != seat]
        return max(1, (len(others) + 1) // 2)

    async def vote(self, table: Table, seat: int, op: str, user: UserInfo) -> Answer:
        """A press on the AFK notice: a vote to leave ``seat`` to the AI, or a take-over."""
        lang = user.lang or table.lang
        s = table.st.seats[seat] if 0 <= seat <= 5 else None
        if s is None or s.user is None or not s.auto or table.status != "playing":
            return Answer(t(lang, "bot.stale"))
        if op == "a":
            voter = table.seat_of(user.id)
            if voter is None or voter == seat:
                return Answer(t(lang, "bot.vote_players_only"), alert=True)
            table.votes.setdefault(seat, set()).add(user.id)
            if len(table.votes[seat]) >= self._votes_needed(table, seat):
                name = s.name
                table.st.seats[seat] = Seat(
                    t(table.lang, "bot.ai_for", name=name), None, level=table.st.settings.ai_level
                )
                table.votes.pop(seat, None)
                await self._save(table)
                self.sender.post(
                    Out(
                        table.chat_id,
                        t(table.lang, "bot.voted_ai", name=html.escape(name)),
                        None,
                        table.thread_id,
                    )
                )
                self.timers.cancel(f"afk:{table.id}")
                return Answer(t(lang, "bot.saved"))
            self.sender.post(self._afk_out(table, seat))
            return Answer(t(lang, "bot.voted"))
        if op == "t":
            if table.seat_of(user.id) is not None:
                return Answer(t(lang, "bot.already_playing"), alert=True)
            row = await self.storage.get_user(user.id)
            if row is None or not row.dm_ok:
                return Answer(t(lang, "bot.need_start"), url=self.deep_link(table.id, seat))
            old = s.name
            table.st.seats[seat] = Seat(user.name, user.id, lang=user.lang or row.lang)
            table.votes.pop(seat, None)
            await self._save(table)
            self.sender.post(
                Out(
                    table.chat_id,
                    t(
                        table.lang,
                        "bot.took_over",
                        name=html.escape(user.name),
                        old=html.escape(old),
                    ),
                    None,
                    table.thread_id,
                )
            )
            hand = table.hand_out(seat)
            if hand is not None:
                self.sender.post(replace(hand, new=True))
            self._schedule(table)
            return Answer(t(lang, "bot.sat", n=seat + 1))
        return Answer(t(lang, "bot.bad_button"))

    async def dm_blocked(self, user_id: int) -> None:
        """A private chat answered 403: the player blocked the bot or never started it."""
        row = await self.storage.get_user(user_id)
        if row is not None and row.dm_ok:
            row.dm_ok = False
            await self.storage.save_user(row)
        for table in list(self.tables.values()):
            seat = table.seat_of(user_id)
            if seat is None or table.status != "playing":
                continue
            async with table.lock:
                s = table.st.seats[seat]
                if s is None or s.auto:
                    continue
                s.auto = True  # the AI plays the seat until the player is back
                link = self.deep_link(table.id, seat)
                await self._save(table)
                self.sender.post(
                    Out(
                        table.chat_id,
                        t(table.lang, "bot.dm_lost", name=table.mention(seat), link=link),
                        None,
                        table.thread_id,
                    )
                )
                self._schedule(table)

    async def resend_hand(self, user: UserInfo) -> bool:
        """``/hand``: the hand message again, as a new message at the bottom of the DM."""
        found = False
        for table in list(self.tables.values()):
            seat = table.seat_of(user.id)
            if seat is None or table.match is None or table.status not in ("playing", "over"):
                continue
            async with table.lock:
                out = table.hand_out(seat)
                if out is not None:
                    self.sender.post(replace(out, new=True))
                    found = True
        return found

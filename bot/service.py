"""The table service: every table of every chat, its lock, its storage and its timers.

Handlers decode an update into one call here; each call takes the table's lock (updates of one
table are applied one at a time, different tables never wait for each other), changes the
table, **stores it before anything about it is sent**, and posts what should be shown to the
sender. AI seats and turn timers run as scheduled steps of the same kind.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from engine.actions import Action, IllegalAction
from engine.ai import decide
from engine.cards import RANK_CHARS, fmt, parse
from engine.events import Event
from engine.match import Match
from engine.matchrecord import FORMAT, BadMatchRecord, entry_text, parse_entry
from engine.rules import PRESETS
from engine.vocab import Ask, Do, EventType, Phase
from renderers import card_text, help_text, hint_text, refusal_text, rules_text, t

from . import storage as S
from .codec import BadCallback, Callback, b36
from .keyboards import EMPTY_SELECTION, QUICK, option_for, smallest_first, toggle
from .model import ChatSettings, Seat, TableState
from .outbox import Answer, Out
from .table import LOG_LIMIT, Table

log = logging.getLogger("gouji.service")
LEVEL_CYCLE = ("easy", "normal", "hard")
ANSWERS = (Ask.ANSWER, Ask.BURN, Ask.LAST)


@dataclass(frozen=True)
class UserInfo:
    """The Telegram user behind an update, as far as the bot needs."""

    id: int
    name: str
    lang: str | None = None  # "zh" or "en" when Telegram tells it


@dataclass(frozen=True)
class Config:
    """How the service runs tables (defaults for Telegram; tests and the demo go faster)."""

    bot_username: str = "gouji_bot"
    ai_delay: float = 1.2  # seconds between AI moves, so a table can follow them
    countdown_s: float = 60.0  # the pickup countdown before empty seats fill with AI
    turn_s: float | None = None  # overrides each chat's per-turn timer (tests)
    seed: int | None = None  # deals of every new table (demo, tests); None: the OS's randomness
    hard_budget_ms: float = 250.0


class Sender(Protocol):
    def post(self, out: Out) -> None: ...


class Scheduler(Protocol):
    def schedule(self, name: str, delay: float, job: Callable[[], Awaitable[None]]) -> None: ...

    def cancel(self, name: str) -> None: ...


class Service:
    def __init__(self, storage: S.Storage, sender: Sender, timers: Scheduler, cfg: Config) -> None:
        self.storage = storage
        self.sender = sender
        self.timers = timers
        self.cfg = cfg
        self.tables: dict[int, Table] = {}
        self.where: dict[tuple[int, int | None], int] = {}  # (chat, topic) → table id
        self._chat_locks: dict[tuple[int, int | None], asyncio.Lock] = {}

    # -- chats and users ---------------------------------------------------------------------
    async def chat_settings(self, chat_id: int, default_lang: str = "zh") -> ChatSettings:
        row = await self.storage.get_chat(chat_id)
        if row is None:
            return ChatSettings(lang=default_lang)
        return ChatSettings.from_json(row.settings, row.lang or default_lang)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings) -> None:
        await self.storage.save_chat(S.ChatRow(chat_id, settings.lang, settings.to_json()))

    async def seen_user(self, user: UserInfo, dm_ok: bool | None = None) -> S.UserRow:
        row = await self.storage.get_user(user.id)
        if row is None:
            row = S.UserRow(user.id, user.name, user.lang, bool(dm_ok))
        else:
            row.name = user.name
            row.lang = user.lang or row.lang
            if dm_ok is not None:
                row.dm_ok = dm_ok
        await self.storage.save_user(row)
        return row

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

    def deep_link(self, table_id: int, seat: int | None = None) -> str:
        payload = f"j{b36(table_id)}" + (f"s{seat}" if seat is not None else "")
        return f"https://t.me/{self.cfg.bot_username}?start={payload}"

    # -- storage -----------------------------------------------------------------------------
    def _row(self, table: Table) -> S.TableRow:
        state = table.st.to_json()
        state["lobby_ver"] = table.lobby_ver
        return S.TableRow(
            table.id,
            table.chat_id,
            table.thread_id,
            table.status,
            table.opener,
            state,
            table.version,
        )

    async def _save(self, table: Table, entries: list[str] | None = None) -> None:
        await self.storage.save_table(self._row(table), entries or [])

    def slot_id(self, table_id: int, slot: str) -> int | None:
        """The message id a slot's message has (for the sender)."""
        table = self.tables.get(table_id)
        if table is None:
            return None
        st = table.st
        if slot == "lobby":
            return st.lobby_msg
        if slot == "table":
            return st.table_msg
        if slot.startswith("log"):
            return st.log_msgs.get(int(slot[3:]))
        if slot.startswith("hand"):
            return st.hand_msgs.get(int(slot[4:]))
        return None

    async def slot_sent(self, table_id: int, slot: str, message_id: int) -> None:
        """The sender put a slot's message at ``message_id``: remember it (stored)."""
        table = self.tables.get(table_id)
        if table is None:
            return
        st = table.st
        if slot == "lobby":
            st.lobby_msg = message_id
        elif slot == "table":
            st.table_msg = message_id
        elif slot.startswith("log"):
            page = int(slot[3:])
            st.log_msgs = {p: m for p, m in st.log_msgs.items() if p >= page - 1}
            st.log_msgs[page] = message_id
        elif slot.startswith("hand"):
            st.hand_msgs[int(slot[4:])] = message_id
        async with table.lock:
            await self._save(table)

    def reply(self, chat_id: int, thread_id: int | None, text: str) -> None:
        """A plain message (command answers), in order with the chat's other messages."""
        self.sender.post(Out(chat_id, text, None, thread_id))

    async def settings_changed(
        self, chat_id: int, thread_id: int | None, settings: ChatSettings
    ) -> None:
        """New chat settings reach the open lobby; a running match keeps its own rules."""
        table = self.table_at(chat_id, thread_id)
        if table is None or table.status != "lobby":
            return
        async with table.lock:
            table.st.settings = settings
            for s in table.st.seats:
                if s is not None and not s.human:
                    s.level = settings.ai_level
            table.lobby_ver += 1
            await self._save(table)
            self.sender.post(table.lobby_out())

    # -- tables ------------------------------------------------------------------------------
    def table_at(self, chat_id: int, thread_id: int | None) -> Table | None:
        tid = self.where.get((chat_id, thread_id))
        return self.tables.get(tid) if tid is not None else None

    def _chat_lock(self, key: tuple[int, int | None]) -> asyncio.Lock:
        return self._chat_locks.setdefault(key, asyncio.Lock())

    async def open_lobby(self, chat_id: int, thread_id: int | None, user: UserInfo) -> None:
        """``/gouji``: open a lobby, or point at the table already open here."""
        async with self._chat_lock((chat_id, thread_id)):
            existing = self.table_at(chat_id, thread_id)
            settings = await self.chat_settings(chat_id)
            if existing is not None and existing.status in ("lobby", "playing"):
                self.sender.post(Out(chat_id, t(settings.lang, "bot.already"), None, thread_id))
                if existing.status == "lobby":
                    existing.lobby_ver += 1
                    self.sender.post(replace(existing.lobby_out(), new=True))
                return
            st = TableState(settings=settings, seed=self._next_seed())
            row = await self.storage.create_table(
                S.TableRow(None, chat_id, thread_id, "lobby", user.id, st.to_json(), 0)
            )
            assert row.table_id is not None
            table = Table(row.table_id, chat_id, thread_id, user.id, "lobby", st)
            self.tables[table.id] = table
            self.where[(chat_id, thread_id)] = table.id
            log.info("table %d opened in chat %d", table.id, chat_id)
            async with table.lock:
                await self._sit(table, user, None)  # the opener takes a seat if their DM works
                self.sender.post(table.lobby_out())

    def _next_seed(self) -> int | None:
        if self.cfg.seed is None:
            return None
        seed = self.cfg.seed
        self.cfg = replace(self.cfg, seed=seed + 1)
        return seed

    async def _sit(self, table: Table, user: UserInfo, seat: int | None) -> Answer:
        """Seat ``user`` (at ``seat`` or any free one). A player whose DM the bot cannot reach
        gets the deep link instead (the bot may not message someone who never started it)."""
        lang = table.lang
        row = await self.storage.get_user(user.id)
        if row is None or not row.dm_ok:
            return Answer(t(lang, "bot.need_start"), url=self.deep_link(table.id, seat))
        mine = table.seat_of(user.id)
        seats = table.st.seats
        if seat is None:
            if mine is not None:
                return Answer(t(lang, "bot.seated", n=mine + 1))
            free = [i for i, s in enumerate(seats) if s is None or not s.human]
            if not free:
                return Answer(t(lang, "bot.full"), alert=True)
            seat = next((i for i in free if seats[i] is None), free[0])
        current = seats[seat]
        if current is not None and current.human:
            return Answer(
                t(lang, "bot.taken" if current.user != user.id else "bot.seated", n=seat + 1)
            )
        if mine is not None:
            seats[mine] = None
        seats[seat] = Seat(user.name, user.id, lang=user.lang or row.lang)
        table.lobby_ver += 1
        await self._save(table)
        return Answer(t(lang, "bot.sat", n=seat + 1))

    async def join(self, chat_id: int, thread_id: int | None, user: UserInfo) -> None:
        table = self.table_at(chat_id, thread_id)
        if table is None or table.status != "lobby":
            lang = (await self.chat_settings(chat_id)).lang
            self.sender.post(Out(chat_id, t(lang, "bot.no_lobby"), None, thread_id))
            return
        async with table.lock:
            ans = await self._sit(table, user, None)
            self.sender.post(table.lobby_out())
        if ans.url:
            self.sender.post(
                Out(
                    chat_id,
                    t(table.lang, "bot.start_me", name=user.name, link=ans.url),
                    None,
                    thread_id,
                )
            )

    async def leave(self, chat_id: int, thread_id: int | None, user: UserInfo) -> None:
        table = self.table_at(chat_id, thread_id)
        if table is None or table.status != "lobby":
            return
        async with table.lock:
            seat = table.seat_of(user.id)
            if seat is not None:
                table.st.seats[seat] = None
                table.lobby_ver += 1
                await self._save(table)
                self.sender.post(table.lobby_out())

    async def dm_start(self, user: UserInfo, payload: str) -> None:
        """``/start`` in the private chat: the DM works now; a deep link seats the player."""
        await self.seen_user(user, dm_ok=True)
        lang = user.lang or "zh"
        table: Table | None = None
        seat: int | None = None
        if payload.startswith("j"):
            tid, _, wanted = payload[1:].partition("s")
            try:
                table = self.tables.get(int(tid, 36))
                seat = int(wanted) if wanted else None
            except ValueError:
                table = None
            if seat is not None and not 0 <= seat <= 5:
                seat = None
        if table is None:
            self.sender.post(Out(user.id, help_text(lang), None))
            # a player coming back to a running game gets the hand again
            for tb in list(self.tables.values()):
                if tb.status == "playing" and tb.seat_of(user.id) is not None:
                    await self.resend_hand(user)
                    break
            return
        async with table.lock:
            if table.status == "lobby":
                ans = await self._sit(table, user, seat)
                self.sender.post(Out(user.id, ans.text, None))
                self.sender.post(table.lobby_out())
                return
            mine = table.seat_of(user.id)
            if mine is not None and table.status == "playing":
                s = table.st.seats[mine]
                assert s is not None
                if s.auto:
                    s.auto = False  # back from a lost DM: the player plays again
                    s.timeouts = 0
                    await self._save(table)
                    self.sender.post(
                        Out(
                            table.chat_id,
                            t(table.lang, "bot.back", name=table.mention(mine)),
                            None,
                            table.thread_id,
                        )
                    )
                out = table.hand_out(mine)
                if out is not None:
                    self.sender.post(replace(out, new=True))
                self._schedule(table)
                return
        self.sender.post(Out(user.id, t(lang, "bot.too_late"), None))

    # -- button presses ----------------------------------------------------------------------
    async def press(
        self, data: str | None, user: UserInfo, is_admin: Callable[[int], Awaitable[bool]]
    ) -> Answer:
        """Any button press; the answer is shown as a toast (or alert, or link)."""
        lang = user.lang or "zh"
        try:
            cb = Callback.decode(data)
        except BadCallback:
            return Answer(t(lang, "bot.bad_button"))
        table = self.tables.get(cb.table)
        if table is None or table.status == "abandoned":
            return Answer(t(lang, "bot.gone"))
        async with table.lock:
            if cb.kind == "l":
                return await self._lobby_press(table, cb, user, is_admin)
            if cb.kind == "h":
                return await self._hand_press(table, cb, user)
            if cb.kind == "o":
                return await self._again(table, cb, user)
        return Answer(t(lang, "bot.bad_button"))

    async def _lobby_press(
        self, table: Table, cb: Callback, user: UserInfo, is_admin: Callable[[int], Awaitable[bool]]
    ) -> Answer:
        lang = table.lang
        if table.status != "lobby":
            return Answer(t(lang, "bot.started"))
        if cb.version != table.lobby_ver and cb.op not in ("R",):
            # the lobby changed since this keyboard: show the current one, do nothing
            self.sender.post(table.lobby_out())
            return Answer(t(lang, "bot.stale"))
        op = cb.op
        st = table.st
        ans = Answer()
        if op.startswith("s") and op[1:] in ("0", "1", "2", "3", "4", "5"):
            ans = await self._sit(table, user, int(op[1:]))
        elif op == "S":
            ans = await self._sit(table, user, None)
        elif op == "L":
            seat = table.seat_of(user.id)
            if seat is None:
                return Answer(t(lang, "bot.not_seated"))
            st.seats[seat] = None
            ans = Answer(t(lang, "bot.left"))
        elif op == "R":
            self.sender.post(
                Out(table.chat_id, rules_text(st.settings.rules(), lang), None, table.thread_id)
            )
            return Answer()
        elif op in ("P", "A", "F", "G", "C"):
            if user.id != table.opener and not await is_admin(user.id):
                return Answer(t(lang, "bot.opener_only"), alert=True)
            if op == "P":
                names = list(PRESETS)
                preset = names[(names.index(st.settings.preset) + 1) % len(names)]
                st.settings = replace(st.settings, preset=preset, switches={})
                await self.save_chat_settings(table.chat_id, st.settings)
                ans = Answer(t(lang, f"bot.preset.{preset}"))
            elif op == "A":
                level = LEVEL_CYCLE[(LEVEL_CYCLE.index(st.settings.ai_level) + 1) % 3]
                st.settings = replace(st.settings, ai_level=level)
                await self.save_chat_settings(table.chat_id, st.settings)
                ans = Answer(t(lang, f"bot.level.{level}"))
            elif op == "F":
                self._fill_ai(table)
            elif op == "G":
                return await self._start(table)
            elif op == "C":
                st.countdown = time.time() + self.cfg.countdown_s
                self.timers.schedule(
                    f"countdown:{table.id}", self.cfg.countdown_s, self._countdown_job(table.id)
                )
                ans = Answer(t(lang, "bot.countdown_set", s=int(self.cfg.countdown_s)))
        else:
            return Answer(t(lang, "bot.bad_button"))
        table.lobby_ver += 1
        await self._save(table)
        self.sender.post(table.lobby_out())
        return ans

    def _fill_ai(self, table: Table) -> None:
        for i, s in enumerate(table.st.seats):
            if s is None:
                table.st.seats[i] = Seat(
                    t(table.lang, "bot.ai_name", n=i + 1), None, level=table.st.settings.ai_level
                )

    def _countdown_job(self, table_id: int) -> Callable[[], Awaitable[None]]:
        async def job() -> None:
            table = self.tables.get(table_id)
            if table is None:
                return
            async with table.lock:
                if table.status == "lobby" and table.st.countdown is not None:
                    await self._start(table)

        return job

    async def _start(self, table: Table) -> Answer:
        """Empty seats fill with AI, the match deals its first game."""
        lang = table.lang
        if not table.humans():
            return Answer(t(lang, "bot.nobody"), alert=True)
        self._fill_ai(table)
        table.st.countdown = None
        self.timers.cancel(f"countdown:{table.id}")
        table.status = "playing"
        table.match = Match(table.st.settings.rules(), seed=table.st.seed)
        events = table.match.new_game()
        table.version = table.match.version
        table.lobby_ver += 1
        await self._save(table, [entry_text(table.match.log[-1])])
        log.info("table %d started", table.id)
        self.sender.post(table.lobby_out())
        self._show(table, events, actor=None, everyone=True)
        self._schedule(table)
        return Answer(t(lang, "bot.go"))

    async def _again(self, table: Table, cb: Callback, user: UserInfo) -> Answer:
        """再来一局: the same seats, the next game of the match (tribute, §11)."""
        lang = table.lang
        m = table.match
        if m is None or table.status != "over" or cb.version != m.version:
            return Answer(t(lang, "bot.stale"))
        if table.seat_of(user.id) is None:
            return Answer(t(lang, "bot.not_seated"))
        other = self.table_at(table.chat_id, table.thread_id)
        if other is not None and other.id != table.id:
            return Answer(t(lang, "bot.stale"))
        events = m.new_game()
        table.status = "playing"
        table.version = m.version
        await self._save(table, [entry_text(m.log[-1])])
        self._show(table, events, actor=None, everyone=True)
        self._schedule(table)
        return Answer(t(lang, "bot.go"))

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
            table.hinted[seat] = "💡 " + text
            self._post_hand(table, seat)
            return Answer(text[:190])
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
        if (m.setup is not None and m.game is None) or any(
            e.type == EventType.LEADER for e in events
        ):
            everyone = True  # deal phase: tribute and 买3 move cards between hands
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
        """The table's next step: an AI move soon, or the asked player's turn timer."""
        name = f"step:{table.id}"
        self.timers.cancel(name)
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

    def _step_job(
        self, table_id: int, version: int, timeout: bool = False
    ) -> Callable[[], Awaitable[None]]:
        async def job() -> None:
            table = self.tables.get(table_id)
            if table is None:
                return
            async with table.lock:
                m = table.match
                if m is None or m.version != version or table.status != "playing":
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

    async def _decide(self, table: Table, seat: int, level: str) -> Any:
        """An AI decision for ``seat`` off the event loop (the table's lock is held, so the
        match does not change meanwhile)."""
        m = table.match
        assert m is not None
        rng = random.Random(f"{table.id}:{m.version}:{seat}")
        return await asyncio.to_thread(decide, m, seat, level, rng, self.cfg.hard_budget_ms)

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
        note = t(table.lang, "bot.timeout", name=table.name(seat), what=what)
        if s.timeouts >= table.st.settings.afk:
            s.auto = True  # the AFK ladder: repeated timeouts hand the seat to the AI (托管)
            self.sender.post(
                Out(
                    table.chat_id,
                    t(table.lang, "bot.afk", name=table.mention(seat)),
                    None,
                    table.thread_id,
                )
            )
        await self._act(table, action, note=note)

    # -- commands ----------------------------------------------------------------------------
    async def stop(self, chat_id: int, thread_id: int | None, user: UserInfo, admin: bool) -> None:
        table = self.table_at(chat_id, thread_id)
        lang = (await self.chat_settings(chat_id)).lang
        if table is None or table.status not in ("lobby", "playing", "over"):
            self.sender.post(Out(chat_id, t(lang, "bot.no_table"), None, thread_id))
            return
        if user.id != table.opener and not admin:
            self.sender.post(Out(chat_id, t(lang, "bot.opener_only"), None, thread_id))
            return
        async with table.lock:
            table.status = "abandoned"
            await self._save(table)
            self.timers.cancel(f"step:{table.id}")
            self.timers.cancel(f"countdown:{table.id}")
            self.where.pop((chat_id, thread_id), None)
            self.sender.post(Out(chat_id, t(lang, "bot.stopped", name=user.name), None, thread_id))
            if table.match is None:
                self.sender.post(table.lobby_out())
        self.tables.pop(table.id, None)

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

    # -- start and restart -------------------------------------------------------------------
    async def resume(self) -> int:
        """Rebuild every unfinished table from storage, re-send what players need, restart
        timers, and tell each group the bot is back."""
        n = 0
        for row in await self.storage.unfinished_tables():
            try:
                table = await self._load(row)
            except (BadMatchRecord, ValueError):
                log.exception("table %s could not be restored", row.table_id)
                continue
            self.tables[table.id] = table
            self.where[(table.chat_id, table.thread_id)] = table.id
            n += 1
            async with table.lock:
                if table.status == "lobby":
                    self.sender.post(table.lobby_out())
                    if table.st.countdown is not None:
                        left = max(0.0, table.st.countdown - time.time())
                        self.timers.schedule(
                            f"countdown:{table.id}", left, self._countdown_job(table.id)
                        )
                    continue
                self.sender.post(
                    Out(
                        table.chat_id,
                        t(table.lang, "bot.resumed"),
                        None,
                        table.thread_id,
                        silent=True,
                    )
                )
                self.sender.post(table.log_out(table.lines))
                self.sender.post(table.table_out())
                ask = table.match.asked() if table.match else None
                if ask is not None:
                    self._post_hand(table, ask[0])
                self._schedule(table)
        return n

    async def _load(self, row: S.TableRow) -> Table:
        assert row.table_id is not None
        st = TableState.from_json(row.state)
        table = Table(row.table_id, row.chat_id, row.thread_id, row.opener, row.status, st)
        lv = row.state.get("lobby_ver") if isinstance(row.state, dict) else None
        table.lobby_ver = lv if isinstance(lv, int) else 0
        entries = await self.storage.load_actions(row.table_id)
        if entries:
            events: list[Event] = []
            doc = {
                "format": FORMAT,
                "rules": st.settings.rules().to_json(),
                "seed": st.seed,
                "actions": [parse_entry(e).to_json() for e in entries],
            }
            table.match = Match.restore(doc, events)
            table.version = table.match.version
            finished, _ = table.feed(events)  # the transcript again; its cheers were said
            table.lines = finished
        return table

    async def _reload(self, table: Table) -> None:
        row = await self.storage.load_table(table.id)
        if row is None:
            return
        fresh = await self._load(row)
        table.match, table.version, table.transcript = fresh.match, fresh.version, fresh.transcript
        table.lines, table.st, table.status = fresh.lines, fresh.st, fresh.status


def help_for(lang: str) -> str:
    return help_text(lang)

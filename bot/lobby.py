"""Lobbies: opening a table, seats (with the deep link for players the bot cannot message yet),
AI seats, the pickup countdown, starting and the next game of a match."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from engine.match import Match
from engine.matchrecord import entry_text
from engine.rules import PRESETS
from renderers import help_text, rules_text, t

from . import storage as S
from .codec import Callback
from .core import UserInfo
from .model import Seat, TableState
from .outbox import Answer, Out
from .play import PlayOps
from .table import Table

log = logging.getLogger("gouji.lobby")
LEVEL_CYCLE = ("easy", "normal", "hard")


class LobbyOps(PlayOps):
    async def open_lobby(self, chat_id: int, thread_id: int | None, user: UserInfo) -> None:
        """``/gouji``: open a lobby, or point at the table already open here."""
        async with self._chat_lock((chat_id, thread_id)):
            existing = self.table_at(chat_id, thread_id)
            # The table already here is read and kept under its lock: a move that ends its game
            # (or 再来一局 restarting it) changes its status before the save is stored, and the
            # database allows one open table per chat.
            guard = existing.lock if existing is not None else contextlib.nullcontext()
            async with guard:
                await self._open_lobby(chat_id, thread_id, user, existing)

    async def _open_lobby(
        self, chat_id: int, thread_id: int | None, user: UserInfo, existing: Table | None
    ) -> None:
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

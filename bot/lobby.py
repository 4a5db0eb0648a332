"""Lobbies: opening a table (``/gouji``), seats (with the deep link for players the bot cannot
message yet), AI seats, the pickup countdown, starting, ``/stop``. The next game of a match
(再来一局) is bot.ready's."""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import replace

from engine.match import Match
from engine.matchrecord import entry_text
from renderers import help_text, person, rules_text, t

from . import storage as S
from .absence import Absence
from .buttons import Kind, LobbyOp
from .chats import Chats
from .model import Seat, TableState, TableStatus, next_preset
from .moves import Moves
from .outbox import Answer, Out
from .pins import unpin_outs
from .router import CommandCall, Menu, Press, Router, Where
from .table import Table
from .tables import Config, Tables, UserInfo, timer_name
from .tenure import Poster
from .timers import Job, Scheduler, TimerKind

log = logging.getLogger("gouji.lobby")


# lobby buttons whose meaning does not depend on what the lobby showed when pressed
ANY_VERSION = frozenset({LobbyOp.SIT, LobbyOp.SIT_ANY, LobbyOp.LEAVE, LobbyOp.RULES})


class Lobby:
    """Tables from their opening to their first deal (between games: bot.ready)."""

    def __init__(
        self,
        tables: Tables,
        chats: Chats,
        moves: Moves,
        absence: Absence,
        *,
        poster: Poster,
        timers: Scheduler,
        cfg: Config,
        storage: S.Storage,
    ) -> None:
        self.tables = tables
        self.cfg = cfg
        self.storage = storage
        self.chats = chats
        self.moves = moves
        self.absence = absence
        self.sender = poster
        self.timers = timers
        self.timers.on(TimerKind.COUNTDOWN, self._run_countdown)
        tables.on_resume(TableStatus.LOBBY, self.resumed)

    def register(self, router: Router) -> None:
        router.command("gouji", self._cmd_gouji, people_only=True, menu=Menu.GROUP)
        router.command("join", self._cmd_join, Where.GROUP, people_only=True, menu=Menu.GROUP)
        router.command("leave", self._cmd_leave, Where.GROUP, people_only=True, menu=Menu.GROUP)
        router.command("stop", self._cmd_stop, Where.GROUP, menu=Menu.GROUP)
        router.command("start", self._cmd_start, people_only=True, menu=Menu.PRIVATE)
        router.guard(Kind.LOBBY, self._guard)
        router.on(Kind.LOBBY, LobbyOp.SIT, self._sit_press)
        router.on(Kind.LOBBY, LobbyOp.SIT_ANY, self._sit_press)
        router.on(Kind.LOBBY, LobbyOp.LEAVE, self._leave_press)
        router.on(Kind.LOBBY, LobbyOp.RULES, self._rules_press)
        for op in (LobbyOp.PRESET, LobbyOp.LEVEL, LobbyOp.FILL, LobbyOp.GO, LobbyOp.COUNTDOWN):
            router.on(Kind.LOBBY, op, self._opener_press)

    # -- commands ----------------------------------------------------------------------------
    async def _cmd_gouji(self, c: CommandCall) -> None:
        if c.private:
            lang = c.user.lang or self.cfg.lang
            self.tables.reply(c.chat_id, None, t(lang, "bot.group_only"))
            return
        await self.open_table(c.chat_id, c.thread_id, c.user)

    async def open_table(self, chat_id: int, thread_id: int | None, user: UserInfo) -> None:
        """``/gouji``: open a lobby, or point at the table already open here."""
        async with self.tables.chat_lock(chat_id, thread_id):
            existing = await self.tables.find_at(chat_id, thread_id)
            # The table already here is read and kept under its lock: a move that ends its game
            # (or 再来一局 restarting it) changes its status before the save is stored, and the
            # database allows one open table per chat.
            guard = (
                self.tables.locked(existing) if existing is not None else contextlib.nullcontext()
            )
            async with guard:
                await self._open(chat_id, thread_id, user, existing)

    async def _open(
        self, chat_id: int, thread_id: int | None, user: UserInfo, existing: Table | None
    ) -> None:
        settings = await self.chats.chat_settings(chat_id)
        if existing is not None and existing.status in (TableStatus.LOBBY, TableStatus.PLAYING):
            self.sender.post(Out(chat_id, t(settings.lang, "bot.already"), None, thread_id))
            if existing.status == TableStatus.LOBBY:
                existing.lobby_ver += 1
                self.sender.post(replace(existing.lobby_out(), new=True))
            return
        st = TableState(settings=settings, seed=self.tables.next_seed())
        try:
            row = await self.storage.create_table(
                S.TableRow(None, chat_id, thread_id, TableStatus.LOBBY, user.id, st.to_json(), 0)
            )
        except S.TableExists:  # opened this very moment by another process (several share)
            self.sender.post(Out(chat_id, t(settings.lang, "bot.already"), None, thread_id))
            return
        assert row.table_id is not None
        table = Table(row.table_id, chat_id, thread_id, user.id, TableStatus.LOBBY, st)
        self.tables.add(table)
        log.info("table %d opened in chat %d", table.id, chat_id)
        async with self.tables.locked(table):
            await self._sit(table, user, None)  # the opener takes a seat if their DM works
            self.sender.post(table.lobby_out())

    async def _cmd_join(self, c: CommandCall) -> None:
        table = await self.tables.find_at(c.chat_id, c.thread_id)
        ans = Answer()
        if table is not None:
            async with self.tables.locked(table):  # the status as it is when the seat is taken
                if table.status == TableStatus.LOBBY:
                    ans = await self._sit(table, c.user, None)
                    self.sender.post(table.lobby_out())
        if table is None or table.status != TableStatus.LOBBY:
            lang = (await self.chats.chat_settings(c.chat_id)).lang
            self.sender.post(Out(c.chat_id, t(lang, "bot.no_lobby"), None, c.thread_id))
            return
        if ans.url:
            text = t(table.lang, "bot.start_me", name=person(c.user.name), link=ans.url)
            self.sender.post(Out(c.chat_id, text, None, c.thread_id))

    async def _cmd_leave(self, c: CommandCall) -> None:
        table = await self.tables.find_at(c.chat_id, c.thread_id)
        if table is None:
            return
        async with self.tables.locked(table):  # the status as it is when the seat is left
            seat = table.seat_of(c.user.id)
            if seat is not None and table.status == TableStatus.LOBBY:
                table.st.seats[seat] = None
                table.lobby_ver += 1
                await self.tables.save(table)
                self.sender.post(table.lobby_out())

    async def _cmd_stop(self, c: CommandCall) -> None:
        admin = await c.members.is_admin(c.chat_id, c.user.id)
        await self.stop_table(c.chat_id, c.thread_id, c.user, admin)

    async def stop_table(
        self, chat_id: int, thread_id: int | None, user: UserInfo, admin: bool
    ) -> None:
        """``/stop`` by the opener or an admin: the table here ends."""
        # Under the chat's lock, as /gouji is: until the save below is stored the database still
        # holds the table open, and a /gouji racing in between would clash with it.
        async with self.tables.chat_lock(chat_id, thread_id):
            table = await self.tables.find_at(chat_id, thread_id)
            lang = (await self.chats.chat_settings(chat_id)).lang
            if table is None or table.status == TableStatus.ABANDONED:
                self.sender.post(Out(chat_id, t(lang, "bot.no_table"), None, thread_id))
                return
            if user.id != table.opener and not admin:
                self.sender.post(Out(chat_id, t(lang, "bot.opener_only"), None, thread_id))
                return
            await self.tables.abandon(table)
            if table.match is not None:  # the game's log pinned no more (bot.pins)
                for out in unpin_outs(table):
                    self.sender.post(out)
            text = t(lang, "bot.stopped", name=person(user.name))
            self.sender.post(Out(chat_id, text, None, thread_id))
            if table.match is None:
                self.sender.post(table.lobby_out())

    async def _cmd_start(self, c: CommandCall) -> None:
        """``/start``: in a group, the help; in the private chat the DM works now, and a deep
        link (``j<table>`` or ``j<table>s<seat>``) seats the player."""
        if not c.private:
            lang = await self.chats.lang_of(c.chat_id, c.user)
            rules = (await self.chats.chat_settings(c.chat_id)).rules()
            self.tables.reply(c.chat_id, c.thread_id, help_text(lang, rules))
            return
        user = c.user
        await self.chats.seen_user(user, dm_ok=True)
        lang = user.lang or "zh"
        table, seat = await self._deep_link_target(c.args[0][:64] if c.args else "")
        if table is None:
            self.tables.reply(user.id, None, help_text(lang))
            # a player coming back to a running game gets the hand again, or the seat the
            # table had voted to the AI
            if not await self.absence.reclaim(user):
                for tb in await self.tables.of_user(user.id):
                    mine = tb.seat_of(user.id)
                    if tb.status == TableStatus.PLAYING and mine is not None:
                        await self.moves.resend_hand(user)
                        break
            return
        if table.seat_of(user.id) is None and not await c.members.is_member(table.chat_id, user.id):
            # a deep link seats only members of the table's group
            self.sender.post(Out(user.id, t(lang, "bot.members_only"), None))
            return
        async with self.tables.locked(table):
            if table.status == TableStatus.LOBBY:
                ans = await self._sit(table, user, seat)
                self.sender.post(Out(user.id, ans.text, None))
                self.sender.post(table.lobby_out())
                return
            mine = table.seat_of(user.id)
            if mine is not None and table.status == TableStatus.PLAYING:
                await self.absence.back(table, mine)
                return
        if await self.absence.reclaim(user):
            return
        self.sender.post(Out(user.id, t(lang, "bot.too_late"), None))

    async def _deep_link_target(self, payload: str) -> tuple[Table | None, int | None]:
        """The table (and seat) a ``/start`` payload names."""
        if not payload.startswith("j"):
            return None, None
        tid, _, wanted = payload[1:].partition("s")
        try:
            table = await self.tables.find(int(tid, 36))
            seat = int(wanted) if wanted else None
        except ValueError:
            return None, None
        if seat is not None and not 0 <= seat <= 5:
            seat = None
        return table, seat

    # -- seats -------------------------------------------------------------------------------
    async def _sit(self, table: Table, user: UserInfo, seat: int | None) -> Answer:
        """Seat ``user`` (at ``seat`` or any free one). A player whose DM the bot cannot reach
        gets the deep link instead (the bot may not message someone who never started it)."""
        lang = table.lang
        row = await self.storage.get_user(user.id)
        if row is None or not row.dm_ok:
            return Answer(t(lang, "bot.need_start"), url=self.tables.deep_link(table.id, seat))
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
            key = "bot.taken" if current.user != user.id else "bot.seated"
            return Answer(t(lang, key, n=seat + 1))
        if mine is not None:
            seats[mine] = None
        seats[seat] = Seat(user.name, user.id, lang=user.lang or row.lang)
        table.lobby_ver += 1
        await self.tables.save(table)
        return Answer(t(lang, "bot.sat", n=seat + 1))

    def _fill_ai(self, table: Table) -> None:
        for i, s in enumerate(table.st.seats):
            if s is None:
                name = t(table.lang, "bot.ai_name", n=i + 1)
                table.st.seats[i] = Seat(name, None, level=table.st.settings.ai_level)

    # -- lobby buttons -----------------------------------------------------------------------
    def _guard(self, table: Table, p: Press) -> Answer | None:
        """Lobby buttons count while the table seats players. The opener's buttons count on
        the lobby as it is now (a start or a change of preset decided on an older lobby would
        surprise); a player's own seat buttons and the rules at any version: people tapping
        different seats at once each get their seat, or hear it was just taken."""
        if table.status != TableStatus.LOBBY:
            return Answer(t(table.lang, "bot.started"))
        if p.cb.version != table.lobby_ver and p.cb.op not in ANY_VERSION:
            # the lobby changed since this keyboard: show the current one, do nothing
            self.sender.post(table.lobby_out())
            return Answer(t(table.lang, "bot.stale"))
        return None

    async def _changed(self, table: Table, ans: Answer) -> Answer:
        """The lobby changed: stored, shown, the press answered."""
        table.lobby_ver += 1
        await self.tables.save(table)
        self.sender.post(table.lobby_out())
        return ans

    async def _sit_press(self, table: Table, p: Press) -> Answer:
        if table.seat_of(p.user.id) is None and not await p.members.is_member(
            table.chat_id, p.user.id
        ):  # a public group's lobby is seen by people who are not in it
            return Answer(t(table.lang, "bot.members_only"), alert=True)
        seat = p.cb.seat if p.cb.op == LobbyOp.SIT else None
        return await self._changed(table, await self._sit(table, p.user, seat))

    async def _leave_press(self, table: Table, p: Press) -> Answer:
        seat = table.seat_of(p.user.id)
        if seat is None:
            return Answer(t(table.lang, "bot.not_seated"))
        table.st.seats[seat] = None
        return await self._changed(table, Answer(t(table.lang, "bot.left")))

    async def _rules_press(self, table: Table, p: Press) -> Answer:
        self.tables.reply(
            table.chat_id, table.thread_id, rules_text(table.st.settings.rules(), table.lang)
        )
        return Answer()

    async def _opener_press(self, table: Table, p: Press) -> Answer:
        """The buttons of the opener (or an admin of the table's chat)."""
        lang = table.lang
        st = table.st
        if p.user.id != table.opener and not await p.members.is_admin(table.chat_id, p.user.id):
            return Answer(t(lang, "bot.opener_only"), alert=True)
        ans = Answer()
        match p.cb.op:
            case LobbyOp.PRESET:
                preset = next_preset(st.settings.preset)
                v = st.settings.version + 1
                st.settings = replace(st.settings, preset=preset, switches={}, version=v)
                await self.chats.save_chat_settings(table.chat_id, st.settings)
                ans = Answer(t(lang, f"bot.preset.{preset}"))
            case LobbyOp.LEVEL:
                level = st.settings.ai_level.next()
                v = st.settings.version + 1
                st.settings = replace(st.settings, ai_level=level, version=v)
                await self.chats.save_chat_settings(table.chat_id, st.settings)
                ans = Answer(t(lang, f"bot.level.{st.settings.ai_level}"))
            case LobbyOp.FILL:
                self._fill_ai(table)
            case LobbyOp.GO:
                return await self.start(table)
            case LobbyOp.COUNTDOWN:
                cd = self.cfg.countdown_s
                st.countdown = time.time() + cd
                self.timers.schedule(
                    timer_name(TimerKind.COUNTDOWN, table.id), cd, self._countdown(table)
                )
                ans = Answer(t(lang, "bot.countdown_set", s=int(cd)))
        return await self._changed(table, ans)

    @staticmethod
    def _countdown(table: Table) -> Job:
        return Job(TimerKind.COUNTDOWN, table.id)

    async def _run_countdown(self, job: Job) -> None:
        """The pickup countdown is over: empty seats fill with AI, the game starts."""
        table = await self.tables.find(job.table_id)
        if table is None:
            return
        async with self.tables.locked(table):
            if table.status == TableStatus.LOBBY and table.st.countdown is not None:
                await self.start(table)

    # -- games -------------------------------------------------------------------------------
    async def start(self, table: Table) -> Answer:
        """Empty seats fill with AI, the match deals its first game."""
        lang = table.lang
        if not table.humans():
            return Answer(t(lang, "bot.nobody"), alert=True)
        self._fill_ai(table)
        table.st.countdown = None
        self.timers.cancel(timer_name(TimerKind.COUNTDOWN, table.id))
        table.status = TableStatus.PLAYING
        table.match = Match(table.st.settings.rules(), seed=table.st.seed)
        events = table.match.new_game()
        table.version = table.match.version
        table.lobby_ver += 1
        entries = [entry_text(table.match.log[-1])]
        lobby = table.lobby_out()  # its buttons gone, before the deal's messages
        await self.moves.commit(table, entries, events, actor=None, everyone=True, first=[lobby])
        log.info("table %d started", table.id)
        self.moves.schedule(table)
        return Answer(t(lang, "bot.go"))

    def resumed(self, table: Table) -> None:
        """After a restart: the lobby shown again, its countdown running on."""
        self.sender.post(table.lobby_out())
        if table.st.countdown is not None:
            left = max(0.0, table.st.countdown - time.time())
            self.timers.schedule(
                timer_name(TimerKind.COUNTDOWN, table.id), left, self._countdown(table)
            )

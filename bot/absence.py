"""Absent players: a seat in 托管 after repeated timeouts or a lost private chat, the group's
votes to leave it to the AI, a member taking it over, and the player coming back."""

from __future__ import annotations

import logging

from renderers import person, t

from . import storage as S
from .buttons import Kind, VoteOp
from .model import Seat, TableStatus
from .moves import Moves
from .outbox import Answer, Out, Slot, SlotKind
from .router import Press, Router
from .table import Table
from .tables import Tables, UserInfo
from .tenure import Poster

log = logging.getLogger("gouji.absence")


class Absence:
    """Seats whose player is away, and what the table may do about them."""

    def __init__(self, tables: Tables, moves: Moves, *, poster: Poster, storage: S.Storage) -> None:
        self.tables = tables
        self.storage = storage
        self.moves = moves
        self.sender = poster

    def register(self, router: Router) -> None:
        router.guard(Kind.VOTE, self._guard)
        router.on(Kind.VOTE, VoteOp.AI, self._vote_ai)
        router.on(Kind.VOTE, VoteOp.TAKE, self._take_over)

    def _guard(self, table: Table, p: Press) -> Answer | None:
        """A vote counts only for a seat in 托管 now, on its current notice."""
        seat = p.cb.seat
        s = table.st.seats[seat]
        if (
            s is None
            or s.user is None
            or not s.auto
            or table.status != TableStatus.PLAYING
            or p.cb.version != table.st.afk_ver.get(seat, 0)
        ):
            return Answer(t(p.lang, "bot.stale"))
        return None

    async def _vote_ai(self, table: Table, p: Press) -> Answer:
        """A seated player votes to leave the seat to the AI for the rest of the match."""
        seat = p.cb.seat
        s = table.st.seats[seat]
        assert s is not None
        voter = table.seat_of(p.user.id)
        if voter is None or voter == seat:
            return Answer(t(p.lang, "bot.vote_players_only"), alert=True)
        votes = table.votes.setdefault(seat, set())
        votes.add(p.user.id)
        need = table.votes_needed(seat)
        if len(votes) < need:
            self.sender.post(table.afk_out(seat, len(votes), need))
            return Answer(t(p.lang, "bot.voted"))
        name = s.name
        level = table.st.settings.ai_level
        ai_name = t(table.lang, "bot.ai_for", name=name)
        # the player may still come back and reclaim the seat (``reclaim``)
        table.st.seats[seat] = Seat(ai_name, None, level=level, away=s.user, away_name=name)
        await self._settle(table, seat, t(table.lang, "bot.voted_ai", name=person(name)))
        return Answer(t(p.lang, "bot.saved"))

    async def _take_over(self, table: Table, p: Press) -> Answer:
        """A member who does not play takes the seat over (the hand goes to their DM)."""
        seat = p.cb.seat
        s = table.st.seats[seat]
        assert s is not None
        user = p.user
        if table.seat_of(user.id) is not None:
            return Answer(t(p.lang, "bot.already_playing"), alert=True)
        if not await p.members.is_member(table.chat_id, user.id):
            return Answer(t(p.lang, "bot.members_only"), alert=True)
        row = await self.storage.get_user(user.id)
        if row is None or not row.dm_ok:
            return Answer(t(p.lang, "bot.need_start"), url=self.tables.deep_link(table.id, seat))
        old = s.name
        table.st.seats[seat] = Seat(user.name, user.id, lang=user.lang or row.lang)
        text = t(table.lang, "bot.took_over", name=person(user.name), old=person(old))
        await self._settle(table, seat, text)
        self.moves.post_hand(table, seat, new=True)
        self.moves.schedule(table)
        return Answer(t(p.lang, "bot.sat", n=seat + 1))

    async def _settle(self, table: Table, seat: int, outcome: str) -> None:
        """The table decided about an absent seat: no vote stands, the notice's buttons die,
        the change is stored, and then the notice itself says the outcome (edited in place,
        or sent if it never went out)."""
        table.votes.pop(seat, None)
        table.st.afk_ver[seat] = table.st.afk_ver.get(seat, 0) + 1
        await self.tables.save(table)
        slot = Slot(table.id, SlotKind.AFK, seat)
        self.sender.post(Out(table.chat_id, outcome, None, table.thread_id, slot))

    async def dm_blocked(self, user_id: int) -> None:
        """A private chat answered 403: the player blocked the bot or never started it."""
        row = await self.storage.get_user(user_id)
        if row is not None and row.dm_ok:
            row.dm_ok = False
            await self.storage.save_user(row)
        for table in await self.tables.of_user(user_id):
            seat = table.seat_of(user_id)
            if seat is None or table.status != TableStatus.PLAYING:
                continue
            async with self.tables.locked(table):
                s = table.st.seats[seat]
                if s is None or s.auto:
                    continue
                s.auto = True  # the AI plays the seat until the player is back
                link = self.tables.deep_link(table.id, seat)
                await self.tables.save(table)
                text = t(table.lang, "bot.dm_lost", name=table.mention(seat), link=link)
                self.sender.post(Out(table.chat_id, text, None, table.thread_id))
                self.moves.schedule(table)

    async def back(self, table: Table, seat: int) -> None:
        """The player of ``seat`` opened their DM again (``/start``): they play again, and get
        their hand as a new message. The caller holds the table's lock."""
        s = table.st.seats[seat]
        assert s is not None
        if s.auto:
            s.auto = False  # back from a lost DM: the player plays again
            s.timeouts = 0
            if not self.moves.returned(table, seat):
                text = t(table.lang, "bot.back", name=table.mention(seat))
                self.sender.post(Out(table.chat_id, text, None, table.thread_id))
            await self.tables.save(table)
        self.moves.post_hand(table, seat, new=True)
        self.moves.schedule(table)

    async def reclaim(self, user: UserInfo) -> bool:
        """A player whose seat the table voted to the AI opened their DM again: the seat is
        theirs again at every table where it is (the AI leaves it); True if any was."""
        found = False
        for table in await self.tables.of_user(user.id):
            if table.status not in (TableStatus.PLAYING, TableStatus.OVER):
                continue
            async with self.tables.locked(table):
                for seat, s in enumerate(table.st.seats):
                    if s is None or s.away != user.id or table.seat_of(user.id) is not None:
                        continue
                    table.st.seats[seat] = Seat(s.away_name or user.name, user.id, lang=user.lang)
                    await self.tables.save(table)
                    text = t(table.lang, "bot.back", name=table.mention(seat))
                    self.sender.post(Out(table.chat_id, text, None, table.thread_id))
                    self.moves.post_hand(table, seat, new=True)
                    self.moves.schedule(table)
                    found = True
        return found

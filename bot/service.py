"""The table service: every table of every chat, its lock, its storage and its timers.

Handlers decode an update into one call here; each call takes the table's lock (updates of one
table are applied one at a time, different tables never wait for each other), changes the
table, **stores it before anything about it is sent**, and posts what should be shown to the
sender. AI seats and turn timers run as scheduled steps of the same kind.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from engine.matchrecord import BadMatchRecord
from renderers import t

from .codec import BadCallback, Callback
from .core import Config, Scheduler, Sender, UserInfo
from .lobby import LobbyOps
from .outbox import Answer, Out
from .table import Table

log = logging.getLogger("gouji.service")

__all__ = ["Config", "Scheduler", "Sender", "Service", "UserInfo"]


class Service(LobbyOps):
    """Every table of every chat: what the handlers call."""

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
            if cb.kind == "v":
                return await self.vote(table, cb.version, cb.op, user)
        return Answer(t(lang, "bot.bad_button"))

    # -- commands ----------------------------------------------------------------------------
    async def stop(self, chat_id: int, thread_id: int | None, user: UserInfo, admin: bool) -> None:
        # Under the chat's lock, as /gouji is: until the save below is stored the database still
        # holds the table open, and a /gouji racing in between would clash with it.
        async with self._chat_lock((chat_id, thread_id)):
            table = self.table_at(chat_id, thread_id)
            lang = (await self.chat_settings(chat_id)).lang
            if table is None or table.status not in ("lobby", "playing", "over"):
                self.sender.post(Out(chat_id, t(lang, "bot.no_table"), None, thread_id))
                return
            if user.id != table.opener and not admin:
                self.sender.post(Out(chat_id, t(lang, "bot.opener_only"), None, thread_id))
                return
            await self._abandon(table)
            self.sender.post(Out(chat_id, t(lang, "bot.stopped", name=user.name), None, thread_id))
            if table.match is None:
                self.sender.post(table.lobby_out())

    async def _abandon(self, table: Table) -> None:
        """The table ends here (/stop, the bot left the group): stored as abandoned, its timers
        cancelled, forgotten by its chat. The caller holds the chat's lock."""
        async with table.lock:
            table.status = "abandoned"
            await self._save(table)
            for timer in ("step", "remind", "countdown"):
                self.timers.cancel(f"{timer}:{table.id}")
        self.where.pop((table.chat_id, table.thread_id), None)
        self.tables.pop(table.id, None)

    # -- the chat changes -------------------------------------------------------------------
    async def chat_migrated(self, old: int, new: int) -> None:
        """A group became a supergroup: its tables, settings and games move to the new id."""
        # A basic group has no topics, so (old, None) and (new, None) are the only chat locks
        # concerned: /gouji in either waits until memory and the database agree again.
        async with self._chat_lock((old, None)), self._chat_lock((new, None)):
            await self.storage.migrate_chat(old, new)
            for (chat, thread), tid in list(self.where.items()):
                if chat != old:
                    continue
                table = self.tables.get(tid)
                del self.where[(chat, thread)]
                if table is not None:
                    async with table.lock:
                        table.chat_id = new
                    self.where[(new, thread)] = tid
        log.info("chat %d migrated to %d", old, new)

    async def bot_removed(self, chat_id: int) -> None:
        """The bot was removed from a group: its tables there end (abandoned, kept stored)."""
        for (chat, thread), tid in list(self.where.items()):
            if chat != chat_id:
                continue
            async with self._chat_lock((chat, thread)):  # as in stop(): memory and database agree
                table = self.tables.get(tid)
                if table is None or self.where.get((chat, thread)) != tid:
                    continue
                await self._abandon(table)
            log.info("table %d abandoned: the bot left chat %d", tid, chat_id)

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
                if table.status == "over":  # its game-over message and 再来一局 are in the chat
                    continue
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
                for seat, _ in table.humans():
                    out = table.hand_out(seat)
                    if out is None:
                        continue
                    if ask is not None and seat == ask[0]:
                        # the asked player's prompt again, as a new message (it notifies)
                        self.sender.post(replace(out, new=True))
                    else:  # others: no buttons left over from before the restart
                        self.sender.post(out)
                self._schedule(table)
        return n

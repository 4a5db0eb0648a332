"""Delivers the table service's messages to Telegram: in order per chat, one chat never waiting
for another; updates of the same message coalesced (only the newest pending content is sent);
group chats paced under Telegram's per-group budget; flood waits (429) waited out and retried;
pictures rendered by worker processes only when they are really sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    LinkPreviewOptions,
    Message,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from renderers.fit import MAX_CAPTION, MAX_MESSAGE, fit

from .coord import Lease, PgCoord, Solo
from .keyboards import Keyboard
from .media import send_media
from .outbox import Out, Slot
from .pins import DELETE, deliver_act, pins_of
from .workers import Workers

log = logging.getLogger("gouji.sender")
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
MAX_TRIES = 5
FILE_IDS_KEPT = 4096  # pictures' file_ids kept in memory (hands repeat within a game)
INFO_WAITING = 3  # command answers a chat's queue holds at once (a flood of /help drops the rest)


def markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    if keyboard is None:
        return None
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(b.text, callback_data=b.data, url=b.url) for b in row]
            for row in keyboard
            if row
        ]
    )


@dataclass
class _Shown:
    """What a slot's message shows now (to skip identical edits and unchanged pictures): a
    digest of its text and buttons, not the text itself, as the bot keeps one per message."""

    photo: bool
    photo_key: str
    digest: bytes


def digest(out: Out) -> bytes:
    return hashlib.blake2b(repr((out.text, out.keyboard)).encode(), digest_size=16).digest()


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

    @staticmethod
    def telegram() -> Pacing:
        return Pacing()

    @staticmethod
    def off() -> Pacing:
        """No pacing (a local server without limits)."""
        return Pacing(0.0, 0.0, 0.0)

    def faster(self, factor: float) -> Pacing:
        """The same pacing on a clock ``factor`` times as fast (tests and demos against a
        local server whose limits run as fast: ``RateLimits.faster``)."""
        return Pacing(
            self.group_s / factor, self.private_s / factor, self.overall_per_s * factor, self.burst
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
    within the bot's budget."""

    def __init__(self, coord: PgCoord, per_s: float, burst: int = 5) -> None:
        super().__init__(per_s, burst)
        self.coord = coord

    async def turn(self) -> None:
        if not self.interval:
            return
        at = await self.coord.pace(self.interval)
        wait = at - time.time() - self.burst * self.interval
        if wait > 0:
            await asyncio.sleep(wait)


def slot_key(slot: Slot) -> str:
    return f"{slot.table}:{slot.kind}:{slot.index}"


@dataclass
class _Chat:
    # when the last call to this chat went out: at first, when the sender started, as a process
    # that died a moment ago may have spent the chat's budget (a restart's notice waits a pace)
    last: float
    queue: deque[Out] = field(default_factory=deque)
    worker: asyncio.Task[None] | None = None
    lease: Lease | None = None  # several processes: this one delivers to the chat now
    # stored messages queued here already (several processes: read from the outbox, and
    # posted by this process's own change a moment later)
    queued: set[int] = field(default_factory=set)


class SlotStore(Protocol):
    """Where the message ids of slots are kept (:class:`bot.tables.Tables`)."""

    async def slot_id(self, slot: Slot) -> int | None: ...

    async def slot_sent(self, slot: Slot, message_id: int) -> None: ...


class UploadStore(Protocol):
    """Where pictures' file_ids are kept (:class:`bot.storage.Storage`)."""

    async def get_upload(self, digest: str) -> str | None: ...

    async def save_upload(self, digest: str, file_id: str) -> None: ...


class _NoUploads:
    async def get_upload(self, digest: str) -> str | None:
        return None

    async def save_upload(self, digest: str, file_id: str) -> None:
        return None


class OutboxStore(Protocol):
    """Where the messages stored with their actions wait (:class:`bot.storage.Storage`)."""

    async def message_delivered(self, outbox_id: int) -> None: ...


class _NoOutbox:
    async def message_delivered(self, outbox_id: int) -> None:
        return None


class _NoSlots:
    async def slot_id(self, slot: Slot) -> int | None:
        return None

    async def slot_sent(self, slot: Slot, message_id: int) -> None:
        return None


async def _ignore(chat_id: int) -> None:
    return None


async def _ignore_move(old: int, new: int) -> None:
    return None


class Sender:
    """``post`` is instant; a worker per chat sends. :meth:`bind` connects it to the slots'
    message ids and to what is done when a chat refuses the bot; the parts that post to the
    sender are built with it, so it is bound to them once they exist."""

    def __init__(
        self, bot: Bot, pacing: Pacing | None = None, workers: Workers | None = None
    ) -> None:
        self.bot = bot
        self.pacing = pacing or Pacing.off()
        self.started = time.monotonic()
        self.workers = workers or Workers()  # pictures are drawn there
        self.slots: SlotStore = _NoSlots()
        self.on_migrated: Callable[[int, int], Awaitable[None]] = _ignore_move
        self._moved: dict[int, int] = {}  # chat → the id it moved to (met by a call)
        self.uploads: UploadStore = _NoUploads()
        self.outbox: OutboxStore = _NoOutbox()
        self._file_ids: dict[str, str] = {}  # picture digest → file_id (a cache of uploads)
        self._pictures: dict[Slot, str] = {}  # slot → the digest of the picture it shows
        self.uploaded_bytes = 0  # pictures uploaded (not sent by file_id): bytes, and how many
        self.uploads_sent = 0
        self.on_refused: Callable[[int], Awaitable[None]] = _ignore
        self.pace = Pace(self.pacing.overall_per_s, self.pacing.burst)  # all chats together
        self._chats: dict[int, _Chat] = {}
        self._shown: dict[Slot, _Shown] = {}
        self._slot_chat: dict[Slot, int] = {}  # the chat of each slot delivered
        self._idle = asyncio.Event()
        self._idle.set()
        self._delivering = 0  # messages taken from a queue and not yet delivered
        self.calls = 0
        self.errors = 0
        self.coord: Solo | PgCoord = Solo()
        self.stale = 0  # several processes: older contents another process had replaced
        self._forgetting: set[asyncio.Task[None]] = set()
        self._gone: set[tuple[int, int]] = set()  # (chat, message) deleted by an act

    def bind(
        self,
        slots: SlotStore,
        on_refused: Callable[[int], Awaitable[None]],
        uploads: UploadStore | None = None,
        on_migrated: Callable[[int, int], Awaitable[None]] | None = None,
        outbox: OutboxStore | None = None,
        coord: Solo | PgCoord | None = None,
    ) -> None:
        """Slots' message ids are kept by ``slots``; a chat answering 403 is reported to
        ``on_refused`` (a private chat: the player blocked the bot; a group: it left); the
        file_ids of uploaded pictures are kept by ``uploads``; a message from the ``outbox``
        leaves it once delivered."""
        self.slots = slots
        self.on_refused = on_refused
        if uploads is not None:
            self.uploads = uploads
        if outbox is not None:
            self.outbox = outbox
        if on_migrated is not None:
            self.on_migrated = on_migrated
        if isinstance(coord, PgCoord):  # several processes: one budget, one deliverer a chat
            self.coord = coord
            self.pace = SharedPace(coord, self.pacing.overall_per_s, self.pacing.burst)

    # -- posting -------------------------------------------------------------------------------
    def post(self, out: Out) -> None:
        chat = self._chats.get(out.chat_id)
        if chat is None:
            chat = self._chats[out.chat_id] = _Chat(self.started)
        self._enqueue(chat, out)
        self._idle.clear()
        if chat.worker is None or chat.worker.done():
            chat.worker = asyncio.get_running_loop().create_task(self._run(out.chat_id, chat))

    def _enqueue(self, chat: _Chat, out: Out) -> None:
        """``out`` in the chat's queue, coalesced with what waits there (a stored message
        once)."""
        if out.outbox_id is not None:
            if out.outbox_id in chat.queued:
                return
            chat.queued.add(out.outbox_id)
            if len(chat.queued) > 4096:
                chat.queued = set(sorted(chat.queued)[-2048:])
        if out.info:
            waiting = [m for m in chat.queue if m.info]
            if any(m.text == out.text for m in waiting):
                return  # the same answer is on its way already
            if len(waiting) >= INFO_WAITING:
                chat.queue.remove(waiting[0])  # the oldest answer gives way; the game never
        if out.act:  # bot.pins: a deleted message's waiting contents are moot
            if out.act == DELETE:
                for m in [m for m in chat.queue if m.slot == out.slot and not m.act]:
                    chat.queue.remove(m)
                    self._replaced(m)
            chat.queue.append(out)
        elif out.message_id is not None:  # an edit of a message by its id: the newest content
            for i, pending in enumerate(chat.queue):
                if pending.message_id == out.message_id:
                    chat.queue[i] = out
                    self._replaced(pending)
                    break
            else:
                chat.queue.append(out)
        elif out.slot is not None and not out.new:
            for i, pending in enumerate(chat.queue):
                # (never across an act waiting on the message: it must see the content before)
                if pending.slot == out.slot and not any(
                    m.slot == out.slot and m.act for m in list(chat.queue)[i:]
                ):
                    # coalesce: only the newest content of a message (a message about to be
                    # sent anew takes that content with it)
                    chat.queue[i] = replace(out, new=pending.new)
                    self._replaced(pending)
                    break
            else:
                chat.queue.append(out)
        elif out.slot is not None:  # sent anew: edits still waiting for the old one are moot
            kept = [m for m in chat.queue if m.slot != out.slot]
            for m in chat.queue:
                if m.slot == out.slot:
                    self._replaced(m)
            chat.queue.clear()
            chat.queue.extend(kept)
            chat.queue.append(out)
        else:
            chat.queue.append(out)

    async def _from_outbox(self, chat_id: int, chat: _Chat, coord: PgCoord) -> None:
        """Several processes, this one delivering to the chat: what waits for it is what the
        outbox holds for it — stored by any process, in the order stored — then what was
        posted here while that was read, then this process's messages that are not stored
        (answers to commands). A stored message posted here before the outbox was read and no
        longer in it was delivered by another process."""
        before = {id(out) for out in chat.queue}
        rows = await coord.chat_outbox(chat_id)
        read = {oid for oid, _ in rows}
        waiting = list(chat.queue)
        chat.queue.clear()
        chat.queued -= read  # queued again now, from the outbox
        for outbox_id, data in rows:
            try:
                self._enqueue(chat, Out.loads(data, outbox_id))
            except ValueError as e:
                log.error("%s: dropped", e)
                await self._forget(outbox_id)
        for out in waiting:
            if out.outbox_id is None or (id(out) not in before and out.outbox_id not in read):
                self._enqueue(chat, out)

    def _replaced(self, out: Out) -> None:
        """A waiting message replaced by a newer content: never sent, out of the outbox."""
        if out.outbox_id is not None:
            task = asyncio.get_running_loop().create_task(self._forget(out.outbox_id))
            self._forgetting.add(task)
            task.add_done_callback(self._forgetting.discard)

    async def drain(self, timeout: float = 30.0) -> None:
        """Wait until everything posted so far has been delivered (tests, shutdown)."""
        await asyncio.wait_for(self._idle.wait(), timeout)

    async def close(self) -> None:
        for chat in self._chats.values():
            if chat.worker is not None and not chat.worker.done():
                chat.worker.cancel()
        await asyncio.gather(
            *(c.worker for c in self._chats.values() if c.worker is not None),
            return_exceptions=True,
        )

    def idle(self) -> bool:
        """Everything posted so far has been delivered."""
        return self._idle.is_set()

    def pending(self) -> int:
        return sum(len(c.queue) for c in self._chats.values())

    # -- delivering ----------------------------------------------------------------------------
    async def _run(self, chat_id: int, chat: _Chat) -> None:
        try:
            while chat.queue:
                if isinstance(self.coord, PgCoord):
                    await self._lease(chat_id, chat, self.coord)
                    await self._from_outbox(chat_id, chat, self.coord)
                try:
                    await self._send_queue(chat_id, chat)
                finally:
                    if chat.lease is not None:
                        lease, chat.lease = chat.lease, None
                        lease.last_at = time.time() - (time.monotonic() - chat.last)
                        assert isinstance(self.coord, PgCoord)
                        await self.coord.release(lease)
        finally:
            # idle once no chat has a message waiting or on its way (another chat's worker may
            # still be delivering the last message it took)
            if not self._delivering and all(not c.queue for c in self._chats.values()):
                self._idle.set()

    async def _lease(self, chat_id: int, chat: _Chat, coord: PgCoord) -> None:
        """Several processes: wait until this one delivers to the chat (one at a time, so
        that each message ends with its newest content); the chat's pace goes on from the
        last call any process made to it."""
        while (lease := await coord.lease(chat_id)) is None:
            await asyncio.sleep(0.02)
        chat.lease = lease
        chat.last = max(chat.last, time.monotonic() - (time.time() - lease.last_at))
        if lease.fresh:  # another process may have changed what the chat's messages show
            for slot in [k for k, c in self._slot_chat.items() if c == chat_id]:
                self._shown.pop(slot, None)
                self._pictures.pop(slot, None)

    async def _send_queue(self, chat_id: int, chat: _Chat) -> None:
        while chat.queue:
            pace = self.pacing.interval(chat_id)
            if pace > 0:
                wait = chat.last + pace - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)  # newer updates coalesce meanwhile
            await self.pace.turn()  # and meanwhile too
            if not chat.queue:
                break
            out = chat.queue.popleft()
            self._delivering += 1
            try:
                if self._outdated(chat, out):
                    self.stale += 1
                else:
                    await self._deliver(out)
            except Exception:  # one bad message never stops a chat's queue
                self.errors += 1
                log.exception("could not deliver to chat %d", chat_id)
            finally:
                self._delivering -= 1
            chat.last = time.monotonic()
            new_id = self._moved.pop(chat_id, None)
            if new_id is not None:
                await self._follow(chat_id, new_id, [out, *chat.queue])
                chat.queue.clear()
            elif out.outbox_id is not None:
                # delivered, or never deliverable (refused, malformed): out of the outbox.
                # A kill during the call itself leaves it there: sent again after the
                # restart (the one case where a message may arrive twice)
                await self._forget(out.outbox_id)

    @staticmethod
    def _outdated(chat: _Chat, out: Out) -> bool:
        """Several processes: a kept message's content older than what another process put
        in place (its table's rev) is not sent; a newer one is remembered."""
        if chat.lease is None or out.slot is None or not out.rev:
            return False
        key = slot_key(out.slot)
        if chat.lease.shown.get(key, 0) > out.rev:
            return True
        chat.lease.shown[key] = out.rev
        return False

    async def _forget(self, outbox_id: int) -> None:
        try:
            await self.outbox.message_delivered(outbox_id)
        except Exception:  # the database is busy or gone: at worst it is sent again later
            log.exception("an outbox message stays stored")

    async def _follow(self, old: int, new: int, outs: list[Out]) -> None:
        """A group became a supergroup: its tables move (``on_migrated``), and the message
        that met the move and every one queued behind it go to the new chat, in order."""
        await self.on_migrated(old, new)
        for out in outs:
            self.post(replace(out, chat_id=new))

    async def _deliver(self, out: Out) -> None:
        if out.act and out.slot is not None:  # delete, pin, unpin the slot's message
            await self._act(out, out.slot)
            return
        if out.media is not None:  # an animation, a document, a picture edited in place
            await send_media(self.bot, self.workers, self._call, out, markup(out.keyboard))
            return
        # the last guard: a message over Telegram's limit would be refused whole
        out = replace(out, text=fit(out.text, MAX_CAPTION if out.photo else MAX_MESSAGE))
        if out.message_id is not None:
            await self._edit_message(out, out.message_id)
            return
        slot = out.slot
        if slot is not None:
            self._slot_chat[slot] = out.chat_id
        msg_id = None if slot is None or out.new else await self.slots.slot_id(slot)
        if msg_id is not None and (out.chat_id, msg_id) in self._gone:
            msg_id = None  # deleted by an act: sent anew
        now = digest(out) if slot is not None else b""  # what a slot's message is to show
        if slot is not None and msg_id is not None:
            shown = self._shown.get(slot)
            if shown is not None and shown.photo_key == out.photo_key and shown.digest == now:
                return  # nothing changed: no call
            if await self._edit(out, msg_id, shown, now):
                return
        old = await self.slots.slot_id(slot) if slot is not None and out.new else None
        message = await self._send(out)
        if isinstance(message, Message) and slot is not None:
            self._shown[slot] = _Shown(out.photo is not None, out.photo_key, now)
            await self.slots.slot_sent(slot, message.message_id)
            gone = (out.chat_id, old) in self._gone
            if old is not None and old != message.message_id and not gone:
                await self._delete(out.chat_id, old)  # one live message per slot

    async def _act(self, out: Out, slot: Slot) -> None:
        """bot.pins: the slot's message deleted, pinned or unpinned."""
        msg_id = await self.slots.slot_id(slot)
        if msg_id is None or (out.chat_id, msg_id) in self._gone:
            return
        if await deliver_act(pins_of(self), self.bot, self._call, msg_id, out):
            self._gone.add((out.chat_id, msg_id))
            self._shown.pop(slot, None)
            if len(self._gone) > 4096:
                self._gone = set(sorted(self._gone)[-2048:])

    async def _delete(self, chat_id: int, message_id: int) -> None:
        """The slot's earlier message goes: its buttons must not outlive it (a question asked
        anew, a hand sent again), nor a second picture of the hand stand above the new one. Too
        old to delete (48 h), or gone: then only its buttons. A call of its own in the chat's
        budget: it waits the chat's pace after the send."""
        pace = self.pacing.interval(chat_id)
        if pace > 0:
            await asyncio.sleep(pace)
        await self.pace.turn()
        try:
            await self._call(chat_id, lambda: self.bot.delete_message(chat_id, message_id))
        except BadRequest:
            try:
                await self._call(
                    chat_id,
                    lambda: self.bot.edit_message_reply_markup(
                        chat_id=chat_id, message_id=message_id, reply_markup=None
                    ),
                )
            except BadRequest as e:
                log.info("an old message in chat %d stays as it is (%s)", chat_id, e.message)

    async def _send(self, out: Out) -> Message | bool:
        kb = markup(out.keyboard)
        if out.photo is not None:
            data = await self.workers.run(out.photo)
            key, known = await self._known(data)

            def send(photo: bytes | str) -> Awaitable[object]:
                return self.bot.send_photo(
                    out.chat_id,
                    photo=photo,
                    filename="gouji.png",
                    caption=out.text,
                    parse_mode=ParseMode.HTML,
                    reply_markup=kb,
                    message_thread_id=out.thread_id,
                    disable_notification=out.silent,
                )

            sent = await self._with_upload(out.chat_id, key, data, known, send, once=True)
            if out.slot is not None:
                self._pictures[out.slot] = key
            return sent
        return await self._call(
            out.chat_id,
            once=True,
            make=lambda: self.bot.send_message(
                out.chat_id,
                out.text,
                parse_mode=ParseMode.HTML,
                reply_markup=kb,
                message_thread_id=out.thread_id,
                disable_notification=out.silent,
                link_preview_options=NO_PREVIEW,
            ),
        )

    async def _edit(self, out: Out, msg_id: int, shown: _Shown | None, now: bytes) -> bool:
        """Put ``out`` in place of message ``msg_id``; False when it must be sent anew."""
        assert out.slot is not None
        kb = markup(out.keyboard)
        photo_msg = out.photo is not None
        try:
            new_picture = shown is None or shown.photo_key != out.photo_key or not shown.photo
            data, key, known = b"", "", None
            if photo_msg and new_picture:
                assert out.photo is not None
                data = await self.workers.run(out.photo)
                key, known = await self._known(data)
                if shown is not None and shown.photo and self._pictures.get(out.slot) == key:
                    new_picture = False  # drawn anew, the same picture: only the caption
                    if shown.digest == now:
                        self._shown[out.slot] = _Shown(True, out.photo_key, now)
                        return True
            if photo_msg and new_picture:

                def edit(photo: bytes | str) -> Awaitable[object]:
                    media = InputMediaPhoto(
                        photo, caption=out.text, parse_mode=ParseMode.HTML, filename="gouji.png"
                    )
                    return self.bot.edit_message_media(
                        media, chat_id=out.chat_id, message_id=msg_id, reply_markup=kb
                    )

                reached = await self._with_upload(out.chat_id, key, data, known, edit)
                self._pictures[out.slot] = key
            elif photo_msg:
                reached = await self._call(
                    out.chat_id,
                    lambda: self.bot.edit_message_caption(
                        chat_id=out.chat_id,
                        message_id=msg_id,
                        caption=out.text,
                        parse_mode=ParseMode.HTML,
                        reply_markup=kb,
                    ),
                )
            else:
                reached = await self._edit_text(out, msg_id, kb)
        except BadRequest as e:
            if "not modified" in e.message:
                reached = True
            else:
                log.info(
                    "edit of a message in chat %d failed (%s): sending anew", out.chat_id, e.message
                )
                return False
        if not reached:
            return True  # the chat is gone (blocked, kicked): nothing more to do
        self._shown[out.slot] = _Shown(photo_msg, out.photo_key, now)
        return True

    async def _edit_text(
        self, out: Out, message_id: int, kb: InlineKeyboardMarkup | None
    ) -> Message | bool:
        """``out``'s text put in place of text message ``message_id`` (one call, retried)."""
        return await self._call(
            out.chat_id,
            lambda: self.bot.edit_message_text(
                out.text,
                chat_id=out.chat_id,
                message_id=message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=kb,
                link_preview_options=NO_PREVIEW,
            ),
        )

    async def _edit_message(self, out: Out, message_id: int) -> None:
        """A text message that no slot keeps, edited (the menu a press came from)."""
        try:
            await self._edit_text(out, message_id, markup(out.keyboard))
        except BadRequest as e:  # unchanged, or gone meanwhile
            log.info("a message in chat %d not edited (%s)", out.chat_id, e.message)

    async def _known(self, data: bytes) -> tuple[str, str | None]:
        """A picture's digest, and the file_id Telegram gave the same bytes before (if any)."""
        key = hashlib.blake2b(data, digest_size=16).hexdigest()
        known = self._file_ids.get(key)
        if known is None:
            known = await self.uploads.get_upload(key)
            if known is not None:
                self._remember(key, known)
        return key, known

    def _remember(self, key: str, file_id: str) -> None:
        """Keep a file_id in memory (the newest :data:`FILE_IDS_KEPT`; storage has them all)."""
        self._file_ids.pop(key, None)
        self._file_ids[key] = file_id
        if len(self._file_ids) > FILE_IDS_KEPT:
            del self._file_ids[next(iter(self._file_ids))]

    async def _with_upload(
        self,
        chat_id: int,
        key: str,
        data: bytes,
        known: str | None,
        call: Callable[[bytes | str], Awaitable[object]],
        once: bool = False,
    ) -> Message | bool:
        """``call`` with the picture by its file_id when Telegram has it, else uploaded (and
        its new file_id remembered); a file_id Telegram no longer knows is uploaded again."""
        if known is not None:
            try:
                return await self._call(chat_id, lambda: call(known), once=once)
            except BadRequest as e:
                if "file" not in e.message.lower():
                    raise
                log.info("a cached picture was refused (%s): uploading it", e.message)
                self._file_ids.pop(key, None)
        self.uploaded_bytes += len(data)
        self.uploads_sent += 1
        result = await self._call(chat_id, lambda: call(data), once=once)
        if isinstance(result, Message) and result.photo:
            file_id = result.photo[-1].file_id
            self._remember(key, file_id)
            await self.uploads.save_upload(key, file_id)
        return result

    async def _call(
        self, chat_id: int, make: Callable[[], Awaitable[object]], once: bool = False
    ) -> Message | bool:
        """One Bot API call with retries: flood waits (429) waited out, network errors retried;
        a chat that refuses (403: a player blocked the bot, or it left a group) is reported
        (False); BadRequest goes to the caller. The sent message, or True for an edit that went
        through. ``once``: a call that makes a new message is not repeated after a timeout
        (it may have arrived: a second try would post it twice)."""
        for attempt in range(MAX_TRIES):
            try:
                self.calls += 1
                result = await make()
                return result if isinstance(result, Message) else True
            except RetryAfter as e:
                wait = e.retry_after
                seconds = wait.total_seconds() if hasattr(wait, "total_seconds") else float(wait)
                log.warning("flood wait of %.0f s in chat %d", seconds, chat_id)
                await asyncio.sleep(seconds)
            except Forbidden:
                if chat_id < 0:
                    log.warning("chat %d refuses the bot's messages", chat_id)
                await self.on_refused(chat_id)  # a private chat blocked, or the bot out of a group
                return False
            except ChatMigrated as e:
                log.warning("chat %d moved to %d", chat_id, e.new_chat_id)
                self._moved[chat_id] = e.new_chat_id  # the chat's messages follow it (_run)
                return False
            except BadRequest:
                raise
            except TimedOut:
                if once:  # sent or not, nobody can tell: better lost than twice
                    self.errors += 1
                    log.warning("a new message to chat %d timed out: not sent again", chat_id)
                    return False
                log.warning("call to chat %d timed out, retrying", chat_id)
                await asyncio.sleep(0.5 * (attempt + 1))
            except TelegramError as e:
                # network errors, a server answering 5xx or garbage: try again
                log.warning("call to chat %d failed (%s), retrying", chat_id, type(e).__name__)
                await asyncio.sleep(0.5 * (attempt + 1))
        self.errors += 1
        log.error("gave up on a call to chat %d after %d tries", chat_id, MAX_TRIES)
        return False

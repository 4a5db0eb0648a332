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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from telegram import (
    Bot,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    LinkPreviewOptions,
    Message,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest

from renderers.fit import MAX_CAPTION, MAX_MESSAGE, fit

from .calls import Calls
from .deployment import Deployment, Turn
from .media import markup, send_media
from .outbox import RETIRE, Out, OutboxStore, Slot, SlotStore
from .pacing import QUESTION, Pacing, Window, asks, level
from .pins import Pins, deliver_act
from .queues import ChatQueue, Queues
from .uploads import Uploads
from .workers import Workers

log = logging.getLogger("gouji.sender")
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
RETRY_S = 0.5  # a chat's delivery interrupted (its lease, its outbox unreadable): tried again
RETRIES = 20  # so many times in a row at most (10 s): then the chat waits for its next message


@dataclass(slots=True)
class _Shown:
    """What a slot's message shows now (to skip identical edits and unchanged pictures): a
    digest of its text and buttons, not the text itself, as the bot keeps one per message."""

    photo: bool
    photo_key: str
    digest: bytes


def digest(out: Out) -> bytes:
    return hashlib.blake2b(repr((out.text, out.keyboard)).encode(), digest_size=16).digest()


class Sender:
    """Delivers what waits in the chats' queues (:class:`bot.queues.Queues`), once started: a
    chat's next message in the chat's turn in the budget of calls (bot.pacing.Pace.want), by
    a worker made for that turn. Slots' message ids are kept by ``slots``; a chat answering
    403 is reported to ``on_refused`` (a private chat: the player blocked the bot; a group: it
    left), a group that became a supergroup to ``on_migrated``; pictures' file_ids by
    ``uploads``; a message from the ``outbox`` leaves it once delivered; acts (delete, pin,
    unpin) asked of ``pins``."""

    def __init__(
        self,
        bot: Bot,
        queues: Queues,
        deployment: Deployment,
        *,
        slots: SlotStore,
        uploads: Uploads,
        outbox: OutboxStore,
        on_refused: Callable[[int], Awaitable[None]],
        on_migrated: Callable[[int, int], Awaitable[None]],
        pacing: Pacing | None = None,
        workers: Workers | None = None,
        pins: Pins | None = None,
    ) -> None:
        self.bot = bot
        self.queues = queues
        self.deployment = deployment
        self.slots = slots
        self.uploads = uploads
        self.outbox = outbox
        self.on_refused = on_refused
        self.on_migrated = on_migrated
        self.pacing = pacing or Pacing.off()
        self.workers = workers or Workers()  # pictures are drawn there
        self.pins = pins or Pins(bot)  # pin rights, asked with the bot (acts: bot.pins)
        self.pace = deployment.pace(self.pacing.overall_per_s, self.pacing.burst)  # all chats
        # each Bot API call, with its retries (each in the budget of calls too)
        per_s = self.pacing.overall_per_s
        # (calls half a turn apart at least: a process's calls never bunched)
        window = Window(int(per_s) + self.pacing.burst, gap=0.5 / per_s) if per_s > 0 else None
        # a retry waits at its chat's level, named by it (a question posted meanwhile: hurry)
        self.api = Calls(
            on_refused,
            lambda chat_id: self.pace.turn(self._level(chat_id), chat_id),
            window.enter if window is not None else None,
            self.pace.spend,  # (several processes: a call goes out within its turn)
        )
        self._call = self._paced
        self._pictures: dict[Slot, str] = {}  # slot → the digest of the picture it shows
        self._shown: dict[Slot, _Shown] = {}
        self._slot_chat: dict[Slot, int] = {}  # the chat of each slot delivered
        self.stale = 0  # several processes: older contents another process had replaced
        self.fenced = 0  # several processes: deliveries stopped by a lease that had moved
        self._forgetting: set[asyncio.Task[None]] = set()
        self._gone: set[tuple[int, int]] = set()  # (chat, message) deleted by an act
        self._dispatch: asyncio.Task[None] | None = None
        # the chats' deliveries under way, a turn each (a chat waiting for one holds no task)
        self._delivering: set[asyncio.Task[None]] = set()
        self._closed = False
        self.pace.granted = self._granted
        self._asking: set[int] = set()  # chats whose message being delivered asks (a question)
        # what the tables post goes to the queues: a question posted to a chat that waits for
        # a turn moves the turn up (Pace.hurry)
        queues.posted = self._posted

    @property
    def errors(self) -> int:
        """Messages given up (bot.calls), and messages that could not be delivered."""
        return self.api.errors

    def start(self) -> None:
        """Deliver from now on, to each chat that gets a message."""
        self._dispatch = asyncio.get_running_loop().create_task(self._dispatching(), name="send")

    def post(self, out: Out) -> None:
        self.queues.post(out)

    def _posted(self, out: Out) -> None:
        if asks(out):  # the chat's turn in the budget goes before other chats' edits
            self.pace.hurry(out.chat_id)

    def _level(self, chat_id: int) -> int:
        """The chat's place in the order of turns: a question's while one waits in its queue
        or is being delivered (a retry of it), and the old question's retirement after it
        (a question's :data:`RETIRE` asks too: bot.pacing.asks)."""
        chat = self.queues.chats.get(chat_id)
        question = chat_id > 0 and (
            chat_id in self._asking or (chat is not None and any(asks(o) for o in chat.queue))
        )
        return level(chat_id, question)

    async def _dispatching(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            chats, moot = await self.queues.woken()
            for outbox_id in moot:
                task = loop.create_task(self._forget(outbox_id))
                self._forgetting.add(task)
                task.add_done_callback(self._forgetting.discard)
            for chat_id in chats:
                chat = self.queues.chats.get(chat_id)
                if chat is not None and not chat.serving:
                    chat.serving = True
                    self._next(chat_id, chat)

    async def drain(self, timeout: float = 30.0) -> None:
        """Wait until everything posted so far has been delivered (tests, shutdown)."""
        await asyncio.wait_for(self.queues.idle.wait(), timeout)

    async def close(self) -> None:
        self._closed = True
        self.pace.forget()
        tasks = list(self._delivering)
        if self._dispatch is not None:
            tasks.append(self._dispatch)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def idle(self) -> bool:
        """Everything posted so far has been delivered."""
        return self.queues.idle.is_set()

    def pending(self) -> int:
        return self.queues.pending()

    # -- delivering ----------------------------------------------------------------------------
    # A chat served waits for its pace (a timer), then for its turn in the budget of calls (a
    # number in the pace: Pace.want) — no task: hundreds of chats wait so at a busy moment.
    # Its worker is made when the turn is granted; it delivers one message, then the chat
    # waits again (:meth:`_next`) while more wait in its queue.
    def _next(self, chat_id: int, chat: ChatQueue) -> None:
        """The chat's next message: its turn asked once its pace allows (newer updates
        coalesce meanwhile)."""
        wait = chat.last + self.pacing.interval(chat_id) - time.monotonic()
        if wait > 0:
            asyncio.get_running_loop().call_later(wait, self._want, chat_id)
        else:
            self._want(chat_id)

    def _want(self, chat_id: int) -> None:
        """A turn for the chat, at its level now (a question posted later hurries it)."""
        chat = self.queues.chats.get(chat_id)
        if self._closed or chat is None or not chat.serving:
            return
        if not chat.queue:
            self.queues.done(chat_id)
            return
        self.pace.want(chat_id, self._level(chat_id))

    def _granted(self, chat_id: int) -> None:
        """The chat's turn: its worker delivers its next message."""
        chat = self.queues.chats.get(chat_id)
        if self._closed or chat is None or not chat.serving:
            return
        task = asyncio.get_running_loop().create_task(self._run(chat_id, chat))
        self._delivering.add(task)
        task.add_done_callback(self._delivering.discard)

    async def _run(self, chat_id: int, chat: ChatQueue) -> None:
        failed = 0
        again = True
        try:
            while True:
                try:
                    async with self.deployment.delivering(chat_id, chat, self._forget) as turn:
                        if turn.fresh:  # another process may have changed what the chat shows
                            for slot in [k for k, c in self._slot_chat.items() if c == chat_id]:
                                self._shown.pop(slot, None)
                                self._pictures.pop(slot, None)
                        while await self._send_one(chat_id, chat, turn):
                            if not await self._goes_on(chat_id, chat):
                                break
                    return
                except Exception as e:  # the database away a moment (several processes)
                    # tried again: given up, what waits in the chat's queue would wait until
                    # the chat's next message (a question never sent); a fault that stays is
                    # no reason to spin: after RETRIES the chat is no longer served
                    failed += 1
                    if failed > RETRIES:
                        log.exception("delivery to chat %d stopped after %d tries", chat_id, failed)
                        again = False
                        return
                    log.warning("delivery to chat %d interrupted (%r): tried again", chat_id, e)
                    await asyncio.sleep(RETRY_S)
        finally:
            if again and chat.queue and not self._closed:
                self._next(chat_id, chat)
            else:
                self.queues.done(chat_id)

    async def _goes_on(self, chat_id: int, chat: ChatQueue) -> bool:
        """Whether the chat's worker goes on in its turn's lease (several processes: no new
        lease and outbox read on a question's path): only for a question's next message —
        the old question's delete, the asked player's taps shown on it — a short wait at the
        question's level; anything else waits for its turn without a task (:meth:`_next`)."""
        if self._closed or not chat.queue or self._level(chat_id) != QUESTION:
            return False
        await self._chat_paced(chat_id, chat)  # newer updates coalesce meanwhile
        if self._closed or not chat.queue or self._level(chat_id) != QUESTION:
            return False
        await self.pace.turn(QUESTION, chat_id)
        return True

    async def _send_one(self, chat_id: int, chat: ChatQueue, turn: Turn) -> bool:
        """The chat's next message, in the turn granted (a call of its own tried again takes
        another: bot.calls); False when this process no longer holds the chat's delivery."""
        await self._chat_paced(chat_id, chat)  # several processes: another one called lately
        if not chat.queue:
            return True
        out = chat.queue.pop(0)
        go = await turn.claim(out)  # several processes: the lease's fencing token
        if go is None:  # the lease moved: the chat waits for whoever holds it now
            chat.queue.insert(0, out)
            self.fenced += 1
            return False
        if not go:
            return True  # delivered by another process meanwhile
        self.queues.delivering += 1
        if asks(out):
            self._asking.add(chat_id)
        try:
            if turn.outdated(out):
                self.stale += 1
            else:
                await self._deliver(out)
        except Exception:  # one bad message never stops a chat's queue
            self.api.errors += 1
            log.exception("could not deliver to chat %d", chat_id)
        finally:
            self.queues.delivering -= 1
            self._asking.discard(chat_id)
        chat.last = time.monotonic()
        new_id = self.api.moved.pop(chat_id, None)
        if new_id is not None:
            await self._follow(chat_id, new_id, [out, *chat.queue])
            chat.queue.clear()
            return True
        if out.outbox_id is not None:
            # delivered, or never deliverable (refused, malformed): out of the outbox.
            # A kill during the call itself leaves it there: sent again after the
            # restart (the one case where a message may arrive twice)
            await self._forget(out.outbox_id)
        return True

    async def _chat_paced(self, chat_id: int, chat: ChatQueue) -> None:
        """Until the chat's pace has passed since its last call (Telegram: a message a second
        in a private chat)."""
        pace = self.pacing.interval(chat_id)
        if pace > 0 and (wait := chat.last + pace - time.monotonic()) > 0:
            await asyncio.sleep(wait)

    async def _paced(
        self, chat_id: int, make: Callable[[], Awaitable[object]], once: bool = False
    ) -> Message | bool:
        """One call to the chat (bot.calls), after the chat's pace since its last call: a
        message's further calls — an edit refused and the message sent anew, a delete refused
        and the buttons taken off, a picture's file_id refused and the picture uploaded —
        wait for it like the message's first call (Telegram: a message a second in a private
        chat, whatever the message)."""
        chat = self.queues.chats.get(chat_id)
        if chat is not None:
            await self._chat_paced(chat_id, chat)
        try:
            return await self.api.call(chat_id, make, once)
        finally:
            if chat is not None:
                chat.last = time.monotonic()

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
        if out.act == RETIRE and out.message_id is not None:
            await self._delete(out.chat_id, out.message_id)
            return
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
                self._retire(out, old)  # one live message per slot

    async def _act(self, out: Out, slot: Slot) -> None:
        """bot.pins: the slot's message deleted, pinned or unpinned."""
        msg_id = out.message_id or await self.slots.slot_id(slot)
        if msg_id is None or (out.chat_id, msg_id) in self._gone:
            return
        if await deliver_act(self.pins, self.bot, self._call, msg_id, out):
            self._gone.add((out.chat_id, msg_id))
            self._shown.pop(slot, None)
            if len(self._gone) > 4096:
                self._gone = set(sorted(self._gone)[-2048:])

    def _retire(self, out: Out, old: int) -> None:
        """The slot's earlier message goes once ``out`` is out: its buttons must not outlive it
        (a question asked anew, a hand sent again), nor a second picture of the hand stand
        above the new one. Next in the chat's queue (the chat's pace after the send), at a
        question's level when it retires the old question: at the private level it waited
        behind every player's other messages (580 of them at the bench's first leads, 35 s)
        while the chat's edits, the asked player's taps among them, waited behind it."""
        retire = Out(out.chat_id, "", slot=out.slot, new=asks(out), message_id=old, act=RETIRE)
        chat = self.queues.chats.get(out.chat_id)
        if chat is None:
            self.post(retire)
        else:
            chat.queue.insert(0, retire)

    async def _delete(self, chat_id: int, message_id: int) -> None:
        """A message deleted; too old to delete (48 h), or gone: then only its buttons."""
        if (chat_id, message_id) in self._gone:
            return
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
            key, known = await self.uploads.known(data)

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
                key, known = await self.uploads.known(data)
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
                self.uploads.refused(key)
        self.uploads.uploading(data)
        result = await self._call(chat_id, lambda: call(data), once=once)
        if isinstance(result, Message) and result.photo:
            await self.uploads.uploaded(key, result.photo[-1].file_id)
        return result

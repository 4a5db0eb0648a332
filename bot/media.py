"""Delivering a :class:`bot.outbox.Media` message: an animation (sendAnimation), a document
(sendDocument), or a picture put in place of a message the bot sent (editMessageMedia). The
sender calls :func:`send_media` from a chat's queue, so these calls are paced and retried like
every other; the file is made by a worker process first."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest

from renderers.fit import MAX_CAPTION, fit

from .keyboards import Keyboard
from .outbox import MediaKind, Out
from .workers import Workers

log = logging.getLogger("gouji.media")
Call = Callable[..., Awaitable[Message | bool]]  # Sender._call(chat_id, make, once=…)


def markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    """A keyboard as Telegram's inline markup."""
    if keyboard is None:
        return None
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(b.text, callback_data=b.data, url=b.url) for b in row]
            for row in keyboard
            if row
        ]
    )


async def send_media(
    bot: Bot, workers: Workers, call: Call, out: Out, kb: InlineKeyboardMarkup | None
) -> Message | bool:
    """Make the file of ``out.media`` in a worker and send it (``call``: the sender's call with
    its retries). An edit that changes nothing (two presses of one step button) is no error."""
    media = out.media
    assert media is not None
    data = await workers.run(media.make)
    caption = fit(out.text, MAX_CAPTION)
    chat, thread = out.chat_id, out.thread_id
    if media.kind in (MediaKind.ANIMATION, MediaKind.DOCUMENT):
        send = bot.send_animation if media.kind == MediaKind.ANIMATION else bot.send_document

        def make() -> Awaitable[object]:
            return send(
                chat,
                data,
                filename=media.filename,
                caption=caption,
                parse_mode=ParseMode.HTML,
                reply_markup=kb,
                message_thread_id=thread,
                disable_notification=out.silent,
            )

    else:
        assert media.edit is not None, "a picture edited in place needs its message"
        message_id = media.edit

        def make() -> Awaitable[object]:
            photo = InputMediaPhoto(
                data, caption=caption, parse_mode=ParseMode.HTML, filename=media.filename
            )
            return bot.edit_message_media(
                photo, chat_id=chat, message_id=message_id, reply_markup=kb
            )

    try:
        return await call(chat, make, once=media.edit is None)
    except BadRequest as e:
        if "not modified" in e.message:
            return True
        log.info("a %s for chat %d was refused: %s", media.kind, chat, e.message)
        return False

"""Helpers of the local Bot API server's tests (test_localapi_updates.py, test_localapi_calls.py):
a picture, a keyboard, and the handlers of a small echo bot."""

from __future__ import annotations

import io

from PIL import Image
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes

Context = ContextTypes.DEFAULT_TYPE


def png(width: int = 40, height: int = 30, colour: str = "red") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


def keyboard(*buttons: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t, callback_data=d) for t, d in buttons]])


async def echo(update: Update, context: Context) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text("echo: " + " ".join(context.args or []))


async def start(update: Update, context: Context) -> None:
    assert update.effective_chat is not None
    payload = context.args[0] if context.args else "-"
    await context.bot.send_message(update.effective_chat.id, f"<b>hello</b> {payload}", "HTML")


async def menu(update: Update, context: Context) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text("pick", reply_markup=keyboard(("A", "a"), ("B", "b")))


async def picked(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None
    await query.answer(f"you picked {query.data}")
    await query.edit_message_text(f"picked {query.data}", reply_markup=keyboard(("Again", "c")))

"""Logging that never shows the bot's token nor a hand: every record is redacted as it is made,
its message and any traceback included (the token sits in every Bot API URL), and the client
libraries that would log request bodies (a player's hand is in their DM's caption) stay at INFO."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import Any

MASK = "<token>"
_CLIENTS = ("telegram", "httpcore", "httpx", "aiohttp", "aiosqlite")  # DEBUG lines: hands
_tokens: set[str] = set()
_installed = False


def redact(text: str) -> str:
    for token in _tokens:
        if token:
            text = text.replace(token, MASK)
            # the numeric bot id alone is public; the secret part after the colon is not
            secret = token.split(":", 1)[-1]
            if len(secret) >= 8:
                text = text.replace(secret, MASK)
    return text


def protect(token: str | None) -> None:
    """Redact ``token`` from every log record made from now on, in this process."""
    global _installed
    if token:
        _tokens.add(token)
    if _installed:
        return
    _installed = True
    make: Callable[..., logging.LogRecord] = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        if record.levelno < logging.INFO and record.name.startswith(_CLIENTS):
            # the Telegram client's DEBUG lines carry whole requests and updates: a DM's
            # caption holds that player's hand
            record.msg, record.args = f"{record.name}: (request details not logged)", ()
            return record
        if not _tokens:
            return record
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep the record as logging would
            return record
        record.msg, record.args = redact(message), ()
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info))).rstrip()
            record.exc_info = None
        return record

    logging.setLogRecordFactory(factory)
    # httpx logs every request line at INFO, URL (and so token) included: keep it quiet; the
    # Bot API client logs each call's parameters at DEBUG, a player's hand caption included
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # aiosqlite logs every statement with its parameters at DEBUG: a stored record's hands
    for name in ("telegram", "httpcore", "aiosqlite"):  # (updates at DEBUG: DM captions too)
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() < logging.INFO:
            logger.setLevel(logging.INFO)

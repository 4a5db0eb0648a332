"""Running a real python-telegram-bot Application against a :class:`LocalBotApi`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any

from telegram import Update
from telegram.ext import Application, ApplicationBuilder, BaseHandler, ContextTypes

from .server import LocalBotApi

App = Application[Any, Any, Any, Any, Any, Any]
Builder = ApplicationBuilder[Any, Any, Any, Any, Any, Any]


def app_builder(api: LocalBotApi) -> Builder:
    """An ApplicationBuilder pointed at the local server."""
    return (
        ApplicationBuilder()
        .token(api.token)
        .base_url(api.base_url)
        .base_file_url(api.base_file_url)
    )


@asynccontextmanager
async def running_app(
    api: LocalBotApi,
    handlers: Iterable[BaseHandler[Any, Any, Any]] = (),
    *,
    configure: Callable[[Builder], Builder] | None = None,
    poll_timeout: int = 10,
    reraise: bool = True,
) -> AsyncIterator[App]:
    """A started Application polling ``api``; on exit the long poll is released and the
    Application shut down. With ``reraise``, an exception raised by a handler is raised again
    at exit (PTB would only log it)."""
    builder = app_builder(api)
    app = (configure(builder) if configure else builder).build()
    errors: list[BaseException] = []

    async def keep(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        if context.error is not None:
            errors.append(context.error)

    app.add_handlers(list(handlers))
    app.add_error_handler(keep)
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=poll_timeout)
        try:
            yield app
        finally:
            api.release_polls()
            await app.updater.stop()
            await app.stop()
            api.resume_polls()
    if errors and reraise:
        raise errors[0]


__all__ = ["App", "Update", "app_builder", "running_app"]

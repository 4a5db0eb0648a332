"""A local Bot API server with simulated users and groups, for the offline demo, the end-to-end
tests and the load bench. The real python-telegram-bot client talks to it over loopback::

    async with LocalBotApi() as api:
        table = api.group(-1001, "牌桌", admins=[api.bot_id])
        wang = api.user(11, "老王")
        async with running_app(api, handlers):       # or app_builder(api)….build()
            await wang.send("/new@gouji_bot", table)  # gets its bot_command entity
            await api.idle()                          # the bot has answered
            (msg,) = api.messages(table.id)
            await wang.press(msg, text="入座")         # LookupError unless shown
            await api.idle()
        print(api.stats(), api.latency())

Errors follow Telegram (400 with its descriptions, 403 for users who never started the bot or
blocked it, 429 under :class:`RateLimits`); ``fail_next`` injects 500/502 answers.
"""

from .harness import app_builder, running_app
from .limits import RateLimits
from .records import ApiError, Button, CallbackAnswer, SentMessage
from .server import ApiCall, LocalBotApi
from .world import SimGroup, SimUser

__all__ = [
    "ApiCall",
    "ApiError",
    "Button",
    "CallbackAnswer",
    "LocalBotApi",
    "RateLimits",
    "SentMessage",
    "SimGroup",
    "SimUser",
    "app_builder",
    "running_app",
]

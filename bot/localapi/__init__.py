"""A local Bot API server with simulated users and groups, for the offline demo, the end-to-end
tests and the load bench. The real python-telegram-bot client talks to it over loopback::

    api = LocalBotApi()
    await api.start()
    app = ApplicationBuilder().token(api.token).base_url(api.base_url) \\
        .base_file_url(api.base_file_url).build()
"""

from .limits import RateLimits
from .server import ApiCall, LocalBotApi
from .world import ApiError, Button, CallbackAnswer, SentMessage, SimGroup, SimUser

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
]

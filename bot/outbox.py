"""What the table service wants shown: messages to send or to put in place, as plain data.
The sender delivers them in order per chat, coalescing updates of the same message."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .keyboards import Keyboard

# A message the bot keeps editing: (table id, name), the name one of "lobby", "table", "log",
# or "hand<seat>".
Slot = tuple[int, str]


@dataclass
class Out:
    """One message for ``chat_id``. With ``slot`` it is the current content of that message
    (sent the first time, edited afterwards; a newer one replaces a pending older one);
    without, a new message (an announcement)."""

    chat_id: int
    text: str
    keyboard: Keyboard | None = None
    thread_id: int | None = None
    slot: Slot | None = None
    # A picture, rendered only when it is about to be sent (a coalesced update never renders),
    # by a worker process: a picklable call such as ``functools.partial(render_table, …)``;
    # ``photo_key`` says what it shows, so an unchanged picture is not uploaded again.
    photo: Callable[[], bytes] | None = None
    photo_key: str = ""
    silent: bool = False
    new: bool = False  # a slot message sent anew (the old one is deleted), e.g. after /hand


@dataclass(frozen=True)
class Answer:
    """The answer to a button press: a toast (or an alert), or a link to open."""

    text: str = ""
    alert: bool = False
    url: str | None = None

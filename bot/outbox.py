"""What the table service wants shown: messages to send or to put in place, as plain data.
The sender delivers them in order per chat, coalescing updates of the same message."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from .keyboards import Keyboard


class SlotKind(StrEnum):
    """The messages of a table the bot keeps editing (each kept in the table's state)."""

    LOBBY = "lobby"  # the group's lobby
    TABLE = "table"  # the group's table picture and caption
    LOG = "log"  # a page of the group's trick log (index: the page)
    HAND = "hand"  # a player's hand message (index: the seat)
    AFK = "afk"  # the group's notice about a seat in 托管 (index: the seat)
    READY = "ready"  # the group's ready check before the next game (bot.ready)


class MediaKind(StrEnum):
    """What a :class:`Media` message is."""

    ANIMATION = "animation"  # sendAnimation (a GIF)
    DOCUMENT = "document"  # sendDocument (a file)
    PHOTO = "photo"  # a picture put in place of message ``Media.edit`` (editMessageMedia)


@dataclass(frozen=True)
class Media:
    """A file a message carries besides the pictures of :attr:`Out.photo`: its bytes made by
    ``make`` (a picklable call, run by a worker process when the message is sent) and its
    file name; ``edit``: the message whose picture it replaces (its ``Out`` keeps the caption
    and buttons)."""

    kind: MediaKind
    make: Callable[[], bytes]
    filename: str
    edit: int | None = None


# The sender's act: a slot's earlier message (``message_id``) deleted once its new one is out
# (one live message a slot); ``new``: at a question's level (it retires a question)
RETIRE = "retire"


@dataclass(frozen=True, slots=True)
class Slot:
    """One message a table keeps in place: which table, which kind, whose (page or seat)."""

    table: int
    kind: SlotKind
    index: int = 0


@dataclass(slots=True)
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
    info: bool = False  # an answer to a command (help, rules): dropped first when a chat floods
    # an edit of this message, which no slot keeps (the settings menu a press came from)
    message_id: int | None = None
    # the stored row of a message caused by an action (stored with it): deleted once delivered
    outbox_id: int | None = None
    media: Media | None = None  # an animation, a document, or a picture edited in place
    # the table's rev it shows (several processes: a slot's older content is never put in
    # place of a newer one another process delivered)
    rev: int = 0
    # a story answer (bot.storyqueue): the chat's game messages go before it
    later: bool = False
    # an act on the slot's message instead of content: "delete", "pin", "unpin" (bot.pins);
    # :data:`RETIRE` (the sender's own)
    act: str = ""

    def dumps(self) -> bytes:
        """The message as stored in the outbox, beside the action that caused it: versioned
        JSON (bot.stored; its picture a named drawing with its data, drawn when sent, after a
        restart too)."""
        from . import stored

        return stored.dumps(replace(self, outbox_id=None))

    @staticmethod
    def loads(data: bytes, outbox_id: int) -> Out:
        """A stored message (ValueError: not one of ours, a pickle, or from an incompatible
        version)."""
        from . import stored

        try:
            out = stored.loads(bytes(data))
        except ValueError as e:
            raise ValueError(f"stored message {outbox_id} does not load: {e}") from e
        if not isinstance(out, Out):
            raise ValueError(f"stored message {outbox_id} is a {type(out).__name__}")
        return replace(out, outbox_id=outbox_id)


@dataclass(frozen=True)
class Answer:
    """The answer to a button press: a toast (or an alert), or a link to open; ``edit``: the
    pressed message's new content, put in place after the press is answered."""

    text: str = ""
    alert: bool = False
    url: str | None = None
    edit: Out | None = None


class SlotStore(Protocol):
    """Where the message ids of slots are kept (:class:`bot.tables.Tables`, for the sender)."""

    async def slot_id(self, slot: Slot) -> int | None: ...

    async def slot_sent(self, slot: Slot, message_id: int) -> None: ...


class OutboxStore(Protocol):
    """Where the messages stored with their actions wait (:class:`bot.storage.Storage`)."""

    async def message_delivered(self, outbox_id: int) -> None: ...

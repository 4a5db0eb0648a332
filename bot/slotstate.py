"""The message ids of the messages a table keeps in place (its lobby, table picture, ready
check, log pages, hands, AFK notices) as a table's state carries them; each new id is also
stored on its own (:meth:`bot.storage_interface.Storage.save_slot`), and a table loaded or
brought up to date takes the stored ids over its state's (:func:`take_stored`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from .model import TableState
from .outbox import SlotKind


def slot_id(st: TableState, kind: SlotKind, index: int = 0) -> int | None:
    """The message id a slot has in a table's state."""
    match kind:
        case SlotKind.LOBBY:
            return st.lobby_msg
        case SlotKind.TABLE:
            return st.table_msg
        case SlotKind.READY:
            return st.ready_msg
        case SlotKind.LOG:
            return st.log_msgs.get(index)
        case SlotKind.HAND:
            return st.hand_msgs.get(index)
        case SlotKind.AFK:
            return st.afk_msgs.get(index)
        case _:
            assert_never(kind)


def keep(st: TableState, kind: SlotKind, index: int, message_id: int) -> None:
    """A slot's message is now ``message_id`` (log pages before the one before it are let go)."""
    match kind:
        case SlotKind.LOBBY:
            st.lobby_msg = message_id
        case SlotKind.TABLE:
            st.table_msg = message_id
        case SlotKind.READY:
            st.ready_msg = message_id
        case SlotKind.LOG:
            st.log_msgs = {p: m for p, m in st.log_msgs.items() if p >= index - 1}
            st.log_msgs[index] = message_id
        case SlotKind.HAND:
            st.hand_msgs[index] = message_id
        case SlotKind.AFK:
            st.afk_msgs[index] = message_id
        case _:
            assert_never(kind)


def take_stored(st: TableState, stored: Iterable[tuple[str, int, int]]) -> None:
    """The ids stored apart (kind, index, id; in index order) over those the state carries
    (a table stored before they were kept apart has only those)."""
    for kind, index, message_id in stored:
        try:
            keep(st, SlotKind(kind), index, message_id)
        except ValueError:
            continue  # a kind this version does not keep

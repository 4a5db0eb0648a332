"""The message ids of the messages a table keeps in place (its lobby, table picture, log pages,
hands, AFK notices): the sender's slot store. A table's state carries them; each new id is also
stored on its own (:meth:`bot.storage_interface.Storage.save_slot`, one small write: delivering
a message never writes the table's row again), and a table loaded or brought up to date takes
the stored ids over its state's (:func:`take_stored`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, assert_never

from .model import TableState
from .outbox import Slot, SlotKind

if TYPE_CHECKING:
    from .tables import Tables


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


class TableSlots:
    """Slots' message ids, as the tables of ``tables`` keep them."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def slot_id(self, slot: Slot) -> int | None:
        """The message id a slot's message has (for the sender; several processes: as
        stored, another process may have sent it anew)."""
        table = await self.tables.find(slot.table)
        if table is None:
            return None
        async with self.tables.deployment.current(self.tables, table):
            return slot_id(table.st, SlotKind(slot.kind), slot.index)

    async def slot_sent(self, slot: Slot, message_id: int) -> None:
        """The sender put a slot's message at ``message_id``: remember it, and store it on its
        own (the table's row is not written again, nor the table held)."""
        kind = SlotKind(slot.kind)  # (a message loaded from the outbox says it as a string)
        table = self.tables.get(slot.table)
        if table is not None:
            keep(table.st, kind, slot.index, message_id)
        await self.tables.storage.save_slot(slot.table, kind.value, slot.index, message_id)

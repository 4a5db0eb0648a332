"""The message ids of the messages a table keeps in place (its lobby, table picture, log pages,
hands, AFK notices), kept in the table's state: the sender's slot store."""

from __future__ import annotations

from typing import assert_never

from .outbox import Slot, SlotKind
from .table import Table
from .tables import Tables


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
            return self._slot_id(table, slot)

    @staticmethod
    def _slot_id(table: Table, slot: Slot) -> int | None:
        st = table.st
        match slot.kind:
            case SlotKind.LOBBY:
                return st.lobby_msg
            case SlotKind.TABLE:
                return st.table_msg
            case SlotKind.READY:
                return st.ready_msg
            case SlotKind.LOG:
                return st.log_msgs.get(slot.index)
            case SlotKind.HAND:
                return st.hand_msgs.get(slot.index)
            case SlotKind.AFK:
                return st.afk_msgs.get(slot.index)
            case _:
                assert_never(slot.kind)

    async def slot_sent(self, slot: Slot, message_id: int) -> None:
        """The sender put a slot's message at ``message_id``: remember it (stored)."""
        table = await self.tables.find(slot.table)
        if table is None:
            return
        async with self.tables.locked(table):
            self._slot_sent(table, slot, message_id)
            await self.tables.save(table)

    @staticmethod
    def _slot_sent(table: Table, slot: Slot, message_id: int) -> None:
        st = table.st
        match slot.kind:
            case SlotKind.LOBBY:
                st.lobby_msg = message_id
            case SlotKind.TABLE:
                st.table_msg = message_id
            case SlotKind.READY:
                st.ready_msg = message_id
            case SlotKind.LOG:
                st.log_msgs = {p: m for p, m in st.log_msgs.items() if p >= slot.index - 1}
                st.log_msgs[slot.index] = message_id
            case SlotKind.HAND:
                st.hand_msgs[slot.index] = message_id
            case SlotKind.AFK:
                st.afk_msgs[slot.index] = message_id
            case _:
                assert_never(slot.kind)

"""The message ids of the messages a table keeps in place (its lobby, table picture, log pages,
hands, AFK notices): the sender's slot store. A table's state carries them; each new id is also
stored on its own (:meth:`bot.storage_interface.Storage.save_slot`, one small write: delivering
a message never writes the table's row again), and a table loaded or brought up to date takes
the stored ids over its state's (:func:`bot.slotstate.take_stored`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .outbox import Slot, SlotKind
from .slotstate import keep

if TYPE_CHECKING:
    from . import storage as S
    from .deployment import Deployment
    from .tables import Tables


class TableSlots:
    """Slots' message ids, as the tables of ``tables`` keep them."""

    def __init__(self, tables: Tables, deployment: Deployment, storage: S.Storage) -> None:
        self.tables = tables
        self.deployment = deployment
        self.storage = storage

    async def slot_id(self, slot: Slot) -> int | None:
        """The message id a slot's message has (for the sender; several processes: as
        stored, another process may have sent it anew — read without holding the table)."""
        return await self.deployment.slot_id(self.tables, slot)

    async def slot_sent(self, slot: Slot, message_id: int) -> None:
        """The sender put a slot's message at ``message_id``: remember it, and store it on its
        own (the table's row is not written again, nor the table held)."""
        kind = SlotKind(slot.kind)  # (a message loaded from the outbox says it as a string)
        table = self.tables.get(slot.table)
        if table is not None:
            keep(table.st, kind, slot.index, message_id)
        await self.storage.save_slot(slot.table, kind.value, slot.index, message_id)

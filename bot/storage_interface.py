"""The storage interface the bot codes against: the rows that go in and out (plain dataclasses;
flexible fields are JSON-able dicts the storage never looks into), the errors raised on purpose,
and the `Storage` protocol. Its implementations, SQLite and PostgreSQL, are in
:mod:`bot.sql_storage` and the modules beside it; :mod:`bot.storage` picks one for ``GOUJI_DB``.

A table's match is stored as its action log (one row per action, numbered from 0) beside the
table's opaque `state`; `TableRow.version` counts the stored actions and guards every write
(optimistic concurrency).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .model import TableStatus

ACTIVE = (TableStatus.LOBBY, TableStatus.PLAYING)  # a (chat, thread) has at most one table so
STATUSES = tuple(TableStatus)
OVER_KEPT_S = 86400.0  # a finished game's 再来一局 still works after a restart within a day


@dataclass
class ChatRow:
    chat_id: int
    lang: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # opaque to storage


@dataclass
class UserRow:
    user_id: int
    name: str
    lang: str | None = None
    dm_ok: bool = False
    updated_at: float = 0.0  # set by the storage on save


@dataclass
class TableRow:
    table_id: int | None  # None until created
    chat_id: int
    thread_id: int | None  # forum topic
    status: TableStatus
    opener: int  # user id
    state: dict[str, Any]  # opaque JSON
    version: int = 0  # number of match actions stored (== len(actions))
    created_at: float = 0.0  # set by the storage
    updated_at: float = 0.0  # set by the storage
    rev: int = 0  # saves so far (set by the storage); a shared writer's save compares it
    mem: bytes | None = None  # what the table's next press needs besides `state` (opaque)
    settled: bool = True  # several processes: False while a change is half stored
    # the kept messages' ids stored apart (kind, index, message id; bot.slots), set on loading
    slots: tuple[tuple[str, int, int], ...] = ()


class StorageError(Exception):
    """Base of the errors this module raises on purpose."""


class TableExists(StorageError):
    """The chat (topic) already has a lobby or playing table."""


class VersionConflict(StorageError):
    """A writer's version is stale: somebody else stored actions first. Nothing was written."""


class TableNotFound(StorageError, LookupError):
    """No table with that id."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot than this one."""


class Storage(Protocol):
    """What the bot codes against. Rows go in and out as the dataclasses above; the storage sets
    the timestamps (and writes them back on the rows it is given)."""

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def get_chat(self, chat_id: int) -> ChatRow | None: ...
    async def save_chat(self, row: ChatRow) -> None: ...
    async def get_user(self, user_id: int) -> UserRow | None: ...
    async def save_user(self, row: UserRow) -> None: ...

    async def create_table(self, row: TableRow) -> TableRow:
        """Stores a new table (no actions yet): fills in `table_id`, `version` = 0 and the
        timestamps on `row` and returns it. `TableExists` if the chat (topic) has an open one."""

    async def save_table(
        self,
        row: TableRow,
        new_actions: Sequence[str] = (),
        outbox: Sequence[bytes | tuple[int, bytes]] = (),
        expect_rev: int | None = None,
        also: Callable[[Any], Awaitable[None]] | None = None,
    ) -> list[int]:
        """One transaction: appends `new_actions` as seq `row.version - len(new_actions)` …
        `row.version - 1`, stores status, state and version (chat, thread and opener are fixed
        at creation) and puts the messages those actions caused (`outbox`, opaque; or
        (chat, message) for another chat than the table's) in the outbox; their outbox ids, in
        order. `VersionConflict`, nothing written, unless the stored version is
        `row.version - len(new_actions)`; `TableExists` when reopening beside an open table.
        With `expect_rev` (several processes share the database) the stored `rev` must be
        that too (`VersionConflict` otherwise); every save adds one to it, and stores
        `row.mem`, `row.settled` and the storage's `owner` as the table's last writer; `also`
        writes more in the same transaction (given the unit of work) when the save is stored
        (the timers a change sets)."""

    async def pending_messages(self) -> list[tuple[int, bytes]]:
        """The outbox: messages stored with their actions and not yet delivered, oldest first
        (id, message)."""

    async def message_delivered(self, outbox_id: int) -> None:
        """An outbox message was delivered (or can never be): it leaves the outbox."""

    async def load_table(self, table_id: int) -> TableRow | None: ...

    async def save_slot(self, table_id: int, kind: str, index: int, message_id: int) -> None:
        """A message the table keeps in place (``kind``, ``index``: bot.slots) is now
        ``message_id``: one small write, the table's row untouched (nothing for a table that
        is gone)."""

    async def load_slots(self, table_id: int) -> list[tuple[str, int, int]]:
        """The table's kept messages' ids as :meth:`save_slot` stored them (kind, index, id)."""

    async def table_for_chat(self, chat_id: int, thread_id: int | None = None) -> TableRow | None:
        """The chat's (topic's) lobby or playing table, if any."""

    async def load_actions(self, table_id: int, since: int = 0) -> list[str]:
        """A table's actions in order, from number ``since`` on."""

    async def unfinished_tables(self) -> list[TableRow]:
        """Lobby and playing tables, and tables whose game ended within ``OVER_KEPT_S`` (their
        再来一局 button carries the match on), oldest first."""
        ...

    async def save_game(
        self, table_id: int, chat_id: int, number: int, record: dict[str, Any]
    ) -> None:
        """Stores game `number` of a table (a RECORDS.md record). Idempotent: the first record
        saved for (table_id, number) stays. `TableNotFound` for an unknown table."""

    async def games(self, chat_id: int, limit: int = 20) -> list[dict[str, Any]]:
        """The chat's game records, newest first."""

    async def get_upload(self, digest: str) -> str | None:
        """The file_id of a picture uploaded before (by the digest of its bytes)."""

    async def save_upload(self, digest: str, file_id: str) -> None:
        """Remember a picture's file_id (the first one stays)."""

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: its settings, tables and games move to the new id (a
        settings row the new chat already has is kept). `TableExists`, nothing moved, if both
        chats have an open table in the same topic."""

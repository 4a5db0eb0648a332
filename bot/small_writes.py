"""Small writes in the group commit (issue 33, the noisy-neighbour bench): a delivered
message's bookkeeping — its slot's message id, a picture's file_id, an outbox row gone — is one
statement each, but on SQLite's one connection each used to be a transaction of its own, with
its own fsync, and a press's table save queued behind every one of them: a busy group (a
flood of answers, games played at full speed) slowed every other table's presses.

With :attr:`bot.sql_storage.SqlStorage.group_small` (SQLite), such a write waits for the next
group commit instead and is committed with the table saves and the other small writes that
arrived meanwhile: one commit for many, so a press's save waits for at most the commit under
way. Each small write still succeeds or fails on its own (a savepoint each, when one fails).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class _Tx(Protocol):
    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int: ...


@dataclass
class SmallWrite:
    """One statement waiting for the next group commit."""

    sql: str
    args: tuple[Any, ...]
    done: asyncio.Future[None]
    started: bool = False  # its commit has begun: it is written or refused
    dropped: bool = False  # its writer was cancelled before: never written


async def write_small(tx: _Tx, writes: list[SmallWrite]) -> list[Exception | None]:
    """The writes in ``tx``, all under one savepoint; when one fails, again one by one, each
    under its own, so only the failing one is refused (its error in its place)."""
    await tx.execute("SAVEPOINT small")
    try:
        for w in writes:
            await tx.execute(w.sql, w.args)
    except Exception as e:
        await tx.execute("ROLLBACK TO SAVEPOINT small")
        await tx.execute("RELEASE SAVEPOINT small")
        if len(writes) > 1:
            return [(await write_small(tx, [w]))[0] for w in writes]
        return [e]
    await tx.execute("RELEASE SAVEPOINT small")
    return [None] * len(writes)


def settle(writes: list[SmallWrite], outcomes: list[Exception | None] | BaseException) -> None:
    """Each write's waiter told its outcome (``outcomes``: one each, or the commit's error)."""
    for i, w in enumerate(writes):
        if w.done.done():
            continue
        error = outcomes if isinstance(outcomes, BaseException) else outcomes[i]
        if error is None:
            w.done.set_result(None)
        else:
            w.done.set_exception(error)


async def wait_for(write: SmallWrite) -> None:
    """Until ``write`` is committed (or refused). Cancelled before its commit began: never
    written; after: the cancellation waits for the commit's end."""
    try:
        await asyncio.shield(write.done)
    except asyncio.CancelledError:
        write.dropped = not write.started
        if write.started:
            await asyncio.wait({write.done})
            if not write.done.cancelled():
                write.done.exception()  # retrieved: the caller is gone
        raise

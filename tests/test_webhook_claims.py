"""An update a killed process was handling (claimed in ``updates_seen``, never marked done) is
handled by the next delivery at once — on SQLite after the restart, on PostgreSQL by any live
process — instead of its chat being answered "try later" for a minute (a killed process froze
its players' chats); one a live process is handling is still refused (bot.seen)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest
from backends import Backend
from botkit import open_and_seat, people, world
from test_bot_isolation import command_update, post_raw

from bot.seen import CLAIM_S, Seen, StoredUpdates

pytestmark = pytest.mark.e2e


async def test_a_claim_of_a_dead_process_is_taken_over_of_a_live_one_not(backend: Backend) -> None:
    db = await backend.db()
    st = backend.storage(db)
    await st.open()
    try:
        mine = StoredUpdates(st)
        now = time.time()
        for proc, beat in (("live", now), ("gone", now - 60)):
            await backend.raw(db, "INSERT INTO procs VALUES (?, ?)", (proc, beat))
        claims = [(1, "live"), (2, "gone"), (3, "run:earlier"), (4, None)]
        for update_id, owner in claims:
            await backend.raw(
                db,
                "INSERT INTO updates_seen (update_id, seen_at, done, owner) VALUES (?, ?, 0, ?)",
                (update_id, now, owner),
            )
        assert await mine.claim(1) == Seen.BUSY  # a live process handles it
        assert await mine.claim(2) == Seen.NEW  # its process beats no more
        assert await mine.claim(3) == Seen.NEW  # an earlier run's (no process beats for it)
        assert await mine.claim(4) == Seen.BUSY  # whose, unknown: only once old
        assert await mine.claim(2) == Seen.BUSY  # mine now, still being handled
        await mine.done(2)
        assert await mine.claim(2) == Seen.DONE
        old = now - CLAIM_S - 1
        await backend.raw(db, "UPDATE updates_seen SET seen_at = ? WHERE update_id = 1", (old,))
        assert await mine.claim(1) == Seen.NEW  # any claim, once a minute old
    finally:
        await st.close()


async def test_an_update_a_killed_run_was_handling_is_handled_after_the_restart(
    tmp_path: Path,
) -> None:
    """Through the local server: the bot restarted on its SQLite database, where the run before
    left an update claimed and not done (killed while handling it): delivered again, it is
    handled at once, and once."""
    async with world(tmp_path, webhook=True) as w:
        g = w.api.group(-5201, "钩子")
        (me,) = people(w, 1, base=720)
        await open_and_seat(w, g, [me])
        await w.stop_bot()
        said = len(w.api.messages(g.id))
        update_id = 10**9 + 7
        with sqlite3.connect(w.db) as conn:  # what the killed run left
            conn.execute(
                "INSERT INTO updates_seen (update_id, seen_at, done, owner) VALUES (?, ?, 0, ?)",
                (update_id, time.time(), "run:killed"),
            )
        conn.close()
        await w.start_bot()
        update = json.dumps(command_update(update_id, g, me, "/help")).encode()
        assert await post_raw(w, update) == 200  # not 503 for a minute
        await w.settle()
        assert len(w.api.messages(g.id)) == said + 1
        assert await post_raw(w, update) == 200  # once more: answered, not handled
        await w.settle()
        assert len(w.api.messages(g.id)) == said + 1

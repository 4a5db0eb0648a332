"""The schema, in numbered versions: `MIGRATIONS[i]` takes a database from version i to i+1, each
in its own transaction; a later version only appends scripts. One list for both backends: the
scripts are written in SQLite's dialect and :func:`postgres_script` says them in PostgreSQL's
(64-bit ids, double-precision times, identity keys, ``bytea``), so the two schemas move in step.

SQLite keeps its version in ``PRAGMA user_version``, PostgreSQL in the one-row table
``gouji_schema`` (:data:`PG_VERSION_TABLE`).
"""

from __future__ import annotations

import re

# Version 1. `ifnull(thread_id, 0)`: a chat without topics is thread 0 (real topic ids are > 1),
# so the partial unique index also holds for NULL threads.
_V1 = """
CREATE TABLE chats (chat_id INTEGER PRIMARY KEY, lang TEXT, settings TEXT NOT NULL,
    updated_at REAL NOT NULL);
CREATE TABLE users (user_id INTEGER PRIMARY KEY, name TEXT NOT NULL, lang TEXT,
    dm_ok INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL);
CREATE TABLE game_tables (
    table_id INTEGER PRIMARY KEY AUTOINCREMENT, chat_id INTEGER NOT NULL, thread_id INTEGER,
    status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'over', 'abandoned')),
    opener INTEGER NOT NULL, state TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
    created_at REAL NOT NULL, updated_at REAL NOT NULL);
CREATE UNIQUE INDEX game_tables_active ON game_tables (chat_id, ifnull(thread_id, 0))
    WHERE status IN ('lobby', 'playing');
CREATE INDEX game_tables_chat ON game_tables (chat_id);
CREATE INDEX game_tables_status ON game_tables (status);
CREATE TABLE actions (
    table_id INTEGER NOT NULL REFERENCES game_tables (table_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL CHECK (seq >= 0), action TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)) WITHOUT ROWID;
CREATE TABLE games (
    table_id INTEGER NOT NULL REFERENCES game_tables (table_id) ON DELETE CASCADE,
    number INTEGER NOT NULL, chat_id INTEGER NOT NULL, record TEXT NOT NULL,
    created_at REAL NOT NULL, PRIMARY KEY (table_id, number));
CREATE INDEX games_chat ON games (chat_id, created_at);
"""

# Version 2: pictures the bot has uploaded, by a digest of their bytes, with the file_id
# Telegram gave them (sent again by file_id, not uploaded again).
_V2 = """
CREATE TABLE uploads (digest TEXT PRIMARY KEY, file_id TEXT NOT NULL, created_at REAL NOT NULL)
    WITHOUT ROWID;
"""

# Version 3: the outbox — the messages an action causes (a cheer, the game-over picture), stored
# in the action's transaction and deleted once delivered, so a kill between the commit and the
# send loses none of them.
_V3 = """
CREATE TABLE outbox (
    outbox_id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL REFERENCES game_tables (table_id) ON DELETE CASCADE,
    message BLOB NOT NULL, created_at REAL NOT NULL);
CREATE INDEX outbox_table ON outbox (table_id);
"""

# Version 4: the evening's story. Per finished game one row per seat: who sat there (a key,
# "u<telegram id>" or "ai:<level>", and the name at the time), when the game ended, and the
# seat's facts (engine.stats.SeatFacts, as integers; ``facts_version`` = FACTS_VERSION when
# they were derived) — the match of a game is its table. Badges earned (once per player per
# chat) and the 复盘 of each game posted (once). All rows derive from the stored records.
_V4 = """
CREATE TABLE game_facts (
    table_id INTEGER NOT NULL, number INTEGER NOT NULL,
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
    chat_id INTEGER NOT NULL, player TEXT NOT NULL, name TEXT NOT NULL,
    finished_at REAL NOT NULL, facts_version INTEGER NOT NULL,
    rank INTEGER NOT NULL, points INTEGER NOT NULL, opened INTEGER NOT NULL,
    foe_opened INTEGER NOT NULL, open_point INTEGER NOT NULL, burns INTEGER NOT NULL,
    counter_burns INTEGER NOT NULL, burn_wins INTEGER NOT NULL,
    counter_burn_wins INTEGER NOT NULL, burn_fails INTEGER NOT NULL,
    burn_breaks INTEGER NOT NULL, burned INTEGER NOT NULL, men_given INTEGER NOT NULL,
    smothered INTEGER NOT NULL, sweep INTEGER NOT NULL, swept INTEGER NOT NULL,
    revolted INTEGER NOT NULL, yaotou INTEGER NOT NULL, declared INTEGER NOT NULL,
    tricks INTEGER NOT NULL,
    PRIMARY KEY (table_id, number, seat),
    FOREIGN KEY (table_id, number) REFERENCES games (table_id, number) ON DELETE CASCADE
) WITHOUT ROWID;
-- the player's games in order, and (covering) the ranks and points /top sums
CREATE INDEX game_facts_player ON game_facts (chat_id, player, finished_at, rank, points);
CREATE INDEX game_facts_chat ON game_facts (chat_id, finished_at, table_id, number);
CREATE TABLE badges (
    chat_id INTEGER NOT NULL, player TEXT NOT NULL, badge TEXT NOT NULL,
    earned_at REAL NOT NULL, table_id INTEGER NOT NULL, number INTEGER NOT NULL,
    PRIMARY KEY (chat_id, player, badge)) WITHOUT ROWID;
CREATE TABLE reviews (
    table_id INTEGER NOT NULL, number INTEGER NOT NULL, review TEXT NOT NULL,
    created_at REAL NOT NULL, PRIMARY KEY (table_id, number),
    FOREIGN KEY (table_id, number) REFERENCES games (table_id, number) ON DELETE CASCADE
) WITHOUT ROWID;
"""

# Version 5: several processes on one database (bot.coord). A table's `rev` counts its saves
# (every write compares it: a process never trusts its copy of a table without checking it),
# `mem` keeps what a table's next press needs besides its state (chosen cards, a hold: pickled),
# `writer` the process that saved it last, `settled` 0 from a change's first save until its
# messages and timers are stored with its last (a process that died between left it unsettled:
# the next to hold the table shows it again). The outbox says each message's chat and the process
# delivering it. Processes beat in `procs`; timers are rows with a due time, claimed by one
# process; a chat's messages are delivered by one process at a time (`deliveries`: its lease,
# the process holding it, the last one that did, when its last call went out, and which
# content each of its kept messages shows); `pace`
# shares Telegram's budget of calls a second among the processes.
_V5 = """
ALTER TABLE game_tables ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game_tables ADD COLUMN mem BLOB;
ALTER TABLE game_tables ADD COLUMN writer TEXT;
ALTER TABLE game_tables ADD COLUMN settled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE outbox ADD COLUMN chat_id INTEGER;
ALTER TABLE outbox ADD COLUMN owner TEXT;
UPDATE outbox SET chat_id =
    (SELECT g.chat_id FROM game_tables g WHERE g.table_id = outbox.table_id);
CREATE TABLE procs (proc_id TEXT PRIMARY KEY, beat_at REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE timers (name TEXT PRIMARY KEY, table_id INTEGER NOT NULL, kind TEXT NOT NULL,
    args TEXT NOT NULL, due_at REAL NOT NULL, owner TEXT) WITHOUT ROWID;
CREATE INDEX timers_due ON timers (due_at);
CREATE TABLE deliveries (chat_id INTEGER PRIMARY KEY, owner TEXT, holder TEXT,
    last_at REAL NOT NULL, shown TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE pace (name TEXT PRIMARY KEY, next_at REAL NOT NULL) WITHOUT ROWID;
"""

# Version 6: no group can rewrite another's messages (issue 33). Each webhook update handled
# once across restarts and processes (`updates_seen`: taken when its handling starts, `done`
# once handled, pruned after a day); a chat's delivery lease carries a fencing token
# (`generation`, one more at each taking): a process whose lease moved while it was paused never
# sends after it (bot.coord). Outbox rows are JSON from this version on (bot.stored): rows
# written before it are not loaded.
_V6 = """
CREATE TABLE updates_seen (update_id INTEGER PRIMARY KEY, seen_at REAL NOT NULL,
    done INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE INDEX updates_seen_at ON updates_seen (seen_at);
ALTER TABLE deliveries ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
"""

# Version 7: an update's claim says the process handling it (`owner`): a claim left by a process
# that died (it beats no more, or, on SQLite, an earlier run) is taken over at once, not after a
# minute of its chat's updates refused (bot.seen).
_V7 = """
ALTER TABLE updates_seen ADD COLUMN owner TEXT;
"""

# Version 8: the ids of the messages a table keeps in place (its lobby, table picture, ready
# check, log pages, hands, AFK notices: bot.slots), one row a message, so the sender stores a
# message's new id with one small write instead of the table's whole row. Ids kept in a table's
# state before this version stay valid until the slot's message is sent anew.
_V8 = """
CREATE TABLE slots (
    table_id INTEGER NOT NULL REFERENCES game_tables (table_id) ON DELETE CASCADE,
    kind TEXT NOT NULL, idx INTEGER NOT NULL, message_id INTEGER NOT NULL,
    PRIMARY KEY (table_id, kind, idx)) WITHOUT ROWID;
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8)


PG_VERSION_TABLE = "gouji_schema"

# SQLite's words → PostgreSQL's, in order. Ids (Telegram's chat and user ids exceed 32 bits) are
# BIGINT; other INTEGER columns (counts, flags, seats) stay 32-bit, so their sums are ints.
_PG_WORDS: tuple[tuple[str, str], ...] = (
    (
        r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b",
        "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    ),
    (r"\b(\w+_id|opener) INTEGER\b", r"\1 BIGINT"),
    (r"\bREAL\b", "DOUBLE PRECISION"),
    (r"\bBLOB\b", "BYTEA"),
    (r"\s*\bWITHOUT ROWID\b", ""),
    (r"\bifnull\(", "coalesce("),
)
_SQLITE_ONLY = re.compile(r"\b(AUTOINCREMENT|ROWID|PRAGMA|ifnull|REAL|BLOB|INSERT OR)\b")


def postgres_script(script: str) -> str:
    """A migration script (SQLite's dialect) in PostgreSQL's. `ValueError` for a script using
    SQLite's own features beyond these words (such a version needs its own PostgreSQL text)."""
    for pattern, replacement in _PG_WORDS:
        script = re.sub(pattern, replacement, script)
    if found := _SQLITE_ONLY.search(script):
        raise ValueError(f"migration uses SQLite-only {found.group(0)!r}: {script[:80]!r}")
    return script

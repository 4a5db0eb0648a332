"""The evening's story in SQL (schema version 4 of :mod:`bot.storage`): per finished game one
row per seat of facts, the badges players earned, the 复盘 posted; and the queries ``/history``,
``/stats`` and ``/top`` make.

The facts rows hold :meth:`engine.stats.SeatFacts.values` as integer columns, beside who sat
there (``player``: ``"u<telegram id>"`` for a person, ``"ai:<level>"`` for an AI seat) and the
name they had then. Everything here is derived from the stored game records and the seats of
their table: :meth:`StoryStore.recompute_facts` derives the facts again.

It runs on :class:`bot.storage.SqlStorage`'s units of work (SQLite or PostgreSQL: the SQL is
what both accept), so a badge or a review is stored in one transaction with its announcement in
the outbox.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from engine.stats import (
    FACTS_VERSION,
    RECENT,
    SQL_SUMS,
    PlayerGame,
    PlayerStats,
    SeatFacts,
    game_facts,
)

from .storage import SqlStorage

FACT_COLUMNS = SeatFacts.columns()  # seat, rank, points, … (the schema's, version 4)
_ROW = ("table_id", "number", "chat_id", "player", "name", "finished_at", "facts_version")
_INSERT = (
    f"INSERT INTO game_facts ({', '.join((*_ROW, *FACT_COLUMNS))})"
    f" VALUES ({', '.join('?' * (len(_ROW) + len(FACT_COLUMNS)))}) ON CONFLICT DO NOTHING"
)
_FACTS = ", ".join(FACT_COLUMNS)


def portable_sum(expression: str) -> str:
    """One of :data:`engine.stats.SQL_SUMS` in SQL PostgreSQL accepts too: a sum of a comparison
    (SQLite's 0/1) as a sum of CASE, the two-argument ``max`` as CASE."""
    expression = re.sub(
        r"^sum\((\w+) ([<>=]) (-?\d+)\)$", r"sum(CASE WHEN \1 \2 \3 THEN 1 ELSE 0 END)", expression
    )
    expression = re.sub(
        r"\bmax\((\w+), (-?\d+)\)", r"CASE WHEN \1 > \2 THEN \1 ELSE \2 END", expression
    )
    if re.search(r"\b(max|min)\(\w+, |sum\(\w+ [<>=]", expression):
        raise ValueError(f"no portable form for {expression!r}")
    return expression


_SQL_SUMS = tuple(portable_sum(e) for e in SQL_SUMS)
# the sums /top needs, of the rank and points columns only (the index game_facts_player covers)
_TOP_FIELDS = 11
_TOP_SUMS = ", ".join(_SQL_SUMS[:_TOP_FIELDS])
assert all("rank" in e or "points" in e or e == "count(*)" for e in SQL_SUMS[:_TOP_FIELDS])
_FLAGS = tuple(f.type == "bool" for f in fields(SeatFacts))
_SUMS = ", ".join(_SQL_SUMS)


@dataclass(frozen=True, order=True)
class GameKey:
    """A stored game: its table (the match) and its number in the match."""

    table_id: int
    number: int


@dataclass(frozen=True)
class StoredGame:
    """One finished game of a chat as the story tells it: who sat where, their names then,
    their facts (seat order) and when it ended (seconds since the epoch)."""

    key: GameKey
    chat_id: int
    finished_at: float
    players: tuple[str, ...]
    names: tuple[str, ...]
    facts: tuple[SeatFacts, ...]


def _seat_facts(values: Sequence[Any]) -> SeatFacts:
    """A row's fact columns (in :data:`FACT_COLUMNS` order) as :class:`SeatFacts`."""
    args: list[Any] = [bool(v) if flag else int(v) for v, flag in zip(values, _FLAGS, strict=True)]
    return SeatFacts(*args)


class StoryStore:
    """The story's rows on the bot's storage (either backend)."""

    def __init__(self, storage: SqlStorage) -> None:
        self.storage = storage

    # -- writing -------------------------------------------------------------------------------
    async def save_facts(
        self,
        chat_id: int,
        key: GameKey,
        players: Sequence[str],
        names: Sequence[str],
        facts: Sequence[SeatFacts],
        finished_at: float | None = None,
    ) -> bool:
        """Store a game's six rows (once: False when they were there already)."""
        at = time.time() if finished_at is None else finished_at
        rows = [
            (key.table_id, key.number, chat_id, p, n, at, FACTS_VERSION, *f.values())
            for p, n, f in zip(players, names, facts, strict=True)
        ]
        async with self.storage._unit() as tx:
            if await tx.fetch(
                "SELECT 1 FROM game_facts WHERE table_id = ? AND number = ? LIMIT 1",
                (key.table_id, key.number),
            ):
                return False
            await tx.executemany(_INSERT, rows)
        return True

    async def award(
        self, chat_id: int, player: str, badge: str, key: GameKey, announcement: bytes
    ) -> int | None:
        """A badge earned, with its announcement put in the outbox in the same transaction;
        the announcement's outbox id, or None when the player held the badge already."""
        async with self.storage._unit() as tx:
            if (
                await tx.execute(
                    "INSERT INTO badges (chat_id, player, badge, earned_at, table_id, number)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (chat_id, player, badge, time.time(), key.table_id, key.number),
                )
                != 1
            ):
                return None
            return await self.storage.put_in_outbox(tx, key.table_id, announcement, time.time())

    async def award_all(
        self,
        chat_id: int,
        earned: Sequence[tuple[str, str]],
        key: GameKey,
        announcement: Callable[[Sequence[int]], bytes | None],
    ) -> int | None:
        """The badges of one game (``(player, badge)`` pairs) stored in one transaction, with
        one announcement for them all in the outbox: ``announcement(new)`` gets the indexes of
        the pairs not held before and gives the message (None: nothing to say). Its outbox id,
        or None when nothing new was earned or said."""
        async with self.storage._unit() as tx:
            new = []
            for i, (player, badge) in enumerate(earned):
                if (
                    await tx.execute(
                        "INSERT INTO badges (chat_id, player, badge, earned_at, table_id, number)"
                        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                        (chat_id, player, badge, time.time(), key.table_id, key.number),
                    )
                    == 1
                ):
                    new.append(i)
            message = announcement(new) if new else None
            if message is None:
                return None
            return await self.storage.put_in_outbox(tx, key.table_id, message, time.time())

    async def save_review(self, key: GameKey, review: dict[str, Any], message: bytes) -> int | None:
        """A game's 复盘 stored with its message in the outbox; the message's outbox id, or None
        when it was stored (and so posted) before."""
        async with self.storage._unit() as tx:
            if (
                await tx.execute(
                    "INSERT INTO reviews (table_id, number, review, created_at)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (key.table_id, key.number, json.dumps(review), time.time()),
                )
                != 1
            ):
                return None
            return await self.storage.put_in_outbox(tx, key.table_id, message, time.time())

    async def recompute_facts(self, chat_id: int | None = None) -> int:
        """Derive every stored game's facts again from its record (after a change of
        :data:`engine.stats.FACTS_VERSION`, or to check them); the rows that changed."""
        sql = (
            "SELECT g.table_id, g.number, g.record FROM games g WHERE EXISTS (SELECT 1"
            " FROM game_facts f WHERE f.table_id = g.table_id AND f.number = g.number)"
        )
        if chat_id is not None:
            sql += " AND g.chat_id = ?"
        games = await self.storage._rows(sql, () if chat_id is None else (chat_id,))
        changed = 0
        for table_id, number, record in games:
            key = GameKey(table_id, number)
            new = game_facts(record)
            old = await self.facts(key)
            if old == tuple(new):
                continue
            assignments = ", ".join(f"{c} = ?" for c in FACT_COLUMNS[1:])
            async with self.storage._unit() as tx:
                await tx.executemany(
                    f"UPDATE game_facts SET facts_version = ?, {assignments}"
                    " WHERE table_id = ? AND number = ? AND seat = ?",
                    [(FACTS_VERSION, *f.values()[1:], table_id, number, f.seat) for f in new],
                )
            changed += 1
        return changed

    # -- reading -------------------------------------------------------------------------------
    async def facts(self, key: GameKey) -> tuple[SeatFacts, ...]:
        rows = await self.storage._rows(
            f"SELECT {_FACTS} FROM game_facts WHERE table_id = ? AND number = ? ORDER BY seat",
            (key.table_id, key.number),
        )
        return tuple(_seat_facts(r) for r in rows)

    async def record(self, key: GameKey) -> tuple[int, str] | None:
        """A stored game's chat and its record (RECORDS.md JSON text, as stored)."""
        row = await self.storage._first(
            "SELECT chat_id, record FROM games WHERE table_id = ? AND number = ?",
            (key.table_id, key.number),
        )
        return None if row is None else (int(row[0]), str(row[1]))

    async def games(
        self,
        chat_id: int,
        limit: int,
        before: GameKey | None = None,
        after: GameKey | None = None,
    ) -> list[StoredGame]:
        """The chat's games, newest first: the newest ``limit``, or those just older than
        ``before``, or just newer than ``after`` (a page of ``/history``)."""
        cond, args, order = "", [chat_id], "DESC"
        edge = before or after
        if edge is not None:
            at = await self.storage._first(  # the edge only among this chat's games
                "SELECT finished_at FROM game_facts"
                " WHERE chat_id = ? AND table_id = ? AND number = ? LIMIT 1",
                (chat_id, edge.table_id, edge.number),
            )
            if at is None:  # another chat's game, or none: nothing about it
                return []
            cmp = "<" if before is not None else ">"
            cond = f" AND (finished_at, table_id, number) {cmp} (?, ?, ?)"
            args += [at[0], edge.table_id, edge.number]
            order = "DESC" if before is not None else "ASC"
        keys = await self.storage._rows(
            "SELECT DISTINCT finished_at, table_id, number FROM game_facts WHERE chat_id = ?"
            f"{cond} ORDER BY finished_at {order}, table_id {order}, number {order} LIMIT ?",
            (*args, limit),
        )
        out = [g for k in keys if (g := await self.game(GameKey(k[1], k[2]))) is not None]
        return sorted(out, key=lambda g: (g.finished_at, g.key), reverse=True)

    async def game(self, key: GameKey) -> StoredGame | None:
        rows = await self.storage._rows(
            f"SELECT chat_id, finished_at, player, name, {_FACTS} FROM game_facts"
            " WHERE table_id = ? AND number = ? ORDER BY seat",
            (key.table_id, key.number),
        )
        if len(rows) != 6:
            return None
        return StoredGame(
            key,
            int(rows[0][0]),
            float(rows[0][1]),
            tuple(str(r[2]) for r in rows),
            tuple(str(r[3]) for r in rows),
            tuple(_seat_facts(r[4:]) for r in rows),
        )

    async def last_game(self, chat_id: int) -> StoredGame | None:
        games = await self.games(chat_id, 1)
        return games[0] if games else None

    async def player_games(self, chat_id: int, player: str) -> list[PlayerGame]:
        """The player's games in the chat, oldest first (for badges)."""
        rows = await self.storage._rows(
            f"SELECT finished_at, table_id, {_FACTS} FROM game_facts"
            " WHERE chat_id = ? AND player = ? ORDER BY finished_at, table_id, number",
            (chat_id, player),
        )
        return [PlayerGame(_seat_facts(r[2:]), float(r[0]), str(r[1])) for r in rows]

    async def badges(self, chat_id: int, player: str) -> list[str]:
        """The badges the player earned in the chat, in the order earned."""
        rows = await self.storage._rows(
            "SELECT badge FROM badges WHERE chat_id = ? AND player = ? ORDER BY earned_at",
            (chat_id, player),
        )
        return [str(r[0]) for r in rows]

    async def player_stats(self, chat_id: int, player: str) -> PlayerStats:
        """``/stats``: the player's totals in the chat (one aggregate on the player's index)
        and the points of their last :data:`engine.stats.RECENT` games."""
        sums = await self.storage._first(
            f"SELECT {_SUMS} FROM game_facts WHERE chat_id = ? AND player = ?", (chat_id, player)
        )
        recent = await self.storage._rows(
            "SELECT points FROM game_facts WHERE chat_id = ? AND player = ?"
            " ORDER BY finished_at DESC LIMIT ?",
            (chat_id, player, RECENT),
        )
        return PlayerStats.from_sums(sums, [int(r[0]) for r in reversed(recent)])

    async def group_stats(self, chat_id: int, min_games: int) -> dict[str, PlayerStats]:
        """``/top``: every person of the chat with at least ``min_games`` games, their totals
        (one aggregate grouped by player, on the player's index). AI seats stand on no
        leaderboard: the five AI seats of one game are one key, and it is people who rank.
        Only what a leaderboard shows is summed (games, wins, losses, ranks, points: read
        from the player's index alone); the other totals are 0."""
        rows = await self.storage._rows(
            f"SELECT player, {_TOP_SUMS} FROM game_facts WHERE chat_id = ? AND player LIKE 'u%'"
            " GROUP BY player HAVING count(*) >= ?",
            (chat_id, min_games),
        )
        rest = [0] * (len(SQL_SUMS) - _TOP_FIELDS)
        return {str(r[0]): PlayerStats.from_sums([*r[1:], *rest]) for r in rows}

    async def names(self, chat_id: int, players: Sequence[str]) -> dict[str, str]:
        """Each player's name in their latest game of the chat."""
        out: dict[str, str] = {}
        for p in players:
            row = await self.storage._first(
                "SELECT name FROM game_facts WHERE chat_id = ? AND player = ?"
                " ORDER BY finished_at DESC LIMIT 1",
                (chat_id, p),
            )
            if row is not None:
                out[p] = str(row[0])
        return out

    async def reviewed(self, key: GameKey) -> bool:
        row = await self.storage._first(
            "SELECT 1 FROM reviews WHERE table_id = ? AND number = ?", (key.table_id, key.number)
        )
        return row is not None

    async def reviews_since(self, chat_id: int, since: float) -> int:
        """How many 复盘 the chat's games got since ``since`` (its daily allowance: bot.lanes)."""
        row = await self.storage._first(
            "SELECT count(*) FROM reviews r JOIN games g"
            " ON g.table_id = r.table_id AND g.number = r.number"
            " WHERE g.chat_id = ? AND r.created_at > ?",
            (chat_id, since),
        )
        return int(row[0]) if row is not None else 0

    async def unreviewed(self, since: float) -> list[GameKey]:
        """Games ended since ``since`` whose 复盘 was not posted (a restart came first)."""
        rows = await self.storage._rows(
            "SELECT DISTINCT f.table_id, f.number FROM game_facts f WHERE f.finished_at > ?"
            " AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.table_id = f.table_id"
            " AND r.number = f.number) ORDER BY f.table_id, f.number",
            (since,),
        )
        return [GameKey(int(r[0]), int(r[1])) for r in rows]

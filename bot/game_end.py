"""What follows a finished game, once it is stored: its facts (one row per seat), the badges
players earned announced once (one silent line a game), and its 复盘 computed in a worker and
posted once.

:meth:`GameEnd.stored` is called by :class:`bot.moves.Moves` right after the game's record is
stored (under the table's lock: it only reads and writes a few rows; the review runs later,
as a timer of its own, so the table's next game never waits for it). Announcements and the
review go into the outbox in the transaction that records them (a badge row, a review row),
so each reaches the group once, across restarts too. After a restart, :meth:`GameEnd.resumed`
stores what a kill left out and reviews the games of the last day that have none.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from engine.ai.review import review_game
from engine.stats import Badge, PlayerGame, game_facts, new_badges
from renderers.review_text import review_text
from renderers.transcript import badges_line

from . import storage as S
from .chats import Chats
from .lanes import review_budget
from .model import Seat, TableStatus
from .outbox import Out
from .storage import OVER_KEPT_S
from .story_storage import GameKey, StoryStore
from .table import Table
from .tables import Config, Tables
from .tenure import Poster
from .timers import Scheduler
from .workers import Workers

log = logging.getLogger("gouji.game_end")


def player_key(seat: Seat | None) -> str:
    """Who a seat's games count for: ``u<telegram id>`` for a person (托管 included: it is
    still their game), ``ai:<level>`` for an AI seat — never the person it replaced."""
    if seat is None or seat.user is None:
        return f"ai:{seat.level if seat is not None else 'normal'}"
    return f"u{seat.user}"


def review_message(
    record_text: str, budget_s: float, seed: str, names: Sequence[str], lang: str
) -> tuple[dict[str, Any], str]:
    """In a worker process: a game's 复盘 (``engine.ai.review``) and its message."""
    review = review_game(record_text, budget_s, random.Random(seed))
    return review.to_json(), review_text(review, names, lang)


class GameEnd:
    """Facts, badges and the 复盘 of each finished game."""

    def __init__(
        self,
        tables: Tables,
        chats: Chats,
        workers: Workers,
        store: StoryStore,
        *,
        poster: Poster,
        timers: Scheduler,
        cfg: Config,
        storage: S.Storage,
    ) -> None:
        self.tables = tables
        self.cfg = cfg
        self.storage = storage
        self.chats = chats
        self.sender = poster
        self.timers = timers
        self.workers = workers
        self.store = store

    async def stored(self, table: Table) -> None:
        """The table's game just ended and its record is stored: its facts, badges, review.
        Safe to call again for the same game (nothing is stored or said twice)."""
        m = table.match
        assert m is not None and m.game is not None
        key = GameKey(table.id, m.number)
        record = m.game.record().to_json()
        try:
            facts = game_facts(record)
        except ValueError:
            log.exception("the facts of game %s do not derive from its record", key)
            return
        players = [player_key(s) for s in table.st.seats]
        names = table.names()
        chat = table.chat_id
        people = [(s, p) for s, p in enumerate(players) if p.startswith("u")]
        # each person's games before this one, read before this one is stored
        histories = {p: await self.store.player_games(chat, p) for _, p in people}
        now = time.time()
        if await self.store.save_facts(chat, key, players, names, facts, now):
            earned: list[tuple[str, str]] = []
            said: list[tuple[str, str]] = []  # (name, badge) of each pair earned
            for seat, p in people:
                held = await self.store.badges(chat, p)
                game = PlayerGame(facts[seat], now, str(table.id))
                for badge in new_badges(histories[p], game, held):
                    earned.append((p, str(badge)))
                    said.append((names[seat], str(badge)))
                    if badge == Badge.FIRST_TOUKE and not histories[p]:
                        said[-1] = ("", "")  # what a first game always gives: not announced
            posted: list[Out] = []

            def announcement(new: Sequence[int]) -> bytes | None:
                # the game's badges as one silent line (issue 34: no run of buzzing messages)
                text = badges_line([said[i] for i in new if said[i][0]], table.lang)
                if not text:
                    return None
                posted.append(Out(chat, text, None, table.thread_id, silent=True))
                return posted[-1].dumps()

            oid = await self.store.award_all(chat, earned, key, announcement)
            if oid is not None and posted:
                self.sender.post(replace(posted[-1], outbox_id=oid))
        if not await self.store.reviewed(key):
            decided = any(
                s is not None and s.user is not None and not s.auto for s in table.st.seats
            )
            self.review_later(
                key, json.dumps(record), names, table.lang, chat, table.thread_id,
                people=bool(people), decided=decided,
            )  # fmt: skip

    def review_later(
        self,
        key: GameKey,
        record_text: str,
        names: Sequence[str],
        lang: str,
        chat_id: int,
        thread_id: int | None,
        people: bool = True,
        decided: bool = True,
    ) -> None:
        """The game's 复盘 in a worker, as a timer of its own (never in the table's way); its
        message is stored with the review and posted once. Off when ``review_budget_s`` is
        None (tests that do not want it). In the heavy lane, one at a time, within the chat's
        daily allowance, cut short without a person's decision (bot.lanes)."""
        budget = review_budget(self.cfg.review_budget_s or 0.0, people, decided)
        if self.cfg.review_budget_s is None or budget is None:
            return
        seed = f"{key.table_id}:{key.number}"
        work = partial(review_message, record_text, budget, seed, tuple(names), lang)
        reviews = self.workers.reviews

        async def job() -> None:
            async with reviews.turn:
                if not reviews.allowed(await self.store.reviews_since(chat_id, reviews.since())):
                    return
                review, text = await self.workers.run(work)
                out = Out(chat_id, text, None, thread_id, silent=True)
                oid = await self.store.save_review(key, review, out.dumps())
            if oid is not None:
                self.sender.post(replace(out, outbox_id=oid))

        # in the background: a stop cancels it (a restart reviews the game again)
        self.timers.schedule(f"review:{key.table_id}:{key.number}", 0.0, job, background=True)

    async def resumed(self, tables: Sequence[Table]) -> None:
        """After a restart: a finished game whose facts a kill left unstored gets them now, and
        the games of the last day without a 复盘 are reviewed again."""
        for table in tables:
            m = table.match
            over = table.status == TableStatus.OVER and m is not None and m.game is not None
            if over and m is not None and table.st.stored_games == m.number:
                async with self.tables.locked(table):
                    await self.stored(table)
        for key in await self.store.unreviewed(time.time() - OVER_KEPT_S):
            game = await self.store.game(key)
            found = await self.store.record(key)
            row = await self.storage.load_table(key.table_id)
            if game is None or found is None or row is None:
                continue
            lang = (await self.chats.chat_settings(game.chat_id)).lang
            people = any(p.startswith("u") for p in game.players)
            self.review_later(key, found[1], game.names, lang, game.chat_id, row.thread_id, people)

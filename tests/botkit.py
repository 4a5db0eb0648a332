"""Helpers for end-to-end tests: the real bot, polling a local Bot API server, with simulated
players who press only the buttons they are shown."""

from __future__ import annotations

import html
import random
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.budget import CHAT, ROBOTS, USER
from bot.buttons import Kind, LobbyOp, OverOp
from bot.compose import Parts
from bot.offline.clock import ManualTimers
from bot.offline.localapi import LocalBotApi, RateLimits, SentMessage, SimGroup, SimUser
from bot.offline.localbot import local_bot, runtime, settle
from bot.offline.simplayers import (
    SimPlayer,
    button_data,
    has_button,
    lobby_message,
    play_until,
    press_lobby,
)
from bot.pacing import Pacing
from bot.table import Table
from bot.tables import Config
from renderers import card_text

NAMES = ("老王", "小李", "张姐", "阿强", "王叔", "小美")
# Telegram's limits (and the bot's pacing) in test worlds run this many times as fast: the same
# budgets, waits a SPEED-th as long
SPEED = 60.0


@dataclass
class World:
    """One local server, one bot process (restartable), groups and players."""

    api: LocalBotApi
    db: str
    cfg: Config
    pacing: Pacing = field(default_factory=Pacing.off)
    processes: int = 0  # worker processes drawing the pictures (0: threads)
    manual_clock: bool = False  # timers wait for ``clock.advance`` (turn timers, reminders)
    webhook: bool = False  # updates delivered by webhook (else the bot polls)
    app: Any = None
    clock: ManualTimers | None = None
    users: list[SimUser] = field(default_factory=list)
    _stack: AsyncExitStack | None = None

    async def start_bot(self) -> None:
        """Start the bot process (again, after :meth:`stop_bot`: a restart)."""
        assert self._stack is None
        self._stack = AsyncExitStack()
        self.clock = ManualTimers() if self.manual_clock else None
        self.app = await self._stack.enter_async_context(
            local_bot(
                self.api,
                self.db,
                self.cfg,
                pacing=self.pacing,
                processes=self.processes,
                timers=self.clock,
                webhook=self.webhook,
            )
        )

    async def stop_bot(self) -> None:
        """Stop the bot process as SIGTERM would (the server and the database stay)."""
        if self._stack is not None:
            await self._stack.aclose()
        self._stack = None
        self.app = None

    @property
    def parts(self) -> Parts:
        return runtime(self.app).parts

    def table(self, group: SimGroup) -> Table:
        t = self.parts.tables.at(group.id, None)
        assert t is not None
        return t

    async def settle(self) -> None:
        """Everything the bot has to say has been said (``localbot.settle``: the bot says
        when it is idle)."""
        await settle(self.api, self.app)


@asynccontextmanager
async def world(
    tmp_path: Path,
    *,
    seed: int = 7,
    rate: RateLimits | None = None,
    pacing: Pacing | None = None,
    floods: bool = False,
    turn_s: float = 3600.0,
    ai_delay: float = 0.0,
    pass_think_s: float = 0.0,
    processes: int = 0,
    manual_clock: bool = False,
    people_rates: bool = False,
    webhook: bool = False,
    review_s: float | None = None,
    db: str | None = None,
) -> AsyncIterator[World]:
    """By default the local server keeps Telegram's flood limits and the bot Telegram's
    pacing, both on a clock :data:`SPEED` times as fast; ``rate`` alone: the server's limits
    as given and the bot's pacing off (a test of the bot under floods). Unless ``floods`` says
    a test expects them, the world ends with a check that the bot never met a flood wait (429).
    ``review_s``: the 复盘's budget after each game (None: no 复盘).
    ``people_rates``: the flood budgets of production (simulated players tap faster than
    people, so by default they have none to speak of). ``pass_think_s``: a skipped seat's
    think-time (bot.hold); 0, passes shown at once. ``db``: the bot's ``GOUJI_DB`` (by default
    a SQLite file in ``tmp_path``; a ``postgresql://`` URL runs the bot on PostgreSQL)."""
    if rate is None:
        rate = RateLimits.telegram().faster(SPEED)
        # the group's beat off (bot.pacing.Beat): a test reads the group's table as soon as
        # the bot has settled; tests/test_calls.py plays with it on
        pacing = pacing or replace(Pacing.telegram().faster(SPEED), beat_s=0.0)
    async with LocalBotApi(rate=rate) as api:
        w = World(
            api,
            db or str(tmp_path / "bot.sqlite3"),
            Config(
                bot_username="gouji_bot",
                ai_delay=ai_delay,
                seed=seed,
                turn_s=turn_s,
                pass_think_s=pass_think_s,
                user_rate=USER if people_rates else ROBOTS,
                chat_rate=CHAT if people_rates else ROBOTS,
                review_budget_s=review_s,
            ),
            pacing or Pacing.off(),
            processes,
            manual_clock,
            webhook,
        )
        await w.start_bot()
        try:
            yield w
        finally:
            await w.stop_bot()
        if not floods:
            assert api.stats()["rate_limited"] == 0, "the bot met a flood wait (429)"


def people(w: World, n: int = 6, lang: str = "zh", base: int = 100) -> list[SimUser]:
    users = [w.api.user(base + i, NAMES[i % 6], language_code=lang) for i in range(n)]
    w.users.extend(users)
    return users


async def open_and_seat(w: World, group: SimGroup, users: list[SimUser]) -> None:
    """``/gouji``, everyone (members of the group already) starts the bot and takes seats
    0, 1, … in order."""
    for u in users:
        group.join_quietly(u)
        await u.send("/start")
    await users[0].send("/gouji", group)
    await w.settle()
    for seat, u in enumerate(users):
        await press_lobby(w.api, group, u, LobbyOp.SIT, seat)


async def join_and_start(w: World, group: SimGroup, user: SimUser) -> None:
    """``user`` joins the group quietly and starts the bot in private (seated nowhere)."""
    group.join_quietly(user)
    await user.send("/start")
    await w.settle()


async def start(w: World, group: SimGroup, opener: SimUser) -> None:
    await press_lobby(w.api, group, opener, LobbyOp.GO)
    await w.settle()


def over(w: World, group: SimGroup) -> Callable[[], bool]:
    return lambda: any(has_button(m, Kind.OVER, OverOp.AGAIN) for m in w.api.messages(group.id))


async def play_game(
    w: World, group: SimGroup, users: list[SimUser], seed: int = 1, **kw: Any
) -> list[SimPlayer]:
    players = [
        SimPlayer(w.api, u, random.Random(seed * 100 + i), **kw) for i, u in enumerate(users)
    ]
    await play_until(w.api, players, over(w, group), settle=w.settle)
    await w.settle()
    return players


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def group_texts(w: World, group: SimGroup) -> list[str]:
    """Every text the group was ever shown: each message's versions, edits included."""
    out: list[str] = []
    for m in w.api.messages(group.id, include_deleted=True):
        out.extend(plain(t) for t in [*m.history, m.text])
    return out


def hand_lines(w: World, group: SimGroup) -> set[str]:
    """Every hand dealt at the group's table, written as a player reads it (Chinese and
    English) and in the records' notation: none may ever appear in the group."""
    table = w.table(group)
    assert table.match is not None and table.match.game is not None
    hands = table.match.game.record().to_json()["hands"]
    return {text for h in hands for text in (h, card_text(h, "zh"), card_text(h, "en"))}


def dm_prompts(w: World, user: SimUser) -> list[SentMessage]:
    return [m for m in w.api.messages(user.id) if m.photo is not None]


__all__ = [
    "NAMES",
    "Kind",
    "World",
    "button_data",
    "dm_prompts",
    "group_texts",
    "hand_lines",
    "lobby_message",
    "open_and_seat",
    "over",
    "people",
    "plain",
    "play_game",
    "start",
    "world",
]

"""The bot's parts, composed: each gets what it depends on passed in, and registers its
commands and buttons with the one router. A new feature is a module with a part class (its
``register(router)`` names its commands and buttons) and one line in :func:`compose`."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from . import storage as S
from .absence import Absence
from .budget import Budgets
from .chat_settings import SettingsMenu
from .coord import PgCoord, Solo
from .game_end import GameEnd
from .lobby import Lobby
from .model import TableStatus
from .play import Play
from .router import Router
from .story import Story
from .story_storage import StoryStore
from .table import Table
from .tables import Config, Poster, Scheduler, Tables
from .workers import Workers

log = logging.getLogger("gouji.compose")


@dataclass(frozen=True)
class Parts:
    tables: Tables
    router: Router
    play: Play
    absence: Absence
    lobby: Lobby
    settings: SettingsMenu
    story: Story
    game_end: GameEnd


def compose(
    storage: S.Storage,
    sender: Poster,
    timers: Scheduler,
    cfg: Config,
    workers: Workers,
    coord: Solo | PgCoord | None = None,
) -> Parts:
    tables = Tables(storage, sender, timers, cfg, coord)
    router = Router(tables, Budgets(cfg.user_rate, cfg.chat_rate))
    play = Play(tables, workers)
    absence = Absence(tables, play)
    lobby = Lobby(tables, play, absence)
    settings = SettingsMenu(tables)
    if not isinstance(storage, S.SqlStorage):
        raise TypeError("the story's queries need SQL storage (SQLite or PostgreSQL)")
    store = StoryStore(storage)
    story = Story(tables, workers, store)
    game_end = GameEnd(tables, workers, store)
    play.game_stored.append(game_end.stored)

    def unsettled(table: Table) -> None:  # several processes: one died halfway through it
        if table.status == TableStatus.LOBBY:
            lobby.resumed(table)
        elif table.status == TableStatus.PLAYING:
            play.resumed(table)

    tables.unsettled = unsettled
    for part in (play, absence, lobby, settings, story):  # a new part registers here
        part.register(router)
    return Parts(tables, router, play, absence, lobby, settings, story, game_end)


async def resume(parts: Parts) -> int:
    """Rebuild every unfinished table from storage, re-send what players need, restart
    timers, and tell each group the bot is back; the number of tables resumed."""
    tables = await parts.tables.restore()
    await parts.tables.send_outbox()  # what the last run stored and did not send, first
    for table in tables:
        async with parts.tables.locked(table):
            if table.status == TableStatus.OVER:  # its game-over message is in the chat
                parts.lobby.ready.resumed(table)  # and its ready check, if one is open
                continue
            if table.status == TableStatus.LOBBY:
                parts.lobby.resumed(table)
            else:
                parts.play.resumed(table)
    await parts.game_end.resumed(tables)  # facts a kill left unstored, 复盘 not yet posted
    return len(tables)


async def resume_shared(parts: Parts) -> int:
    """One of several processes starts: the unfinished tables loaded (to answer at once; each
    is checked against storage whenever it is held), finished games' facts and 复盘 as after a
    restart. Nothing is sent: a table whose last writer died is resumed by the takeover
    (bot.takeover), whichever process finds it first; the outbox likewise."""
    tables = await parts.tables.restore()
    await parts.game_end.resumed(tables)
    return len(tables)

"""The bot's parts, composed — the one place the app is wired: each part gets what it depends
on passed in, complete, and registers its commands and buttons with the one router. A new
feature is a module with a part class (its ``register(router)`` names its commands, with their
place in the command menu, and its buttons) and one line in :func:`compose`."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Bot

from engine.legal import limit_caches

from . import storage as S
from .absence import Absence
from .budget import Budgets
from .chat_settings import SettingsMenu
from .chats import Chats
from .deployment import Deployment, deployment_for
from .game_end import GameEnd
from .lobby import Lobby
from .moves import Moves
from .pacing import Pacing
from .pins import Pins
from .play import Play
from .queues import Queues
from .ready import Ready
from .router import Router
from .sender import Sender
from .slots import TableSlots
from .story import Story
from .story_storage import StoryStore
from .tables import Config, Tables
from .timers import LoopTimers
from .uploads import Uploads
from .workers import Workers

log = logging.getLogger("gouji.compose")


@dataclass(frozen=True)
class Parts:
    deployment: Deployment
    tables: Tables
    chats: Chats
    router: Router
    moves: Moves
    play: Play
    absence: Absence
    lobby: Lobby
    settings: SettingsMenu
    story: Story
    game_end: GameEnd
    sender: Sender
    workers: Workers
    ready: Ready
    pins: Pins

    @property
    def timers(self) -> LoopTimers:
        return self.deployment.timers


def compose(
    bot: Bot,
    storage: S.Storage,
    cfg: Config,
    *,
    workers: Workers,
    pacing: Pacing | None = None,
    timers: LoopTimers | None = None,
    process: str = "",
) -> Parts:
    """The bot's parts on ``storage`` (one process on SQLite, any number on PostgreSQL:
    bot.deployment); ``timers``: a test's manual clock instead of the deployment's own;
    ``process``: this one's name among several."""
    if not isinstance(storage, S.SqlStorage):
        raise TypeError("the story's queries need SQL storage (SQLite or PostgreSQL)")
    deployment = deployment_for(storage, timers, process)
    limit_caches(answers=1024, plays=2048)  # (docs/operations.md: memory a table)
    queues = Queues()  # where the parts post; the sender delivers from there

    def username() -> str:  # known once the bot has asked Telegram who it is
        try:
            return bot.username
        except RuntimeError:
            return cfg.bot_username

    chats = Chats(storage, cfg.lang)
    tables = Tables(storage, queues, deployment, cfg, chats, username)
    poster, timers_ = tables.sender, deployment.timers  # a part posts past its table's tenure
    pins = Pins(bot)  # the game kept in sight: pin rights, the table sent anew (bot.pins)
    router = Router(tables, Budgets(cfg.user_rate, cfg.chat_rate), pins)
    store = StoryStore(storage)
    game_end = GameEnd(
        tables, chats, workers, store, poster=poster, timers=timers_, cfg=cfg, storage=storage
    )
    moves = Moves(
        tables,
        workers,
        pins,
        game_end.stored,
        poster=poster,
        timers=timers_,
        cfg=cfg,
        storage=storage,
        beat_s=(pacing or Pacing.off()).beat_s,  # the group's table and log (bot.pacing.Beat)
    )
    play = Play(tables, chats, moves, poster=poster)
    absence = Absence(tables, moves, poster=poster, storage=storage)
    lobby = Lobby(
        tables, chats, moves, absence, poster=poster, timers=timers_, cfg=cfg, storage=storage
    )
    ready = Ready(tables, moves, poster=poster, timers=timers_, cfg=cfg)  # 再来一局's check
    settings = SettingsMenu(tables, chats, poster=poster, cfg=cfg)
    story = Story(tables, chats, workers, store, poster=poster)
    for part in (lobby, play, absence, settings, story, ready):  # a new part registers here (its
        # commands take their place in the menu in this order)
        part.register(router)

    async def refused(chat_id: int) -> None:
        if chat_id > 0:  # a player blocked the bot
            await absence.dm_blocked(chat_id)
        else:  # 403 in a group: the bot is no longer in it, even if that update was not seen
            await tables.bot_removed(chat_id)

    sender = Sender(
        bot,
        queues,
        deployment,
        slots=TableSlots(tables, deployment, storage),
        uploads=Uploads(storage),
        outbox=storage,
        on_refused=refused,
        on_migrated=tables.chat_migrated,
        pacing=pacing,
        workers=workers,
        pins=pins,
    )
    return Parts(
        deployment,
        tables,
        chats,
        router,
        moves,
        play,
        absence,
        lobby,
        settings,
        story,
        game_end,
        sender,
        workers,
        ready,
        pins,
    )


async def start(parts: Parts) -> int:
    """Started (storage open): the sender delivers, and every unfinished table is resumed
    (one process), or loaded and what dead processes left taken over (several); how many."""
    parts.sender.start()
    return await parts.deployment.start(parts.tables, parts.game_end.resumed)

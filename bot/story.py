"""The evening's story in the group: ``/history`` (the last games, paged, each with buttons to
its replay and its record), ``/match`` (the running match), ``/stats`` and ``/top`` (pictures
drawn by a worker), ``/replay`` (the animation, and a picture stepped trick by trick with ◀ ▶)
and ``/record`` (the game's record as a document, as ``python -m engine replay`` referees it).

A story button names a stored game by a code (its table and number, :func:`game_code`) and
carries :data:`STORY_BUTTONS`, the version of this vocabulary, checked before any handler
(:meth:`Story.guard`). A game opens only in the chat it was played in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

from engine.stats import MIN_GAMES, Order, TableGame, group_stats, leaderboard
from renderers import t
from renderers.replay import (
    animation_caption,
    render_replay_animation,
    replay_frame,
    replay_step,
)
from renderers.stats_image import render_stats, render_top
from renderers.stats_text import stats_caption, top_caption
from renderers.story_text import HistoryEntry, MatchGame, history_text, match_text, record_caption

from .buttons import Callback, Kind, StoryOp
from .chats import Chats
from .keyboards import Button, Keyboard
from .model import TableStatus
from .outbox import Answer, Media, MediaKind, Out
from .router import CommandCall, Menu, Press, Router, Where
from .story_storage import GameKey, StoredGame, StoryStore
from .storyqueue import COSTS
from .tables import Tables, UserInfo
from .tenure import Poster
from .workers import Workers

TONIGHT_GAMES = 200  # /top before anyone has MIN_GAMES: the latest games looked at
EVENING_S = 12 * 3600  # tonight: the games within this of the latest one

STORY_BUTTONS = 1  # the version of the story's buttons (a new layout: older ones are stale)
PAGE = 5  # games per /history page
GAMES_PER_TABLE = 10_000  # a game's code: table × this + number


def game_code(key: GameKey) -> int:
    return key.table_id * GAMES_PER_TABLE + key.number


def game_of(code: int) -> GameKey:
    return GameKey(*divmod(code, GAMES_PER_TABLE))


def _cb(op: StoryOp, key: GameKey, frame: int | None = None) -> str:
    arg = "" if frame is None else str(frame)
    return Callback(Kind.STORY, game_code(key), STORY_BUTTONS, op, arg).encode()


class Story:
    """``/history``, ``/match``, ``/stats``, ``/top``, ``/replay``, ``/record`` and their
    buttons."""

    def __init__(
        self, tables: Tables, chats: Chats, workers: Workers, store: StoryStore, *, poster: Poster
    ) -> None:
        self.tables = tables
        self.chats = chats
        self.sender = poster
        self.workers = workers
        self.store = store

    def register(self, router: Router) -> None:
        router.command("history", self._cmd_history, Where.GROUP, menu=Menu.GROUP)
        router.command("match", self._cmd_match, Where.GROUP, menu=Menu.GROUP)
        router.command("stats", self._cmd_stats, Where.GROUP, menu=Menu.GROUP)
        router.command("top", self._cmd_top, Where.GROUP, menu=Menu.GROUP)
        router.command("replay", self._cmd_replay, Where.GROUP, menu=Menu.GROUP)
        router.command("record", self._cmd_record, Where.GROUP, menu=Menu.GROUP)
        self.queue = router.stories  # the chat's story answers: bounded (bot.storyqueue)
        router.chat_guard(Kind.STORY, self.guard)
        router.on_chat(Kind.STORY, StoryOp.OLDER, self._page)
        router.on_chat(Kind.STORY, StoryOp.NEWER, self._page)
        router.on_chat(Kind.STORY, StoryOp.REPLAY, self._press_replay)
        router.on_chat(Kind.STORY, StoryOp.RECORD, self._press_record)
        router.on_chat(Kind.STORY, StoryOp.STEP, self._step)

    def guard(self, p: Press) -> Answer | None:
        if p.cb.version != STORY_BUTTONS:
            return Answer(t(p.lang, "bot.stale"))
        return None

    async def _lang(self, chat_id: int) -> str:
        return (await self.chats.chat_settings(chat_id)).lang

    # -- /history ----------------------------------------------------------------------------
    async def history_out(
        self,
        chat_id: int,
        thread_id: int | None,
        before: GameKey | None = None,
        after: GameKey | None = None,
    ) -> Out:
        """A page of the chat's games, newest first, with a replay and a record button each
        and ‹ › to the newer and older pages."""
        lang = await self._lang(chat_id)
        games = await self.store.games(chat_id, PAGE, before=before, after=after)
        if after is not None and len(games) < PAGE:  # the newest page: always a full one
            games = await self.store.games(chat_id, PAGE)
        rows: Keyboard = []
        for g in games:
            rows.append(
                [
                    Button(t(lang, "story.btn.replay", n=g.key.number), _cb(StoryOp.REPLAY, g.key)),
                    Button(t(lang, "story.btn.record"), _cb(StoryOp.RECORD, g.key)),
                ]
            )
        paging: list[Button] = []
        if games and await self.store.games(chat_id, 1, after=games[0].key):
            paging.append(Button(t(lang, "story.btn.newer"), _cb(StoryOp.NEWER, games[0].key)))
        if games and await self.store.games(chat_id, 1, before=games[-1].key):
            paging.append(Button(t(lang, "story.btn.older"), _cb(StoryOp.OLDER, games[-1].key)))
        if paging:
            rows.append(paging)
        text = history_text([_entry(g) for g in games], lang)
        return Out(chat_id, text, rows or None, thread_id)

    async def _cmd_history(self, c: CommandCall) -> None:
        self.sender.post(await self.history_out(c.chat_id, c.thread_id))

    async def _page(self, p: Press) -> Answer:
        edge = await self._game(p)  # another chat's game answers as a missing one does
        if isinstance(edge, Answer):
            return edge
        key = edge.key
        older = p.cb.op == StoryOp.OLDER
        out = await self.history_out(
            p.chat_id, p.thread_id, before=key if older else None, after=None if older else key
        )
        return Answer(edit=out)

    # -- /match ------------------------------------------------------------------------------
    async def _cmd_match(self, c: CommandCall) -> None:
        table = await self.tables.find_at(c.chat_id, c.thread_id)
        lang = await self._lang(c.chat_id)
        m = table.match if table is not None else None
        if table is None or m is None or table.status == TableStatus.ABANDONED:
            self.tables.reply(c.chat_id, c.thread_id, t(lang, "story.match.none"))
            return
        games = [
            MatchGame(g.number, tuple(r or 0 for r in g.ranks), g.score[0] - g.score[1])
            for g in m.history
        ]
        playing = m.number if table.status == TableStatus.PLAYING and not m.over else None
        tributes = m.history[-1].tributes if m.history and playing is None else ()
        text = match_text(
            table.id,
            table.names(),
            games,
            (m.totals[0], m.totals[1]),
            playing,
            tributes,
            m.rules.tribute != "off",
            lang,
        )
        self.tables.reply(c.chat_id, c.thread_id, text)

    # -- /stats and /top ---------------------------------------------------------------------
    async def _cmd_stats(self, c: CommandCall) -> None:
        who: UserInfo = c.reply_to or c.user
        lang = await self._lang(c.chat_id)
        player = f"u{who.id}"
        stats = await self.store.player_stats(c.chat_id, player)
        badges = await self.store.badges(c.chat_id, player)
        name = (await self.store.names(c.chat_id, [player])).get(player, who.name)
        caption = stats_caption(name, stats, lang)
        draw = partial(render_stats, name, stats, tuple(badges), lang, player)
        key = f"stats:{player}:{stats.games}:{len(badges)}:{lang}"
        self.sender.post(Out(c.chat_id, caption, None, c.thread_id, photo=draw, photo_key=key))

    async def _cmd_top(self, c: CommandCall) -> None:
        """The leaderboard of players with :data:`MIN_GAMES` games; while nobody has that many,
        tonight's standings (the games of the latest evening) instead."""
        lang = await self._lang(c.chat_id)
        stats = await self.store.group_stats(c.chat_id, MIN_GAMES)
        least, tonight = MIN_GAMES, 0
        if not leaderboard(stats, Order.POINTS, MIN_GAMES):
            games = await self.store.games(c.chat_id, TONIGHT_GAMES)  # newest first
            last = games[0].finished_at if games else 0.0
            evening = [g for g in games if g.finished_at >= last - EVENING_S]
            table_games = [TableGame(g.players, g.facts, g.finished_at) for g in evening[::-1]]
            people = {k: s for k, s in group_stats(table_games).items() if k.startswith("u")}
            if people:  # AI seats stand on no leaderboard
                stats, least, tonight = people, 1, len(evening)
        by_points = leaderboard(stats, Order.POINTS, least)
        by_rank = leaderboard(stats, Order.AVG_RANK, least)
        shown = sorted({s.player for s in (*by_points, *by_rank)})
        names = await self.store.names(c.chat_id, shown)
        draw = partial(render_top, by_points, by_rank, names, lang, MIN_GAMES, tonight)
        caption = top_caption(lang, MIN_GAMES, empty=not by_points, tonight=tonight)
        self.sender.post(Out(c.chat_id, caption, None, c.thread_id, photo=draw))

    # -- /replay and /record -----------------------------------------------------------------
    async def _last(self, c: CommandCall) -> StoredGame | None:
        game = await self.store.last_game(c.chat_id)
        if game is None:
            lang = await self._lang(c.chat_id)
            self.tables.reply(c.chat_id, c.thread_id, t(lang, "story.none"))
        return game

    async def _cmd_replay(self, c: CommandCall) -> None:
        game = await self._last(c)
        if game is not None:
            await self.replay(game, c.thread_id)

    async def _cmd_record(self, c: CommandCall) -> None:
        game = await self._last(c)
        if game is not None:
            await self.record(game, c.thread_id)

    async def _game(self, p: Press) -> StoredGame | Answer:
        """The pressed button's game, if it was played in the pressed message's chat."""
        game = await self.store.game(game_of(p.cb.table))
        if game is None or game.chat_id != p.chat_id:
            return Answer(t(p.lang, "story.gone"), alert=True)
        return game

    def _later(self, p: Press, key: str, job: Callable[[], Awaitable[object]]) -> bool:
        """A pressed story answer in the chat's queue (False: full, nothing queued)."""
        return self.queue.submit(p.chat_id, f"{key}:{p.thread_id}", COSTS[key], job)

    async def _press_replay(self, p: Press) -> Answer:
        game = await self._game(p)
        if isinstance(game, Answer):
            return game
        if not self._later(p, "replay", partial(self.replay, game, p.thread_id)):
            return Answer(t(p.lang, "lanes.later"))
        return Answer(t(await self._lang(p.chat_id), "story.replay.sent"))

    async def _press_record(self, p: Press) -> Answer:
        game = await self._game(p)
        if isinstance(game, Answer):
            return game
        if not self._later(p, "record", partial(self.record, game, p.thread_id)):
            return Answer(t(p.lang, "lanes.later"))
        return Answer(t(await self._lang(p.chat_id), "story.record.sent"))

    async def replay(self, game: StoredGame, thread_id: int | None) -> None:
        """The game's animation, then its first frame with ◀ ▶ to step through the tricks."""
        found = await self.store.record(game.key)
        if found is None:
            return
        record, chat, names = found[1], game.chat_id, game.names
        lang = await self._lang(chat)
        caption = await self.workers.run(animation_caption, record, names, lang)
        gif = partial(render_replay_animation, record, names, lang)
        name = f"gouji-{game.key.table_id}-{game.key.number}.gif"
        self.sender.post(
            Out(chat, caption, None, thread_id, media=Media(MediaKind.ANIMATION, gif, name))
        )
        text, count = await self.workers.run(replay_step, record, names, lang, 0)
        self.sender.post(
            Out(
                chat,
                text,
                _steps(game.key, 0, count, lang),
                thread_id,
                photo=partial(replay_frame, record, names, lang, 0),
                photo_key=f"replay:{game_code(game.key)}:0:{lang}",
                silent=True,
            )
        )

    async def _step(self, p: Press) -> Answer:
        """◀ ▶: the pressed message shows another frame (the picture edited in place), drawn
        in the background (the chat's story queue: the newest step of a message wins)."""
        game = await self._game(p)
        if isinstance(game, Answer):
            return game
        found = await self.store.record(game.key)
        message_id = p.message_id
        if found is None or message_id is None:
            return Answer(t(p.lang, "story.gone"), alert=True)
        lang = await self._lang(p.chat_id)
        record, k, names, key = found[1], p.cb.number, game.names, game.key

        async def show() -> None:
            text, count = await self.workers.run(replay_step, record, names, lang, k)
            if k >= count:
                return
            frame = partial(replay_frame, record, names, lang, k)
            media = Media(MediaKind.PHOTO, frame, "replay.png", edit=message_id)
            self.sender.post(Out(p.chat_id, text, _steps(key, k, count, lang), media=media))

        step = f"step:{message_id}"
        if not self.queue.submit(p.chat_id, step, COSTS["help"], show):
            return Answer(t(p.lang, "lanes.later"))
        return Answer()

    async def record(self, game: StoredGame, thread_id: int | None) -> None:
        """The game's record (RECORDS.md) as stored, as a JSON document."""
        found = await self.store.record(game.key)
        if found is None:
            return
        lang = await self._lang(game.chat_id)
        data = found[1].encode()
        name = f"gouji-{game.key.table_id}-{game.key.number}.json"
        media = Media(MediaKind.DOCUMENT, partial(bytes, data), name)
        caption = record_caption(game.key.table_id, game.key.number, lang)
        self.sender.post(Out(game.chat_id, caption, None, thread_id, media=media))


def _steps(key: GameKey, k: int, count: int, lang: str) -> Keyboard:
    row: list[Button] = []
    if k > 0:
        row.append(Button(t(lang, "story.btn.prev"), _cb(StoryOp.STEP, key, k - 1)))
    if k + 1 < count:
        row.append(Button(t(lang, "story.btn.next"), _cb(StoryOp.STEP, key, k + 1)))
    return [row]


def _entry(g: StoredGame) -> HistoryEntry:
    return HistoryEntry(
        g.key.table_id,
        g.key.number,
        g.finished_at,
        g.names,
        tuple(f.rank for f in g.facts),
        g.facts[0].points,
    )

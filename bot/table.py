"""One table of one group chat, in memory: its seats, its match, the group's transcript, each
player's chosen cards — and what every message about it should show now (:class:`Out`s).

No I/O here: the parts (:mod:`bot.tables`, :mod:`bot.play`, …) lock, store and send. A hand
only ever goes into its own player's private chat: group messages are built from the
spectator's view (``view(None)``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import partial

from engine.actions import Action
from engine.cards import NRANKS, Counts, fmt, parse
from engine.events import Event
from engine.legal import Legal
from engine.match import Match
from engine.rules import STANDARD
from engine.view import SeatView
from engine.vocab import Ask, Do, EventType, Phase, Status
from renderers import (
    Transcript,
    card_text,
    game_over_caption,
    person,
    prompt_text,
    rank_name,
    render_game_over,
    render_hand,
    render_table,
    seat_name,
    t,
)
from renderers.dm import table_lines
from renderers.fit import MAX_CAPTION, MAX_MESSAGE, fit, visible_length
from renderers.hand_image import render_out

from . import tablemem
from .handkeys import Pending, situation
from .hold import Hold
from .keyboards import (
    EMPTY_SELECTION,
    afk_keyboard,
    deal_keyboard,
    hand_keyboard,
    lobby_keyboard,
    over_keyboard,
    waiting_keyboard,
)
from .locks import LeanLock
from .model import Seat, TableState, TableStatus
from .outbox import Out, Slot, SlotKind
from .quiet import own_side_burn

log = logging.getLogger("gouji.tables")
LOG_LIMIT = 3500  # characters of a log message before the next one starts
UNLOGGED_SHOWN = 2  # finished lines the log does not show yet, shown on the table meanwhile


# the group's table message besides its unlogged lines: lines above and below them, the caption's
# limit, the picture (drawn when sent) and its key
_TableParts = tuple[list[str], list[str], int, Callable[[], bytes] | None, str]
_BUILT: ContextVar[dict[int, _TableParts] | None] = ContextVar("table_parts", default=None)


@contextmanager
def built_once() -> Iterator[None]:
    """Within (one change of a table, under its lock: the table stands still but for which of
    its lines the log shows), each table's group message is made once, however many times it is
    asked for (:meth:`Table.table_out`)."""
    token = _BUILT.set({})
    try:
        yield
    finally:
        _BUILT.reset(token)


@dataclass
class Table:
    """A lobby, then a match of games, at one chat (and forum topic)."""

    id: int
    chat_id: int
    thread_id: int | None
    opener: int
    status: TableStatus
    st: TableState
    version: int = 0  # actions stored (the match's version)
    match: Match | None = None
    transcript: Transcript | None = None
    selection: dict[int, Counts] = field(default_factory=dict)
    lock: LeanLock = field(default_factory=LeanLock)  # no waiters kept when none wait
    lobby_ver: int = 0  # grows with each lobby change (its buttons carry it)
    note: str = ""  # a one-off line for the table caption (a timeout, a player back)
    hinted: dict[int, str] = field(default_factory=dict)  # seat → the hint shown
    lines: list[str] = field(default_factory=list)  # the current game's finished log lines
    votes: dict[int, set[int]] = field(default_factory=dict)  # AFK seat → users voting for AI
    confirm: dict[int, Pending] = field(default_factory=dict)  # seat → a tap to confirm
    hold: Hold | None = None  # automatic passes shown at a human pace (bot.hold), if any
    log_shown: int = 0  # of ``lines``, those the group's log message shows (bot.pacing.Beat)
    rev: int = 0  # the table's saves so far, as stored (several processes: bot.coord)
    changes: int = 0  # saves during the current tenure (several processes)
    used: float = field(default_factory=time.monotonic)  # when last held (idle tables leave)
    stored_mem: bytes | None = None  # :meth:`mem` as last stored or taken (several processes)

    MEM = tablemem.FIELDS

    def mem(self) -> bytes:
        """What the table's next press needs besides its stored state and actions (chosen
        cards, a hint shown, votes, a hold, the transcript), for another process to go on: data
        only, versioned JSON (:mod:`bot.tablemem`)."""
        return tablemem.dumps({k: getattr(self, k) for k in self.MEM})

    def take_mem(self, data: bytes) -> None:
        """:meth:`mem` of another process's copy put in place (ValueError: not ours — a
        pickle, another format — and nothing of it is run)."""
        try:
            mem = tablemem.loads(data)
        except (ValueError, TypeError) as e:
            raise ValueError(f"table {self.id}: its memory does not load ({e})") from e
        for k in self.MEM:
            setattr(self, k, mem[k])
        self.stored_mem = data

    def took_mem(self, data: bytes | None) -> bool:
        """Stored memory put in place, as the process that stored it had it (several
        processes); one that does not load (a pickle from an older bot, or forged) is left out,
        never run: the table goes on from its actions (False then)."""
        if data is None:
            return False
        try:
            self.take_mem(data)
        except ValueError as e:
            log.warning("table %d: its stored memory left out (%s)", self.id, e)
            self.stored_mem = None
            return False
        return True

    def held(self) -> Hold | None:
        """The hold in force: set for the match's version (an older one is void)."""
        hold = self.hold
        if hold is None or self.match is None or hold.version != self.match.version:
            return None
        return hold

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` (None: the group) is shown now: the match's view, or while a hold
        lasts, the table as it stood after the action's own events, a skipped seat to act."""
        assert self.match is not None
        view = self.match.view(seat)
        hold = self.held()
        if hold is None:
            return view
        shown = hold.shown(view)
        if seat is not None and shown.to_act == seat:  # its own pass is not asked of it
            return replace(shown, to_act=None, asked=None)
        return shown

    # -- who is who --------------------------------------------------------------------------
    @property
    def lang(self) -> str:
        return self.st.settings.lang

    def names(self) -> list[str]:
        return [s.name if s else "" for s in self.st.seats]

    def users(self) -> tuple[int, ...]:
        """The users seated, and those whose seat the AI took over (they may claim it back)."""
        out = [u for s in self.st.seats if s is not None for u in (s.user, s.away)]
        return tuple(u for u in out if u is not None)

    def seat_of(self, user: int) -> int | None:
        for i, s in enumerate(self.st.seats):
            if s is not None and s.user == user:
                return i
        return None

    def seat_lang(self, seat: int) -> str:
        s = self.st.seats[seat]
        return (s.lang if s is not None and s.lang else None) or self.lang

    def humans(self) -> list[tuple[int, Seat]]:
        return [(i, s) for i, s in enumerate(self.st.seats) if s is not None and s.human]

    def votes_needed(self, seat: int) -> int:
        """Votes that leave ``seat`` to the AI for the rest of the match: a majority of the
        other seated players, and at least two when three or more players sit."""
        others = [i for i, s in self.humans() if i != seat]
        majority = len(others) // 2 + 1
        return max(majority, 2) if len(others) >= 2 else majority

    def name(self, seat: int | None) -> str:
        return seat_name(seat, self.names(), self.lang)

    def mention(self, seat: int) -> str:
        s = self.st.seats[seat]
        if s is None or s.user is None:
            return self.name(seat)
        return f'<a href="tg://user?id={s.user}">{self.name(seat)}</a>'

    # -- the lobby ---------------------------------------------------------------------------
    def lobby_out(self) -> Out:
        lang = self.lang
        st = self.st
        lines = [t(lang, "bot.lobby.title", preset=t(lang, f"bot.preset.{st.settings.preset}"))]
        for side in (0, 1):
            members = []
            for s in (side, side + 2, side + 4):
                seat = st.seats[s]
                who = t(lang, "bot.lobby.empty") if seat is None else self.name(s)
                if seat is not None and not seat.human:
                    who = "🤖 " + who
                members.append(f"{s + 1}·{who}")
            lines.append(t(lang, f"bot.lobby.team{side}", members=" ｜ ".join(members)))
        lines.append(t(lang, "bot.lobby.pairs"))
        if st.countdown is not None:
            lines.append(t(lang, "bot.lobby.countdown"))
        lines.append(t(lang, "bot.lobby.how"))
        kb = None
        if self.status == TableStatus.LOBBY:
            kb = lobby_keyboard(
                self.id,
                self.lobby_ver,
                st.seats,
                st.settings.preset,
                st.settings.ai_level,
                st.countdown is not None,
                lang,
            )
        return Out(
            self.chat_id,
            "\n".join(lines),
            kb,
            self.thread_id,
            slot=Slot(self.id, SlotKind.LOBBY),
        )

    # -- the group's table -------------------------------------------------------------------
    def table_out(self, unlogged: Sequence[str] = ()) -> Out:
        """The group's table: whose turn, the top, counts, the trick in progress; ``unlogged``:
        finished lines the log does not show yet (it is edited at a slower beat), the last
        :data:`UNLOGGED_SHOWN` of them shown above the trick in progress. Within
        :func:`built_once`, what besides ``unlogged`` it shows is made once."""
        built = _BUILT.get()
        parts = built.get(self.id) if built is not None else None
        if parts is None:
            parts = self._table_parts()
            if built is not None:
                built[self.id] = parts
        head, tail, limit, photo, key = parts
        text = fit("\n".join([*head, *unlogged[-UNLOGGED_SHOWN:], *tail]) or "…", limit)
        return Out(
            self.chat_id,
            text,
            None,
            self.thread_id,
            Slot(self.id, SlotKind.TABLE),
            photo,
            key,
            silent=True,
        )

    def _table_parts(self) -> _TableParts:
        """What the group's table shows besides the unlogged lines: the lines above and below
        them, the caption's limit, the picture and its key."""
        assert self.match is not None
        view = self.view(None)
        hold = self.held()
        lang = self.lang
        lines: list[str] = []
        if view.asked == Ask.BURN:
            # §7: only players who can beat a 够级 play are asked to burn: never say who
            lines.append(t(lang, "pace.burn_window"))
        elif view.phase == Phase.SETUP:
            # §5, §11: whoever is asked (革命 only of a hand without 2s and jokers) is nobody
            # else's business while the cards are dealt
            lines.append(t(lang, "pace.dealing"))
        elif hold is not None and view.to_act is not None:
            # a seat the bot passes for (it cannot beat): nobody is asked, so nobody is named —
            # the seat has no buttons and hears nothing
            lines.append(t(lang, "pace.hold"))
        elif view.to_act is not None:
            lines.append(t(lang, "bot.table.turn", name=self.mention(view.to_act)))
        if view.top is not None:
            lines.append(
                t(
                    lang,
                    "bot.table.top",
                    name=self.name(view.top.seat),
                    cards=card_text(view.top.cards, lang),
                )
            )
        if view.burning is not None:
            lines.append(t(lang, "bot.table.burning", name=self.name(view.burning)))
        counts = []
        for s in range(6):
            if view.status[s] == Status.ACTIVE and view.counts[s] is not None:
                counts.append(t(lang, "bot.table.count", name=self.name(s), n=view.counts[s]))
            elif view.ranks[s] is not None:
                counts.append(f"{self.name(s)} {rank_name(view.ranks[s] or 1, lang)}")
        if counts:
            lines.append("  ".join(counts))
        tail: list[str] = []
        current = self.transcript.current() if self.transcript else None
        if hold is not None:
            current = hold.current
        if current:
            tail.append(current)
        if self.note:
            tail.append(self.note)
        limit = MAX_CAPTION if self.st.settings.image else MAX_MESSAGE
        names = self.names()
        photo = None
        key = ""
        if self.st.settings.image and hold is None:
            photo = partial(render_table, view, names, lang)  # drawn when sent, by a worker
            key = f"v{view.version}"
        elif self.st.settings.image:
            # while seats that cannot beat are shown thinking, one picture without a turn badge
            # for all the steps: each step changes only the caption (whose turn), a cheap edit
            # with no picture drawn or uploaded
            photo = partial(render_table, replace(view, to_act=None), names, lang)
            key = f"v{view.version}h"
        return lines, tail, limit, photo, key

    def log_out(self, lines: Sequence[str]) -> Out:
        """The running log message: finished trick lines from ``log_first`` on."""
        shown = list(lines[self.st.log_first :])
        text = "\n".join(shown) if shown else t(self.lang, "bot.log.empty")
        slot = Slot(self.id, SlotKind.LOG, self.st.log_page)
        return Out(self.chat_id, fit(text, MAX_MESSAGE), None, self.thread_id, slot, silent=True)

    def cheer_outs(self, cheers: Sequence[str]) -> list[Out]:
        return [Out(self.chat_id, c, None, self.thread_id) for c in cheers]

    def game_over_outs(self) -> list[Out]:
        assert self.match is not None
        view = self.match.view(None)
        totals = (self.match.totals[0], self.match.totals[1])
        names = self.names()
        lang = self.lang
        text = game_over_caption(view, names, lang, match_score=totals)
        return [
            Out(
                self.chat_id,
                fit(text, MAX_CAPTION),
                over_keyboard(self.id, self.match.version, lang),
                self.thread_id,
                photo=partial(render_game_over, view, names, lang, totals),
                photo_key=f"over{view.version}",
            )
        ]

    def afk_out(self, seat: int, votes: int, need: int) -> Out:
        """The group hears the seat went to the AI (托管); it may vote to leave the seat to the
        AI for the rest of the game, or a member who does not play may take it over."""
        lang = self.lang
        version = self.st.afk_ver.get(seat, 0)
        kb = afk_keyboard(self.id, version, seat, votes, need, lang)
        text = t(lang, "bot.afk", name=self.mention(seat))
        return Out(self.chat_id, text, kb, self.thread_id, slot=Slot(self.id, SlotKind.AFK, seat))

    def table_below(self, cheered: bool) -> Out:
        """The table message; ``cheered`` (cheers piled below it: bot.pins.sight_outs) it is
        sent anew below them (the old one deleted), so that the group keeps the table and the
        trick in progress in sight — once for a run of cheers (the sender keeps only the last
        of several waiting), never at the game's end, where the game-over picture comes
        last."""
        out = self.table_out()
        over = self.match is not None and self.match.phase == Phase.OVER
        return replace(out, new=True) if cheered and not over else out

    def log_outs(self, finished: list[str]) -> list[Out]:
        """The log message with the ``finished`` lines (a full page keeps its lines and the
        next ones start a new one)."""
        if not finished:
            return []
        outs: list[Out] = []
        self.lines.extend(finished)
        shown = "\n".join(self.lines[self.st.log_first :])
        if visible_length(shown) > LOG_LIMIT:
            keep = len(self.lines) - len(finished)
            outs.append(self.log_out(self.lines[:keep]))
            self.st.log_first = keep
            self.st.log_page += 1
        outs.append(self.log_out(self.lines))
        return outs

    def hand_outs(
        self, seats: set[int], ask: tuple[int, Ask] | None, dealt: bool = False
    ) -> list[Out]:
        """The hand messages of ``seats``; the player asked now gets the question as a new
        message: an edit would not make their phone buzz (the old one is deleted, so one
        question has one live message)."""
        outs: list[Out] = []
        for seat in sorted(seats):
            s = self.st.seats[seat]
            asked_now = ask is not None and seat == ask[0] and s is not None and not s.auto
            out = self.hand_out(seat)
            if out is not None and asked_now and own_side_burn(self.match, ask):
                out = replace(out, silent=True)  # bot.quiet: burning your own 联邦 needs no buzz
            if out is not None:
                outs.append(replace(out, new=True) if dealt or asked_now else out)
        return outs

    # -- a player's private chat -------------------------------------------------------------
    def hand_out(self, seat: int) -> Out | None:
        """The hand message of a player: picture, what is asked, the keyboard that builds any
        legal answer (or only 托管 while others act)."""
        s = self.st.seats[seat]
        if s is None or s.user is None or self.match is None:
            return None
        m = self.match
        lang = self.seat_lang(seat)
        view = self.view(seat)
        hand_text = view.hand or ""
        asked = view.to_act == seat and not m.over
        legal = m.choices(seat)
        lines = self._dm_lines(seat, view, asked and not s.auto)
        if self.hinted.get(seat) and asked:
            lines.append(self.hinted[seat])
        sel = self.selection.get(seat, EMPTY_SELECTION)
        kb = None
        sit = situation(m, seat, self.confirm.get(seat))
        if asked and not s.auto and legal.ask is not None:
            hand = parse(hand_text)
            if legal.ask in (Ask.LEAD, Ask.ANSWER, Ask.BURN, Ask.LAST):
                ok = self.selection_ok(seat)
                kb = hand_keyboard(self.id, m.version, legal, hand, sel, ok, False, lang, sit)
            else:
                kb = deal_keyboard(
                    self.id, m.version, legal, hand, sel, self.returnable(legal), lang
                )
        elif view.phase != Phase.OVER:
            kb = waiting_keyboard(self.id, s.auto, lang, sit)
        photo, photo_key = self._dm_picture(seat, view)
        return Out(
            s.user,
            fit("\n".join(lines), MAX_CAPTION),
            kb,
            None,
            Slot(self.id, SlotKind.HAND, seat),
            # the keyboard shows the chosen cards: the picture changes only with the hand
            photo=photo,
            photo_key=photo_key,
        )

    def _dm_lines(self, seat: int, view: SeatView, asked: bool) -> list[str]:
        """The caption of a player's hand message: who and how many cards, the table from the
        seat's own view (renderers.dm), then what they are asked or whom they wait for."""
        s = self.st.seats[seat]
        assert s is not None
        lang = self.seat_lang(seat)
        names = self.names()
        out_of_play = view.status[seat] != Status.ACTIVE and view.phase != Phase.OVER
        name = person(s.name)
        if out_of_play or not view.hand:
            lines = [t(lang, "dm.title.out", game=view.number, name=name)]
        else:
            lines = [t(lang, "dm.title", game=view.number, name=name, n=len(view.hand))]
        played = self.transcript.played if self.transcript else None
        lines += table_lines(view, names, lang, played)
        if asked or view.phase == Phase.OVER:
            lines.append(prompt_text(view, lang, names, brief=True))
        elif out_of_play:
            rank = view.ranks[seat]
            if rank is None:  # §5.4: a revolutionary's rank is settled later
                lines.append(t(lang, "dm.out.revolted"))
            else:
                lines.append(t(lang, "dm.out", rank=rank_name(rank, lang)))
        elif view.asked == Ask.BURN:  # §7: who may burn is nobody else's business
            lines.append(t(lang, "pace.burn_window"))
        elif view.phase == Phase.SETUP:  # §5: nor who decides in the deal phase
            lines.append(t(lang, "pace.dealing"))
        elif view.to_act is not None:
            # not whom: a waiting message is a snapshot of the seat's last action, not edited
            # as the turn moves on (the group's table says whose turn it is)
            lines.append(t(lang, "bot.hand.waiting"))
        if s.auto and not out_of_play and view.phase != Phase.OVER:
            lines.append(t(lang, "bot.hand.auto_on"))
        lines.extend(  # §13 看联邦牌
            t(lang, "bot.hand.partner", name=seat_name(p, names, lang), cards=card_text(h, lang))
            for p, h in enumerate(view.partner_hands)
            if h
        )
        return lines

    def _dm_picture(self, seat: int, view: SeatView) -> tuple[Callable[[], bytes], str]:
        """The hand message's picture: the hand, or once the player is out of play (gone out,
        闷, 诈烧, 革命) or holds nothing, a strip with their rank instead of an empty table —
        still a picture, since a photo message's media can be edited but never removed."""
        hand = view.hand or ""
        rank = view.ranks[seat]
        active = view.status[seat] == Status.ACTIVE
        if (hand and active) or (active and rank is None):
            return partial(render_hand, hand), hand
        label = t(self.seat_lang(seat), f"img.rank.{rank}" if rank else f"img.{view.status[seat]}")
        return partial(render_out, label), f"out:{label}"

    # -- building a play ---------------------------------------------------------------------
    def selection_ok(self, seat: int) -> bool:
        """Whether the chosen cards are a legal play now (the 出牌 button is shown only then)."""
        sel = self.selection.get(seat, EMPTY_SELECTION)
        if self.match is None or not any(sel):
            return False
        try:
            self.match.check(Action(seat, Do.PLAY, fmt(sel)))
        except ValueError:
            return False
        return True

    @staticmethod
    def returnable(legal: Legal) -> Counts:
        """Ranks a 还贡 may give (§11): those in some offered return."""
        out = [0] * NRANKS
        for o in legal.options:
            for r, n in enumerate(parse(o.cards)):
                out[r] = max(out[r], n)
        return tuple(out)

    # -- after the match moved ---------------------------------------------------------------
    def feed(self, events: Sequence[Event]) -> tuple[list[str], list[str]]:
        """Give the transcript the new events: (finished lines, cheers)."""
        if self.transcript is None or (events and events[0].type == EventType.DEALT):
            rules = self.match.rules if self.match is not None else STANDARD
            self.transcript = Transcript(self.names(), self.lang, rules)
        self.transcript.feed(events)
        return self.transcript.take_finished(), self.transcript.cheers()

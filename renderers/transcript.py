"""The group's running account of one game, written the way a Qingdao table talks about it: one line
per trick, plays joined by →, 让 and 烧 shown, passes left out, the 开点 or 走科 at the end::

    小李 4 → 张姐 5 → 阿强 9 → 王叔 10 → 小美 J →（张姐让）→ 王叔 Q ✅
    🔥 阿强 烧 王叔：3个2 → 2个10+大王 → 3个J+大王 → 💥 诈烧，判为大落；王叔 接风

A burn gets its own line from the burning play until it ends (烧成, 诈烧, 解烧 and the rest of that
trick). The deal phase (进贡, 还贡, 买3, 革命, 流局, 宣点, 要头, the leader), 四户乱缠 with its
rule are lines of their own; the end of the game is the game-over picture's (bot.table).

Nothing here tells who could have beaten a play: a declined burn claim and every pass, automatic
or not, are left out (§7: only players able to beat a 够级 play are asked to burn).

Pure and deterministic: feeding the same events again from the start of a game, all at once or in
the engine's batches (a batch must not be split: the events closing a trick come in one), rebuilds
the same lines — the bot can rebuild its transcript after a restart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from engine.events import Event, EventType
from engine.ranking import chuan_team
from engine.rules import STANDARD, Rules

from .announce import deal_line
from .fit import MAX_MESSAGE, fit
from .i18n import Catalog, lang_or_default
from .played import Played
from .terms import card_text, rank_name, seat_name

# Events the group never hears about on their own (§7: a declined burn is silent; an automatic
# pass is a pass, and passes are left out of a trick's line).
_UNSAID = frozenset({EventType.PASS, EventType.AUTO_PASS})
_KNOWN = frozenset(EventType)
# Events that belong to the line of the trick that just ended (they follow its ``trick_won``).
_TAIL = frozenset({EventType.OPENED, EventType.FINISHED, EventType.WIND, EventType.SMOTHERED})


@dataclass
class _Token:
    """One step of a line between arrows: a play (seat and cards) or a note, with suffixes."""

    key: str  # catalog key of the step
    seat: int | None = None
    cards: str = ""
    params: dict[str, object] = field(default_factory=dict)
    notes: list[tuple[str, dict[str, object]]] = field(default_factory=list)


@dataclass
class _Line:
    head: tuple[str, dict[str, object]] | None = None
    tokens: list[_Token] = field(default_factory=list)
    own: int | None = None  # the burner whose plays the line shows without a name
    cheer: bool = False


class Transcript:
    """The group's running account of one game: one line per trick, plus lines for the moments a
    table cheers.

    ``feed`` the events returned by ``Match.new_game`` / ``Match.apply``, in order.
    ``take_finished`` returns the lines completed since its last call (each Telegram HTML,
    ≤ 4096 characters);
    ``current`` the line of the trick in progress (for the bot to edit in place), None between
    tricks; ``cheers`` — independent of ``take_finished`` — the lines completed since its own last
    call that deserve a group message of their own: a burn as it starts (🔥 老王 烧了！), burn
    outcomes, 闷, 开点, 走科, 四户乱缠 and 革命; each but a burn's start is also one of the finished
    lines. The end of the game closes the last trick's line and adds none: the game-over
    picture says the result, once.
    ``played``: the game's plays as every seat saw them (for the players' DMs).
    ``rules``: the table's; a 烧成 promises 烧贡 only where the next deal collects it (§11).
    """

    def __init__(self, names: Sequence[str], lang: str, rules: Rules = STANDARD) -> None:
        self.names = tuple(names)
        self.rules = rules
        self.lang = lang_or_default(lang)
        self.cat = Catalog.load(self.lang)
        self._done: list[tuple[str, bool]] = []
        self._shouts: list[str] = []  # cheers not yet taken, in the order they happened
        self._line: _Line | None = None
        self._closing = False  # the line's trick is over; tail events may still add to it
        self._after: list[tuple[str, bool]] = []  # lines that wait for the trick in progress
        self.played = Played()
        self._new_game()

    def _new_game(self) -> None:
        self._burning: int | None = None
        self._ranks: dict[int, int] = {}
        # smothered / failed seat → the step and the index of the note saying so (-1: the step)
        self._faults: dict[int, tuple[_Token, int]] = {}
        self._revolted: set[int] = set()
        self._last_play: int | None = None
        self._owed = False  # a 烧贡 was promised this game

    # -- the API -----------------------------------------------------------------------------

    def feed(self, events: Sequence[Event]) -> None:
        self.played.feed(events)
        for ev in events:
            self._event(ev)
        if self._closing:
            self._finish()

    def take_finished(self) -> list[str]:
        out = [line for line, _ in self._done]
        self._done = []  # taken: the bot keeps them (its log), not twice
        return out

    def current(self) -> str | None:
        if self._line is None or self._closing:
            return None
        return self._render(self._line)

    def cheers(self) -> list[str]:
        out, self._shouts = self._shouts, []
        return out

    # -- words -------------------------------------------------------------------------------

    def _name(self, s: int | None) -> str:
        return seat_name(s, self.names, self.lang)

    def _text(self, key: str, seen: set[str], params: dict[str, object]) -> str:
        return self.cat.text(key, seen, **params)

    def _render(self, line: _Line) -> str:
        seen: set[str] = set()
        parts = []
        for tok in line.tokens:
            params = dict(tok.params)
            if tok.seat is not None:
                params.setdefault("name", self._name(tok.seat))
            if tok.cards:
                params["cards"] = card_text(tok.cards, self.lang)
            part = self._text(tok.key, seen, params)
            for key, note_params in tok.notes:
                note = self._text(key, seen, note_params)
                part += note.lstrip() if part.endswith("）") else note
            parts.append(part)
        head = self._text(line.head[0], seen, line.head[1]) if line.head else ""
        return _clip(head, self.cat.text("tr.join"), parts)

    def _add(self, text_: str, cheer: bool = False) -> None:
        line = fit(text_, MAX_MESSAGE)
        self._done.append((line, cheer))
        if cheer:
            self._shouts.append(line)

    def _shout(self, key: str, seat: int | None) -> None:
        """A cheer the moment something starts (a burn), before its line is finished."""
        self._shouts.append(self.cat.text(key, name=self._name(seat)))

    def _finish(self) -> None:
        """Close the line in progress and keep it."""
        line, self._line, self._closing = self._line, None, False
        if line is not None and line.tokens:
            self._add(self._render(line), line.cheer)
        for waiting in self._after:
            self._add(*waiting)
        self._after.clear()

    def _open(self) -> _Line:
        if self._line is None:
            self._line = _Line(own=self._burning)
        return self._line

    def _last(self, s: int | None = None) -> _Token | None:
        """The latest step of the line (of seat ``s`` when given)."""
        tokens = self._line.tokens if self._line is not None else []
        for tok in reversed(tokens):
            if s is None or (tok.seat == s and tok.cards):
                return tok
        return None

    def _note(self, key: str, cheer: bool = False, **params: object) -> None:
        """A suffix on the latest step; a line of its own when no line is open."""
        tok = self._last()
        if tok is None or self._line is None:
            self._add(self.cat.text(key, None, **params).strip("，;；（）() "), cheer)
            return
        tok.notes.append((key, params))
        self._line.cheer |= cheer

    # -- events ------------------------------------------------------------------------------

    def _event(self, ev: Event) -> None:
        k = ev.type
        who = ev.seat
        if k in _UNSAID or k not in _KNOWN:
            return  # a type this transcript does not know says nothing, the trick's line open
        if self._closing and k not in _TAIL:
            self._finish()
        if k == EventType.PLAY:
            line = self._open()
            key = "tr.play.own" if who is not None and who == line.own else "tr.play"
            line.tokens.append(_Token(key, who, (ev.cards or "")))
            self._last_play = who
        elif k == EventType.YIELD:
            self._open().tokens.append(_Token("tr.yield", who))
        elif k == EventType.BURN:
            self._burn(who, ev.victim)
            self._shout("tr.burn.start", who)
        elif k in (EventType.COUNTER_BURN, EventType.BURN_BREAK):
            if k == EventType.COUNTER_BURN:
                self._shout("tr.counter_burn.start", who)
            tok = self._last(who)
            if tok is not None and self._line is not None:
                tok.key = f"tr.{k}"
                self._line.own = who if k == EventType.COUNTER_BURN else None
                self._line.cheer = True
            self._burning = who if k == EventType.COUNTER_BURN else None
        elif k == EventType.BURN_SUCCESS:
            self._burning = None
            if self.rules.tribute == "all" and ev.tribute:  # §11: 只落贡 and 不进贡 collect none
                self._owed = True
                self._step("tr.burn_success", victim=self._name(ev.victim), tribute=ev.tribute)
            else:
                self._step("tr.burn_success.free")
        elif k == EventType.BURN_FAIL:
            self._burning = None
            own = self._line is not None and self._line.own == who
            tok = self._step("tr.burn_fail" if own else "tr.burn_fail.named", who)
            if who is not None:
                self._faults[who] = (tok, -1)
            self._closing = True  # the lead passes on: the next play starts a new line
        elif k == EventType.SMOTHERED:  # a note on the play that smothered (§8)
            line = self._open()
            line.cheer = True
            tok = self._last(ev.by) or self._step("tr.play", ev.by)
            tok.notes.append(("tr.smothered", {"name": self._name(who)}))
            if who is not None:
                self._faults[who] = (tok, len(tok.notes) - 1)
        elif k == EventType.TRICK_WON:
            if self._burning is None and self._line is not None:
                tok = self._last(who) or self._last()
                if tok is not None:
                    tok.notes.append(("tr.won", {}))
                self._closing = True
        elif k == EventType.OPENED:
            self._note("tr.opened", cheer=True)
        elif k == EventType.FINISHED:
            self._finished(who, ev.rank)
        elif k == EventType.WIND:
            self._note("tr.wind", name=self._name(who))
        elif k == EventType.FOUR_WAY:  # announced after the trick during which it began
            self._burning = None  # §12: a burn still running simply ends
            if self._line is not None:
                self._line.own = None
            if self._line is None:
                self._add(self.cat.text("ev.four_way"), cheer=True)
            else:
                self._after.append((self.cat.text("ev.four_way"), True))
        elif k == EventType.GAME_OVER:
            # the last trick's line; the result itself is the game-over picture's, said once
            self._finish()
            ranks = [self._ranks.get(s) for s in range(6)]
            if self._owed and len(self._ranks) == 6 and chuan_team(ranks) is not None:
                # §11: 串三户 takes no 烧贡 — a promise of this game's log taken back there
                self._add(self.cat.text("tr.over.chuan.waived").strip(" （）()"))
        else:
            self._deal(ev, k, who)

    def _step(self, key: str, who: int | None = None, **params: object) -> _Token:
        tok = _Token(key, who, params=dict(params))
        line = self._open()
        line.tokens.append(tok)
        line.cheer = True
        return tok

    def _burn(self, burner: int | None, victim: int | None) -> None:
        """The burning play closes the line of the trick it burned and opens the burn's line."""
        line = self._line
        play = line.tokens.pop() if line is not None and line.tokens else None
        self._finish()
        self._burning = burner
        self._line = _Line(
            head=("tr.burn", {"name": self._name(burner), "victim": self._name(victim)}),
            own=burner,
            cheer=True,
        )
        if play is not None:
            play.key = "tr.play.own"
            self._line.tokens.append(play)

    def _finished(self, who: int | None, rank: int | None) -> None:
        if who is None or rank is None or not 1 <= rank <= 6:
            return
        before = self._ranks.get(who)
        self._ranks[who] = rank
        words = rank_name(rank, self.lang)
        if who in self._faults:
            fault, index = self._faults[who]
            if before is None and index < 0:
                fault.notes.append(("tr.placed", {"rank": words}))
            elif before is None:
                key, params = fault.notes[index]
                fault.notes[index] = (f"{key}.placed", {**params, "rank": words})
            else:  # a later 诈烧 moved this smothered player up (§10)
                self._note("tr.replaced", name=self._name(who), rank=words)
            return
        if who in self._revolted:
            self._note("tr.revolted_rank", cheer=True, name=self._name(who), rank=words)
            return
        tok = self._last(who)
        if who == self._last_play and tok is not None and self._line is not None:
            tok.notes.append(("tr.gone", {"rank": self.cat.text(f"rank.go.{rank}")}))
            self._line.cheer = True
        # else: placed when the game ends; the game-over picture shows every rank

    def _deal(self, ev: Event, k: EventType, who: int | None) -> None:
        self._finish()
        if k == EventType.DEALT:
            self._new_game()
        elif k == EventType.REVOLUTION and who is not None:
            self._revolted.add(who)
        elif k == EventType.VOID_DEAL:
            self._revolted.clear()
        line = deal_line(ev, self.names, self.lang, self.rules)
        if line is not None:
            self._add(line, cheer=k == EventType.REVOLUTION)


def _clip(head: str, join: str, parts: list[str]) -> str:
    """``head`` + ``parts`` joined; a line too long for one message keeps its latest steps."""
    line = head + _join(join, parts)
    if len(line) <= MAX_MESSAGE:
        return line
    kept: list[str] = []
    size = len(head) + 2
    for part in reversed(parts):
        if size + len(part) + len(join) > MAX_MESSAGE:
            break
        kept.append(part)
        size += len(part) + len(join)
    return head + "…" + join + _join(join, kept[::-1])


def _join(join: str, parts: list[str]) -> str:
    """Steps joined by the arrow, no space beside a full-width bracket: ``J →（张姐让）→ Q``."""
    out = parts[0] if parts else ""
    for prev, part in pairwise(parts):
        arrow = join
        if prev.endswith("）"):
            arrow = arrow.lstrip()
        if part.startswith("（"):
            arrow = arrow.rstrip()
        out += arrow + part
    return out


def badges_line(earned: Sequence[tuple[str, str]], lang: str = "zh") -> str:
    """The badges one game earned, as one line for the group: each badge once, with who earned
    it (``earned``: (player's name, badge id) pairs, in the order earned); "" for none."""
    from .stats_text import badge_name
    from .terms import person

    by_badge: dict[str, list[str]] = {}
    for name, badge in earned:
        by_badge.setdefault(badge, []).append(person(name))
    if not by_badge:
        return ""
    cat = Catalog.load(lang_or_default(lang))
    groups = cat.text("stats.earned.sep").join(
        cat.text(
            "stats.earned.group",
            badge=badge_name(badge, lang),
            names=cat.text("stats.earned.names_sep").join(names),
        )
        for badge, names in by_badge.items()
    )
    return fit(cat.text("stats.earned.line", list=groups), MAX_MESSAGE)

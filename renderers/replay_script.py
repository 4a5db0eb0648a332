"""The script of a replay: a finished game's record played again by the engine and told frame
by frame — one frame for the deal, one per trick, one for the end — with every hand open.

Each trick's frame holds every seat's cards once the trick is over (dead cards included: §5.4
革命, §7 诈烧, §8 闷), the trick's plays and passes in order, who won it (§6.5), and what the
engine announced: 烧牌, 反烧, 解烧, 烧成 and 诈烧 (§7), 闷 (§8), 开点 (§9), players going out
with their ranks 头科 … 大落 (§10), 接风 and 四户乱缠 (§12). Drawn by
:mod:`renderers.replay_image`; the bot's entry points are in :mod:`renderers.replay`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.actions import IllegalAction
from engine.cards import fmt, parse
from engine.events import Event
from engine.game import Game
from engine.gamerecord import BadRecord, parse_record
from engine.ranking import Debt
from engine.record import read_json
from engine.rules import Rules
from engine.vocab import Do, EventType, Status

from .i18n import lang_or_default

E = EventType
# What a trick's frame announces, in the engine's order (RECORDS.md "Order of events").
MARKED = frozenset(
    {
        E.BURN,
        E.COUNTER_BURN,
        E.BURN_BREAK,
        E.BURN_SUCCESS,
        E.BURN_FAIL,
        E.SMOTHERED,
        E.OPENED,
        E.FINISHED,
        E.WIND,
        E.FOUR_WAY,
    }
)
# Events that start (or carry on) a burn: the play just made is a burn play (§7).
_BURNS = frozenset({E.BURN, E.COUNTER_BURN})
# Events after which nobody is burning any more (§7, §12).
_BURN_ENDS = frozenset({E.BURN_BREAK, E.BURN_SUCCESS, E.BURN_FAIL, E.FOUR_WAY})


class FrameKind(StrEnum):
    DEAL = "deal"
    TRICK = "trick"
    END = "end"


@dataclass(frozen=True)
class Step:
    """One move of a trick: a play (``cards``), a pass or a yield (让牌, §6.4)."""

    seat: int
    do: Do
    cards: str = ""  # canonical notation, strongest first
    burn: bool = False  # a play that starts, counters or carries on a burn (§7)
    auto: bool = False  # a pass the engine made for a player who could not beat (§6.3)


@dataclass(frozen=True)
class Mark:
    """Something a frame announces: an engine event of :data:`MARKED`, with its other seat
    (the burned ``victim``, the ``burner`` broken or counter-burned, who smothered: ``by``)."""

    type: EventType
    seat: int | None
    other: int | None = None
    rank: int | None = None


@dataclass(frozen=True)
class Frame:
    """One picture of the replay: the state once its trick is over, and what the trick was."""

    kind: FrameKind
    number: int  # the trick's number from 1; 0 for the deal, the trick count + 1 for the end
    hands: tuple[str, ...]  # every seat's cards at the end of the frame, dead cards included
    steps: tuple[Step, ...]  # the trick's moves in order (no declined burn claims, §7)
    winner: int | None  # whose play stood (§6.5); None for the deal, the end, an unended trick
    marks: tuple[Mark, ...]
    status: tuple[Status, ...]
    ranks: tuple[int | None, ...]
    opened: tuple[bool, ...]
    burning: int | None  # who is burning when the frame ends
    four_way: bool  # 四户乱缠 has begun (§12)

    @property
    def failed(self) -> int | None:
        """The winner when the trick ended in their 诈烧 (§7: their play stood, then they could
        not lead as the burn requires): the trick is theirs to lose, not to win."""
        fails = {m.seat for m in self.marks if m.type == EventType.BURN_FAIL}
        return self.winner if self.winner in fails else None

    def played(self) -> str:
        """Every card played in this frame's trick, canonical."""
        total = [0] * 15
        for step in self.steps:
            for r, n in enumerate(parse(step.cards)):
                total[r] += n
        return fmt(total)


@dataclass(frozen=True)
class ReplayScript:
    """A game told frame by frame, with the names and the language to draw it in."""

    names: tuple[str, ...]
    lang: str
    rules: Rules
    dealt: tuple[str, ...]  # the hands the record starts from
    leader: int  # who leads the first trick (a revolted leader's lead passed on, §5.6)
    revolted: tuple[int, ...]
    declared: tuple[int, ...]
    yaotou: tuple[int, ...]
    frames: tuple[Frame, ...]
    over: bool
    score: tuple[int, int]  # §10, teams A (0, 2, 4) and B (1, 3, 5); zero until over
    tributes: tuple[Debt, ...] = ()  # owed for the next game (§11), once over
    refused: int | None = None  # the index of a refused action the replay stopped at

    @property
    def tricks(self) -> int:
        return len(self.frames) - 2


def frame_count(script: ReplayScript) -> int:
    """How many frames the script has: the deal, each trick, the end."""
    return len(script.frames)


def replay_frames(record_json: str | bytes, names: Sequence[str], lang: str) -> ReplayScript:
    """The script of a game record (RECORDS.md) given as JSON text: one frame for the deal, one
    per trick (a trick still open when the record ends included), one for the end. A record
    with a refused action is told up to it (``refused`` says which). ``ValueError`` (the
    engine's ``BadRecord``) for text that is no game record."""
    record = parse_record(read_json(record_json))
    game = Game.from_record(record)
    first = game.asked()
    leader = first[0] if first else record.leader
    frames = [_frame(game, FrameKind.DEAL, 0, _Trick())]
    trick = _Trick()
    refused: int | None = None
    for k, action in enumerate(record.actions):
        try:
            events = game.apply(action)
        except IllegalAction:
            refused = k
            break
        if trick.read(events):
            frames.append(_frame(game, FrameKind.TRICK, len(frames), trick))
            trick = _Trick(trick.burning)
    if trick.steps or trick.marks:  # a trick the record leaves open
        frames.append(_frame(game, FrameKind.TRICK, len(frames), trick))
    frames.append(_frame(game, FrameKind.END, len(frames), _Trick()))
    return ReplayScript(
        names=tuple(names),
        lang=lang_or_default(lang),
        rules=record.rules,
        dealt=record.hands,
        leader=leader,
        revolted=record.revolted,
        declared=record.declared,
        yaotou=record.yaotou,
        frames=tuple(frames),
        over=game.over,
        score=game.score(),
        tributes=tuple(game.tributes()),
        refused=refused,
    )


class _Trick:
    """The trick in progress, read from the engine's events."""

    def __init__(self, burning: int | None = None) -> None:
        self.steps: list[Step] = []
        self.marks: list[Mark] = []
        self.winner: int | None = None
        self.burning = burning  # who burns as the events go (§7)

    def read(self, events: Sequence[Event]) -> bool:
        """Add one action's events; whether they close the trick (its top stood, §6.5, or the
        game ended)."""
        closed = False
        for ev in events:
            seat = ev.seat if ev.seat is not None else -1
            if ev.type == E.PLAY:
                # §7: a burner plays only to lead, and each lead carries the burn on
                burn = seat == self.burning
                self.steps.append(Step(seat, Do.PLAY, ev.cards or "", burn))
            elif ev.type in (E.PASS, E.AUTO_PASS) and not ev.claim:
                self.steps.append(Step(seat, Do.PASS, auto=ev.type == E.AUTO_PASS))
            elif ev.type == E.YIELD:
                self.steps.append(Step(seat, Do.YIELD))
            elif ev.type == E.TRICK_WON:
                self.winner, closed = seat, True
            elif ev.type == E.GAME_OVER:
                closed = True
            if ev.type in _BURNS:
                last = self.steps[-1]
                self.steps[-1] = Step(last.seat, last.do, last.cards, True)
                self.burning = seat
            elif ev.type in _BURN_ENDS:
                self.burning = None
            if ev.type in MARKED:
                other = ev.victim if ev.victim is not None else ev.burner
                self.marks.append(
                    Mark(ev.type, ev.seat, ev.by if other is None else other, ev.rank)
                )
        return closed


def _frame(game: Game, kind: FrameKind, number: int, trick: _Trick) -> Frame:
    return Frame(
        kind=kind,
        number=number,
        hands=tuple(fmt(h) for h in game.hands),
        steps=tuple(trick.steps),
        winner=trick.winner,
        marks=tuple(trick.marks),
        status=tuple(game.status),
        ranks=tuple(game.ranks),
        opened=tuple(game.opened),
        burning=game.burning,
        four_way=game.four_way,
    )


__all__ = [
    "MARKED",
    "BadRecord",
    "Frame",
    "FrameKind",
    "Mark",
    "ReplayScript",
    "Step",
    "frame_count",
    "replay_frames",
]

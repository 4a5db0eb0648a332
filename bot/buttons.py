"""The bot's button vocabulary: every button kind and op, and the one codec of callback data.

Wire form ``<kind><table>.<version>.<op><arg>``: ``kind`` one letter (:class:`Kind`), the table
id and the version the keyboard was drawn at in base 36, ``op`` one letter of the kind's op enum
and ``arg`` what it applies to (a seat, a rank, the k-th offered answer) for the ops that take
one. Always ≤ 64 bytes (Telegram's limit). Anything that does not decode to a known kind, op
and argument is refused with :class:`BadCallback`, never an exception elsewhere; the router
(:mod:`bot.router`) is the one place a decoded op is dispatched.

The versions a keyboard carries: the lobby's version (lobby), the match's version (hand, game
over), the AFK notice's version (vote), the chat settings' version (settings: its table field
is 0, the settings belong to the pressed message's chat).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from engine.cards import RANK_CHARS

MAX_BYTES = 64
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_RE = re.compile(r"([a-z])([0-9a-z]{1,10})\.([0-9a-z]{1,8})\.([A-Za-z])([0-9A-Za-z]{0,4})")


class BadCallback(ValueError):
    """Callback data the bot did not make (forged, truncated, or from an older bot)."""


class Kind(StrEnum):
    """Which message a button belongs to."""

    LOBBY = "l"  # the group's lobby
    HAND = "h"  # a player's hand message in their private chat
    OVER = "o"  # the group's game-over message
    SETTINGS = "s"  # the group's /settings message
    VOTE = "v"  # the group's notice about a seat in 托管
    STORY = "y"  # the group's /history, /replay and /record messages (bot.story)


class LobbyOp(StrEnum):
    SIT = "s"  # arg: the seat
    SIT_ANY = "S"
    LEAVE = "L"
    RULES = "R"
    PRESET = "P"  # the next preset (opener or admin)
    LEVEL = "A"  # the next AI level (opener or admin)
    FILL = "F"  # empty seats to the AI
    GO = "G"  # start now
    COUNTDOWN = "C"  # start when the pickup countdown ends


class HandOp(StrEnum):
    RANK = "r"  # arg: a rank; choose cards of it for a play (bot.handkeys)
    COUNT = "n"  # arg: n; n cards of the chosen rank (a lead)
    EXTRA = "e"  # arg: 2, S or B and n; n of those 2s or jokers in the play (贴钱, 挂花)
    RETURN_RANK = "t"  # arg: a rank; choose cards of it for 还贡 (§11)
    CLEAR = "c"  # the choice emptied
    PLAY = "p"  # play (or return) the chosen cards
    QUICK = "q"  # arg: k; the k-th one-tap answer
    OPTION = "o"  # arg: k; the k-th answer of a deal-phase question (§5)
    PASS = "x"  # 过 / 不烧
    YIELD = "y"  # 让牌 (§6.4)
    HINT = "i"  # 提示
    AUTO = "a"  # 托管 on (asks for its confirmation) or off
    AUTO_YES = "A"  # 确认托管
    CONFIRM = "k"  # play the burn that was warned about (§7 诈烧 ahead)
    SURE = "s"  # play the ▶ play tapped once that spends 2s or jokers or splits a 够级 (§4)
    CANCEL = "z"  # the pending confirmation dropped


class OverOp(StrEnum):
    AGAIN = "N"  # 再来一局
    READY = "Y"  # ✅ in the ready check before the next game (bot.ready)


class SettingsOp(StrEnum):
    PRESET = "p"
    SWITCH = "w"  # arg: k; the k-th switch of §13
    TURN = "t"
    LEVEL = "a"
    LANG = "l"
    IMAGE = "i"
    INSTANT = "q"  # 快速过牌 on or off (bot.hold)
    PAGE = "g"  # arg: k; the k-th page of the /rules rulebook


class VoteOp(StrEnum):
    AI = "a"  # arg: the seat; leave it to the AI for the rest of the game
    TAKE = "t"  # arg: the seat; a member who does not play takes it over


class StoryOp(StrEnum):
    """A stored game's buttons: the table field is the game's code (its table and number,
    :func:`bot.story.game_code`), the version :data:`bot.story.STORY_BUTTONS`."""

    OLDER = "o"  # /history's page of the games older than the game
    NEWER = "n"  # … newer than it
    REPLAY = "r"  # the game's replay (animation and steps)
    RECORD = "d"  # its record as a document
    STEP = "f"  # arg: k; frame k of the game's replay, in place of the pressed message


Op = LobbyOp | HandOp | OverOp | SettingsOp | VoteOp | StoryOp

OPS: dict[
    Kind,
    type[LobbyOp] | type[HandOp] | type[OverOp] | type[SettingsOp] | type[VoteOp] | type[StoryOp],
] = {
    Kind.LOBBY: LobbyOp,
    Kind.HAND: HandOp,
    Kind.OVER: OverOp,
    Kind.SETTINGS: SettingsOp,
    Kind.VOTE: VoteOp,
    Kind.STORY: StoryOp,
}


class Arg(StrEnum):
    """What an op's argument is."""

    NONE = ""
    SEAT = "seat"  # 0–5
    RANK = "rank"  # a character of RANK_CHARS
    INDEX = "index"  # 0–99
    EXTRA = "extra"  # 2, S or B, then 1–99: how many of them
    NUMBER = "number"  # 0–9999 (a game of a match, a frame of a replay)


# The ops that take an argument, keyed by kind too: ops of different kinds share letters (and,
# being strings, compare equal), so an op alone does not say what it is.
ARGS: dict[tuple[Kind, Op], Arg] = {
    (Kind.LOBBY, LobbyOp.SIT): Arg.SEAT,
    (Kind.VOTE, VoteOp.AI): Arg.SEAT,
    (Kind.VOTE, VoteOp.TAKE): Arg.SEAT,
    (Kind.HAND, HandOp.RANK): Arg.RANK,
    (Kind.HAND, HandOp.RETURN_RANK): Arg.RANK,
    (Kind.HAND, HandOp.COUNT): Arg.INDEX,
    (Kind.HAND, HandOp.EXTRA): Arg.EXTRA,
    (Kind.HAND, HandOp.QUICK): Arg.INDEX,
    (Kind.HAND, HandOp.OPTION): Arg.INDEX,
    (Kind.SETTINGS, SettingsOp.SWITCH): Arg.INDEX,
    (Kind.SETTINGS, SettingsOp.PAGE): Arg.INDEX,
    (Kind.STORY, StoryOp.STEP): Arg.NUMBER,
}


def b36(n: int) -> str:
    if n < 0:
        raise ValueError("negative")
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _DIGITS[r] + out
        if n == 0:
            return out


def _arg_ok(kind: Kind, op: Op, arg: str) -> bool:
    match ARGS.get((kind, op), Arg.NONE):
        case Arg.SEAT:
            return len(arg) == 1 and arg in "012345"
        case Arg.RANK:
            return len(arg) == 1 and arg in RANK_CHARS
        case Arg.INDEX:
            return arg.isdigit() and len(arg) <= 2
        case Arg.EXTRA:
            return arg[:1] in ("2", "S", "B") and arg[1:].isdigit() and len(arg) <= 3
        case Arg.NUMBER:
            return arg.isdigit() and len(arg) <= 4 and (arg == "0" or arg[0] != "0")
    return arg == ""


@dataclass(frozen=True)
class Callback:
    """One button's data, decoded: what it is, for which table at which version."""

    kind: Kind
    table: int
    version: int
    op: Op
    arg: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.op, OPS[self.kind]) or not _arg_ok(self.kind, self.op, self.arg):
            raise ValueError(f"not a {self.kind.name} button: {self.op!r} {self.arg!r}")

    @property
    def seat(self) -> int:
        """The seat of a seat op (sit, vote)."""
        assert ARGS.get((self.kind, self.op)) == Arg.SEAT
        return int(self.arg)

    @property
    def rank(self) -> int:
        """The rank of a rank op (an index of ``RANK_CHARS``)."""
        assert ARGS.get((self.kind, self.op)) == Arg.RANK
        return RANK_CHARS.index(self.arg)

    @property
    def index(self) -> int:
        """The k of an index op (the k-th answer, option or switch)."""
        assert ARGS.get((self.kind, self.op)) == Arg.INDEX
        return int(self.arg)

    @property
    def number(self) -> int:
        """The n of a number op (a game of a match, a frame)."""
        assert ARGS.get((self.kind, self.op)) == Arg.NUMBER
        return int(self.arg)

    def encode(self) -> str:
        data = f"{self.kind}{b36(self.table)}.{b36(self.version)}.{self.op}{self.arg}"
        if len(data.encode()) > MAX_BYTES or not _RE.fullmatch(data):
            raise ValueError(f"callback data out of bounds: {data!r}")
        return data

    @staticmethod
    def decode(data: str | None) -> Callback:
        if not isinstance(data, str) or len(data) > MAX_BYTES:
            raise BadCallback("not our button")
        m = _RE.fullmatch(data)
        if m is None:
            raise BadCallback("not our button")
        kind_s, table, version, op_s, arg = m.groups()
        try:
            kind = Kind(kind_s)
            return Callback(kind, int(table, 36), int(version, 36), OPS[kind](op_s), arg)
        except ValueError:
            raise BadCallback("not our button") from None


def callback_of(data: str | None) -> Callback | None:
    """The decoded button, or None for data the bot did not make."""
    try:
        return Callback.decode(data)
    except BadCallback:
        return None

"""What the bot keeps about a chat and a table, as plain data that round-trips through JSON
(storage keeps it opaque). Telegram ids live here; the engine only ever sees seats 0–5."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

from engine.ai import LEVELS
from engine.rules import PRESETS, Rules, RulesError

TURN_SECONDS = (30, 60, 90, 120, 180)
DEFAULT_TURN = 60
AFK_TIMEOUTS = 2  # consecutive timeouts before a seat goes to 托管 (§ AFK ladder)


class TableStatus(StrEnum):
    """Where a table is (stored as its value)."""

    LOBBY = "lobby"  # seating players
    PLAYING = "playing"  # a game of the match is on (its deal phase included)
    OVER = "over"  # a game ended; 再来一局 deals the next one
    ABANDONED = "abandoned"  # /stop, or the bot left the chat: kept stored, never resumed


class AiLevel(StrEnum):
    """The AI levels a chat can choose (``engine.ai.LEVELS``), in the order buttons cycle."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"

    def next(self) -> AiLevel:
        levels = list(AiLevel)
        return levels[(levels.index(self) + 1) % len(levels)]


assert tuple(AiLevel) == LEVELS  # one list of levels


def next_preset(preset: str) -> str:
    """The preset after ``preset`` (the lobby's and /settings' preset button)."""
    names = list(PRESETS)
    return names[(names.index(preset) + 1) % len(names)]


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """A chat's table settings (``/settings``): the rules and how the bot runs a game."""

    preset: str = "standard"
    switches: dict[str, Any] = field(default_factory=dict)  # flipped from the preset
    turn_s: int = DEFAULT_TURN  # per-turn timer
    ai_level: AiLevel = AiLevel.NORMAL  # for seats filled with AI
    lang: str = "zh"
    image: bool = True  # the table image in the group
    afk: int = AFK_TIMEOUTS
    instant_passes: bool = False  # 快速过牌: automatic passes shown at once (bot.hold)
    version: int = 0  # grows with each change (the /settings buttons carry it)

    def rules(self) -> Rules:
        return Rules.preset_named(self.preset).with_switches(self.switches)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(obj: Any, lang: str = "zh") -> ChatSettings:
        """Settings from storage; anything unknown or invalid falls back to the default."""
        base = ChatSettings(lang=lang)
        if not isinstance(obj, dict):
            return base
        out = base
        if obj.get("preset") in PRESETS:
            out = replace(out, preset=obj["preset"])
        sw = obj.get("switches")
        if isinstance(sw, dict):
            try:
                Rules.preset_named(out.preset).with_switches(sw)
                out = replace(out, switches=dict(sw))
            except RulesError:
                pass
        if obj.get("turn_s") in TURN_SECONDS:
            out = replace(out, turn_s=obj["turn_s"])
        if obj.get("ai_level") in LEVELS:
            out = replace(out, ai_level=AiLevel(obj["ai_level"]))
        if obj.get("lang") in ("zh", "en"):
            out = replace(out, lang=obj["lang"])
        for flag in ("image", "instant_passes"):
            if isinstance(obj.get(flag), bool):
                out = replace(out, **{flag: obj[flag]})
        afk = obj.get("afk")
        if isinstance(afk, int) and not isinstance(afk, bool) and 1 <= afk <= 5:
            out = replace(out, afk=afk)
        ver = obj.get("version")
        if isinstance(ver, int) and not isinstance(ver, bool) and ver >= 0:
            out = replace(out, version=ver)
        return out


@dataclass(slots=True)
class Seat:
    """Who sits in a seat: a player (``user`` set) or an AI (``user`` None)."""

    name: str
    user: int | None = None
    level: AiLevel = AiLevel.NORMAL  # the AI level that plays it (an AI seat, or 托管)
    auto: bool = False  # 托管: the AI plays for the player
    timeouts: int = 0  # consecutive turn timeouts
    lang: str | None = None  # the player's own language for DMs
    away: int | None = None  # an AI seat the table voted away from this user (who may reclaim it)
    away_name: str = ""  # that user's name

    @property
    def human(self) -> bool:
        return self.user is not None

    @property
    def ai_plays(self) -> bool:
        return self.user is None or self.auto

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(obj: Any) -> Seat | None:
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
            return None
        user = obj.get("user")
        return Seat(
            name=obj["name"],
            user=user if isinstance(user, int) else None,
            level=AiLevel(obj["level"]) if obj.get("level") in LEVELS else AiLevel.NORMAL,
            auto=bool(obj.get("auto", False)),
            timeouts=_int(obj.get("timeouts")),
            lang=obj.get("lang") if obj.get("lang") in ("zh", "en") else None,
            away=obj["away"] if isinstance(obj.get("away"), int) else None,
            away_name=obj["away_name"] if isinstance(obj.get("away_name"), str) else "",
        )


@dataclass(slots=True)
class TableState:
    """A table's state besides the match: seats, settings, the messages the bot edits."""

    seats: list[Seat | None] = field(default_factory=lambda: [None] * 6)
    settings: ChatSettings = field(default_factory=ChatSettings)
    seed: int | None = None  # the match's seed (tests and demos); None: the OS's randomness
    lobby_msg: int | None = None
    table_msg: int | None = None
    table_photo: bool = False  # whether the table message is a photo (else text)
    # The group's running log of tricks: one message per page (edited while it fills, then
    # kept); a page starts with each game and whenever the last one is full.
    log_msgs: dict[int, int] = field(default_factory=dict)  # page → message id
    log_page: int = 0
    log_first: int = 0  # the first transcript line of the current page
    hand_msgs: dict[int, int] = field(default_factory=dict)  # seat → its hand message id
    afk_msgs: dict[int, int] = field(default_factory=dict)  # seat → its AFK notice's id
    afk_ver: dict[int, int] = field(default_factory=dict)  # seat → its AFK notice's version
    countdown: float | None = None  # when the pickup countdown starts the game (epoch s)
    stored_games: int = 0  # finished games saved to storage
    # 再来一局's ready check (bot.ready): when its countdown ends (epoch s), who tapped ✅
    ready_until: float | None = None
    ready: list[int] = field(default_factory=list)
    ready_msg: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": [s.to_json() if s else None for s in self.seats],
            "settings": self.settings.to_json(),
            "seed": self.seed,
            "lobby_msg": self.lobby_msg,
            "table_msg": self.table_msg,
            "table_photo": self.table_photo,
            "log_msgs": {str(k): v for k, v in self.log_msgs.items()},
            "log_page": self.log_page,
            "log_first": self.log_first,
            "hand_msgs": {str(k): v for k, v in self.hand_msgs.items()},
            "afk_msgs": {str(k): v for k, v in self.afk_msgs.items()},
            "afk_ver": {str(k): v for k, v in self.afk_ver.items()},
            "countdown": self.countdown,
            "stored_games": self.stored_games,
            "ready_until": self.ready_until,
            "ready": list(self.ready),
            "ready_msg": self.ready_msg,
        }

    @staticmethod
    def from_json(obj: Any) -> TableState:
        st = TableState()
        if not isinstance(obj, dict):
            return st
        seats = obj.get("seats")
        if isinstance(seats, list) and len(seats) == 6:
            st.seats = [Seat.from_json(s) for s in seats]
        st.settings = ChatSettings.from_json(obj.get("settings"))
        seed = obj.get("seed")
        st.seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
        for key in ("lobby_msg", "table_msg"):
            v = obj.get(key)
            setattr(st, key, v if isinstance(v, int) else None)
        st.table_photo = bool(obj.get("table_photo", False))
        st.log_first = _int(obj.get("log_first"))
        st.log_page = _int(obj.get("log_page"))
        st.log_msgs = _int_map(obj.get("log_msgs"))
        st.hand_msgs = _seat_map(obj.get("hand_msgs"))
        st.afk_msgs = _seat_map(obj.get("afk_msgs"))
        st.afk_ver = _seat_map(obj.get("afk_ver"))
        cd = obj.get("countdown")
        st.countdown = float(cd) if isinstance(cd, int | float) else None
        st.stored_games = _int(obj.get("stored_games"))
        until = obj.get("ready_until")
        st.ready_until = float(until) if isinstance(until, int | float) else None
        ready = obj.get("ready")
        st.ready = (
            [s for s in ready if isinstance(s, int) and 0 <= s <= 5]
            if isinstance(ready, list)
            else []
        )
        msg = obj.get("ready_msg")
        st.ready_msg = msg if isinstance(msg, int) and not isinstance(msg, bool) else None
        return st


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _int_map(value: Any) -> dict[int, int]:
    """A JSON object of int keys (as strings) to ints; anything else dropped."""
    if not isinstance(value, dict):
        return {}
    out: dict[int, int] = {}
    for k, v in value.items():
        if isinstance(k, str) and k.isdigit() and isinstance(v, int) and not isinstance(v, bool):
            out[int(k)] = v
    return out


def _seat_map(value: Any) -> dict[int, int]:
    return {k: v for k, v in _int_map(value).items() if 0 <= k <= 5}

"""Events: the only output of the engine (RECORDS.md "events"), read by renderers and the bot.

An :class:`Event` has typed fields; which of them a type carries is :data:`FIELDS` (RECORDS.md's
table for the play, the deal phase's own after it), and :meth:`Event.to_json` writes exactly those.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .vocab import DEAL_EVENTS, PLAY_EVENTS, Do, EventType, LeaderReason, TributeKind

__all__ = ["DEAL_EVENTS", "FIELDS", "PLAY_EVENTS", "Event", "EventType"]

E = EventType
# The fields each type carries besides ``type`` and ``seat``, by their JSON names.
FIELDS: dict[EventType, tuple[str, ...]] = {
    E.PLAY: ("cards", "gouji"),
    E.BURN: ("victim",),
    E.BURN_BREAK: ("burner",),
    E.COUNTER_BURN: ("burner",),
    E.BURN_SUCCESS: ("victim", "tribute"),
    E.SMOTHERED: ("by",),
    E.FINISHED: ("rank",),
    E.DEALT: ("game",),
    E.TRIBUTE_PAID: ("to", "kind", "cards"),
    E.TRIBUTE_RETURNED: ("to", "cards"),
    E.BOUGHT_THREE: ("from", "paid"),
    E.GIVEN_THREE: ("from",),
    E.REVOLUTION: ("forced",),
    E.YAOTOU: ("choice",),
    E.LEADER: ("reason",),
}
_ATTR = {"from": "source"}  # JSON names that are Python keywords


class Event(NamedTuple):
    """Something that happened. ``seat`` is the actor (None for table-wide events). Immutable;
    a named tuple because the engine makes several per action (hot in search and bench)."""

    type: EventType
    seat: int | None = None
    cards: str | None = None  # canonical notation, strongest first
    gouji: bool | None = None  # a 够级 play (false during 四户乱缠)
    victim: int | None = None  # whose 够级 play was burned
    burner: int | None = None  # whose burn was broken (解烧) or counter-burned (反烧)
    tribute: int | None = None  # 烧贡 owed: 1, or 2 after a counter-burn
    by: int | None = None  # whose play smothered (闷) the seat
    rank: int | None = None  # 1 = 头科 … 6 = 大落
    game: int | None = None  # the dealt game's number in the match (1-based)
    to: int | None = None  # the receiver of a tribute or of 还贡
    kind: TributeKind | None = None
    source: int | None = None  # JSON "from": who sold (买3) or gave (要3) the 3
    paid: str | None = None  # the card paid for a 3
    forced: bool | None = None  # a 革命 that §5.3 forced
    choice: Do | None = None  # 要头 or 无头
    reason: LeaderReason | None = None
    # Internal, never in a record: a ``pass`` that declines a burn claim (§7), which RECORDS.md
    # reports as a plain pass and the group never sees.
    claim: bool = False

    def to_json(self) -> dict[str, Any]:
        """The RECORDS.md form: type, seat and the type's own fields."""
        out: dict[str, Any] = {"type": str(self.type), "seat": self.seat}
        for name in FIELDS.get(self.type, ()):
            value = getattr(self, _ATTR.get(name, name))
            out[name] = str(value) if isinstance(value, str) else value
        return out

    def __repr__(self) -> str:
        fields = "".join(
            f", {k}={v!r}" for k, v in self.to_json().items() if k not in ("type", "seat")
        )
        return f"Event({self.type.name}, {self.seat}{fields}{', claim' if self.claim else ''})"

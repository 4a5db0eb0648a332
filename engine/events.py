"""Events: the only output of the engine (RECORDS.md "events"), read by renderers and the bot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

EventValue = int | str | bool | None

# Types of RECORDS.md, in its table's order, then the ones of the deal (§5, §11), which records
# never contain because a record starts at the first play.
PLAY_EVENTS = (
    "play",
    "pass",
    "auto_pass",
    "yield",
    "burn",
    "burn_break",
    "counter_burn",
    "burn_success",
    "burn_fail",
    "smothered",
    "trick_won",
    "opened",
    "finished",
    "wind",
    "four_way",
    "game_over",
)
DEAL_EVENTS = (
    "dealt",  # a new deal (seat None); extra: game (1-based number in the match)
    "tribute_paid",  # seat pays; to, kind, cards (the cards given, may be "")
    "tribute_returned",  # seat (the receiver) returns cards to `to` (还贡)
    "bought_three",  # 买3: seat buys a 3 from `to`... see extra `from`, paid
    "given_three",  # 要3: seat receives a free 3 from `from`
    "revolution",  # 革命 declared
    "void_deal",  # 流局: two or more revolutions (seat None); re-deal follows
    "no_three",  # a 3 cannot be had: re-deal (seat None)
    "yaotou",  # the revolutionary's 对头 chose; extra: choice "yaotou" | "wutou"
    "declared",  # 宣点
    "leader",  # the first leader of the game; extra: reason "fours" | "threes" | "random" | "daluo"
)


# Fields the engine adds for renderers but records never show: ``claim`` marks a ``pass`` that
# declines a burn claim (§7), which RECORDS.md reports as a plain ``pass``.
INTERNAL_FIELDS = frozenset({"claim"})


@dataclass(frozen=True, slots=True)
class Event:
    type: str
    seat: int | None
    extra: tuple[tuple[str, EventValue], ...] = ()

    @staticmethod
    def make(type_: str, seat: int | None, **extra: EventValue) -> Event:
        return Event(type_, seat, tuple(extra.items()))

    def get(self, key: str, default: EventValue = None) -> EventValue:
        for k, v in self.extra:
            if k == key:
                return v
        return default

    def __getitem__(self, key: str) -> EventValue:
        for k, v in self.extra:
            if k == key:
                return v
        raise KeyError(key)

    def to_json(self) -> dict[str, Any]:
        """The RECORDS.md form (internal detail fields such as ``claim`` left out)."""
        out: dict[str, Any] = {"type": self.type, "seat": self.seat}
        out.update((k, v) for k, v in self.extra if k not in INTERNAL_FIELDS)
        return out

"""Variant switches and presets (docs/rules.md §13)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

Tribute = Literal["all", "luo", "off"]
PointTable = Literal["standard", "double"]


class RulesError(ValueError):
    """An unknown preset, switch or switch value."""


@dataclass(frozen=True)
class Rules:
    """The active rules of a table; every field is a switch of §13."""

    preset: str = "standard"
    bie3: bool = True
    burn: bool = True
    yield_: bool = True
    open_point: bool = True
    declare_point: bool = True
    point_table: PointTable = "standard"
    revolution: bool = True
    tribute: Tribute = "all"
    return_tribute: bool = True
    waive_team_tribute: bool = True
    yaotou: bool = True
    kill_big_joker: bool = False
    partner_cards_at: int = 0
    counts_at: int = 10

    # -- construction -------------------------------------------------------------------------
    @staticmethod
    def preset_named(name: str) -> Rules:
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesError(f"unknown preset {name!r} (one of {', '.join(PRESETS)})") from None

    @staticmethod
    def from_json(value: Any) -> Rules:
        """A record's ``rules``: a preset name, or ``{"preset": …, switch: value, …}``."""
        if value is None:
            return STANDARD
        if isinstance(value, str):
            return Rules.preset_named(value)
        if not isinstance(value, dict):
            raise RulesError("rules must be a preset name or an object")
        preset = value.get("preset", "standard")
        if not isinstance(preset, str):
            raise RulesError("preset must be a string")
        rules = Rules.preset_named(preset)
        return rules.with_switches({k: v for k, v in value.items() if k != "preset"})

    def with_switches(self, switches: dict[str, Any]) -> Rules:
        """A copy with switches flipped, each value checked against §13."""
        changes: dict[str, Any] = {}
        for key, val in switches.items():
            name = _FIELD_OF.get(key)
            if name is None:
                raise RulesError(f"unknown switch {key!r}")
            kind = _KIND[name]
            if kind is bool:
                if not isinstance(val, bool):
                    raise RulesError(f"switch {key!r} takes true or false")
            elif kind is int:
                if isinstance(val, bool) or not isinstance(val, int) or not 0 <= val <= 36:
                    raise RulesError(f"switch {key!r} takes a whole number from 0 to 36")
            elif val not in kind:
                raise RulesError(f"switch {key!r} takes one of {', '.join(kind)}")
            changes[name] = val
        return replace(self, **changes) if changes else self

    def to_json(self) -> dict[str, Any]:
        """The record form: the preset plus every switch, by §13's names."""
        out: dict[str, Any] = {"preset": self.preset}
        for name, value in asdict(self).items():
            if name != "preset":
                out[_JSON_OF[name]] = value
        return out

    def switches(self) -> dict[str, Any]:
        """Every switch by its §13 name, in §13's order (for /rules and records)."""
        d = self.to_json()
        del d["preset"]
        return d

    def differences(self) -> dict[str, Any]:
        """Switches that differ from this rules' own preset."""
        base = PRESETS.get(self.preset, STANDARD).switches()
        return {k: v for k, v in self.switches().items() if base.get(k) != v}


_KIND: dict[str, Any] = {
    f.name: (
        ("all", "luo", "off")
        if f.name == "tribute"
        else ("standard", "double")
        if f.name == "point_table"
        else int
        if f.name.endswith("_at")
        else bool
    )
    for f in fields(Rules)
    if f.name != "preset"
}
_JSON_OF = {name: name.rstrip("_") for name in _KIND}
_FIELD_OF = {json: name for name, json in _JSON_OF.items()}

STANDARD = Rules()
QINGDAO = Rules(
    preset="qingdao",
    bie3=False,
    open_point=False,
    declare_point=False,
    tribute="luo",
    yaotou=False,
    partner_cards_at=10,
    counts_at=10,
)
CASUAL = Rules(
    preset="casual",
    bie3=False,
    yield_=False,
    open_point=False,
    declare_point=False,
    tribute="off",
    yaotou=False,
    counts_at=36,
)
PRESETS: dict[str, Rules] = {"standard": STANDARD, "qingdao": QINGDAO, "casual": CASUAL}

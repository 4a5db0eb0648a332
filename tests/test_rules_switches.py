"""docs/rules.md §13: switches and presets."""

from __future__ import annotations

import pytest

from engine.rules import PRESETS, Rules, RulesError

TABLE = {
    "bie3": (True, False, False),
    "burn": (True, True, True),
    "yield": (True, True, False),
    "open_point": (True, False, False),
    "declare_point": (True, False, False),
    "point_table": ("standard", "standard", "standard"),
    "revolution": (True, True, True),
    "tribute": ("all", "luo", "off"),
    "return_tribute": (True, True, True),
    "waive_team_tribute": (True, True, True),
    "yaotou": (True, False, False),
    "kill_big_joker": (False, False, False),
    "partner_cards_at": (0, 10, 0),
    "counts_at": (10, 10, 36),
}


@pytest.mark.parametrize("switch", list(TABLE))
def test_presets_match_the_table(switch: str) -> None:
    for i, name in enumerate(("standard", "qingdao", "casual")):
        assert PRESETS[name].switches()[switch] == TABLE[switch][i]
    assert list(PRESETS["standard"].switches()) == list(TABLE)


def test_switches_flip_and_are_checked() -> None:
    r = Rules.from_json({"preset": "qingdao", "yield": False, "counts_at": 36})
    assert r.preset == "qingdao" and not r.yield_ and r.counts_at == 36
    assert r.differences() == {"yield": False, "counts_at": 36}
    for bad in (
        {"preset": "nowhere"},
        {"bie3": "yes"},
        {"tribute": "some"},
        {"counts_at": 99},
        {"colour": True},
        {"point_table": "triple"},
        3,
    ):
        with pytest.raises(RulesError):
            Rules.from_json(bad)


def test_round_trip() -> None:
    for rules in PRESETS.values():
        assert Rules.from_json(rules.to_json()) == rules

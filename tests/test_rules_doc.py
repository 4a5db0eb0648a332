"""docs/rules.md, the players' rulebook: both languages keep the same § numbering (so a § the
engine cites is a § the players can read), name every switch of §13 by its code name and by its
/settings button, and state each preset's setting as engine/rules.py has it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.rules import PRESETS, Rules

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"
ENGINE = ROOT / "engine"
I18N = ROOT / "data" / "i18n"

HALVES = {"zh": "# 够级规则（中文）", "en": "# Gouji rules (English)"}
SECTIONS = list(range(1, 14))  # docs/rules.md §1 … §13
PRESET_WORD = {
    "zh": {"standard": "标准打法", "qingdao": "青岛打法", "casual": "休闲打法"},
    "en": {"standard": "Standard", "qingdao": "Qingdao", "casual": "Casual"},
}
PRESET_SEP = {"zh": ("：", "；"), "en": (": ", "; ")}
# Traditional characters that the seeds use for the players' terms; the Chinese half is simplified.
TRADITIONAL = "夠級燒對頭聯開點貢進還闕悶與隻戰鬥這個們為從會時說過後發張黨齊" + "麼讓勝劃"
_CITE = re.compile(r"§(\d+)(?:\.(\d+))?")


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def _halves() -> dict[str, str]:
    text = _text()
    zh_at, en_at = text.find(HALVES["zh"] + "\n"), text.find(HALVES["en"] + "\n")
    assert zh_at == 0, "the file opens with the Chinese half"
    assert en_at > zh_at, "the English half follows the Chinese half"
    return {"zh": text[zh_at:en_at], "en": text[en_at:]}


def _headings(half: str, level: str) -> list[str]:
    """The § numbers of the headings of one level (``##`` or ``###``), in order."""
    pattern = re.compile(rf"^{level} §(\d+(?:\.\d+)?) \S", re.MULTILINE)
    return pattern.findall(half)


def _section(half: str, n: int) -> str:
    """The text of ``## §n`` up to the next ``## `` heading."""
    start = re.search(rf"^## §{n} ", half, re.MULTILINE)
    assert start is not None, f"§{n}"
    nxt = re.search(r"^## ", half[start.end() :], re.MULTILINE)
    return half[start.start() : start.end() + nxt.start()] if nxt else half[start.start() :]


def _engine_cites() -> set[str]:
    """Every § (``7``) and numbered item (``5.4``) cited in the engine's code and comments."""
    cites: set[str] = set()
    for path in ENGINE.rglob("*.py"):
        for m in _CITE.finditer(path.read_text(encoding="utf-8")):
            cites.add(m.group(1))
            if m.group(2):
                cites.add(f"{m.group(1)}.{m.group(2)}")
    return cites


def _catalog(lang: str) -> dict[str, str]:
    data: Any = json.loads((I18N / f"bot.{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return {str(k): str(v) for k, v in data.items()}


def _value_word(value: object, lang: str) -> str:
    """A switch value as the bot's /settings shows it."""
    cat = _catalog(lang)
    if isinstance(value, bool):
        return cat["bot.on" if value else "bot.off"]
    if isinstance(value, int):
        return str(value)
    return cat[f"bot.val.{value}"]


def test_the_doc_exists() -> None:
    assert DOC.is_file()
    assert set(_halves()) == {"zh", "en"}


@pytest.mark.parametrize("lang", list(HALVES))
def test_each_half_has_rules_md_sections_in_order(lang: str) -> None:
    assert _headings(_halves()[lang], "##") == [str(n) for n in SECTIONS]


def test_both_halves_have_the_same_numbered_items() -> None:
    halves = _halves()
    zh, en = _headings(halves["zh"], "###"), _headings(halves["en"], "###")
    assert zh == en
    for item in zh:
        assert item.split(".")[0] in {str(n) for n in SECTIONS}, item


@pytest.mark.parametrize("lang", list(HALVES))
def test_every_section_the_engine_cites_is_a_heading(lang: str) -> None:
    half = _halves()[lang]
    headings = set(_headings(half, "##")) | set(_headings(half, "###"))
    cites = _engine_cites()
    assert {"7", "5.4", "6.2"} <= cites  # the engine is read at all
    assert cites - headings == set()


@pytest.mark.parametrize("lang", list(HALVES))
def test_every_switch_is_named_in_backticks(lang: str) -> None:
    half = _halves()[lang]
    for switch in Rules().switches():
        assert f"`{switch}`" in half, switch
        assert f"`{switch}`" in _section(half, 13), switch


@pytest.mark.parametrize("lang", list(HALVES))
def test_section_13_gives_each_switch_its_button_name_and_preset_values(lang: str) -> None:
    """Each §13 entry reads ``- **<button name>** `<switch>`…`` and states the three presets'
    settings exactly as engine/rules.py has them, in the bot's own words for the values."""
    s13 = _section(_halves()[lang], 13)
    cat = _catalog(lang)
    colon, sep = PRESET_SEP[lang]
    switches = list(Rules().switches())
    for i, switch in enumerate(switches):
        head = f"- **{cat[f'bot.sw.{switch}']}** `{switch}`"
        start = s13.find(head)
        assert start >= 0, head
        nxt = s13.find("\n- ", start + 1)
        entry = s13[start : nxt if nxt >= 0 else len(s13)]
        expected = sep.join(
            f"{PRESET_WORD[lang][name]}{colon}{_value_word(rules.switches()[switch], lang)}"
            for name, rules in PRESETS.items()
        )
        assert expected in entry, (switch, expected)
        if i + 1 < len(switches):
            assert s13.find(f"`{switches[i + 1]}`") > start, "§13 keeps the switches' order"


@pytest.mark.parametrize("lang", list(HALVES))
def test_intro_points_to_rules_command_and_presets_are_named(lang: str) -> None:
    half = _halves()[lang]
    intro = half[: half.index("\n## §1 ")]
    assert "/rules" in intro and "§" in intro
    for name in PRESETS:
        assert f"`{name}`" in _section(half, 13), name
        # the button's name, before what the preset changes: 青岛（不憋3·不开点）
        label = _catalog(lang)[f"bot.preset.{name}"]
        assert label.split("（")[0].split(" (")[0] in half, name


def test_the_chinese_half_is_simplified() -> None:
    zh = _halves()["zh"]
    assert [c for c in TRADITIONAL if c in zh] == []
    for term in ("对头", "够级", "烧牌", "闷", "开点", "头科", "二科", "大落", "进贡", "还贡"):
        assert term in zh, term
    for term in ("憋3", "革命", "要头", "宣点", "四户乱缠", "联邦", "贴钱", "挂花"):
        assert term in zh, term

"""The message catalogs: both languages complete, consistent and covering the engine's words."""

from __future__ import annotations

import json
import re

import pytest

from engine.rules import Rules
from engine.vocab import Ask, Code, Do
from renderers import BUTTONS, Catalog, button_text, refusal_text
from renderers.i18n import CATALOG_DIR, LANGS, expand_terms, placeholders

ASKS = list(Ask)


def test_catalog_files_are_json_objects_of_strings() -> None:
    for lang in LANGS:
        data = json.loads((CATALOG_DIR / f"{lang}.json").read_text(encoding="utf-8"))
        assert isinstance(data, dict) and data
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in data.items())


def test_every_key_in_both_languages_with_the_same_placeholders() -> None:
    zh, en = Catalog.load("zh").messages, Catalog.load("en").messages
    assert zh.keys() == en.keys()
    for key in zh:
        assert placeholders(zh[key]) == placeholders(en[key]), key


def test_term_markers_only_in_english_and_well_formed() -> None:
    for key, text in Catalog.load("zh").messages.items():
        assert "[" not in text and "]" not in text, key
    for key, text in Catalog.load("en").messages.items():
        assert "[" not in expand_terms(text) and "]" not in expand_terms(text), key


def test_english_shows_a_term_once_per_message() -> None:
    seen: set[str] = set()
    assert expand_terms("burns [烧]", seen) == "burns (烧)"
    assert expand_terms("burns [烧] again", seen) == "burns again"


def test_html_in_templates_is_only_bold() -> None:
    for lang in LANGS:
        for key, text in Catalog.load(lang).messages.items():
            tags = re.findall(r"</?([a-z]+)[^>]*>", text)
            assert set(tags) <= {"b"}, key
            assert text.count("<b>") == text.count("</b>"), key


@pytest.mark.parametrize("lang", LANGS)
def test_every_ask_kind_has_a_prompt(lang: str) -> None:
    cat = Catalog.load(lang)
    assert ASKS
    for ask in ASKS:
        assert f"ask.{ask}" in cat, ask


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", list(Code))
def test_every_refusal_code_has_a_sentence(lang: str, code: str) -> None:
    assert f"refuse.{code}" in Catalog.load(lang)
    text = refusal_text(code, lang)
    assert text and text != refusal_text("no_such_code", lang)


def test_refusal_names_the_cards_when_given() -> None:
    text = refusal_text(Code.CANNOT_BEAT, "zh", cards="KK", top="AA")
    assert "2个K" in text and "2个A" in text
    assert refusal_text(Code.NOT_IN_HAND, "en", cards="B") == "You do not hold <b>big joker</b>."
    assert "three queens + a 2" in refusal_text(Code.NOT_IN_HAND, "en", cards="QQQ2")
    # params the sentence does not use are ignored
    assert refusal_text(Code.MUST_LEAD, "en", cards="KK") == refusal_text(Code.MUST_LEAD, "en")


@pytest.mark.parametrize("lang", LANGS)
def test_buttons(lang: str) -> None:
    labels = [button_text(b, lang) for b in BUTTONS]
    assert all(labels) and len(set(labels)) == len(labels)
    assert all("<" not in label for label in labels)
    for do in (
        Do.PLAY,
        Do.PASS,
        Do.YIELD,
        Do.REVOLT,
        Do.NO_REVOLT,
        Do.YAOTOU,
        Do.WUTOU,
        Do.DECLARE,
    ):
        assert do in BUTTONS
    assert Do.NO_DECLARE in BUTTONS and Do.RETURN in BUTTONS


def test_chinese_buttons_use_the_players_terms() -> None:
    zh = {b: button_text(b, "zh") for b in BUTTONS}
    assert zh["yield"] == "让牌" and zh["burn"] == "烧" and zh["revolt"] == "革命"
    assert zh["yaotou"] == "要头" and zh["wutou"] == "无头" and zh["declare"] == "宣点"
    assert zh["return"] == "还贡"


@pytest.mark.parametrize("lang", LANGS)
def test_every_rules_switch_has_words(lang: str) -> None:
    cat = Catalog.load(lang)
    for switch in Rules().switches():
        assert any(k.startswith(f"rules.{switch}.") for k in cat.messages), switch


def test_unknown_language_falls_back_to_chinese() -> None:
    assert Catalog.load("fr").lang == "zh"

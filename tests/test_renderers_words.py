"""Prompts, /rules and help: the players' words, escaped, within Telegram's limit (the group's
lines of a game: tests/test_transcript.py)."""

from __future__ import annotations

import dataclasses

import pytest

from engine.rules import CASUAL, PRESETS, QINGDAO, STANDARD
from engine.vocab import Ask
from renderers import (
    Catalog,
    card_text,
    hand_text,
    help_text,
    prompt_text,
    rank_name,
    rules_text,
)
from renderers.fit import MAX_MESSAGE
from renderers.i18n import LANGS
from renderers.samples import sample_view

NAMES = ("老王", "Alice", "小李", "Bob", "张三", "Eve")
HOSTILE = '<script>alert("x")</script>&amp;'
EVIL = (HOSTILE, "<b>bold</b>", "a&b", "{name}", "[烧]", "x" * 300)


@pytest.mark.parametrize("lang", LANGS)
def test_hostile_names_are_escaped_in_a_prompt(lang: str) -> None:
    view = dataclasses.replace(sample_view(), seat=0, to_act=0, asked=Ask.ANSWER, hand="KK")
    assert "<script>" not in prompt_text(view, lang, EVIL)


@pytest.mark.parametrize("lang", LANGS)
def test_messages_fit_telegram(lang: str) -> None:
    for rules in PRESETS.values():
        assert len(rules_text(rules, lang)) <= MAX_MESSAGE
    assert len(help_text(lang)) <= MAX_MESSAGE


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("ask", list(Ask))
def test_prompt_for_every_ask(lang: str, ask: Ask) -> None:
    view = dataclasses.replace(sample_view(), seat=3, to_act=3, asked=ask, hand="BB2299")
    text = prompt_text(view, lang, NAMES)
    assert text and "{" not in text and "[" not in text
    assert "9" in text  # the hand is listed


def test_prompt_words() -> None:
    base = dataclasses.replace(sample_view(), seat=3, to_act=3, hand="KK")
    burn = prompt_text(dataclasses.replace(base, asked=Ask.BURN, burning=None), "zh", NAMES)
    assert "烧" in burn and "小李" in burn
    lead = prompt_text(dataclasses.replace(base, asked=Ask.LEAD, top=None, burning=3), "zh", NAMES)
    assert "烧牌" in lead and "带王" in lead
    wait = prompt_text(dataclasses.replace(base, to_act=1), "zh", NAMES)
    assert "Alice" in wait
    assert "号位" in prompt_text(dataclasses.replace(base, asked=Ask.DECLARE), "zh")


def test_rules_text_names_preset_and_every_switch() -> None:
    zh = rules_text(STANDARD, "zh")
    assert "标准" in zh and "憋3" in zh and "烧牌" in zh and "让牌" in zh and "宣点" in zh
    assert "要头" in zh and "看联邦牌" in zh and "报牌" in zh and "还贡" in zh
    assert len(zh.splitlines()) == 1 + len(STANDARD.switches())
    en = rules_text(CASUAL.with_switches({"bie3": True}), "en")
    assert "casual" in en and "✏️ changed" in en and "always shown" in en
    assert "青岛" in rules_text(QINGDAO, "zh")


def test_card_text_counts_like_players() -> None:
    # jokers and 2s first: "10+2个大王" would read as "10+2"
    assert card_text("28888", "zh") == "4个8+2"
    assert card_text("AAA22", "zh") == "3个A+2个2"
    assert card_text("S2299", "zh") == "2个9+2个2+小王"
    assert card_text("BB22999", "zh") == "3个9+2个2+2个大王"
    assert card_text("BBST", "zh") == "10+2个大王+小王"
    assert card_text("28888", "en") == "four 8s + a 2"
    assert card_text("9992B2", "en") == "three 9s + two 2s + a big joker"
    assert card_text("T", "zh") == "10" and card_text("B", "en") == "big joker"
    assert card_text("222", "zh") == "3个2" and card_text("BS", "zh") == "大王+小王"
    assert card_text("TTTTTTTTTTTT", "en") == "12 10s"
    assert hand_text("BB2KQQ", "zh") == "2个大王、2、K、2个Q"
    assert hand_text("BB2KQQ", "en") == "two big jokers, a 2, a king, two queens"
    assert card_text("KQQ", "zh") == hand_text("KQQ", "zh")  # not a play: read as a hand
    assert rank_name(1, "zh") == "头科" and rank_name(6, "zh") == "大落"
    assert rank_name(5, "en") == "5th (二落)"
    with pytest.raises(ValueError):
        rank_name(0, "zh")


def test_help_mentions_the_terms() -> None:
    assert "对头" in help_text("zh") and "够级" in help_text("zh")
    assert "(对头)" in help_text("en")


def test_nobody_is_named_while_a_burn_claim_is_asked() -> None:
    """§7: only a player able to beat the 够级 play is asked to burn; the table and the other
    players' prompts must not show who is being asked."""
    from renderers import render_table

    asked = [
        dataclasses.replace(sample_view(), asked=Ask.BURN, to_act=s, burning=None)
        for s in (0, 1, 3)
    ]
    images = {render_table(v, NAMES, "zh") for v in asked}
    assert len(images) == 1
    for v in asked:
        for me in range(6):
            if me != v.to_act:
                text = prompt_text(dataclasses.replace(v, seat=me), "zh", NAMES)
                assert not any(n in text for n in NAMES), text
    answer = dataclasses.replace(asked[1], asked=Ask.ANSWER)
    assert "Alice" in prompt_text(dataclasses.replace(answer, seat=0), "zh", NAMES)


def test_help_gets_gouji_right_and_explains_the_terms() -> None:
    """docs/rules.md §4: 22888 is five 8s, not 够级; 开点, 憋3 and 闷 each explained in one line."""
    zh, en = help_text("zh"), help_text("en")
    assert "3个8+2个2只是5个8，不够级" in zh and "just five 8s: not gouji" in en
    for term in ("开点", "憋3", "闷"):
        assert sum(line.startswith(f"• <b>{term}</b>") for line in zh.splitlines()) == 1, term
    for term in ("Opening", "Hold your 3s", "Smothered"):
        assert sum(line.startswith(f"• <b>{term}</b>") for line in en.splitlines()) == 1, term


def test_the_tables_words() -> None:
    """The players' terms (seeds/), not translationese."""
    zh, en = Catalog.load("zh").messages, Catalog.load("en").messages
    everything_zh, everything_en = "".join(zh.values()), "".join(en.values())
    for wrong in ("立住", "赢得这一轮", "断言", "A队", "B队", "交"):
        assert wrong not in everything_zh, wrong
    for wrong in (
        "card(s)",
        "burned out",
        "takes the wind",
        "Team A",
        "rank tribute",
        "point trib",
    ):
        assert wrong not in everything_en, wrong
    assert "宣称" in zh["ev.declared"]
    assert "吹牛上税" in zh["ask.declare"] and "够死级三把才开点" in zh["ev.yaotou.yaotou"]
    assert zh["tr.burn_break"].startswith("🧯 {name} <b>解烧</b>")
    assert (
        "联邦之间免落贡" in zh["rules.waive_team_tribute.on"]
        and "只进落贡" in zh["rules.tribute.luo"]
    )
    assert zh["ask.last"] == "你让了牌，别人都过了：管不管 <b>{cards}</b>？"
    assert rules_text(QINGDAO, "zh").startswith("📜 <b>本桌规则</b>：青岛打法\n")
    assert "completes the burn</b> [烧成]" in en["tr.burn_success"]
    assert "gets the lead [接风]" in en["tr.wind"]
    assert "matching card" in en["refuse.cannot_beat"] and "dead gouji [够死级]" in en["ask.yaotou"]
    assert en["tribute.luo"] == "loser's tribute [落贡]" and en["tribute.dian"].startswith(
        "opening"
    )


def test_burn_prompts_split_into_break_and_counter() -> None:
    """§7: the burner's 对头 is asked to 解烧, anyone else to 反烧."""
    base = dataclasses.replace(
        sample_view(), to_act=5, asked=Ask.ANSWER, hand="BB", burning=2, headless=(False,) * 6
    )
    facing = prompt_text(dataclasses.replace(base, seat=5), "zh", NAMES)
    assert "解烧" in facing and "反烧" not in facing and "对头 小李" in facing
    other = prompt_text(dataclasses.replace(base, seat=5, burning=1), "zh", NAMES)
    assert "反烧" in other and "解烧" not in other
    headless = dataclasses.replace(base, seat=5, burning=1, headless=(False,) * 5 + (True,))
    assert "解烧" in prompt_text(headless, "zh", NAMES)  # §12: a 无头 player breaks a burn


def test_lengths_are_counted_as_telegram_counts_them() -> None:
    """Visible text in UTF-16 units: tags out, entities decoded, an emoji outside the basic
    plane two units; a text too long keeps its newest lines, never a tag cut in half."""
    from renderers.fit import MAX_CAPTION, fit, visible_length

    assert visible_length("<b>a&amp;b</b>") == 3
    assert visible_length("🐼老王") == 4
    name = "<b>" + "🐼" * 20 + " &lt;Jr&gt;</b>"
    lines = [f"{i} {name} 出了 3个K" for i in range(20)]
    text = "\n".join(lines)
    assert len(text) <= MAX_CAPTION < visible_length(text)  # code points would let it through
    cut = fit(text, MAX_CAPTION)
    assert visible_length(cut) <= MAX_CAPTION
    assert cut.startswith("…\n") and cut.endswith(lines[-1])
    assert all(line in lines for line in cut.split("\n")[1:])  # whole lines only
    long_line = "<b>" + "🐼" * 600 + "</b>"
    one = fit(long_line, MAX_CAPTION)
    assert visible_length(one) <= MAX_CAPTION and "<" not in one and one.endswith("…")

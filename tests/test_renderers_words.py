"""Announcements, prompts, /rules and help: the players' words, escaped, within Telegram's limit."""

from __future__ import annotations

import dataclasses

import pytest

from engine.events import DEAL_EVENTS, PLAY_EVENTS, Event
from engine.rules import CASUAL, PRESETS, QINGDAO, STANDARD
from engine.view import Debt
from engine.vocab import Ask, Do, EventType, LeaderReason, TributeKind
from renderers import (
    Catalog,
    card_text,
    describe_event,
    describe_events,
    game_over_text,
    hand_text,
    help_text,
    prompt_text,
    rank_name,
    rules_text,
    t,
)
from renderers.fit import MAX_MESSAGE
from renderers.i18n import LANGS
from renderers.samples import sample_over, sample_view

NAMES = ("老王", "Alice", "小李", "Bob", "张三", "Eve")
HOSTILE = '<script>alert("x")</script>&amp;'
EVIL = (HOSTILE, "<b>bold</b>", "a&b", "{name}", "[烧]", "x" * 300)

# One plausible event of every type, with the extra fields of RECORDS.md / engine/events.py.
SAMPLES = {
    "play": Event(EventType.PLAY, 0, cards="QQQ", gouji=True),
    "pass": Event(EventType.PASS, 1),
    "auto_pass": Event(EventType.AUTO_PASS, 2),
    "yield": Event(EventType.YIELD, 3),
    "burn": Event(EventType.BURN, 1, victim=0),
    "burn_break": Event(EventType.BURN_BREAK, 4, burner=1),
    "counter_burn": Event(EventType.COUNTER_BURN, 2, burner=1),
    "burn_success": Event(EventType.BURN_SUCCESS, 2, victim=1, tribute=2),
    "burn_fail": Event(EventType.BURN_FAIL, 2),
    "smothered": Event(EventType.SMOTHERED, 5, by=0),
    "trick_won": Event(EventType.TRICK_WON, 0),
    "opened": Event(EventType.OPENED, 0),
    "finished": Event(EventType.FINISHED, 0, rank=1),
    "wind": Event(EventType.WIND, 1),
    "four_way": Event(EventType.FOUR_WAY, None),
    "game_over": Event(EventType.GAME_OVER, None),
    "dealt": Event(EventType.DEALT, None, game=2),
    "tribute_paid": Event(EventType.TRIBUTE_PAID, 5, to=0, kind=TributeKind.LUO, cards="B2"),
    "tribute_returned": Event(EventType.TRIBUTE_RETURNED, 0, to=5, cards="99"),
    "bought_three": Event(EventType.BOUGHT_THREE, 1, source=4, paid="2"),
    "given_three": Event(EventType.GIVEN_THREE, 1, source=3),
    "revolution": Event(EventType.REVOLUTION, 4),
    "void_deal": Event(EventType.VOID_DEAL, None),
    "no_three": Event(EventType.NO_THREE, None),
    "yaotou": Event(EventType.YAOTOU, 1, choice=Do.YAOTOU),
    "declared": Event(EventType.DECLARED, 2),
    "leader": Event(EventType.LEADER, 3, reason=LeaderReason.FOURS),
}


def test_samples_cover_every_event_type() -> None:
    assert set(SAMPLES) == set(PLAY_EVENTS + DEAL_EVENTS)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", PLAY_EVENTS + DEAL_EVENTS)
def test_every_event_is_described(lang: str, kind: str) -> None:
    text = describe_event(SAMPLES[kind], NAMES, lang)
    assert text and "{" not in text and "[" not in text
    if SAMPLES[kind].seat is not None:
        seat = SAMPLES[kind].seat
        assert seat is not None and NAMES[seat] in text


def test_key_chinese_terms() -> None:
    zh = {k: describe_event(e, NAMES, "zh") or "" for k, e in SAMPLES.items()}
    assert "烧牌" in zh["burn"] and "解烧" in zh["burn_break"] and "反烧" in zh["counter_burn"]
    assert "闷" in zh["smothered"] and "开点" in zh["opened"] and "走头科" in zh["finished"]
    assert "头科" in zh["finished"] and "接风" in zh["wind"] and "四户乱缠" in zh["four_way"]
    assert "革命" in zh["revolution"] and "流局" in zh["void_deal"] and "要头" in zh["yaotou"]
    assert "宣点" in zh["declared"] and "诈烧" in zh["burn_fail"] and "落贡" in zh["tribute_paid"]
    assert "张三" in zh["burn_break"] or "Alice" in zh["burn_break"]


def test_english_brackets_the_chinese_term_once() -> None:
    text = describe_events([SAMPLES["burn"], SAMPLES["burn_success"]], NAMES, "en")
    assert text.count("(烧)") == 1 and "burns (烧)" in text


@pytest.mark.parametrize("lang", LANGS)
def test_hostile_names_are_escaped(lang: str) -> None:
    names = EVIL
    events = [SAMPLES[k] for k in SAMPLES if k != "auto_pass"]
    text = describe_events(events, names, lang, view=sample_over())
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "<b>bold</b>" not in text and "&lt;b&gt;bold" in text
    assert "a&amp;b" in text and "{name}" in text  # placeholders in a name are left alone
    for e in events:
        line = describe_event(e, names, lang) or ""
        assert "<script>" not in line
    view = dataclasses.replace(sample_view(), seat=0, to_act=0, asked=Ask.ANSWER, hand="KK")
    assert "<script>" not in prompt_text(view, lang, names)


def test_passes_fold_into_one_line() -> None:
    events = [Event(EventType.PLAY, 0, cards="9", gouji=False)] + [
        Event(EventType.AUTO_PASS if s % 2 else EventType.PASS, s) for s in (1, 2, 3, 4, 5)
    ]
    text = describe_events(events, NAMES, "zh")
    assert text.count("\n") == 1 and "Alice、小李、Bob、张三、Eve 过" in text


def test_finished_after_a_fault_is_a_placing() -> None:
    events = [
        Event(EventType.PLAY, 0, cards="KK", gouji=True),
        Event(EventType.SMOTHERED, 5, by=0),
        Event(EventType.FINISHED, 5, rank=6),
    ]
    text = describe_events(events, NAMES, "zh")
    assert "Eve 判为大落" in text and "走" not in text
    gone = describe_events(
        [Event(EventType.PLAY, 0, cards="33"), Event(EventType.FINISHED, 0, rank=1)], NAMES, "zh"
    )
    assert "老王 <b>走头科</b>" in gone


@pytest.mark.parametrize("lang", LANGS)
def test_messages_fit_telegram(lang: str) -> None:
    names = tuple("&" * 64 for _ in range(6))
    events = [e for _ in range(40) for e in SAMPLES.values()]
    text = describe_events(events, names, lang, view=sample_over(), match_score=(10, 20))
    assert len(text) <= MAX_MESSAGE
    assert text.splitlines()[-1]  # the latest lines are kept
    for rules in PRESETS.values():
        assert len(rules_text(rules, lang)) <= MAX_MESSAGE
    assert len(help_text(lang)) <= MAX_MESSAGE
    assert len(game_over_text(sample_over(), names, lang)) <= MAX_MESSAGE


@pytest.mark.parametrize("lang", LANGS)
def test_game_over_text(lang: str) -> None:
    text = game_over_text(sample_over(), NAMES, lang, match_score=(20, 8))
    for rank in range(1, 7):
        assert rank_name(rank, lang) in text
    assert "串三户" in text and "+12" in text and "20" in text
    assert t(lang, "tribute.men").split(" [")[0] in text


def test_game_over_lists_tributes_in_chinese() -> None:
    view = dataclasses.replace(
        sample_over(), tributes=(Debt(3, 0, TributeKind.DIAN, 2), Debt(4, 1, TributeKind.SHAO, 1))
    )
    text = game_over_text(view, NAMES, "zh")
    assert "Bob → 老王：点贡 2张" in text and "张三 → Alice：烧贡 1张" in text


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
    assert "活了" in zh["ev.trick_won"] and "宣称" in zh["ev.declared"]
    assert "吹牛上税" in zh["ask.declare"] and "够死级三把才开点" in zh["ev.yaotou.yaotou"]
    assert zh["ev.burn_break"].startswith("🧯 {name} 要下对头 {burner} 的烧牌")
    assert (
        "联邦之间免落贡" in zh["rules.waive_team_tribute.on"]
        and "只进落贡" in zh["rules.tribute.luo"]
    )
    assert zh["ask.last"] == "你让了牌，别人都过了：管不管 <b>{cards}</b>？"
    assert rules_text(QINGDAO, "zh").startswith("📜 <b>本桌规则</b>：青岛打法\n")
    assert "completes the burn</b> (烧成)" in (
        describe_event(SAMPLES["burn_success"], NAMES, "en") or ""
    )
    assert "gets the lead</b> (接风)" in (describe_event(SAMPLES["wind"], NAMES, "en") or "")
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

"""No developer words in the players' chat: every Chinese sentence the bot can say — the zh
catalogs, the rulebook's pages, /help, /rules and /record as rendered — holds no file name, no
module path, no ``python``, no English word outside a short whitelist and no ``牌桌#N``; one word
for the computer player (电脑). /help lists every command the bot registers and explains only
the rules that are on at the table."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from botkit import people, plain, world

from bot.model import ChatSettings
from engine.rules import PRESETS, Rules
from renderers import help_text, rules_text
from renderers.i18n import CATALOG_DIR, Catalog
from renderers.rulebook import BOOK_FILE, MARK, book_page, book_pages
from renderers.story_text import record_caption

# Latin words a Chinese sentence may hold: none yet (ranks are single letters, J Q K A; the
# commands are stripped before the check).
ENGLISH_OK: frozenset[str] = frozenset()
FILE_NAME = re.compile(r"[\w./-]+\.(md|py|json|txt|toml)\b", re.IGNORECASE)
MODULE = re.compile(r"\b(engine|renderers|bot|docs|data|tests)[./]\w")
WORD = re.compile(r"[A-Za-z][A-Za-z_'-]+")


def developer_words(text: str) -> list[str]:
    """What in ``text`` (Telegram HTML) is for developers, not players."""
    shown = html.unescape(re.sub(r"<[^>]+>", "", text))
    found = [m.group(0) for m in FILE_NAME.finditer(shown)]
    found += [m.group(0) for m in MODULE.finditer(shown)]
    found += ["python"] * ("python" in shown.lower())
    found += ["牌桌#"] * ("牌桌#" in shown)
    words = re.sub(r"\{[^}]*\}|/[a-z_]+", " ", shown)  # placeholders and /commands
    found += [w for w in WORD.findall(words) if w not in ENGLISH_OK]
    return found


def zh_catalog() -> dict[str, str]:
    out: dict[str, str] = {}
    for path in [CATALOG_DIR / "zh.json", *sorted(CATALOG_DIR.glob("*.zh.json"))]:
        for key, value in json.loads(path.read_text(encoding="utf-8")).items():
            out[f"{path.name}:{key}"] = value
    return out


def test_the_catalog_speaks_to_players() -> None:
    bad = {k: w for k, v in zh_catalog().items() if (w := developer_words(v))}
    assert bad == {}


def test_the_english_catalog_names_no_file_or_module() -> None:
    for path in [CATALOG_DIR / "en.json", *sorted(CATALOG_DIR.glob("*.en.json"))]:
        for key, value in json.loads(path.read_text(encoding="utf-8")).items():
            shown = html.unescape(re.sub(r"<[^>]+>", "", value))
            assert not FILE_NAME.search(shown) and not MODULE.search(shown), key
            assert "python" not in shown.lower() and "table #" not in shown, key


def test_one_word_for_the_computer_player() -> None:
    texts = zh_catalog()
    assert not [k for k, v in texts.items() if "AI" in v]
    assert any("电脑" in v for k, v in texts.items() if k.startswith("review."))


def test_the_rulebook_pages_speak_to_players() -> None:
    book = json.loads(BOOK_FILE.read_text(encoding="utf-8"))["zh"]
    for page in book:
        assert developer_words(MARK.sub("", page)) == [], page[:200]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_help_rules_and_record_speak_to_players(preset: str) -> None:
    rules = Rules.preset_named(preset)
    texts = [help_text("zh", rules), rules_text(rules, "zh"), record_caption(7, 3, "zh")]
    texts += [book_page(n, rules, "zh") for n in range(book_pages("zh"))]
    for text in texts:
        assert developer_words(text) == [], text[:300]
    assert "争议" in record_caption(7, 3, "zh")  # what the file is for


def test_help_explains_only_the_rules_that_are_on() -> None:
    qingdao = help_text("zh", Rules.preset_named("qingdao"))
    for off in ("憋3", "闷", "开点", "宣点", "点贡", "烧贡"):
        assert off not in qingdao, off
    assert "看联邦牌" in qingdao and "只进落贡" in qingdao
    standard = help_text("zh", Rules.preset_named("standard"))
    for on in ("憋3", "闷", "开点", "宣点", "烧牌", "让牌", "要头"):
        assert on in standard, on
    casual = help_text("zh", Rules.preset_named("casual"))
    assert "让牌" not in casual.replace("不能烧牌、让牌", "") and "不进贡" in casual
    no_burn = help_text("zh", Rules.preset_named("standard").with_switches({"burn": False}))
    assert "诈烧" not in no_burn and "🔥" not in no_burn and "本桌不烧牌" in no_burn


def test_presets_are_named_by_what_they_add() -> None:
    cat = Catalog.load("zh")
    assert cat.text("bot.preset.qingdao") == "青岛（看联邦牌·只落贡）"
    assert cat.text("bot.preset.casual") == "休闲（随时报牌·不进贡）"
    qingdao, casual = PRESETS["qingdao"], PRESETS["casual"]
    assert qingdao.partner_cards_at and qingdao.tribute == "luo"  # what the name says
    assert casual.counts_at >= 36 and casual.tribute == "off"


@pytest.mark.e2e
async def test_help_lists_every_registered_command_and_this_tables_rules(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-5301, "帮助")
        (user,) = people(w, 1, base=930)
        group.join_quietly(user)
        await w.parts.chats.save_chat_settings(group.id, ChatSettings(preset="qingdao"))
        await user.send("/help", group)
        await w.settle()
        (msg,) = [m for m in w.api.messages(group.id) if "够级裁判" in plain(m.text)]
        text = plain(msg.text)
        for name in w.parts.router.commands:
            assert f"/{name} " in text, name
        assert "憋3" not in text and "开点" not in text and developer_words(msg.text) == []


def test_rules_promise_point_tribute_only_where_it_is_paid() -> None:
    """§11: with 只落贡 or 不进贡, 开点 and 宣点 bring no 点贡; /rules and /help say so."""
    luo = Rules.preset_named("standard").with_switches({"tribute": "luo"})
    assert "下局进" not in rules_text(luo, "zh").split("开点")[1].split("\n")[0]
    assert "本桌不进点贡" in rules_text(luo, "zh")
    assert "不开点的下局进点贡" not in help_text("zh", luo) and "宣点" not in help_text("zh", luo)
    assert "本桌不进点贡" not in rules_text(Rules.preset_named("standard"), "zh")

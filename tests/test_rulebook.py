"""/rules in pages (renderers/rulebook.py): the whole players' rulebook readable inside Telegram,
in the chat's language, each page within Telegram's limit, the table's own §13 switches marked;
◀ ▶ turn the page of one message, edited in place."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from botkit import button_data, people, plain, world

from bot.buttons import SettingsOp
from bot.model import ChatSettings
from engine.rules import PRESETS, Rules
from renderers.fit import MAX_MESSAGE, visible_length
from renderers.guide import switch_value
from renderers.rulebook import (
    BOOK_FILE,
    MARK,
    build,
    for_players,
    halves,
    rulebook_page,
    rulebook_pages,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def test_the_shipped_pages_are_a_fresh_build_of_docs_rules_md() -> None:
    """The container ships data/, not docs/: ``python -m renderers rulebook`` after an edit."""
    shipped = json.loads(BOOK_FILE.read_text(encoding="utf-8"))
    assert shipped == build(DOC.read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_page_fits_a_message_and_the_pages_hold_the_whole_rulebook(
    lang: str, preset: str
) -> None:
    switches = Rules.preset_named(preset).switches()
    pages = [rulebook_page(i, switches, lang) for i in range(rulebook_pages(lang))]
    assert len(pages) >= 3
    assert all(visible_length(p) <= MAX_MESSAGE for p in pages)
    assert all(f"{i + 1}/{len(pages)}" in plain(p) for i, p in enumerate(pages))
    text = plain("\n".join(pages))
    half = halves(DOC.read_text(encoding="utf-8"))[lang]
    for heading in re.findall(r"^#{2,3} (§\S+ .+)$", half, re.MULTILINE):
        assert heading.replace("**", "").replace("`", "") in text, heading
    # every sentence of the rulebook for players is there (markdown marks aside)
    words = re.sub(r"[*`#\s]", "", MARK.sub("", for_players(half))).replace("-", "")
    assert re.sub(r"[\s•◦　-]", "", text.split("\n", 2)[-1]).count("§13") >= 1
    assert len(re.sub(r"[\s•◦　\-]", "", text)) >= len(words) * 0.97


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_tables_own_switches_are_marked(lang: str) -> None:
    rules = Rules.preset_named("standard").with_switches({"bie3": False, "tribute": "luo"})
    book = "\n".join(rulebook_page(i, rules.switches(), lang) for i in range(rulebook_pages(lang)))
    assert "<b>憋3</b> ❌" in book  # the button's name, then this table's setting
    assert "<code>" not in book  # no code names: the pages are for players
    assert "English: the second half" not in book and "记作T" not in book
    luo = switch_value("tribute", "luo", lang)
    items = [x for x in book.splitlines() if x.startswith("• ")]
    tribute = next(x for x in items if x.startswith(("• <b>进贡</b>", "• <b>Tribute</b>")))
    assert 0 < tribute.find(luo) < tribute.find("§11")  # beside the button name
    assert "⟦" not in book  # no marker is left for any switch


@pytest.mark.e2e
async def test_rules_answers_page_one_and_turns_pages_in_place(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group = w.api.group(-5101, "规则")
        (user,) = people(w, 1, base=900)
        group.join_quietly(user)
        await user.send("/rules", group)
        await w.settle()
        (msg,) = [m for m in w.api.messages(group.id) if "📖" in m.text]
        assert "第 1/" in plain(msg.text) and "本桌规则" in plain(msg.text)  # this table first
        assert button_data(msg, SettingsOp.PAGE, 0) is None  # no ◀ on page 1
        nxt = button_data(msg, SettingsOp.PAGE, 1)
        assert nxt is not None
        await user.press(msg, data=nxt)
        await w.settle()
        (msg,) = [m for m in w.api.messages(group.id) if "📖" in m.text]  # the same message
        assert "第 2/" in plain(msg.text) and "够级规则" in plain(msg.text) and msg.edits == 1
        assert button_data(msg, SettingsOp.PAGE, 0) is not None
        # a chat that speaks English reads the English half; a private chat its user's language
        await w.parts.chats.save_chat_settings(group.id, ChatSettings(lang="en"))
        await user.send("/rules", group)
        en = w.api.user(901, "Ann", language_code="en")
        await en.send("/start")
        await en.send("/rules")
        await w.settle()
        assert any("Page 1/" in plain(m.text) for m in w.api.messages(group.id))
        (dm,) = [m for m in w.api.messages(en.id) if "📖" in m.text]
        await en.press(dm, data=button_data(dm, SettingsOp.PAGE, 1))
        await w.settle()
        (dm,) = [m for m in w.api.messages(en.id) if "📖" in m.text]
        assert "Page 2/" in plain(dm.text) and "Gouji rules" in plain(dm.text)

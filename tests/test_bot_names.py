"""Hostile names: every message of a whole game, in the group and in each DM, with names made to
break HTML, plant links or reorder text, goes through the strict local server unrefused, shows
each name as plain text, and carries no bidi control."""

from __future__ import annotations

from pathlib import Path

import pytest
from botkit import open_and_seat, play_game, start, world

from bot.offline.localapi import SimUser
from renderers import clean_name, person

pytestmark = pytest.mark.e2e

PHISH = '<a href="https://evil.example/">领奖点这里</a>'
# the six seated players' names
HOSTILE = ("<b", "Li <Jr>", "<3 Ann & Bob </a>", PHISH, "\u202eevil\u202c " + "长" * 200, "🀄🀄")
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_clean_name_and_person() -> None:
    assert clean_name("\u202eevil\u202c 老王") == "evil 老王"
    assert clean_name("a\x00b\nc") == "a b c"
    assert clean_name("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"  # a family emoji stays whole
    assert len(clean_name("长" * 200)) == 64
    assert person("<b") == "&lt;b" and person("Li <Jr>") == "Li &lt;Jr&gt;"
    assert person(PHISH).startswith("&lt;a href=")
    assert len(person("长" * 200)) == 32 and person("长" * 200).endswith("…")
    assert person("") == ""


async def test_every_message_survives_hostile_names(tmp_path: Path) -> None:
    async with world(tmp_path, seed=21) as w:
        group = w.api.group(-3001, "坏名字")
        users = [w.api.user(500 + i, HOSTILE[i], language_code="zh") for i in range(6)]
        w.users.extend(users)
        await open_and_seat(w, group, users)
        # a stranger with a link for a name joins without having started the bot: the group is
        # told to start it, naming them
        stranger = w.api.user(599, PHISH, language_code="zh")
        await stranger.send("/join", group)
        late = w.api.user(598, "", language_code="en", username="nameless")
        await late.send("/join", group)
        await w.settle()
        await start(w, group, users[0])
        await play_game(w, group, users, seed=21)
        await users[0].send("/stop", group)
        await w.settle()

        refused = [c for c in w.api.calls if c.status >= 400]
        assert not refused, [(c.method, c.error) for c in refused]
        chats: list[int | SimUser] = [group.id, *users]
        texts: list[str] = []
        for chat in chats:
            chat_id = chat if isinstance(chat, int) else chat.id
            for m in w.api.messages(chat_id, include_deleted=True):
                texts.extend([*m.history, m.text])
                texts.extend(b.text for b in m.buttons)
        assert texts
        joined = "\n".join(texts)
        assert 'href="https://evil' not in joined  # the name is text, never a live link
        assert not set(BIDI) & set(joined)
        plain = "\n".join(
            m.plain for m in w.api.messages(group.id, include_deleted=True) if m.plain
        )
        assert "&lt;a href=" not in plain  # shown as the characters the person typed
        assert "<3 Ann & Bob </a>" in plain and "Li <Jr>" in plain and "<b" in plain
        assert '<a href="https://evil.example/"…：请先点这里' in plain  # named, as text, shortened
        assert "evil " + "长" * 26 + "…" in plain  # a long name, shortened, its override gone
        assert "nameless" in plain  # no first name: the username stands in
        assert "🀄🀄" in plain

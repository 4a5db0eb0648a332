"""A confirmation pressed after what it confirmed is gone (the play waiting for its second tap
forgotten: a 取消 on its way, a restart) changes nothing, and brings back the keyboard of the
question as it is: nobody is left with a ⚠️ 确认 button that never works (a simulated player
who presses it whenever shown would press it forever)."""

from __future__ import annotations

from pathlib import Path

import pytest
from botkit import people, world
from test_taps_e2e import dealt, press, texts

from bot.buttons import HandOp
from engine.vocab import Ask

pytestmark = pytest.mark.e2e


async def test_a_confirmation_whose_play_was_forgotten_brings_the_question_back(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, seed=34) as w:
        leader, *others = people(w, 6, base=1030)
        hands = ["B22777", "5", "44", "44", "44", "44"]
        table = await dealt(w, w.api.group(-5104, "忘"), [leader, *others], hands)
        match = table.match
        assert match is not None
        await press(w, leader, HandOp.QUICK, 1)  # ▶ 大王, waiting for its confirmation
        assert "⚠️ 确认出 大王" in texts(w, leader)
        table.confirm.clear()  # what it waited for is gone
        before = match.version
        await press(w, leader, HandOp.SURE)
        assert "过期" in (leader.answers()[-1].text or "")
        assert (match.version, match.asked()) == (before, (0, Ask.LEAD))  # nothing played
        shown = texts(w, leader)
        assert "▶ 大王" in shown and not any(s.startswith(("⚠️", "✖")) for s in shown)

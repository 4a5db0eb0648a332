"""Hints: every AI reason (engine.ai.REASONS) reads as a sentence in both languages."""

from __future__ import annotations

import random

import pytest

from engine.ai import REASONS, decide
from engine.match import Match
from engine.rules import STANDARD
from renderers import hint_text
from renderers.i18n import Catalog


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_reason_has_a_sentence(lang: str) -> None:
    cat = Catalog.load(lang)
    for code in REASONS:
        assert f"hint.{code}" in cat, code


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hints_for_real_decisions(lang: str) -> None:
    rng = random.Random(5)
    match = Match(STANDARD, seed=rng.getrandbits(64))
    match.new_game()
    seen = set()
    for _ in range(300):
        ask = match.asked()
        if ask is None:
            break
        d = decide(match, ask[0], "normal", rng)
        claim = ask[1] == "burn"
        text = hint_text(d.action.do, d.action.cards, d.reason, d.params, lang, claim=claim)
        lines = text.split("\n")
        assert len(lines) == 2, (d, text)  # the action, and why
        seen.add(d.reason)
        match.apply(d.action)
    assert len(seen) >= 4
    assert "不烧" in hint_text("pass", "", "no_burn_teammate", {}, "zh", claim=True)
    assert "<b>" in hint_text("play", "55", "lead_low", {}, "zh")

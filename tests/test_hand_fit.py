"""The asked player's DM fits a phone's screen (390 × 800 pt) without scrolling: the hand's picture
is wide and short (renderers/hand_image.py), so that the picture, the caption and the keyboard
together stay within the ~600 pt the phone's chrome leaves (bot/offline/dmsize.py measures it)."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.offline.dmsize import SHORT, asked_to_answer, message, table_at
from bot.offline.screens import chat_height
from engine.cards import RANK_CHARS, parse
from renderers import render_hand
from renderers.hand_image import HAND_CARD_H, RAISE, image_height, layout
from renderers.samples import SAMPLE_HAND

BUBBLE_PT = 390 - 2 * 8 - 40  # a photo's width in a chat bubble (bot/offline/screens.py)
PICTURE_PT = 210  # the picture's share of the ~600 pt: caption ~150 and keyboard ~210 besides
FOUR_DECKS = "".join(c * 16 for c in RANK_CHARS[:-2]) + "SSSSBBBB"


def shown_height(png: bytes) -> float:
    with Image.open(io.BytesIO(png)) as im:
        return im.height * BUBBLE_PT / im.width


@pytest.mark.parametrize("cards", [36, 38, 40])
def test_a_full_hand_is_short_on_a_phone(cards: int) -> None:
    """Dealt (36 cards) or after tribute (up to 40): at most four rows, shown ≤ PICTURE_PT tall."""
    rng = random.Random(cards)
    for _ in range(200):
        counts = parse("".join(rng.sample(FOUR_DECKS, cards)))
        rows, width = layout(counts)
        assert sum(len(row) for row in rows) == sum(1 for n in counts if n)
        assert len(rows) <= 4
        assert image_height(len(rows)) * BUBBLE_PT / width <= PICTURE_PT


@pytest.mark.parametrize("hand", [SAMPLE_HAND, SAMPLE_HAND + "2AKQ"])
def test_the_picture_is_as_laid_out(hand: str) -> None:
    plain = render_hand(hand)
    assert shown_height(plain) <= PICTURE_PT
    with Image.open(io.BytesIO(plain)) as im:
        rows, width = layout(parse(hand))
        assert im.size == (width, image_height(len(rows)))
        assert im.height < len(rows) * (HAND_CARD_H + 40)  # rows of short cards, thin margins
    with Image.open(io.BytesIO(render_hand(hand, "BB"))) as raised:
        assert raised.height == image_height(len(rows), 1) == im.height + RAISE


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_asked_dm_fits_a_phone(lang: str) -> None:
    """The question of dmsize's seeded position: picture, caption and buttons in ≤ 600 pt."""
    table = table_at(11, SHORT, asked_to_answer, lang)
    msg = message(table, 0)
    assert len(msg.reply_markup) >= 4  # a real question: answers, ranks, pass
    assert chat_height([msg], 390) - chat_height([], 390) <= 600

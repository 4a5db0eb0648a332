"""Images: sizes, modes, what changes them, fonts only from data/, glyph coverage, hostile names."""

from __future__ import annotations

import dataclasses
import io
import socket
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageFont

from engine.cards import BIG, SMALL, NotationError
from engine.view import Debt, TopView
from engine.vocab import Phase, Status, TributeKind
from renderers import hand_image, render_game_over, render_hand, render_table
from renderers.__main__ import bench
from renderers.fonts import CHARS_PATH, FACES, FONT_DIR, FONT_PATH, covered, drawable, font
from renderers.i18n import DATA_DIR, LANGS, Catalog
from renderers.samples import SAMPLE_HAND, sample_over, sample_view

NAMES = ("老王", "Alice", "小李", "Bob", "张三", "Eve")


def png(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def test_hand_image_size_and_mode() -> None:
    data = render_hand(SAMPLE_HAND)
    im = png(data)
    assert im.mode == "P"
    assert 600 <= im.width <= 1280 and 200 <= im.height <= im.width
    assert len(data) <= 100_000


def test_big_hand_after_tribute_fits() -> None:
    hand = "BBBBSSSS2222222AAAKKKKQQJJJJJT999888777666555444333"  # 51 cards
    im = png(render_hand(hand))
    assert im.width <= 1280 and im.height <= 1280


def test_small_hand() -> None:
    im = png(render_hand("3"))
    assert im.width >= hand_image.CARD_W and im.height >= hand_image.CARD_H


def test_hand_differs_with_hand_and_selection() -> None:
    base = render_hand(SAMPLE_HAND)
    assert render_hand(SAMPLE_HAND) == base  # deterministic
    other = SAMPLE_HAND.replace("K", "Q", 1)
    assert render_hand(other) != base
    assert render_hand(SAMPLE_HAND, "KK") != base
    assert render_hand(SAMPLE_HAND, "KK") != render_hand(SAMPLE_HAND, "KKK")
    assert render_hand(SAMPLE_HAND, "B") != render_hand(SAMPLE_HAND, "S")


def test_jokers_differ_in_colour() -> None:
    big = hand_image.card_tile(BIG, "", False).convert("RGB")
    small = hand_image.card_tile(SMALL, "", False).convert("RGB")

    def reds(im: Image.Image) -> int:
        raw = im.tobytes()
        pixels = zip(raw[0::3], raw[1::3], raw[2::3], strict=True)
        return sum(1 for r, g, b in pixels if r > 150 and g < 80 and b < 80)

    assert reds(big) > 200 and reds(small) < 20


def test_selection_outside_the_hand_is_clamped() -> None:
    assert png(render_hand("KK", "KKKB"))


def test_bad_notation_is_refused() -> None:
    with pytest.raises(NotationError):
        render_hand("KKX")


@pytest.mark.parametrize("lang", LANGS)
def test_table_image(lang: str) -> None:
    view = sample_view()
    data = render_table(view, NAMES, lang)
    im = png(data)
    assert im.size == (1200, 1000) and im.mode == "P"
    assert len(data) < 200_000
    assert render_table(dataclasses.replace(view, to_act=4), NAMES, lang) != data
    assert render_table(dataclasses.replace(view, top=None), NAMES, lang) != data
    assert render_table(dataclasses.replace(view, phase=Phase.FOUR_WAY), NAMES, lang) != data
    assert render_table(view, ("x",) * 6, lang) != data


def test_table_with_every_status() -> None:
    view = dataclasses.replace(
        sample_view(),
        status=(
            Status.ACTIVE,
            Status.REVOLTED,
            Status.ACTIVE,
            Status.SMOTHERED,
            Status.FAILED,
            Status.FINISHED,
        ),
        ranks=(None, 4, None, 5, 6, 1),
        counts=(None,) * 6,
        headless=(False, False, False, False, True, False),
        top=TopView(0, "KKKKKKKKKKKKKKKK", True, False),
    )
    assert png(render_table(view, NAMES))


@pytest.mark.parametrize("lang", LANGS)
def test_game_over_image(lang: str) -> None:
    over = sample_over()
    data = render_game_over(over, NAMES, lang, match_score=(20, 8))
    im = png(data)
    assert im.width == 1200 and im.height <= 1280
    assert render_game_over(over, NAMES, lang) != data
    many = tuple(Debt(s, (s + 3) % 6, TributeKind.DIAN, 2) for s in range(6)) + over.tributes
    assert (
        png(render_game_over(dataclasses.replace(over, tributes=many), NAMES, lang)).height <= 1280
    )
    assert png(render_game_over(dataclasses.replace(over, tributes=()), NAMES, lang))


HOSTILE_NAMES = (
    "🔥🔥🔥",
    "\u202eevil\u202c\x00\n",
    "ƝΑΜΕ ∑ with many many many characters that cannot fit in a panel at all",
    "",
    "鬱龘靐齉",
    "<b>&amp;</b>",
)


def test_hostile_names_never_crash() -> None:
    assert png(render_table(sample_view(), HOSTILE_NAMES))
    assert png(render_game_over(sample_over(), HOSTILE_NAMES))
    assert png(render_table(sample_view(), ()))  # no names at all
    assert drawable("🔥🔥x") == "🔥🔥x"  # emoji drawn (tests/test_renderers_names.py)
    assert drawable("\U000e0001x") == "x"
    assert drawable("a\x00\u202eb") == "ab"


def test_fonts_come_only_from_data(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    real = ImageFont.truetype

    def spy(path: Any, *args: Any, **kwargs: Any) -> ImageFont.FreeTypeFont:
        opened.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ImageFont, "truetype", spy)
    for cached in (font, hand_image.card_tile, hand_image.badge, hand_image._palette):
        cached.cache_clear()
    try:
        render_hand(SAMPLE_HAND, "AA")
        render_table(sample_view(), NAMES)
        render_game_over(sample_over(), NAMES)
    finally:
        for cached in (font, hand_image.card_tile, hand_image.badge, hand_image._palette):
            cached.cache_clear()
    assert opened
    assert all(Path(p).resolve().parent == FONT_DIR.resolve() for p in opened)
    assert FONT_PATH.is_relative_to(DATA_DIR)


def test_rendering_needs_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    render_hand(SAMPLE_HAND)
    render_table(sample_view(), NAMES, "en")
    render_game_over(sample_over(), NAMES, "en")


def test_fonts_are_small_enough_and_licensed() -> None:
    # every CJK ideograph and hangul syllable of Noto Sans CJK SC (8.9 MB), Latin (0.3 MB),
    # symbols (0.7 MB), emoji at 40 px (3.1 MB): data/fonts/README.md
    assert sum(face.path.stat().st_size for face in FACES) < 14_000_000
    licence = (FONT_DIR / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE" in licence.upper()


def _image_text() -> set[str]:
    """Every character the images draw: image labels, card faces and the marks they use."""
    chars = set(hand_image.SUIT_CYCLE) | set("大小王★×/0123456789?…→·")
    for lang in LANGS:
        for key, text in Catalog.load(lang).messages.items():
            if key.startswith("img."):
                chars.update(text)
    return chars


def test_glyph_coverage_of_image_text() -> None:
    cjk = {c for c in _image_text() if unicodedata.east_asian_width(c) in "WF" or ord(c) > 0x2000}
    assert cjk <= covered(), sorted(cjk - covered())
    tt_lib = pytest.importorskip("fontTools.ttLib")
    cmap = tt_lib.TTFont(str(FONT_PATH)).getBestCmap()
    held = {chr(c) for c in cmap}
    missing = {c for c in _image_text() if not c.isspace()} - held
    assert not missing, sorted(missing)
    # the listed characters are the font's own
    assert covered() <= held
    assert CHARS_PATH.read_text(encoding="utf-8").strip()


def test_bench_reports_json_figures() -> None:
    figures = bench(runs=3)
    assert figures["hand_bytes"] and figures["table_bytes"] and figures["hand_cards"] == 36
    assert float(figures["hand_ms_median"]) > 0


def test_samples_come_from_a_real_game(tmp_path: Path) -> None:
    from renderers.__main__ import GAME_NAMES, SAMPLE_SEED, sample_game, samples

    hand, table, over, totals = sample_game(SAMPLE_SEED)
    assert len(hand) == 36 and table.top is not None and table.burning is not None
    assert over.phase == "over" and sorted(r for r in over.ranks if r) == [1, 2, 3, 4, 5, 6]
    if any(d.kind == "chuan" for d in over.tributes):  # §11: 串三户 pays no 闷贡, 烧贡, 落贡
        assert not any(d.kind in ("men", "shao", "luo") for d in over.tributes)
    assert totals == (over.score[0], over.score[1])
    assert not any("<" in name for name in GAME_NAMES)
    samples(tmp_path)
    for name in ("hand", "table", "game_over"):
        assert (tmp_path / f"{name}.png").read_bytes() == (
            DATA_DIR / "samples" / f"{name}.png"
        ).read_bytes()

"""The table and the game-over pictures as PNG bytes, in one fixed palette fitted to samples of
both (:func:`encode_png`); the hand picture has its own (:mod:`renderers.hand_image`).

The palette is fitted to what both pictures draw, so this module stands above both
(:mod:`renderers.table_image`, :mod:`renderers.result_image`), which only draw.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.view import SeatView

from .fonts import draw_text
from .result_image import SCORE_GOLD, game_over_canvas
from .samples import SAMPLE_NAMES, sample_over, sample_view
from .table_image import (
    BURN_FILL,
    FACING,
    FAIL_FILL,
    FAULT_FILL,
    FELT,
    GREY,
    INK,
    MEDAL,
    MIN_TEXT,
    OPEN_FILL,
    PANEL,
    RANK_FILL,
    TABLE,
    TABLE_EDGE,
    TEAM_COLOR,
    TEAM_TINT,
    TURN,
    TURN_INK,
    WHITE,
    WIDTH,
    table_canvas,
)


def render_table(view: SeatView, names: Sequence[str], lang: str = "zh") -> bytes:
    """A PNG of :func:`renderers.table_image.table_canvas`."""
    return encode_png(table_canvas(view, names, lang))


def render_game_over(
    view: SeatView,
    names: Sequence[str],
    lang: str = "zh",
    match_score: tuple[int, int] | None = None,
) -> bytes:
    """A PNG of :func:`renderers.result_image.game_over_canvas`."""
    return encode_png(game_over_canvas(view, names, lang, match_score))


def encode_png(canvas: Image.Image) -> bytes:
    """The PNG of a table or game-over canvas, in the fixed palette: quantizing against a given
    palette takes about 1 ms where fitting one to each picture took 9 (``python -m renderers
    bench``), and the bot draws a table picture for every group edit."""
    out = canvas.quantize(palette=_palette(), dither=Image.Dither.NONE)
    buf = io.BytesIO()
    out.save(buf, "PNG", compress_level=3)
    return buf.getvalue()


SWATCH_TEXT = "够级 烧 闷 开点 Burn 12"


@functools.cache
def _palette() -> Image.Image:
    """128 colours fitted, once, to what these pictures show: the sample table in both
    languages, the sample game over, and a swatch of every fill with white and dark text on it
    (so that a colour the samples lack, such as a status tag, still has its own entry)."""
    fills = [FELT, TABLE, TABLE_EDGE, PANEL, *TEAM_COLOR, *TEAM_TINT, INK, GREY, TURN, TURN_INK]
    fills += [FACING, *MEDAL, RANK_FILL, OPEN_FILL, FAULT_FILL, FAIL_FILL, BURN_FILL, SCORE_GOLD]
    swatch = Image.new("RGB", (WIDTH, 120 * len(fills)), FELT)
    draw = ImageDraw.Draw(swatch)
    for i, fill in enumerate(fills):
        draw.rectangle((0, i * 120, WIDTH, i * 120 + 119), fill=fill)
        for x, ink in ((20, WHITE), (600, INK)):
            draw_text(draw, (x, i * 120 + 60), SWATCH_TEXT, MIN_TEXT, ink, anchor="lm")
    parts = [
        table_canvas(sample_view(), SAMPLE_NAMES, "zh"),
        table_canvas(sample_view(), SAMPLE_NAMES, "en"),
        game_over_canvas(sample_over(), SAMPLE_NAMES, "zh"),
        swatch,
    ]
    sheet = Image.new("RGB", (WIDTH, sum(p.height for p in parts)), FELT)
    y = 0
    for part in parts:
        sheet.paste(part, (0, y))
        y += part.height
    return sheet.quantize(128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)

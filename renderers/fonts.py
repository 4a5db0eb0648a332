"""The one font the images use, shipped in ``data/fonts/`` (never a system font), and the text
it can draw.

``NotoSansSC-Bold-subset.otf`` is a subset of Noto Sans CJK SC Bold (SIL OFL 1.1, ``OFL.txt``)
made by :mod:`renderers.fontsubset`; ``…-subset.chars.txt`` lists the characters it holds, so
user text (player names) can be checked without reading the font's tables.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache

from PIL import ImageDraw, ImageFont

from .i18n import DATA_DIR

FONT_DIR = DATA_DIR / "fonts"
FONT_PATH = FONT_DIR / "NotoSansSC-Bold-subset.otf"
CHARS_PATH = FONT_DIR / "NotoSansSC-Bold-subset.chars.txt"
MISSING = "?"


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """The shipped font at ``size`` pixels (cached: one object per size)."""
    return ImageFont.truetype(str(FONT_PATH), size)


Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Drawn:
    """One text drawn into an image, for the readability check (tests/test_renderers_phone.py):
    its size in pixels of the finished image (the font size divided by any later reduction, such
    as a supersampled tile's), where it landed, and the box it had to stay inside."""

    text: str
    px: float
    box: Box  # the text's (or its pill's) box; in the tile's own pixels for cached card tiles
    limit: Box | None = None


_DRAWN: ContextVar[list[Drawn] | None] = ContextVar("drawn", default=None)


@contextmanager
def recording() -> Iterator[list[Drawn]]:
    """Collect every :func:`draw_text` of the renders inside the block (cached tiles and badges
    are drawn once: clear their caches first to see them)."""
    log: list[Drawn] = []
    token = _DRAWN.set(log)
    try:
        yield log
    finally:
        _DRAWN.reset(token)


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: tuple[int, int, int],
    anchor: str = "la",
    shrink: float = 1.0,
    frame: Box | None = None,
    limit: Box | None = None,
) -> None:
    """Draw ``text`` in the shipped font at ``size`` px. ``shrink``: the image is later reduced by
    this factor (supersampling); ``frame``: the box drawn around the text (a pill), which must
    stay inside ``limit``. Every text of every image is drawn through here."""
    f = font(size)
    draw.text(xy, text, font=f, fill=fill, anchor=anchor)
    log = _DRAWN.get()
    if log is not None:
        x0, y0, x1, y1 = frame or draw.textbbox(xy, text, font=f, anchor=anchor)
        box = (x0 / shrink, y0 / shrink, x1 / shrink, y1 / shrink)
        log.append(Drawn(text, size / shrink, box, limit))


@cache
def covered() -> frozenset[str]:
    """The characters the shipped font holds."""
    return frozenset(CHARS_PATH.read_text(encoding="utf-8")) - {"\n"}


def drawable(text: str) -> str:
    """``text`` with every character the font lacks shown as ``?`` (controls and combining
    marks dropped, runs of missing characters shown as one ``?``)."""
    have = covered()
    out: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        cat = unicodedata.category(ch)
        if cat[0] in "CM" or cat == "Zl" or cat == "Zp":
            continue
        if ch.isspace():
            ch = " "
        if ch in have:
            out.append(ch)
        elif not out or out[-1] != MISSING:
            out.append(MISSING)
    return "".join(out).strip()


def fit(text: str, size: int, width: int) -> str:
    """``text`` shortened with ``…`` until it is at most ``width`` pixels wide at ``size``."""
    f = font(size)
    if f.getlength(text) <= width:
        return text
    while text and f.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"

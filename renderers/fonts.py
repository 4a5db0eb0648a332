"""The one font the images use, shipped in ``data/fonts/`` (never a system font), and the text
it can draw.

``NotoSansSC-Bold-subset.otf`` is a subset of Noto Sans CJK SC Bold (SIL OFL 1.1, ``OFL.txt``)
made by :mod:`renderers.fontsubset`; ``…-subset.chars.txt`` lists the characters it holds, so
user text (player names) can be checked without reading the font's tables.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from PIL import ImageFont

from .i18n import DATA_DIR

FONT_DIR = DATA_DIR / "fonts"
FONT_PATH = FONT_DIR / "NotoSansSC-Bold-subset.otf"
CHARS_PATH = FONT_DIR / "NotoSansSC-Bold-subset.chars.txt"
MISSING = "?"


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """The shipped font at ``size`` pixels (cached: one object per size)."""
    return ImageFont.truetype(str(FONT_PATH), size)


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

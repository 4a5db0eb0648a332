"""Make ``data/fonts/``: the fonts the images draw with, subsets of Debian's Noto fonts (SIL OFL
1.1), each with a ``.chars.txt`` listing the characters it holds (:mod:`renderers.fonts` reads
those lists, never the fonts' tables, to choose a font for each character).

In fallback order (:data:`renderers.fonts.FACES`):

- ``NotoSansSC-Bold-subset.otf``: every character Noto Sans CJK SC Bold maps (all its CJK
  ideographs, URO, Extension A and the Extension B+ characters it has, kana, hangul, fullwidth
  forms, CJK punctuation, basic Latin, Greek and Cyrillic);
- ``NotoSans-Bold-subset.ttf``: what Noto Sans Bold adds (Latin Extended-A/B, Vietnamese, IPA,
  the rest of Greek and Cyrillic, punctuation, currency, letterlike symbols);
- ``NotoSansSymbols2-subset.ttf`` and ``NotoSansSymbols-Bold-subset.ttf``: arrows, geometric
  shapes, dingbats, miscellaneous symbols and technical signs that the others lack;
- ``NotoSansJavanese-Bold-subset.ttf``, ``NotoSansGeorgian-Bold-subset.ttf``,
  ``NotoSansTaiLe-subset.ttf``, ``NotoSansTaiTham-Bold-subset.ttf``: the letters of those scripts
  that nicknames wear as decoration (꧁小仙女꧂, ღ小雨, ᥫᩣ小猫), and
  ``NotoSerifTibetan-Bold-subset.ttf``: Tibetan's marks and brackets alone (꧁༺小龙༻꧂);
- ``NotoColorEmoji-40px.ttf``: every emoji of Noto Color Emoji (ZWJ sequences, flags, skin
  tones by its GSUB), its 109 px bitmaps scaled down to one 40 px strike and reduced to 32
  colours, which keeps it near 3 MB instead of 11.

The output is deterministic: running it again over the same Debian fonts (the versions named in
``data/fonts/README.md``) gives the committed files byte for byte. Needs fonttools (``pip install
fonttools``) and ``apt-get install fonts-noto-cjk fonts-noto-core fonts-noto-color-emoji``::

    python -m renderers subset-font [SOURCE_DIR]
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from .fonts import EMOJI_STRIKE, FACES, Face, face_chars

DEBIAN_FONTS = Path("/usr/share/fonts")
# The CJK face's locl (its Japanese, Korean and traditional forms) would add 4 MB: SC forms
# only. The others keep their marks placed (ccmp, mark, mkmk).
CJK_FEATURES = ("kern", "palt", "vert")
TEXT_FEATURES = ("kern", "liga", "ccmp", "mark", "mkmk")
# Where each face comes from under DEBIAN_FONTS, its face number in a collection, the OpenType
# layout features kept.
SOURCES: dict[str, tuple[str, int, tuple[str, ...]]] = {
    # JP, KR, SC, TC, HK, then the Mono faces
    "cjk": ("opentype/noto/NotoSansCJK-Bold.ttc", 2, CJK_FEATURES),
    "latin": ("truetype/noto/NotoSans-Bold.ttf", 0, TEXT_FEATURES),
    "symbols2": ("truetype/noto/NotoSansSymbols2-Regular.ttf", 0, TEXT_FEATURES),
    "symbols": ("truetype/noto/NotoSansSymbols-Bold.ttf", 0, TEXT_FEATURES),
    "javanese": ("truetype/noto/NotoSansJavanese-Bold.ttf", 0, TEXT_FEATURES),
    "georgian": ("truetype/noto/NotoSansGeorgian-Bold.ttf", 0, TEXT_FEATURES),
    "tai_le": ("truetype/noto/NotoSansTaiLe-Regular.ttf", 0, TEXT_FEATURES),  # no Bold
    "tai_tham": ("truetype/noto/NotoSansTaiTham-Bold.ttf", 0, TEXT_FEATURES),
    "tibetan": ("truetype/noto/NotoSerifTibetan-Bold.ttf", 0, ()),
    "emoji": ("truetype/noto/NotoColorEmoji.ttf", 0, ()),
}
# Faces that keep only some of their source's characters: Tibetan's marks and brackets, which
# decorate nicknames (༺ ༻), not its letters and their thousands of stacked forms.
ONLY_CODES: dict[str, frozenset[int]] = {
    "tibetan": frozenset([*range(0x0F01, 0x0F18), *range(0x0F3A, 0x0F3E)]),
}
SOURCE_STRIKE = 109  # Noto Color Emoji's one bitmap strike, px per em
EMOJI_COLOURS = 32


def _tt(name: str) -> Any:
    return importlib.import_module(f"fontTools.{name}")


def _cmap(source: Path, number: int) -> set[int]:
    font = _tt("ttLib").TTFont(str(source), fontNumber=number, lazy=True)
    return set(font.getBestCmap())


def _subset_outlines(
    source: Path, number: int, features: tuple[str, ...], codes: set[int], out: Path
) -> None:
    subset = _tt("subset")
    options = subset.Options()
    options.font_number = number
    options.layout_features = list(features)
    options.hinting = False
    options.name_IDs = ["*"]
    options.name_legacy = True
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.recalc_timestamp = False
    font = subset.load_font(str(source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=codes)
    subsetter.subset(font)
    subset.save_font(font, str(out), options)


def _scale_emoji(source: Path, out: Path) -> None:
    """Noto Color Emoji with its bitmaps scaled from 109 to ``EMOJI_STRIKE`` px per em and
    reduced to ``EMOJI_COLOURS`` colours (the images draw names at 34 to 40 px)."""
    font = _tt("ttLib").TTFont(str(source), recalcTimestamp=False)
    k = EMOJI_STRIKE / SOURCE_STRIKE
    for strike in font["CBDT"].strikeData:
        for glyph in strike.values():
            m = glyph.metrics
            w, h = max(1, round(m.width * k)), max(1, round(m.height * k))
            im = Image.open(io.BytesIO(glyph.imageData)).convert("RGBA")
            im = im.resize((w, h), Image.Resampling.LANCZOS)
            im = im.quantize(EMOJI_COLOURS, method=Image.Quantize.FASTOCTREE)
            buf = io.BytesIO()
            im.save(buf, "PNG", optimize=True)
            glyph.imageData = buf.getvalue()
            m.width, m.height = w, h
            m.BearingX, m.BearingY = round(m.BearingX * k), round(m.BearingY * k)
            m.Advance = round(m.Advance * k)
    for strike in font["CBLC"].strikes:
        size = strike.bitmapSizeTable
        size.ppemX = size.ppemY = EMOJI_STRIKE
        for line in (size.hori, size.vert):
            line.ascender = round(line.ascender * k)
            line.descender = round(line.descender * k)
            line.widthMax = round(line.widthMax * k)
    font.save(str(out))


def _write_chars(face: Face, codes: set[int]) -> str:
    held = "".join(chr(c) for c in sorted(codes) if chr(c).isprintable())
    face.chars_path.write_text(held + "\n", encoding="utf-8")
    return held


def make_fonts(source_dir: Path = DEBIAN_FONTS, only: Sequence[str] = ()) -> None:
    """Every face of :data:`renderers.fonts.FACES` (or the faces keyed ``only``, the others read
    from their shipped ``.chars.txt``), from the Debian fonts under ``source_dir``: a symbol or
    script face holds what its source maps and no earlier face holds; the Latin face all its
    source maps, so that a word of an alphabet can be drawn from it alone."""
    earlier: set[int] = set()
    for face in FACES:
        if only and face.key not in only:
            if not face.emoji:
                earlier |= {ord(c) for c in face_chars(face)}
            continue
        rel, number, features = SOURCES[face.key]
        source = source_dir / rel
        codes = _cmap(source, number)
        if face.key in ONLY_CODES:
            codes &= ONLY_CODES[face.key]
        if face.emoji:
            _scale_emoji(source, face.path)
        else:
            if face.key != "latin":
                codes -= earlier
            _subset_outlines(source, number, features, codes, face.path)
            earlier |= codes
        held = _write_chars(face, codes)
        print(f"{face.path.name}: {face.path.stat().st_size} bytes, {len(held)} characters")


def main(argv: list[str]) -> None:
    """``[SOURCE_DIR [FACE_KEY…]]``."""
    make_fonts(Path(argv[0]) if argv else DEBIAN_FONTS, argv[1:])

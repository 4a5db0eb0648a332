"""The fonts the images draw with, shipped in ``data/fonts/`` (never a system font), and the text
they can draw.

:data:`FACES` are subsets of Noto fonts (SIL OFL 1.1, ``OFL.txt``) made by
:mod:`renderers.fontsubset`, in fallback order: Noto Sans CJK SC Bold (every CJK ideograph it
has, kana, hangul, fullwidth forms, basic Latin, Greek, Cyrillic), Noto Sans Bold (the rest of
Latin with Vietnamese, Greek, Cyrillic), two symbol fonts, and Noto Color Emoji scaled to one
40 px strike. Each face's ``.chars.txt`` lists the characters it holds, so text is matched to a
face without reading fonts' tables.

Text is cut into grapheme clusters (a letter with its marks; an emoji with its skin tone, its
variation selector, its ZWJ sequence; a flag's two regional indicators), each cluster drawn from
the first face holding it (an emoji cluster from the emoji face), consecutive clusters of one
face drawn as one run; all runs share one baseline. :func:`text_width` measures the same way,
so layout (:func:`fit`'s ellipsis, pills, centring) matches what is drawn.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from .i18n import DATA_DIR

FONT_DIR = DATA_DIR / "fonts"
MISSING = "?"
EMOJI_STRIKE = 40  # px per em of the emoji face's one bitmap strike
EMOJI_SCALE = 0.85  # an emoji's em against the text's: its bitmap is 1.17 em tall
CJK_CENTRE = 0.38  # em above the baseline: the centre of an ideograph's em box, emoji centred on it


@dataclass(frozen=True)
class Face:
    """One shipped font: ``key`` names its source in :mod:`renderers.fontsubset`."""

    key: str
    file: str
    emoji: bool = False

    @property
    def path(self) -> Path:
        return FONT_DIR / self.file

    @property
    def chars_path(self) -> Path:
        return FONT_DIR / (self.path.stem + ".chars.txt")


FACES = (
    Face("cjk", "NotoSansSC-Bold-subset.otf"),
    Face("latin", "NotoSans-Bold-subset.ttf"),
    Face("symbols2", "NotoSansSymbols2-subset.ttf"),
    Face("symbols", "NotoSansSymbols-Bold-subset.ttf"),
    # scripts whose letters decorate nicknames on Chinese phones: ꧁小仙女꧂, ღ小雨, ᥫᩣ小猫
    Face("javanese", "NotoSansJavanese-Bold-subset.ttf"),
    Face("georgian", "NotoSansGeorgian-Bold-subset.ttf"),
    Face("tai_le", "NotoSansTaiLe-subset.ttf"),
    Face("tai_tham", "NotoSansTaiTham-Bold-subset.ttf"),
    Face("tibetan", "NotoSerifTibetan-Bold-subset.ttf"),  # its marks only: ꧁༺小龙༻꧂
    Face("emoji", "NotoColorEmoji-40px.ttf", emoji=True),
)
PRIMARY, EMOJI = FACES[0], FACES[-1]
FONT_PATH = PRIMARY.path
CHARS_PATH = PRIMARY.chars_path

ZWJ = "\u200d"
KEYCAP = "\u20e3"
# BMP characters whose default presentation is emoji (Unicode emoji-data, Emoji_Presentation);
# above U+1F000 an emoji the emoji face holds is drawn as emoji.
_EMOJI_BMP = frozenset(
    "⌚⌛⏩⏪⏫⏬⏰⏳◽◾☔☕♈♉♊♋♌♍♎♏♐♑♒♓♿⚓⚡⚪⚫⚽⚾⛄⛅⛎⛔⛪⛲⛳⛵⛺⛽✅✊✋✨❌❎❓❔❕❗➕➖➗➰➿⬛⬜⭐⭕"
)


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """The primary (CJK) face at ``size`` pixels (cached: one object per size)."""
    return ImageFont.truetype(str(FONT_PATH), size)


@cache
def face_font(face: Face, size: int) -> ImageFont.FreeTypeFont:
    """``face`` at ``size`` px (cached: one object per face and size; the emoji face is loaded
    once, at its strike size, and scaled when drawn)."""
    if face == PRIMARY:
        return font(size)
    return ImageFont.truetype(str(face.path), EMOJI_STRIKE if face.emoji else size)


@cache
def face_chars(face: Face) -> frozenset[str]:
    """The characters ``face`` holds (its ``.chars.txt``)."""
    return frozenset(face.chars_path.read_text(encoding="utf-8")) - {"\n"}


def covered() -> frozenset[str]:
    """The characters the primary face holds."""
    return face_chars(PRIMARY)


def _joins(ch: str) -> bool:
    """Whether ``ch`` belongs to the cluster before it."""
    cp = ord(ch)
    return (
        unicodedata.category(ch)[0] == "M"  # marks, variation selectors, the keycap
        or ch == ZWJ
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tones
        or 0xE0020 <= cp <= 0xE007F  # tags (subdivision flags)
    )


def _regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def clusters(text: str) -> list[str]:
    """``text`` cut into grapheme clusters (enough of UAX #29 for names: marks, emoji
    modifiers and sequences, flags)."""
    out: list[str] = []
    for ch in text:
        if out and (
            (_joins(ch) and not _foreign_mark(out[-1][0], ch))
            or out[-1].endswith(ZWJ)
            or (_regional(ch) and len(out[-1]) == 1 and _regional(out[-1]))
        ):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _foreign_mark(base: str, ch: str) -> bool:
    """A spacing mark of another script than ``base``'s, which only another face holds (ᩣ of
    Tai Tham after ᥫ of Tai Le, as nicknames combine them): drawn on its own, not dropped."""
    if unicodedata.category(ch) != "Mc":
        return False
    holder = next((f for f in FACES if base in face_chars(f)), None)
    return (
        holder is not None
        and ch not in face_chars(holder)
        and any(ch in face_chars(f) for f in FACES)
    )


def _emoji_like(cluster: str) -> bool:
    base = cluster[0]
    return (
        ord(base) >= 0x1F000
        or base in _EMOJI_BMP
        or any(c in cluster for c in ("\ufe0f", KEYCAP, ZWJ))
        or any(_joins(c) and unicodedata.category(c)[0] != "M" for c in cluster[1:])
    ) and "\ufe0e" not in cluster


def face_of(cluster: str) -> Face | None:
    """The face that draws ``cluster``, or ``None`` when no face holds it."""
    base = cluster[0]
    if _emoji_like(cluster) and base in face_chars(EMOJI):
        return EMOJI
    for face in FACES:
        if base in face_chars(face):
            return face
    return None


def _clean(cluster: str, face: Face) -> str:
    """``cluster`` as ``face`` draws it: a text face without the variation selectors and the
    marks it lacks; an emoji whole (its font's ligatures join the sequence)."""
    if face.emoji:
        return cluster
    have = face_chars(face)
    return cluster[0] + "".join(c for c in cluster[1:] if c in have and not _selector(c))


def _selector(ch: str) -> bool:
    return 0xFE00 <= ord(ch) <= 0xFE0F


def _invisible(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat[0] == "C" or cat in ("Zl", "Zp") or (_joins(ch) and cat != "Mc")


def drawable(text: str) -> str:
    """``text`` as the images can draw it: controls and stray joiners dropped, white space as
    one space, a character no face holds replaced by its compatibility form when that is
    drawable (𝐀 → A), else shown as ``?`` (a run of them as one)."""
    out: list[str] = []
    for cluster in clusters(unicodedata.normalize("NFC", text)):
        if _invisible(cluster[0]):
            continue
        if cluster[0].isspace():
            cluster = " "
        face = face_of(cluster)
        if face is not None:
            out.append(_clean(cluster, face))
            continue
        plain = unicodedata.normalize("NFKC", cluster)
        if plain != cluster and plain.strip() and MISSING not in (sub := drawable(plain)):
            out.append(sub)
        elif not out or out[-1] != MISSING:
            out.append(MISSING)
    return "".join(out).strip()


@dataclass(frozen=True)
class Run:
    """Consecutive clusters of ``text`` drawn from one face (``None``: held by none, drawn from
    the primary face)."""

    face: Face | None
    text: str


def _alphabetic(cluster: str) -> bool:
    """A letter of an alphabet (Latin, Greek, Cyrillic…), not a wide (CJK) character."""
    return cluster[0].isalpha() and unicodedata.east_asian_width(cluster[0]) not in "WF"


def _faces(parts: list[str]) -> list[Face | None]:
    """Each cluster's face, a word of an alphabet drawn from one face: when the primary face
    lacks one of its letters (the Greek ί of Νίκος) and the Latin face holds all of them, the
    whole word is drawn from the Latin face."""
    faces = [face_of(c) for c in parts]
    latin = FACES[1]
    i = 0
    while i < len(parts):
        j = i
        while j < len(parts) and _alphabetic(parts[j]):
            j += 1
        if latin in faces[i:j] and all(c[0] in face_chars(latin) for c in parts[i:j]):
            faces[i:j] = [latin] * (j - i)
        i = j + 1
    return faces


def runs(text: str) -> list[Run]:
    """``text`` cut into runs of one face each: what :func:`draw_text` draws."""
    out: list[Run] = []
    parts = clusters(text)
    for cluster, face in zip(parts, _faces(parts), strict=True):
        if out and out[-1].face == face:
            out[-1] = Run(face, out[-1].text + cluster)
        else:
            out.append(Run(face, cluster))
    return out


def _single_face(text: str) -> bool:
    have = face_chars(PRIMARY)
    return all(c in have for c in text)


@lru_cache(maxsize=512)
def _emoji_image(text: str, size: int) -> tuple[Image.Image, float, float]:
    """An emoji run drawn at ``size`` px: the image, its width and its top above the
    baseline."""
    f = face_font(EMOJI, EMOJI_STRIKE)
    ascent, descent = f.getmetrics()
    width = f.getlength(text)
    im = Image.new("RGBA", (max(1, round(width)), ascent + descent), (0, 0, 0, 0))
    ImageDraw.Draw(im).text((0, ascent), text, font=f, anchor="ls", embedded_color=True)
    k = size * EMOJI_SCALE / EMOJI_STRIKE
    scaled = im.resize(
        (max(1, round(im.width * k)), max(1, round(im.height * k))), Image.Resampling.LANCZOS
    )
    centre = (ascent - descent) / 2 * k
    return scaled, width * k, ascent * k + (CJK_CENTRE * size - centre)


def _run_width(run: Run, size: int) -> float:
    if run.face is not None and run.face.emoji:
        return _emoji_image(run.text, size)[1]
    return face_font(run.face or PRIMARY, size).getlength(run.text)


def text_width(text: str, size: int) -> float:
    """How wide ``text`` is drawn at ``size`` px, each run in its face."""
    if _single_face(text):
        return font(size).getlength(text)
    return sum(_run_width(run, size) for run in runs(text))


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


def _baseline(xy: tuple[float, float], width: float, size: int, anchor: str) -> tuple[float, float]:
    """The left end of the baseline of a text ``width`` wide placed at ``xy`` by ``anchor``
    (Pillow's horizontal anchors l m r and vertical a m s d; t and b taken as a and d)."""
    ascent, descent = font(size).getmetrics()
    x, y = xy
    x -= {"l": 0.0, "m": width / 2, "r": width}.get(anchor[0], 0.0)
    y += {"a": ascent, "t": ascent, "m": (ascent - descent) / 2, "d": -descent, "b": -descent}.get(
        anchor[1], 0.0
    )
    return x, y


def _draw_runs(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: tuple[int, int, int],
    anchor: str,
) -> Box:
    """Draw ``text`` run by run on one baseline; returns the box it takes."""
    parts = runs(text)
    width = sum(_run_width(run, size) for run in parts)
    x, y = _baseline(xy, width, size, anchor)
    ascent, descent = font(size).getmetrics()
    box = (x, y - ascent, x + width, y + descent)
    image = getattr(draw, "_image", None)
    for run in parts:
        if run.face is not None and run.face.emoji and image is not None:
            im, w, top = _emoji_image(run.text, size)
            image.paste(im, (round(x), round(y - top)), im)
        else:
            f = face_font(run.face or PRIMARY, size)
            draw.text((x, y), run.text, font=f, fill=fill, anchor="ls")
            w = f.getlength(run.text)
        x += w
    return box


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
    """Draw ``text`` in the shipped fonts at ``size`` px, each character from a face that holds
    it. ``shrink``: the image is later reduced by this factor (supersampling); ``frame``: the box
    drawn around the text (a pill), which must stay inside ``limit``. Every text of every image
    is drawn through here."""
    if _single_face(text):
        f = font(size)
        draw.text(xy, text, font=f, fill=fill, anchor=anchor)
        bbox: Box | None = None
    else:
        bbox = _draw_runs(draw, xy, text, size, fill, anchor)
    log = _DRAWN.get()
    if log is not None:
        x0, y0, x1, y1 = frame or bbox or draw.textbbox(xy, text, font=font(size), anchor=anchor)
        box = (x0 / shrink, y0 / shrink, x1 / shrink, y1 / shrink)
        log.append(Drawn(text, size / shrink, box, limit))


def fit(text: str, size: int, width: int) -> str:
    """``text`` shortened with ``…`` until it is at most ``width`` pixels wide at ``size``,
    never inside a cluster (an emoji sequence, a letter and its marks)."""
    if text_width(text, size) <= width:
        return text
    parts = clusters(text)
    while parts and text_width("".join(parts) + "…", size) > width:
        parts.pop()
    return "".join(parts).rstrip(" …") + "…"

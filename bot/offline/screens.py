"""Phone-style screenshots of a Telegram chat, drawn from the messages the bot sent to the local
Bot API server: a header bar with the chat's title, then the bot's bubbles top to bottom (the
photo scaled to the bubble, the text or caption with its HTML tags dropped and bold kept, the
time) and each inline keyboard as rows of rounded buttons under its bubble.

A developer tool for the README and the demo (``python -m bot demo --screens DIR``); the bot
never sends these pictures. Pillow only. Screenshots want a full CJK font: Noto Sans CJK from
Debian's ``fonts-noto-cjk`` is looked up at run time (``fc-match``, then known paths), else the
shipped subset ``data/fonts/NotoSansSC-Bold-subset.otf`` is used, where a character outside the
subset shows as a box. Symbols the chosen font cannot draw (emoji) are left out, never drawn
as boxes.
"""

from __future__ import annotations

import html
import io
import re
import shutil
import subprocess
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from renderers.i18n import DATA_DIR

from .localapi import Button, SentMessage

Font = ImageFont.FreeTypeFont
RGB = tuple[int, int, int]

SHIPPED_FONT = DATA_DIR / "fonts/NotoSansSC-Bold-subset.otf"
# Debian/Ubuntu (fonts-noto-cjk), Fedora, Arch, macOS Homebrew cask: (regular, bold), face index
KNOWN_FONTS: tuple[tuple[str, str, int], ...] = (
    (
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
        2,
    ),
    (
        "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Bold.ttc",
        2,
    ),
    (
        "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/noto-cjk/NotoSansCJK-Bold.ttc",
        2,
    ),
)

# Colours of Telegram's light theme
BACKGROUND: RGB = (206, 222, 233)
HEADER: RGB = (248, 248, 250)
HEADER_LINE: RGB = (200, 204, 210)
BUBBLE: RGB = (255, 255, 255)
TEXT: RGB = (20, 20, 22)
MUTED: RGB = (142, 150, 160)
ACCENT: RGB = (51, 144, 236)
BUTTON: RGB = (132, 160, 182)
BUTTON_TEXT: RGB = (255, 255, 255)
SHADOW: RGB = (186, 203, 216)

_TAG = re.compile(r"<(/?)([a-zA-Z-]+)[^>]*>")
_BOLD_TAGS = {"b", "strong"}
_INVISIBLE = {"\ufe0f", "\ufe0e", "\u200d"}
_REPLACE = {"✅": "✓"}  # drawn instead when the font has the replacement
_NO_LINE_START = set("，。、；：？！）》」』】,.;:?!)…%·・")
_NO_LINE_END = set("（《「『【(")
_MISSING = "\U0010fffd"  # a private-use character no font maps: its mask is .notdef's


@dataclass(frozen=True)
class FontFiles:
    """Where the regular and the bold face live (``index``: the face in a .ttc collection)."""

    regular: str
    bold: str
    index: int = 0


def _fc_match(pattern: str) -> tuple[str, int] | None:
    exe = shutil.which("fc-match")
    if exe is None:
        return None
    try:
        out = subprocess.run(
            [exe, pattern, "--format=%{file}|%{index}"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    path, _, index = out.partition("|")
    if "CJK" not in path or not Path(path).is_file():
        return None  # fontconfig's fallback for an absent family is some other font
    return path, int(index) if index.isdigit() else 0


@lru_cache(maxsize=1)
def find_fonts() -> FontFiles:
    """A full CJK sans font installed on this machine, else the shipped subset."""
    regular = _fc_match("Noto Sans CJK SC:style=Regular")
    bold = _fc_match("Noto Sans CJK SC:style=Bold")
    if regular and bold and regular[1] == bold[1]:
        return FontFiles(regular[0], bold[0], regular[1])
    for reg, bld, index in KNOWN_FONTS:
        if Path(reg).is_file() and Path(bld).is_file():
            return FontFiles(reg, bld, index)
    return FontFiles(str(SHIPPED_FONT), str(SHIPPED_FONT), 0)


@lru_cache(maxsize=64)
def _font(path: str, index: int, size: int) -> Font:
    return ImageFont.truetype(path, size, index=index)


@lru_cache(maxsize=4096)
def _drawable(path: str, index: int, ch: str) -> bool:
    """Whether the font has a glyph for ``ch`` (its mask is not the .notdef box)."""
    if ch.isspace():
        return True
    font = _font(path, index, 24)
    mask, missing = font.getmask(ch), font.getmask(_MISSING)
    return mask.size != missing.size or bytes(mask) != bytes(missing)


@dataclass(frozen=True)
class _Style:
    files: FontFiles
    scale: float

    def px(self, points: float) -> int:
        return round(points * self.scale)

    def font(self, points: float, bold: bool = False) -> Font:
        path = self.files.bold if bold else self.files.regular
        return _font(path, self.files.index, self.px(points))

    def clean(self, text: str) -> str:
        """``text`` without the symbols the font cannot draw (an emoji takes its following
        space); a letter it lacks stays (a box), rather than silently changing the words."""
        out: list[str] = []
        skip_space = False
        for ch in text:
            replacement = _REPLACE.get(ch)
            if replacement is not None and self.has(replacement):
                ch = replacement
            if ch in _INVISIBLE:
                continue
            if not self.has(ch) and unicodedata.category(ch).startswith("S"):
                skip_space = True  # an emoji or symbol: left out
                continue  # (a missing letter stays, drawn as a box)
            if skip_space and ch == " ":
                skip_space = False
                continue
            skip_space = False
            out.append(ch)
        return "".join(out)

    def has(self, ch: str) -> bool:
        return _drawable(self.files.regular, self.files.index, ch) and _drawable(
            self.files.bold, self.files.index, ch
        )


# A run of text in one weight; a line is a list of runs.
Run = tuple[str, bool]


def parse_html(text: str) -> list[list[Run]]:
    """Telegram HTML → lines of (text, bold) runs; tags other than bold are dropped."""
    lines: list[list[Run]] = [[]]
    bold = 0
    pos = 0

    def add(chunk: str) -> None:
        for i, part in enumerate(html.unescape(chunk).split("\n")):
            if i:
                lines.append([])
            if part:
                lines[-1].append((part, bold > 0))

    for m in _TAG.finditer(text):
        add(text[pos : m.start()])
        pos = m.end()
        if m.group(2).lower() in _BOLD_TAGS:
            bold = max(0, bold + (-1 if m.group(1) else 1))
    add(text[pos:])
    return lines


def _is_cjk(ch: str) -> bool:
    return ord(ch) >= 0x2E80


def _tokens(runs: list[Run]) -> list[list[Run]]:
    """Break points: a CJK character or a space is a token of its own, a Latin word or number
    is one token; punctuation that may not start a line sticks to the token before it, an
    opening bracket to the one after it."""
    tokens: list[list[Run]] = []
    glue = False  # the last token may grow (a word in progress)
    opened = False  # the last token is an opening bracket waiting for what follows
    for text, bold in runs:
        for ch in text:
            if opened and ch != " ":
                tokens[-1].append((ch, bold))
                opened = ch in _NO_LINE_END
                glue = not opened and not _is_cjk(ch)
            elif ch in _NO_LINE_START and tokens:
                tokens[-1].append((ch, bold))
                glue = False
            elif ch in _NO_LINE_END:
                tokens.append([(ch, bold)])
                opened, glue = True, False
            elif ch == " " or _is_cjk(ch):
                tokens.append([(ch, bold)])
                glue = False
            elif glue:
                tokens[-1].append((ch, bold))
            else:
                tokens.append([(ch, bold)])
                glue = True
    return tokens


def _merge(runs: list[Run]) -> list[Run]:
    out: list[Run] = []
    for text, bold in runs:
        if out and out[-1][1] == bold:
            out[-1] = (out[-1][0] + text, bold)
        else:
            out.append((text, bold))
    return out


@dataclass(frozen=True)
class _Text:
    """Wrapped lines of runs with their widths, in one font size."""

    lines: list[list[Run]]
    widths: list[float]
    size: float

    @property
    def width(self) -> float:
        return max(self.widths, default=0.0)


def _width(style: _Style, runs: list[Run], size: float) -> float:
    return sum(style.font(size, bold).getlength(text) for text, bold in runs)


def wrap(style: _Style, text: str, size: float, max_width: float) -> _Text:
    lines: list[list[Run]] = []
    widths: list[float] = []
    for raw in parse_html(text):
        runs = [(t, b) for t, b in ((style.clean(t), b) for t, b in raw) if t]
        line: list[Run] = []
        x = 0.0
        for token in _tokens(runs):
            w = _width(style, token, size)
            if token[0][0] == " " and not line:
                continue
            if line and x + w > max_width:
                while line and line[-1][0] == " ":
                    x -= _width(style, [line.pop()], size)
                lines.append(_merge(line))
                widths.append(x)
                line, x = [], 0.0
                if token[0][0] == " ":
                    continue
            line.extend(token)
            x += w
        while line and line[-1][0] == " ":
            x -= _width(style, [line.pop()], size)
        lines.append(_merge(line))
        widths.append(x)
    while lines and not lines[-1]:  # trailing blank lines
        lines.pop()
        widths.pop()
    return _Text(lines, widths, size)


@dataclass(frozen=True)
class _Layout:
    """One message placed: its bubble's size and its keyboard under it."""

    message: SentMessage
    width: int
    photo_height: int
    text: _Text
    time_inline: bool
    bubble_height: int
    keyboard_height: int

    @property
    def height(self) -> int:
        return self.bubble_height + self.keyboard_height


class _Painter:
    """Geometry in points (a 390-point wide phone), drawn at ``width`` pixels."""

    TEXT = 15.5
    TIME = 11.0
    BUTTON = 14.0
    LINE = 1.42
    PAD_X = 11
    PAD_Y = 7
    MARGIN = 8
    GAP = 6
    RADIUS = 16
    KEY_HEIGHT = 38
    KEY_GAP = 4
    HEADER = 60

    def __init__(self, width: int) -> None:
        self.style = _Style(find_fonts(), width / 390)
        self.width = width
        self.max_bubble = self.px(390 - 2 * self.MARGIN - 40)

    def px(self, points: float) -> int:
        return self.style.px(points)

    @property
    def top(self) -> int:
        return self.px(self.HEADER) + self.px(10)

    def height(self, layouts: Sequence[_Layout]) -> int:
        """The picture's height: header, bubbles with keyboards, margins."""
        gap = self.px(self.GAP)
        return self.top + sum(lay.height + gap for lay in layouts) + self.px(10)

    def line_height(self, size: float) -> int:
        return self.px(size * self.LINE)

    def time_of(self, m: SentMessage) -> str:
        return time.strftime("%H:%M", time.gmtime(m.date)) if m.date else ""

    def layout(self, m: SentMessage) -> _Layout:
        pad = self.px(self.PAD_X)
        inner = self.max_bubble - 2 * pad
        text = wrap(self.style, m.text, self.TEXT, inner)
        stamp = self.style.font(self.TIME).getlength(self.time_of(m)) + self.px(8)
        if m.photo is not None:
            width = self.max_bubble
        else:
            keys = max((self._row_min(row) for row in m.reply_markup), default=0)
            width = round(max(text.width + 2 * pad, keys, self.px(60)))
        last = text.widths[-1] if text.widths else 0.0
        time_inline = bool(text.lines) and last + stamp <= width - 2 * pad
        if not time_inline and text.lines and text.width + stamp <= inner and m.photo is None:
            width = round(max(width, last + stamp + 2 * pad))
            time_inline = True
        photo_height = 0
        if m.photo is not None:
            with Image.open(io.BytesIO(m.photo)) as im:
                photo_height = round(im.height * width / im.width)
        body = len(text.lines) * self.line_height(self.TEXT)
        if text.lines:
            body += 2 * self.px(self.PAD_Y)
            if not time_inline:
                body += self.line_height(self.TIME)
        rows = len(m.reply_markup)
        keyboard = rows * (self.px(self.KEY_HEIGHT) + self.px(self.KEY_GAP))
        return _Layout(m, width, photo_height, text, time_inline, photo_height + body, keyboard)

    def _row_min(self, row: list[Button]) -> int:
        font = self.style.font(self.BUTTON, True)
        widest = max((font.getlength(self.style.clean(b.text)) for b in row), default=0.0)
        return round(len(row) * (widest + self.px(16)) + (len(row) - 1) * self.px(self.KEY_GAP))

    def header(self, draw: ImageDraw.ImageDraw, title: str, subtitle: str) -> None:
        h = self.px(self.HEADER)
        draw.rectangle((0, 0, self.width, h), fill=HEADER)
        draw.line((0, h, self.width, h), fill=HEADER_LINE, width=max(1, self.px(0.5)))
        style = self.style
        arm, x = self.px(7), self.px(12)  # the back chevron
        chevron = [(x + arm, h // 2 - arm), (x, h // 2), (x + arm, h // 2 + arm)]
        draw.line(chevron, fill=ACCENT, width=self.px(2.2), joint="curve")
        r = self.px(19)
        cx, cy = self.width - self.px(12) - r, h // 2
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ACCENT)
        initial = style.clean(title)[:1]
        if initial:
            draw.text((cx, cy), initial, font=style.font(17, True), fill=BUBBLE, anchor="mm")
        title_font = style.font(16.5, True)
        room = self.width - 2 * (2 * r + self.px(24))
        shown = _fit(style.clean(title), title_font, room)
        if subtitle:
            draw.text(
                (self.width // 2, cy - self.px(1)), shown, font=title_font, fill=TEXT, anchor="ms"
            )
            draw.text(
                (self.width // 2, cy + self.px(3)),
                _fit(style.clean(subtitle), style.font(12.5), room),
                font=style.font(12.5),
                fill=MUTED,
                anchor="mt",
            )
        else:
            draw.text((self.width // 2, cy), shown, font=title_font, fill=TEXT, anchor="mm")

    def message(self, image: Image.Image, lay: _Layout, y: int) -> None:
        draw = ImageDraw.Draw(image)
        x0 = self.px(self.MARGIN)
        x1 = x0 + lay.width
        radius = self.px(self.RADIUS)
        shadow = self.px(1)
        box = (x0, y, x1, y + lay.bubble_height)
        draw.rounded_rectangle(
            (x0, y + shadow, x1, y + lay.bubble_height + shadow), radius, fill=SHADOW
        )
        draw.rounded_rectangle(box, radius, fill=BUBBLE)
        m = lay.message
        if m.photo is not None and lay.photo_height:
            self._photo(
                image, m.photo, (x0, y, x1, y + lay.photo_height), radius, bool(lay.text.lines)
            )
        ty = y + lay.photo_height + self.px(self.PAD_Y)
        line_h = self.line_height(self.TEXT)
        for runs in lay.text.lines:
            x = float(x0 + self.px(self.PAD_X))
            for text, bold in runs:
                font = self.style.font(self.TEXT, bold)
                draw.text((x, ty + line_h / 2), text, font=font, fill=TEXT, anchor="lm")
                x += font.getlength(text)
            ty += line_h
        stamp = self.time_of(m)
        if stamp:
            tx, by = x1 - self.px(self.PAD_X), y + lay.bubble_height - self.px(self.PAD_Y - 1)
            font = self.style.font(self.TIME)
            if lay.text.lines:
                draw.text((tx, by), stamp, font=font, fill=MUTED, anchor="rd")
            else:  # on the photo, in a dark pill
                w = font.getlength(stamp)
                pill = (tx - w - self.px(6), by - self.px(18), tx + self.px(4), by)
                draw.rounded_rectangle(pill, self.px(9), fill=(60, 64, 70))
                draw.text((tx, by - self.px(2)), stamp, font=font, fill=BUBBLE, anchor="rd")
        ky = y + lay.bubble_height + self.px(self.KEY_GAP)
        for row in m.reply_markup:
            self._keys(draw, row, x0, x1, ky)
            ky += self.px(self.KEY_HEIGHT) + self.px(self.KEY_GAP)

    def _photo(
        self,
        image: Image.Image,
        png: bytes,
        box: tuple[int, int, int, int],
        radius: int,
        caption: bool,
    ) -> None:
        x0, y0, x1, y1 = box
        with Image.open(io.BytesIO(png)) as im:
            photo = im.convert("RGB").resize((x1 - x0, y1 - y0), Image.Resampling.LANCZOS)
        mask = Image.new("L", photo.size, 0)
        ImageDraw.Draw(mask).rounded_rectangle(
            (0, 0, photo.width - 1, photo.height - 1 + (radius if caption else 0)),
            radius,
            fill=255,
        )
        image.paste(photo, (x0, y0), mask)

    def _keys(self, draw: ImageDraw.ImageDraw, row: list[Button], x0: int, x1: int, y: int) -> None:
        gap = self.px(self.KEY_GAP)
        h = self.px(self.KEY_HEIGHT)
        n = max(1, len(row))
        w = (x1 - x0 - gap * (n - 1)) / n
        font = self.style.font(self.BUTTON, True)
        for i, b in enumerate(row):
            left = round(x0 + i * (w + gap))
            right = round(x0 + i * (w + gap) + w)
            draw.rounded_rectangle((left, y, right, y + h), self.px(8), fill=BUTTON)
            label = _fit(self.style.clean(b.text).strip(), font, right - left - self.px(10))
            draw.text(
                ((left + right) / 2, y + h / 2), label, font=font, fill=BUTTON_TEXT, anchor="mm"
            )
            if b.url:
                small = self.style.font(10, True)
                draw.text(
                    (right - self.px(4), y + self.px(3)),
                    "↗",
                    font=small,
                    fill=BUTTON_TEXT,
                    anchor="rt",
                )


def _fit(text: str, font: Font, room: float) -> str:
    """``text``, cut with an ellipsis to fit ``room`` pixels."""
    if font.getlength(text) <= room:
        return text
    while text and font.getlength(text + "…") > room:
        text = text[:-1]
    return text + "…"


def chat_height(messages: Sequence[SentMessage], width: int = 780) -> int:
    """The height in pixels :func:`render_chat` gives these messages (without drawing them)."""
    painter = _Painter(width)
    return painter.height([painter.layout(m) for m in messages if not m.deleted])


def last_screen(
    messages: Sequence[SentMessage], height: int = 2400, width: int = 780
) -> list[SentMessage]:
    """The newest messages that fit a screen ``height`` pixels tall (at least the last one),
    as a phone shows a chat scrolled to the bottom."""
    shown = [m for m in messages if not m.deleted]
    start = len(shown) - 1
    while start > 0 and chat_height(shown[start - 1 :], width) <= height:
        start -= 1
    return shown[max(start, 0) :]


def render_chat(
    messages: Sequence[SentMessage], title: str, width: int = 780, *, subtitle: str = ""
) -> bytes:
    """A PNG of a phone showing ``messages`` (the bot's, oldest first) in a chat called
    ``title``: the header, the bubbles and their inline keyboards; as tall as they need."""
    painter = _Painter(width)
    layouts = [painter.layout(m) for m in messages if not m.deleted]
    image = Image.new("RGB", (width, painter.height(layouts)), BACKGROUND)
    y = painter.top
    for lay in layouts:
        painter.message(image, lay, y)
        y += lay.height + painter.px(painter.GAP)
    painter.header(ImageDraw.Draw(image), title, subtitle)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()

"""The hand a player sees in their DM: cards grouped by rank, strongest first, each rank an
overlapped fan with a count badge; selected cards raised and tinted.

Readable on a phone: a photo is shown about 390 px wide, so the image is at most ``MAX_W`` wide
and its smallest text (the corner index, the ×N badge) stays ≥ 11 px there
(tests/test_renderers_phone.py).

Short on a phone: the DM's whole question (this picture, its caption, its buttons) must fit a
390 × 800 pt screen without scrolling, so the hand's cards are shorter than the table's
(``HAND_CARD_H``), a row reserves room above its cards only for badges (and for raised cards
when it has some), the margins are thin and the picture is never taller than ``MAX_ASPECT`` of
its width: a full hand (36 cards, ~40 after tribute) is three rows, rarely four
(``python3 -m bot.offline.dmsize`` measures the message).

Tiles (one per rank × suit × selected) and badges are drawn once, supersampled, and cached; a hand
is pastes onto one canvas, mapped to a fixed palette and written as a palette PNG.
"""

from __future__ import annotations

import io
import math
from functools import cache

from PIL import Image, ImageDraw

from engine.cards import BIG, NRANKS, SMALL, TEN, TWO, parse

from .fonts import draw_text, drawable, font

CARD_W, CARD_H = 100, 142  # a card on the table (table_image scales it)
HAND_CARD_H = 110  # a card in the hand: shorter, so that a full hand's rows are short
SS = 2  # supersampling factor of tiles
RAISE = 22  # how far a selected card rises
FAN = 30  # horizontal step between the cards of one rank: the corner index shows whole
WIDE_FAN = 34  # the step of a rank whose index is wider: "10", "大王" and "小王"
WIDE_INDEX = (TEN, SMALL, BIG)
FAN_MAX = 7 * WIDE_FAN  # a fan of many cards squeezes into this width
GAP = 10  # between two ranks
MARGIN = 8
BADGE_UP = 16  # how far a count badge rises above its cards: the room above a row
ROW_GAP = 8
MAX_W = 880  # 25 px corner text × 390 / 880 ≥ 11 px on a phone; more rows instead of wider
MAX_ASPECT = 0.5  # height / width at most (rows allowing): a wider picture rather than a taller one

BG = (24, 92, 58)
FACE = (253, 252, 246)
EDGE = (120, 128, 136)
RED = (206, 26, 42)
BLACK = (22, 22, 28)
MONEY_FACE, MONEY_EDGE = (255, 241, 196), (196, 150, 20)
BIG_FACE, BIG_EDGE = (255, 232, 214), (206, 26, 42)
SMALL_FACE, SMALL_EDGE = (232, 234, 238), (70, 74, 82)
SEL_FACE, SEL_EDGE = (214, 236, 255), (25, 118, 230)
BADGE, BADGE_TEXT = (20, 24, 30), (255, 255, 255)
SEL_BADGE, SEL_BADGE_TEXT = (25, 118, 230), (255, 255, 255)
GOLD = (235, 180, 30)
Color = tuple[int, int, int]

SUIT_CYCLE = "♠♥♣♦"  # decorative: suits are not part of the notation (docs/rules.md §2)
RANK_LABEL = {TEN: "10", SMALL: "小", BIG: "大"}
LABELS = "3456789TJQKA2SB"


def rank_label(rank: int) -> str:
    return RANK_LABEL.get(rank, LABELS[rank])


def _rounded(
    size: tuple[int, int],
    radius: int,
    fill: tuple[int, int, int],
    edge: tuple[int, int, int],
    width: int,
) -> Image.Image:
    im = Image.new("RGBA", size, (0, 0, 0, 0))
    ImageDraw.Draw(im).rounded_rectangle(
        (0, 0, size[0] - 1, size[1] - 1), radius, fill=fill, outline=edge, width=width
    )
    return im


def _text_center(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: float,
    fill: tuple[int, int, int],
) -> None:
    """Text centred on ``xy`` of a supersampled tile (drawn at ``SS`` times its final size)."""
    draw_text(draw, xy, text, round(size), fill, anchor="mm", shrink=SS)


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Color) -> None:
    """A five-pointed star (a mark, not text) of outer radius ``r``."""
    points = [
        (
            cx + (r if i % 2 == 0 else r * 0.4) * math.sin(i * math.pi / 5),
            cy - (r if i % 2 == 0 else r * 0.4) * math.cos(i * math.pi / 5),
        )
        for i in range(10)
    ]
    draw.polygon(points, fill=fill)


@cache
def card_tile(
    rank: int,
    suit: str,
    selected: bool,
    scale: float = 1.0,
    covered: bool = False,
    height: int = CARD_H,
) -> Image.Image:
    """One card, RGBA, ``CARD_W`` × ``height`` times ``scale``: corner index, big rank and suit.
    A ``covered`` card (under the next card of a fan) shows its corner index only: what shows of
    it is a strip at its left edge (and, under a raised card, its bottom), which would otherwise
    hold fragments of its big rank and suit (a half "10"). A card shorter than ``CARD_H`` (the
    hand's) keeps its corner index and draws its big rank and suit a little smaller, closer."""
    k = SS * scale
    d = CARD_H - height  # a shorter card's big symbols: higher, closer and a little smaller
    w, h = round(CARD_W * scale) * SS, round(height * scale) * SS
    if rank == BIG:
        face, edge = BIG_FACE, BIG_EDGE
    elif rank == SMALL:
        face, edge = SMALL_FACE, SMALL_EDGE
    elif rank == TWO:
        face, edge = MONEY_FACE, MONEY_EDGE
    else:
        face, edge = FACE, EDGE
    if selected:
        face = SEL_FACE
        edge = SEL_EDGE
    im = _rounded((w, h), round(10 * k), face, edge, round((4 if selected else 2) * k))
    draw = ImageDraw.Draw(im)
    if rank in (SMALL, BIG):
        ink = RED if rank == BIG else BLACK
        _text_center(draw, (18 * k, 22 * k), rank_label(rank), 25 * k, ink)
        _text_center(draw, (18 * k, 48 * k), "王", 25 * k, ink)
        if covered:
            return im.reduce(SS)
        cx = 62 * k
        size = (46 - 0.3 * d) * k
        _text_center(draw, (cx, (50 - 0.6 * d) * k), "大" if rank == BIG else "小", size, ink)
        _text_center(draw, (cx, (100 - 0.9 * d) * k), "王", size, ink)
        star_y, star_k = (height - 14) * k, (1 - 0.008 * d) * k
        _star(draw, cx, star_y, 10 * star_k, GOLD if rank == BIG else (150, 154, 162))
        if rank == BIG:
            _star(draw, cx - 24 * k, star_y, 7 * star_k, RED)
            _star(draw, cx + 24 * k, star_y, 7 * star_k, (30, 110, 220))
    else:
        ink = RED if suit in "♥♦" else BLACK
        label = rank_label(rank)
        _text_center(draw, (18 * k, 22 * k), label, (30 if len(label) == 1 else 25) * k, ink)
        _text_center(draw, (18 * k, 50 * k), suit, 25 * k, ink)
        if covered:
            return im.reduce(SS)
        big = 62 if len(label) == 1 else 50
        _text_center(draw, (62 * k, (66 - 0.8 * d) * k), label, (big - 0.15 * d) * k, ink)
        _text_center(draw, (62 * k, (height - 26 + 0.1 * d) * k), suit, (36 - 0.2 * d) * k, ink)
    return im.reduce(SS)


@cache
def badge(text: str, selected: bool) -> Image.Image:
    """A count badge (``×3``, ``2/5``), RGBA."""
    f = font(26 * SS)
    tw = int(f.getlength(text))
    w, h = max(tw + 20 * SS, 42 * SS), 36 * SS
    fill, ink = (SEL_BADGE, SEL_BADGE_TEXT) if selected else (BADGE, BADGE_TEXT)
    im = _rounded((w, h), h // 2, fill, (255, 255, 255), 2 * SS)
    _text_center(ImageDraw.Draw(im), (w // 2, h // 2), text, 26 * SS, ink)
    return im.reduce(SS)


def _fan_step(rank: int, n: int) -> float:
    step = WIDE_FAN if rank in WIDE_INDEX else FAN
    return step if n <= 1 or (n - 1) * step <= FAN_MAX else FAN_MAX / (n - 1)


def _group_width(rank: int, n: int) -> int:
    return CARD_W + round(_fan_step(rank, n) * (n - 1))


def _pack(widths: list[tuple[int, int]], limit: int) -> list[list[int]]:
    """Greedy rows of (rank, width) groups, each row at most ``limit`` px wide with margins."""
    rows: list[list[int]] = [[]]
    x = MARGIN
    for r, gw in widths:
        if rows[-1] and x + gw + MARGIN > limit:
            rows.append([])
            x = MARGIN
        rows[-1].append(r)
        x += gw + GAP
    return rows


def layout(counts: tuple[int, ...]) -> tuple[list[list[int]], int]:
    """Ranks (strongest first) in as few rows as fit ``MAX_W``, balanced so the widest row is as
    narrow as possible but the picture no taller than ``MAX_ASPECT`` of its width (a phone shows
    a photo at its full width: a taller one pushes the caption and buttons down); and the image
    width."""
    widths = [(r, _group_width(r, counts[r])) for r in range(NRANKS - 1, -1, -1) if counts[r]]
    nrows = len(_pack(widths, MAX_W))
    narrowest = max(CARD_W + 2 * MARGIN, min(math.ceil(image_height(nrows) / MAX_ASPECT), MAX_W))
    lo, hi = narrowest, MAX_W
    while lo < hi:  # the narrowest limit that still needs only nrows rows
        mid = (lo + hi) // 2
        if len(_pack(widths, mid)) <= nrows:
            hi = mid
        else:
            lo = mid + 1
    rows = _pack(widths, lo)
    gw = dict(widths)
    width = max((sum(gw[r] for r in row) + GAP * (len(row) - 1) for row in rows), default=0)
    return rows, max(width + 2 * MARGIN, narrowest)


def row_top(raised: bool) -> int:
    """The room above a row's cards: for its badges, and for its raised cards if it has some."""
    return BADGE_UP + (RAISE if raised else 0)


def image_height(nrows: int, raised_rows: int = 0) -> int:
    """The picture's height: ``nrows`` rows of cards, ``raised_rows`` of them with raised cards."""
    rows = nrows * (row_top(False) + HAND_CARD_H) + raised_rows * RAISE
    return 2 * MARGIN + rows + (nrows - 1) * ROW_GAP


@cache
def _palette() -> Image.Image:
    """A fixed 128-colour palette fitted to every tile and badge (built once)."""
    tiles = [card_tile(r, s, sel) for r in range(NRANKS) for s in "♠♥" for sel in (False, True)]
    tiles += [badge("×16", sel) for sel in (False, True)]
    sheet = Image.new("RGB", (CARD_W * len(tiles), CARD_H + 40), BG)
    for i, tile in enumerate(tiles):
        sheet.paste(tile, (i * CARD_W, 0), tile)
    return sheet.quantize(128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def render_hand(hand: str, selected: str = "") -> bytes:
    """A PNG of ``hand`` (docs/rules.md §2 notation); cards of ``selected`` (a sub-multiset)
    raised."""
    counts = parse(hand)
    chosen = parse(selected)
    rows, width = layout(counts)
    raised = [any(chosen[r] for r in row) for row in rows]
    canvas = Image.new("RGB", (width, image_height(len(rows), sum(raised))), BG)
    y0 = MARGIN
    for row, row_raised in zip(rows, raised, strict=True):
        used = sum(_group_width(r, counts[r]) for r in row) + GAP * (len(row) - 1)
        x = (width - used) // 2  # rows centred
        top = y0 + row_top(row_raised)  # the top of the row's cards not raised
        for r in row:
            n = counts[r]
            k = min(chosen[r], n)
            step = _fan_step(r, n)
            for i in range(n):
                sel = i >= n - k
                suit = "" if r in (SMALL, BIG) else SUIT_CYCLE[i % 4]
                tile = card_tile(r, suit, sel, covered=i < n - 1, height=HAND_CARD_H)
                canvas.paste(tile, (x + round(i * step), top - (RAISE if sel else 0)), tile)
            gw = _group_width(r, n)
            if n > 1 or k:
                text = f"{k}/{n}" if 0 < k < n else f"×{n}"
                b = badge(text, k > 0)
                bx = x + gw - b.width + 6
                by = top - (RAISE if k else 0) - BADGE_UP
                canvas.paste(b, (bx, by), b)
            x += gw + GAP
        y0 = top + HAND_CARD_H + ROW_GAP
    out = canvas.quantize(palette=_palette(), dither=Image.Dither.NONE)
    buf = io.BytesIO()
    out.save(buf, "PNG", compress_level=6)
    return buf.getvalue()


OUT_W, OUT_H = MAX_W, 180  # the picture of a player out of play: a strip, not a table of cards


def render_out(label: str) -> bytes:
    """The DM's picture once the player is out of play (gone out, 闷, 诈烧, 革命): no cards,
    only ``label`` (their rank) beside a star on the hand's green, so the photo message keeps a
    photo (Telegram edits a photo's media, never a photo into text)."""
    canvas = Image.new("RGB", (OUT_W, OUT_H), BG)
    draw = ImageDraw.Draw(canvas)
    _star(draw, OUT_H * 0.6, OUT_H / 2, OUT_H * 0.3, GOLD)
    draw_text(draw, (OUT_H * 1.1, OUT_H / 2), drawable(label), 72, FACE, anchor="lm")
    out = canvas.quantize(palette=_palette(), dither=Image.Dither.NONE)
    buf = io.BytesIO()
    out.save(buf, "PNG", compress_level=6)
    return buf.getvalue()

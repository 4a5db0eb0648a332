"""The hand a player sees in their DM: cards grouped by rank, strongest first, each rank an
overlapped fan with a count badge; selected cards raised and tinted.

Tiles (one per rank × suit × selected) and badges are drawn once, supersampled, and cached; a hand
is pastes onto one canvas, mapped to a fixed palette and written as a palette PNG.
"""

from __future__ import annotations

import io
from functools import cache

from PIL import Image, ImageDraw

from engine.cards import BIG, NRANKS, SMALL, TEN, TWO, parse

from .fonts import font

CARD_W, CARD_H = 100, 142
SS = 2  # supersampling factor of tiles
RAISE = 28  # how far a selected card rises
FAN = 28  # horizontal step between the cards of one rank
FAN_MAX = 7 * FAN  # a fan of many cards squeezes into this width
GAP = 14  # between two ranks
MARGIN = 14
TOP = RAISE + 8  # room above a row for raised cards and badges
ROW_GAP = 18
MAX_W = 1280  # Telegram photos: keep the long side ≤ 1280 px

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

SUIT_CYCLE = "♠♥♣♦"  # decorative: suits are not part of the notation (RULES.md §2)
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
    size: int,
    fill: tuple[int, int, int],
) -> None:
    draw.text(xy, text, font=font(size), fill=fill, anchor="mm")


@cache
def card_tile(rank: int, suit: str, selected: bool) -> Image.Image:
    """One card, RGBA, ``CARD_W`` × ``CARD_H``: corner index, big rank and suit."""
    w, h = CARD_W * SS, CARD_H * SS
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
    im = _rounded((w, h), 10 * SS, face, edge, (4 if selected else 2) * SS)
    d = ImageDraw.Draw(im)
    if rank in (SMALL, BIG):
        ink = RED if rank == BIG else BLACK
        _text_center(d, (19 * SS, 22 * SS), rank_label(rank), 24 * SS, ink)
        _text_center(d, (19 * SS, 48 * SS), "王", 24 * SS, ink)
        cx = 62 * SS
        _text_center(d, (cx, 50 * SS), "大" if rank == BIG else "小", 46 * SS, ink)
        _text_center(d, (cx, 100 * SS), "王", 46 * SS, ink)
        star = GOLD if rank == BIG else (150, 154, 162)
        _text_center(d, (cx, 128 * SS), "★", 22 * SS, star)
        if rank == BIG:
            _text_center(d, (cx - 24 * SS, 128 * SS), "★", 16 * SS, RED)
            _text_center(d, (cx + 24 * SS, 128 * SS), "★", 16 * SS, (30, 110, 220))
    else:
        ink = RED if suit in "♥♦" else BLACK
        label = rank_label(rank)
        size = 30 if len(label) == 1 else 25
        _text_center(d, (20 * SS, 22 * SS), label, size * SS, ink)
        _text_center(d, (20 * SS, 50 * SS), suit, 24 * SS, ink)
        big = 62 if len(label) == 1 else 50
        _text_center(d, (62 * SS, 66 * SS), label, big * SS, ink)
        _text_center(d, (62 * SS, 116 * SS), suit, 36 * SS, ink)
    return im.reduce(SS)


@cache
def badge(text: str, selected: bool) -> Image.Image:
    """A count badge (``×3``, ``2/5``), RGBA."""
    f = font(24 * SS)
    tw = int(f.getlength(text))
    w, h = max(tw + 22 * SS, 40 * SS), 34 * SS
    fill, ink = (SEL_BADGE, SEL_BADGE_TEXT) if selected else (BADGE, BADGE_TEXT)
    im = _rounded((w, h), h // 2, fill, (255, 255, 255), 2 * SS)
    ImageDraw.Draw(im).text((w // 2, h // 2), text, font=f, fill=ink, anchor="mm")
    return im.reduce(SS)


def _fan_step(n: int) -> float:
    return FAN if n <= 1 or (n - 1) * FAN <= FAN_MAX else FAN_MAX / (n - 1)


def _group_width(n: int) -> int:
    return CARD_W + round(_fan_step(n) * (n - 1))


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
    narrow as possible; and the image width."""
    widths = [(r, _group_width(counts[r])) for r in range(NRANKS - 1, -1, -1) if counts[r]]
    nrows = len(_pack(widths, MAX_W))
    lo, hi = CARD_W + 2 * MARGIN, MAX_W
    while lo < hi:  # the narrowest limit that still needs only nrows rows
        mid = (lo + hi) // 2
        if len(_pack(widths, mid)) <= nrows:
            hi = mid
        else:
            lo = mid + 1
    rows = _pack(widths, lo)
    gw = dict(widths)
    width = max((sum(gw[r] for r in row) + GAP * (len(row) - 1) for row in rows), default=0)
    return rows, max(width + 2 * MARGIN, CARD_W + 2 * MARGIN)


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
    """A PNG of ``hand`` (RULES.md §2 notation); cards of ``selected`` (a sub-multiset) raised."""
    counts = parse(hand)
    chosen = parse(selected)
    rows, width = layout(counts)
    row_h = TOP + CARD_H
    height = 2 * MARGIN + len(rows) * row_h + (len(rows) - 1) * ROW_GAP - 10
    canvas = Image.new("RGB", (width, height), BG)
    y0 = MARGIN
    for row in rows:
        x = MARGIN
        for r in row:
            n = counts[r]
            k = min(chosen[r], n)
            step = _fan_step(n)
            for i in range(n):
                sel = i >= n - k
                suit = "" if r in (SMALL, BIG) else SUIT_CYCLE[i % 4]
                tile = card_tile(r, suit, sel)
                canvas.paste(tile, (x + round(i * step), y0 + TOP - (RAISE if sel else 0)), tile)
            gw = _group_width(n)
            if n > 1 or k:
                text = f"{k}/{n}" if 0 < k < n else f"×{n}"
                b = badge(text, k > 0)
                bx = x + gw - b.width + 6
                by = y0 + TOP - (RAISE if k else 0) - b.height // 2
                canvas.paste(b, (bx, by), b)
            x += gw + GAP
        y0 += row_h + ROW_GAP
    out = canvas.quantize(palette=_palette(), dither=Image.Dither.NONE)
    buf = io.BytesIO()
    out.save(buf, "PNG", compress_level=6)
    return buf.getvalue()

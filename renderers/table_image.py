"""The table the group chat sees: six seats around a hexagon, two teams, the top play, whose turn.

Seat 0 sits at the bottom and play moves counterclockwise, seat i → i+1 (RULES.md §1), so each
seat's 对头 (i+3) sits straight across, joined by a line through the table.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.cards import BIG, NRANKS, SMALL, parse
from engine.view import SeatView
from engine.vocab import Status

from .fonts import MISSING, drawable, fit, font
from .hand_image import CARD_H, CARD_W, SUIT_CYCLE, card_tile
from .i18n import lang_or_default, t

WIDTH, HEIGHT = 1200, 860
PANEL_W, PANEL_H = 350, 164
FELT = (24, 92, 58)
TABLE = (18, 74, 46)
TABLE_EDGE = (120, 84, 40)
PANEL = (250, 250, 246)
TEAM_COLOR = ((200, 40, 40), (25, 100, 200))  # A, B
TEAM_TINT = ((255, 236, 236), (232, 241, 255))
INK = (25, 25, 30)
GREY = (110, 114, 122)
TURN = (255, 196, 0)
FACING = (70, 150, 100)
RANK_FILL = (214, 160, 20)
OPEN_FILL = (30, 140, 70)
FAULT_FILL = (90, 90, 96)
FAIL_FILL = (170, 30, 30)
BURN_FILL = (235, 90, 20)
WHITE = (255, 255, 255)
Color = tuple[int, int, int]

# Panel centres: seat 0 at the bottom, then counterclockwise (right, up, top, left, down).
SEAT_CENTRES = (
    (600, 760),
    (995, 585),
    (995, 275),
    (600, 100),
    (205, 275),
    (205, 585),
)


def pill(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: float,
    text: str,
    fill: Color,
    ink: Color = WHITE,
    size: int = 24,
) -> int:
    """A rounded label with its left edge at ``x``, centred on ``y``; returns its width."""
    f = font(size)
    w = int(f.getlength(text)) + size
    h = size + 12
    draw.rounded_rectangle((x, y - h / 2, x + w, y + h / 2), h // 2, fill=fill)
    draw.text((x + w / 2, y), text, font=f, fill=ink, anchor="mm")
    return w


def player_label(seat: int, names: Sequence[str], lang: str, size: int, width: int) -> str:
    """A drawable, fitted form of the player's name (``?`` for glyphs the font lacks; the seat
    label when nothing of the name can be drawn)."""
    raw = names[seat] if 0 <= seat < len(names) else ""
    text = drawable(raw)
    if not text.replace(MISSING, "").strip():
        text = t(lang, "img.seat", n=seat + 1)
    return fit(text, size, width)


def cards_strip(notation: str, max_width: int) -> Image.Image:
    """A play as a fan of card tiles (RGBA), strongest first, at most ``max_width`` wide."""
    counts = parse(notation)
    tiles = []
    for r in range(NRANKS - 1, -1, -1):
        for i in range(counts[r]):
            tiles.append(card_tile(r, "" if r in (SMALL, BIG) else SUIT_CYCLE[i % 4], False))
    n = max(len(tiles), 1)
    step = min(44.0, (max_width - CARD_W) / (n - 1)) if n > 1 else 0.0
    im = Image.new("RGBA", (CARD_W + round(step * (n - 1)), CARD_H), (0, 0, 0, 0))
    for i, tile in enumerate(tiles):
        im.alpha_composite(tile, (round(i * step), 0))
    return im


def _panel(
    draw: ImageDraw.ImageDraw, view: SeatView, seat: int, names: Sequence[str], lang: str
) -> None:
    cx, cy = SEAT_CENTRES[seat]
    x0, y0 = cx - PANEL_W // 2, cy - PANEL_H // 2
    x1, y1 = x0 + PANEL_W, y0 + PANEL_H
    side = seat % 2
    if view.to_act == seat:
        draw.rounded_rectangle((x0 - 9, y0 - 9, x1 + 9, y1 + 9), 26, fill=TURN)
    status = view.status[seat] if seat < len(view.status) else "active"
    out = status in (Status.REVOLTED, Status.SMOTHERED, Status.FAILED)
    draw.rounded_rectangle(
        (x0, y0, x1, y1),
        18,
        fill=(232, 232, 232) if out else TEAM_TINT[side],
        outline=TEAM_COLOR[side],
        width=5,
    )
    # line 1: seat number disc and name
    draw.ellipse((x0 + 14, y0 + 14, x0 + 58, y0 + 58), fill=TEAM_COLOR[side])
    draw.text((x0 + 36, y0 + 36), str(seat + 1), font=font(28), fill=WHITE, anchor="mm")
    name = player_label(seat, names, lang, 32, PANEL_W - 86)
    draw.text((x0 + 70, y0 + 36), name, font=font(32), fill=INK, anchor="lm")
    # line 2: team and card count
    team_label = t(lang, f"img.team.{'AB'[side]}")
    draw.text((x0 + 16, y0 + 88), team_label, font=font(24), fill=TEAM_COLOR[side], anchor="lm")
    x = x0 + 26 + font(24).getlength(team_label)
    facing = f"{t(lang, 'img.facing')} {(seat + 3) % 6 + 1}"
    x += pill(draw, x, y0 + 88, facing, FACING, size=18)
    count = view.counts[seat] if seat < len(view.counts) else None
    if count is not None and not out and view.ranks[seat] is None:
        text = t(lang, "img.cards", n=count)
        room = x1 - 16 - (x + 10)
        size = next((z for z in (34, 30, 26, 22) if font(z).getlength(text) <= room), 20)
        draw.text((x1 - 16, y0 + 88), text, font=font(size), fill=INK, anchor="rm")
    # line 3: tags
    x, y = x0 + 14, y1 - 30
    tags: list[tuple[str, Color]] = []
    rank = view.ranks[seat] if seat < len(view.ranks) else None
    if rank is not None:
        tags.append((t(lang, f"img.rank.{rank}"), RANK_FILL))
    if status == Status.FAILED:
        tags.append((t(lang, "img.failed"), FAIL_FILL))
    elif status in (Status.REVOLTED, Status.SMOTHERED):
        tags.append((t(lang, f"img.{status}"), FAULT_FILL))
    if view.burning == seat:
        tags.append((t(lang, "img.burning"), BURN_FILL))
    if seat < len(view.opened) and view.opened[seat]:
        tags.append((t(lang, "img.opened"), OPEN_FILL))
    if seat < len(view.headless) and view.headless[seat] and view.phase != "over":
        tags.append((t(lang, "img.headless"), GREY))
    if seat in view.passed and view.phase != "over":
        tags.append((t(lang, "img.passed"), GREY))
    if view.to_act == seat:
        tags.append((t(lang, "img.to_act"), (200, 140, 0)))
    for text, fill in tags:
        w = pill(draw, x, y, text, fill, size=22)
        x += w + 8
        if x > x1 - 40:
            break


def _centre(
    canvas: Image.Image, draw: ImageDraw.ImageDraw, view: SeatView, names: Sequence[str], lang: str
) -> None:
    cx, cy = WIDTH // 2, HEIGHT // 2
    if view.phase == "four_way":
        w = int(font(34).getlength(t(lang, "img.four_way"))) + 40
        draw.rounded_rectangle((cx - w / 2, cy - 170, cx + w / 2, cy - 120), 25, fill=(150, 30, 30))
        draw.text((cx, cy - 145), t(lang, "img.four_way"), font=font(34), fill=WHITE, anchor="mm")
    top = view.top
    if top is None:
        if view.to_act is not None and view.phase != "over":
            who = player_label(view.to_act, names, lang, 30, 300)
            draw.text(
                (cx, cy), f"{who} · {t(lang, 'img.lead')}", font=font(30), fill=WHITE, anchor="mm"
            )
        return
    strip = cards_strip(top.cards, 460)
    canvas.paste(strip, (cx - strip.width // 2, cy - CARD_H // 2 + 20), strip)
    label = player_label(top.seat, names, lang, 30, 300)
    x = cx - (font(30).getlength(label)) / 2
    tags: list[tuple[str, Color]] = []
    if top.burn:
        tags.append((t(lang, "img.burning"), BURN_FILL))
    elif top.gouji:
        tags.append((t(lang, "img.gouji"), RANK_FILL))
    tag_w = sum(int(font(22).getlength(s)) + 30 for s, _ in tags)
    x -= tag_w / 2
    draw.text((x, cy - 80), label, font=font(30), fill=WHITE, anchor="lm")
    x += font(30).getlength(label) + 12
    for text, fill in tags:
        x += pill(draw, x, cy - 80, text, fill, size=22) + 8


def encode_png(canvas: Image.Image) -> bytes:
    out = canvas.quantize(96, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    out.save(buf, "PNG", compress_level=6)
    return buf.getvalue()


def render_table(view: SeatView, names: Sequence[str], lang: str = "zh") -> bytes:
    """A PNG of the table for the group: seats by team, 对头 lines, counts, ranks, statuses,
    开点 marks, who is burning, whose turn, the top play and 四户乱缠."""
    lang = lang_or_default(lang)
    canvas = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(canvas)
    draw.ellipse((180, 150, WIDTH - 180, HEIGHT - 150), fill=TABLE, outline=TABLE_EDGE, width=10)
    for seat in range(3):  # 对头 pairs face each other across the table
        draw.line((SEAT_CENTRES[seat], SEAT_CENTRES[seat + 3]), fill=FACING, width=5)
    draw.ellipse(
        (WIDTH // 2 - 270, HEIGHT // 2 - 125, WIDTH // 2 + 270, HEIGHT // 2 + 135), fill=TABLE
    )
    for seat in range(6):
        _panel(draw, view, seat, names, lang)
    _centre(canvas, draw, view, names, lang)
    return encode_png(canvas)

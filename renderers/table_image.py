"""The table the group chat sees: six seats around a hexagon, two 联邦 by colour, the top play,
whose turn.

Seat 0 sits at the bottom and play moves counterclockwise, seat i → i+1 (docs/rules.md §1), so each
seat's 对头 (i+3) sits straight across, joined by a line through the table. A key in the corner
names each 联邦's members by its colour.

Readable on a phone (shown about 390 px wide): every text is at least ``MIN_TEXT`` px in this
1200 px image, ≥ 11 px there (tests/test_renderers_phone.py); labels are few and large.
Drawn here on a canvas; its PNG is :func:`renderers.png.render_table`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.cards import BIG, NRANKS, SMALL, parse
from engine.view import SeatView
from engine.vocab import Ask, Status

from .fonts import MISSING, Box, draw_text, drawable, fit, text_width
from .hand_image import CARD_H, CARD_W, SUIT_CYCLE, card_tile
from .i18n import lang_or_default, t

WIDTH, HEIGHT = 1200, 1000
MIN_TEXT = 34  # px: 34 × 390 / 1200 ≥ 11 px on a phone
PANEL_W, PANEL_H = 370, 190
FELT = (24, 92, 58)
TABLE = (18, 74, 46)
TABLE_EDGE = (120, 84, 40)
PANEL = (250, 250, 246)
TEAM_COLOR = ((200, 40, 40), (25, 100, 200))  # the 联邦 of seats 0, 2, 4 and of 1, 3, 5
TEAM_TINT = ((255, 236, 236), (232, 241, 255))
INK = (25, 25, 30)
GREY = (110, 114, 122)
TURN = (0, 215, 230)  # whose turn: cyan, unlike any rank's medal
TURN_INK = (0, 70, 90)
FACING = (70, 150, 100)
MEDAL = ((214, 160, 20), (150, 156, 166), (176, 110, 50))  # 头科, 二科, 三科
RANK_FILL = (96, 100, 110)  # 四科, 二落, 大落
OPEN_FILL = (30, 140, 70)
FAULT_FILL = (90, 90, 96)
FAIL_FILL = (170, 30, 30)
BURN_FILL = (235, 90, 20)
WHITE = (255, 255, 255)
TABLE_CARD_SCALE = 1.4  # cards of the top play: a 25 px corner index becomes 35 px
Color = tuple[int, int, int]

# Panel centres: seat 0 at the bottom, then counterclockwise (right, up, top, left, down).
SEAT_CENTRES = (
    (600, 895),
    (1005, 685),
    (1005, 315),
    (600, 105),
    (195, 315),
    (195, 685),
)


def shown_turn(view: SeatView) -> int | None:
    """Whose turn the table shows: nobody while a burn claim is asked, since only a player able
    to beat the 够级 play is asked (§7) and naming them would tell the table what they hold;
    nobody in the deal phase either (§5.4: 革命 is asked only of a hand without 2s and jokers)."""
    if view.phase in ("over", "setup") or view.asked == Ask.BURN:
        return None
    return view.to_act


def rank_fill(rank: int) -> Color:
    return MEDAL[rank - 1] if rank <= 3 else RANK_FILL


def pill(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: float,
    text: str,
    fill: Color,
    ink: Color = WHITE,
    size: int = MIN_TEXT,
    limit: Box | None = None,
) -> int:
    """A rounded label with its left edge at ``x``, centred on ``y``; returns its width, or 0
    (and draws nothing) when it would not fit inside ``limit``."""
    w = int(text_width(text, size)) + size
    h = size + 14
    frame = (x, y - h / 2, x + w, y + h / 2)
    if limit is not None and (frame[2] > limit[2] or frame[0] < limit[0]):
        return 0
    draw.rounded_rectangle(frame, h // 2, fill=fill)
    draw_text(draw, (x + w / 2, y), text, size, ink, anchor="mm", frame=frame, limit=limit)
    return w


def pill_width(text: str, size: int = MIN_TEXT) -> int:
    return int(text_width(text, size)) + size


def player_label(seat: int, names: Sequence[str], lang: str, size: int, width: int) -> str:
    """A drawable, fitted form of the player's name (``?`` for glyphs the font lacks; the seat
    label when nothing of the name can be drawn)."""
    raw = names[seat] if 0 <= seat < len(names) else ""
    text = drawable(raw)
    if not text.replace(MISSING, "").strip():
        text = t(lang, "img.seat", n=seat + 1)
    return fit(text, size, width)


def cards_strip(notation: str, max_width: int, scale: float = TABLE_CARD_SCALE) -> Image.Image:
    """A play as a fan of card tiles (RGBA), strongest first, at most ``max_width`` wide."""
    counts = parse(notation)
    cards = [
        (r, "" if r in (SMALL, BIG) else SUIT_CYCLE[i % 4])
        for r in range(NRANKS - 1, -1, -1)
        for i in range(counts[r])
    ]
    # every card but the last is covered by the next: its corner index only (card_tile)
    tiles = [
        card_tile(r, suit, False, scale, covered=i < len(cards) - 1)
        for i, (r, suit) in enumerate(cards)
    ]
    n = max(len(tiles), 1)
    w, h = round(CARD_W * scale), round(CARD_H * scale)
    step = min(62.0, (max_width - w) / (n - 1)) if n > 1 else 0.0
    im = Image.new("RGBA", (w + round(step * (n - 1)), h), (0, 0, 0, 0))
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
    turn = shown_turn(view) == seat
    if turn:
        draw.rounded_rectangle((x0 - 10, y0 - 10, x1 + 10, y1 + 10), 28, fill=TURN)
    status = view.status[seat] if seat < len(view.status) else "active"
    out = status in (Status.REVOLTED, Status.SMOTHERED, Status.FAILED)
    draw.rounded_rectangle(
        (x0, y0, x1, y1),
        18,
        fill=(232, 232, 232) if out else TEAM_TINT[side],
        outline=TEAM_COLOR[side],
        width=6,
    )
    # line 1: the name, in the 联邦's colour, and the rank once ranked
    rank = view.ranks[seat] if seat < len(view.ranks) else None
    room = PANEL_W - 36
    if rank is not None:
        label = t(lang, f"img.rank.{rank}")
        w = pill_width(label)
        pill(draw, x1 - 14 - w, y0 + 40, label, rank_fill(rank), limit=(x0, y0, x1, y1))
        room -= w + 12
    name = player_label(seat, names, lang, 40, room)
    draw_text(draw, (x0 + 18, y0 + 40), name, 40, TEAM_COLOR[side], anchor="lm")
    # lines 2 and 3: the card count, then labels, flowing; a label that does not fit is left out
    tags: list[tuple[str, Color, Color]] = []
    if turn:
        tags.append((t(lang, "img.to_act"), TURN, TURN_INK))
    if status == Status.FAILED:
        tags.append((t(lang, "img.failed"), FAIL_FILL, WHITE))
    elif status in (Status.REVOLTED, Status.SMOTHERED):
        tags.append((t(lang, f"img.{status}"), FAULT_FILL, WHITE))
    if view.burning == seat:
        tags.append((t(lang, "img.burning"), BURN_FILL, WHITE))
    if seat < len(view.opened) and view.opened[seat]:
        tags.append((t(lang, "img.opened"), OPEN_FILL, WHITE))
    headless = seat < len(view.headless) and view.headless[seat]
    if headless and view.phase == "play":  # no 无头 during 四户乱缠 (§12)
        tags.append((t(lang, "img.headless"), GREY, WHITE))
    if seat in view.passed and view.phase != "over":
        tags.append((t(lang, "img.passed"), GREY, WHITE))
    rows = (y0 + 98, y0 + 154)
    x, row = x0 + 16.0, 0
    count = view.counts[seat] if seat < len(view.counts) else None
    if count is not None and not out and rank is None:
        text = t(lang, "img.cards", n=count)
        draw_text(draw, (x, rows[0]), text, 40, INK, anchor="lm")
        x += text_width(text, 40) + 14
    box = (x0 + 8.0, y0, x1 - 8.0, y1)
    for text, fill, ink in tags:
        w = pill(draw, x, rows[row], text, fill, ink, limit=box)
        if not w and row == 0:
            x, row = x0 + 16.0, 1
            w = pill(draw, x, rows[row], text, fill, ink, limit=box)
        x += w + 10


def _key(draw: ImageDraw.ImageDraw, names: Sequence[str], lang: str, x: float, y: float) -> None:
    """The key of the two 联邦's colours: a disc of each colour and its members' names."""
    for side in (0, 1):
        cy = y + side * 52
        draw.ellipse((x, cy - 15, x + 30, cy + 15), fill=TEAM_COLOR[side], outline=WHITE, width=3)
        members = [player_label(s, names, lang, MIN_TEXT, 150) for s in range(side, 6, 2)]
        text = fit("·".join(members), MIN_TEXT, 340)
        draw_text(draw, (x + 42, cy), text, MIN_TEXT, WHITE, anchor="lm")


def _centre(
    canvas: Image.Image, draw: ImageDraw.ImageDraw, view: SeatView, names: Sequence[str], lang: str
) -> None:
    cx, cy = WIDTH // 2, HEIGHT // 2
    if view.phase == "four_way":
        text = t(lang, "img.four_way")
        w = int(text_width(text, 40)) + 44
        draw.rounded_rectangle((cx - w / 2, 222, cx + w / 2, 282), 30, fill=(150, 30, 30))
        draw_text(draw, (cx, 252), text, 40, WHITE, anchor="mm")
    top = view.top
    if top is None:
        leader = shown_turn(view)
        if leader is not None:
            who = player_label(leader, names, lang, 40, 400)
            draw_text(draw, (cx, cy - 30), who, 40, WHITE, anchor="mm")
            draw_text(draw, (cx, cy + 30), t(lang, "img.lead"), MIN_TEXT, WHITE, anchor="mm")
        return
    strip = cards_strip(top.cards, 440)
    canvas.paste(strip, (cx - strip.width // 2, cy + 120 - strip.height // 2), strip)
    tags: list[tuple[str, Color]] = []
    if top.burn:
        tags.append((t(lang, "img.burning"), BURN_FILL))
    elif top.gouji and view.phase != "four_way":  # §12: no 够级 in 四户乱缠
        tags.append((t(lang, "img.gouji"), MEDAL[0]))
    tag_w = sum(pill_width(text) + 12 for text, _ in tags)
    label = player_label(top.seat, names, lang, 40, 420 - tag_w)
    x = cx - (text_width(label, 40) + tag_w) / 2
    y = cy - 50
    draw_text(draw, (x, y), label, 40, WHITE, anchor="lm")
    x += text_width(label, 40) + 12
    for text, fill in tags:
        x += pill(draw, x, y, text, fill) + 12


def table_canvas(view: SeatView, names: Sequence[str], lang: str = "zh") -> Image.Image:
    """The picture of the table for the group: seats by 联邦 colour (with a key naming the members),
    对头 lines, counts, ranks, statuses, 开点 marks, who is burning, whose turn, the top play and
    四户乱缠."""
    lang = lang_or_default(lang)
    canvas = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(canvas)
    draw.ellipse((170, 170, WIDTH - 170, HEIGHT - 170), fill=TABLE, outline=TABLE_EDGE, width=10)
    for seat in range(3):  # 对头 pairs face each other across the table
        draw.line((SEAT_CENTRES[seat], SEAT_CENTRES[seat + 3]), fill=FACING, width=5)
    draw.ellipse((WIDTH // 2 - 250, 200, WIDTH // 2 + 250, HEIGHT - 200), fill=TABLE)
    for seat in range(6):
        _panel(draw, view, seat, names, lang)
    _key(draw, names, lang, 20, 36)
    _centre(canvas, draw, view, names, lang)
    return canvas

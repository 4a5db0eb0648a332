"""The ``/stats`` card of one player and the ``/top`` leaderboard, in the table's style (felt,
white panels, the medal colours of 头科/二科/三科); every text ≥ ``MIN_TEXT`` px of a 1200 px
image, readable at phone width (tests/test_stats_image.py). Pure: numbers in, PNG bytes out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PIL import Image, ImageDraw

from engine.stats import MIN_GAMES, PlayerStats, Standing

from .fonts import MISSING, Box, draw_text, drawable, fit, font
from .i18n import lang_or_default, t
from .png import encode_png
from .result_image import SCORE_GOLD
from .table_image import (
    FAIL_FILL,
    FELT,
    GREY,
    INK,
    MIN_TEXT,
    OPEN_FILL,
    PANEL,
    WHITE,
    WIDTH,
    pill,
    pill_width,
    rank_fill,
)

MARGIN = 40
TITLE_H = 110
GAP = 20
TILE_COLS = 3
TILE_H = 136
HEAD_H = 70  # a panel's heading
BARS_H = 230  # the rank distribution's bars, at most
RECENT_H = 220  # the last games' chart, both halves
MAX_MARGIN = 12  # §10: a game's margin is at most 12 (串三户): the recent chart's scale
ROW_H = 66  # one leaderboard row
PILL_ROW_H = 64  # one row of badge pills
_TILES = (
    "games",
    "win_rate",
    "points",
    "avg_rank",
    "touke",
    "daluo",
    "open_rate",
    "burns",
    "burn_fails",
    "burn_breaks",
    "counter_burns",
    "sweeps",
    "men_given",
    "smothered",
    "revolts",
)


def signed(n: int) -> str:
    """Points with their sign: +12, -4, 0 (ASCII: the font has no U+2212)."""
    return f"+{n}" if n > 0 else str(n)


def percent(x: float | None) -> str | None:
    return None if x is None else f"{round(100 * x)}%"


def stat_values(stats: PlayerStats) -> dict[str, str | None]:
    """The card's numbers as text (None: nothing to show, such as 开点 never played)."""
    return {
        "games": str(stats.games),
        "win_rate": percent(stats.win_rate),
        "points": signed(stats.points),
        "avg_rank": f"{stats.avg_rank:.2f}",
        "touke": str(stats.touke),
        "daluo": str(stats.daluo),
        "open_rate": percent(stats.open_rate),
        "burns": f"{stats.burn_wins}/{stats.burns_tried}",
        "burn_fails": str(stats.burn_fails),
        "burn_breaks": str(stats.burn_breaks),
        "counter_burns": str(stats.counter_burns),
        "sweeps": str(stats.sweeps),
        "men_given": str(stats.men_given),
        "smothered": str(stats.smothered),
        "revolts": str(stats.revolts),
    }


def name_label(name: str, key: str, size: int, width: int) -> str:
    """A drawable, fitted name (the player's key when nothing of the name can be drawn)."""
    text = drawable(name)
    if not text.replace(MISSING, "").strip():
        text = drawable(key) or "?"
    return fit(text, size, width)


def _panel(draw: ImageDraw.ImageDraw, y0: float, y1: float, heading: str) -> Box:
    box = (float(MARGIN), y0, float(WIDTH - MARGIN), y1)
    draw.rounded_rectangle(box, 16, fill=PANEL)
    draw_text(draw, (MARGIN + 24, y0 + HEAD_H / 2 + 4), heading, 40, INK, anchor="lm")
    return box


def stats_canvas(
    name: str, stats: PlayerStats, badges: Sequence[str] = (), lang: str = "zh", key: str = ""
) -> Image.Image:
    """A player's card: the name, the numbers, the ranks as bars, the points of the last games
    as bars around zero, and the badges earned (ids of :class:`engine.stats.Badge`)."""
    lang = lang_or_default(lang)
    labels = [t(lang, f"img.badge.{b}") for b in badges]
    rows = _pill_rows(labels) if labels else [[]]
    tile_rows = -(-len(_TILES) // TILE_COLS)
    y_tiles = TITLE_H
    y_ranks = y_tiles + tile_rows * (TILE_H + GAP)
    y_recent = y_ranks + HEAD_H + BARS_H + 2 * MIN_TEXT + 60 + GAP
    y_badges = y_recent + HEAD_H + RECENT_H + 70 + GAP
    height = y_badges + HEAD_H + len(rows) * PILL_ROW_H + 30 + MARGIN
    canvas = Image.new("RGB", (WIDTH, height), FELT)
    draw = ImageDraw.Draw(canvas)
    draw_text(
        draw,
        (MARGIN, TITLE_H / 2),
        name_label(name, key, 56, WIDTH - 2 * MARGIN),
        56,
        WHITE,
        anchor="lm",
    )
    _tiles(draw, stats, lang, y_tiles)
    ranks = _panel(draw, y_ranks, y_recent - GAP, t(lang, "img.stats.ranks"))
    _rank_bars(draw, stats, lang, ranks)
    heading = t(lang, "img.stats.recent", n=len(stats.recent), sum=signed(stats.recent_points))
    recent = _panel(draw, y_recent, y_badges - GAP, heading)
    _recent_bars(draw, stats.recent, recent, lang)
    _panel(draw, y_badges, height - MARGIN, t(lang, "img.stats.badges"))
    y = y_badges + HEAD_H + PILL_ROW_H / 2
    if not labels:
        draw_text(draw, (MARGIN + 24, y), t(lang, "img.stats.no_badges"), MIN_TEXT, GREY, "lm")
    limit = (MARGIN + 10.0, float(y_badges), WIDTH - MARGIN - 10.0, float(height - MARGIN))
    for row in rows:
        x = MARGIN + 24.0
        for label in row:
            x += pill(draw, x, y, label, SCORE_GOLD, INK, limit=limit) + 14
        y += PILL_ROW_H
    return canvas


def _tiles(draw: ImageDraw.ImageDraw, stats: PlayerStats, lang: str, y0: float) -> None:
    values = stat_values(stats)
    tile_w = (WIDTH - 2 * MARGIN - (TILE_COLS - 1) * GAP) / TILE_COLS
    for i, key in enumerate(_TILES):
        x = MARGIN + (i % TILE_COLS) * (tile_w + GAP)
        y = y0 + (i // TILE_COLS) * (TILE_H + GAP)
        draw.rounded_rectangle((x, y, x + tile_w, y + TILE_H - 6), 16, fill=PANEL)
        value = values[key] or t(lang, "img.stats.none")
        ink = INK
        if key == "points" and stats.points:
            ink = OPEN_FILL if stats.points > 0 else FAIL_FILL
        draw_text(draw, (x + tile_w / 2, y + 50), value, 60, ink, anchor="mm")
        label = fit(t(lang, f"img.stats.{key}"), MIN_TEXT, int(tile_w - 20))
        draw_text(draw, (x + tile_w / 2, y + TILE_H - 36), label, MIN_TEXT, GREY, anchor="mm")


def _rank_bars(draw: ImageDraw.ImageDraw, stats: PlayerStats, lang: str, box: Box) -> None:
    """Six bars, 头科 … 大落, each as tall as its share of the most frequent rank."""
    x0, y0, x1, _ = box
    col = (x1 - x0 - 40) / 6
    base = y0 + HEAD_H + MIN_TEXT + 20 + BARS_H
    top = max(stats.ranks) or 1
    for r, n in enumerate(stats.ranks):
        cx = x0 + 20 + col * (r + 0.5)
        h = max(6.0, BARS_H * n / top) if n else 0.0
        if h:
            draw.rounded_rectangle((cx - col * 0.32, base - h, cx + col * 0.32, base), 10,
                                   fill=rank_fill(r + 1))  # fmt: skip
        draw_text(draw, (cx, base - h - 8), str(n), MIN_TEXT, INK, anchor="md")
        label = fit(t(lang, f"img.rank.{r + 1}"), MIN_TEXT, int(col - 6))
        draw_text(draw, (cx, base + 14), label, MIN_TEXT, INK, anchor="ma")
    draw.line((x0 + 20, base, x1 - 20, base), fill=GREY, width=3)


def _recent_bars(draw: ImageDraw.ImageDraw, recent: Sequence[int], box: Box, lang: str) -> None:
    """The last games' points, oldest left: won games up in green, lost ones down in red, on
    the fixed scale of the largest margin a game can have (§10: 12, a 串三户)."""
    x0, y0, x1, _ = box
    mid = y0 + HEAD_H + 30 + RECENT_H / 2
    half = RECENT_H / 2
    left = x0 + 24 + font(MIN_TEXT).getlength("+12") + 16
    draw_text(draw, (left - 16, mid - half), "+12", MIN_TEXT, GREY, anchor="rm")
    draw_text(draw, (left - 16, mid + half), "-12", MIN_TEXT, GREY, anchor="rm")
    draw.line((left, mid, x1 - 24, mid), fill=GREY, width=3)
    if not recent:
        draw_text(draw, ((left + x1) / 2, mid - 30), t(lang, "img.stats.no_games"), MIN_TEXT,
                  GREY, anchor="mm")  # fmt: skip
        return
    slot = (x1 - 24 - left) / max(len(recent), 20)
    for i, p in enumerate(recent):
        bx = left + i * slot
        h = half * min(abs(p), MAX_MARGIN) / MAX_MARGIN
        if p > 0:
            draw.rectangle((bx + slot * 0.15, mid - h, bx + slot * 0.85, mid), fill=OPEN_FILL)
        elif p < 0:
            draw.rectangle((bx + slot * 0.15, mid, bx + slot * 0.85, mid + h), fill=FAIL_FILL)
        else:
            draw.rectangle((bx + slot * 0.15, mid - 4, bx + slot * 0.85, mid + 4), fill=GREY)


def _pill_rows(labels: Sequence[str]) -> list[list[str]]:
    """Badge labels flowed into rows that fit the panel."""
    room = WIDTH - 2 * MARGIN - 48
    rows: list[list[str]] = [[]]
    used = 0
    for label in labels:
        w = pill_width(label) + 14
        if rows[-1] and used + w > room:
            rows.append([])
            used = 0
        rows[-1].append(label)
        used += w
    return rows


def top_canvas(
    by_points: Sequence[Standing],
    by_rank: Sequence[Standing],
    names: Mapping[str, str],
    lang: str = "zh",
    min_games: int = MIN_GAMES,
    tonight: int = 0,
) -> Image.Image:
    """The leaderboard: the best players by points, then by average rank (each at most ten,
    as :func:`engine.stats.leaderboard` gives them), with their games; ``tonight``: tonight's
    standings over that many games (while nobody has ``min_games``)."""
    lang = lang_or_default(lang)
    boards: tuple[tuple[str, Sequence[Standing], Callable[[PlayerStats], str]], ...] = (
        (t(lang, "img.top.by_points"), by_points, lambda s: signed(s.points)),
        (t(lang, "img.top.by_rank"), by_rank, lambda s: f"{s.avg_rank:.2f}"),
    )
    heights = [HEAD_H + max(1, len(rows)) * ROW_H + 20 for _, rows, _ in boards]
    height = TITLE_H + sum(heights) + GAP * (len(boards) - 1) + MARGIN
    canvas = Image.new("RGB", (WIDTH, height), FELT)
    draw = ImageDraw.Draw(canvas)
    title = t(lang, "img.top.tonight" if tonight else "img.top.title")
    label = (
        t(lang, "img.top.games", n=tonight)
        if tonight
        else t(lang, "img.top.min_games", n=min_games)
    )
    draw_text(draw, (MARGIN, TITLE_H / 2), title, 56, WHITE, anchor="lm")
    pill(draw, MARGIN + font(56).getlength(title) + 24, TITLE_H / 2, label, SCORE_GOLD, INK)
    y = float(TITLE_H)
    for (heading, rows, value_of), h in zip(boards, heights, strict=True):
        box = _panel(draw, y, y + h, heading)
        cy = y + HEAD_H + ROW_H / 2
        if not rows:
            empty = t(lang, "img.top.empty", n=min_games)
            draw_text(draw, (MARGIN + 24, cy), empty, MIN_TEXT, GREY, anchor="lm")
        for standing in rows:
            _standing(draw, standing, names, lang, value_of(standing.stats), box, cy)
            cy += ROW_H
        y += h + GAP
    return canvas


def _standing(
    draw: ImageDraw.ImageDraw,
    standing: Standing,
    names: Mapping[str, str],
    lang: str,
    value: str,
    box: Box,
    cy: float,
) -> None:
    """One row: the place on a medal, the name, the games and the value."""
    x0, _, x1, _ = box
    r = 26
    cx = x0 + 24 + r
    place = standing.place
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=rank_fill(min(place, 4)))
    draw_text(draw, (cx, cy), str(place), MIN_TEXT, WHITE, anchor="mm")
    games = t(lang, "img.top.games", n=standing.stats.games)
    right = x1 - 24
    draw_text(draw, (right, cy), value, 44, INK, anchor="rm")
    right -= font(44).getlength(value) + 28
    draw_text(draw, (right, cy), games, MIN_TEXT, GREY, anchor="rm")
    right -= font(MIN_TEXT).getlength(games) + 24
    name_x = cx + r + 20
    who = name_label(names.get(standing.player, ""), standing.player, 40, int(right - name_x))
    draw_text(draw, (name_x, cy), who, 40, INK, anchor="lm")


def render_stats(
    name: str, stats: PlayerStats, badges: Sequence[str] = (), lang: str = "zh", key: str = ""
) -> bytes:
    """A PNG of :func:`stats_canvas`."""
    return encode_png(stats_canvas(name, stats, badges, lang, key))


def render_top(
    by_points: Sequence[Standing],
    by_rank: Sequence[Standing],
    names: Mapping[str, str],
    lang: str = "zh",
    min_games: int = MIN_GAMES,
    tonight: int = 0,
) -> bytes:
    """A PNG of :func:`top_canvas`."""
    return encode_png(top_canvas(by_points, by_rank, names, lang, min_games, tonight))

"""The end of a game for the group: ranks 头科…大落, 开点 marks, faults, 串三户, the score and the
tributes owed for the next game (RULES.md §9–§11)."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.view import SeatView
from engine.vocab import Status

from .announce import sweep_team
from .fonts import font
from .i18n import lang_or_default, t
from .table_image import (
    FAIL_FILL,
    FAULT_FILL,
    FELT,
    INK,
    OPEN_FILL,
    PANEL,
    TEAM_COLOR,
    TEAM_TINT,
    WHITE,
    encode_png,
    pill,
    player_label,
)

WIDTH = 1200
ROW_H = 78
MEDAL = ((214, 160, 20), (160, 166, 176), (176, 110, 50))  # 头科, 二科, 三科


def render_game_over(
    view: SeatView,
    names: Sequence[str],
    lang: str = "zh",
    match_score: tuple[int, int] | None = None,
) -> bytes:
    """A PNG of the final ranks (with 开点 and fault marks), the team score, the match score
    and the tributes (闷贡/烧贡/点贡/落贡/串三户) owed for the next game."""
    lang = lang_or_default(lang)
    debts = view.tributes
    rows = max(6, len(debts) + 1)
    height = 150 + rows * ROW_H + 110
    canvas = Image.new("RGB", (WIDTH, height), FELT)
    draw = ImageDraw.Draw(canvas)
    draw.text((WIDTH // 2, 56), t(lang, "img.game_over"), font=font(52), fill=WHITE, anchor="mm")
    sweep = sweep_team(view)
    if sweep is not None:
        pill(draw, WIDTH // 2 + 170, 56, t(lang, "img.chuan"), TEAM_COLOR[sweep], size=30)

    # left: ranks
    by_rank = sorted((r, s) for s, r in enumerate(view.ranks) if r is not None and 1 <= r <= 6)
    y = 130.0
    for rank, seat in by_rank:
        side = seat % 2
        draw.rounded_rectangle(
            (30, y, 700, y + ROW_H - 12),
            16,
            fill=TEAM_TINT[side],
            outline=TEAM_COLOR[side],
            width=4,
        )
        cy = y + (ROW_H - 12) / 2
        fill = MEDAL[rank - 1] if rank <= 3 else (120, 124, 132)
        pill(draw, 44, cy, t(lang, f"img.rank.{rank}"), fill, size=28)
        draw.ellipse((190, cy - 20, 230, cy + 20), fill=TEAM_COLOR[side])
        draw.text((210, cy), str(seat + 1), font=font(24), fill=WHITE, anchor="mm")
        draw.text(
            (244, cy),
            player_label(seat, names, lang, 30, 250),
            font=font(30),
            fill=INK,
            anchor="lm",
        )
        x = 505.0
        status = view.status[seat] if seat < len(view.status) else ""
        if seat < len(view.opened) and view.opened[seat]:
            x += pill(draw, x, cy, t(lang, "img.opened"), OPEN_FILL, size=22) + 6
        if status == Status.FAILED:
            pill(draw, x, cy, t(lang, "img.failed"), FAIL_FILL, size=22)
        elif status in (Status.REVOLTED, Status.SMOTHERED):
            pill(draw, x, cy, t(lang, f"img.{status}"), FAULT_FILL, size=22)
        y += ROW_H

    # right: tributes
    x0 = 730
    draw.rounded_rectangle((x0, 130, WIDTH - 30, 130 + rows * ROW_H - 12), 16, fill=PANEL)
    draw.text((x0 + 20, 160), t(lang, "img.tributes"), font=font(30), fill=INK, anchor="lm")
    y = 130.0 + ROW_H
    if not debts:
        draw.text(
            (x0 + 20, y + 20),
            t(lang, "img.no_tributes"),
            font=font(26),
            fill=(110, 114, 122),
            anchor="lm",
        )
    for debt in debts:
        cy = y + 20
        for i, seat in enumerate((debt.src, debt.dst)):
            cx = x0 + 40 + i * 90
            draw.ellipse((cx - 20, cy - 20, cx + 20, cy + 20), fill=TEAM_COLOR[seat % 2])
            draw.text((cx, cy), str(seat + 1), font=font(24), fill=WHITE, anchor="mm")
        draw.text((x0 + 85, cy), "→", font=font(28), fill=INK, anchor="mm")
        kind = t(lang, f"img.tribute.{debt.kind}") if debt.kind in _KINDS else debt.kind
        draw.text(
            (x0 + 160, cy),
            t(lang, "img.debt", kind=kind, n=debt.cards),
            font=font(28),
            fill=INK,
            anchor="lm",
        )
        y += ROW_H * 0.8

    # bottom: score
    a, b = view.score
    yb = 130 + rows * ROW_H + 30
    draw.text(
        (30, yb),
        t(lang, "img.score", a=_signed(a), b=_signed(b)),
        font=font(34),
        fill=WHITE,
        anchor="lm",
    )
    if match_score is not None:
        text = t(lang, "img.match", a=match_score[0], b=match_score[1])
        draw.text((WIDTH - 30, yb), text, font=font(34), fill=(255, 226, 120), anchor="rm")
    return encode_png(canvas)


_KINDS = ("men", "shao", "dian", "luo", "chuan")


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)

"""The end of a game for the group: ranks 头科…大落, 开点 marks, faults, 串三户, the score and the
tributes owed for the next game (docs/rules.md §9–§11), each player named, the two 联邦 by
colour with a key; every text ≥ ``MIN_TEXT`` px, readable at phone width
(tests/test_renderers_phone.py).
Drawn here on a canvas in the table's style; its PNG is :func:`renderers.png.render_game_over`."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.ranking import chuan_team
from engine.view import SeatView
from engine.vocab import Status

from .debts import debt_lines
from .fonts import draw_text, fit, text_width
from .i18n import lang_or_default, t
from .table_image import (
    FAIL_FILL,
    FAULT_FILL,
    FELT,
    INK,
    MIN_TEXT,
    OPEN_FILL,
    PANEL,
    TEAM_COLOR,
    TEAM_TINT,
    WHITE,
    pill,
    pill_width,
    player_label,
    rank_fill,
)

WIDTH = 1200
TOP = 100  # below the title
KEY_H = 60  # one row of the 联邦 key
ROW_H = 72  # one rank
DEBT_H = 60  # one tribute
SCORE_GOLD = (255, 226, 120)
_KINDS = ("men", "shao", "dian", "luo", "chuan")


def game_over_canvas(
    view: SeatView,
    names: Sequence[str],
    lang: str = "zh",
    match_score: tuple[int, int] | None = None,
) -> Image.Image:
    """The picture of the final ranks (with 开点 and fault marks), each 联邦's game score and match
    score, and the tributes (闷贡/烧贡/点贡/落贡/串三户) owed for the next game, player by
    player."""
    lang = lang_or_default(lang)
    debts = view.tributes
    lines = debt_lines(debts)
    debt_rows = max(1, (len(lines) + 1) // 2)
    y_ranks = TOP + 2 * KEY_H + 20
    y_debts = y_ranks + 6 * ROW_H + 20
    height = y_debts + 70 + debt_rows * DEBT_H + 30
    canvas = Image.new("RGB", (WIDTH, height), FELT)
    draw = ImageDraw.Draw(canvas)

    title = t(lang, "img.game_over")
    sweep = chuan_team(view.ranks)
    chuan = t(lang, "img.chuan") if sweep is not None else ""
    title_w = text_width(title, 52) + (pill_width(chuan) + 20 if chuan else 0)
    x = (WIDTH - title_w) / 2
    draw_text(draw, (x, 56), title, 52, WHITE, anchor="lm")
    if sweep is not None:
        pill(draw, x + text_width(title, 52) + 20, 56, chuan, TEAM_COLOR[sweep])

    _key(draw, view, names, lang, match_score)

    # the ranks, one row each
    by_rank = sorted((r, s) for s, r in enumerate(view.ranks) if r is not None and 1 <= r <= 6)
    y = float(y_ranks)
    for rank, seat in by_rank:
        side = seat % 2
        row = (30.0, y, WIDTH - 30.0, y + ROW_H - 10)
        draw.rounded_rectangle(row, 16, fill=TEAM_TINT[side], outline=TEAM_COLOR[side], width=4)
        cy = y + (ROW_H - 10) / 2
        label = t(lang, f"img.rank.{rank}")
        pill(draw, 44, cy, label, rank_fill(rank), limit=row)
        name_x = 44 + max(pill_width(t(lang, f"img.rank.{r}")) for r in range(1, 7)) + 20
        draw_text(
            draw,
            (name_x, cy),
            player_label(seat, names, lang, 40, 420),
            40,
            TEAM_COLOR[side],
            anchor="lm",
        )
        marks: list[tuple[str, tuple[int, int, int]]] = []
        status = view.status[seat] if seat < len(view.status) else ""
        if seat < len(view.opened) and view.opened[seat]:
            marks.append((t(lang, "img.opened"), OPEN_FILL))
        if status == Status.FAILED:
            marks.append((t(lang, "img.failed"), FAIL_FILL))
        elif status in (Status.REVOLTED, Status.SMOTHERED):
            marks.append((t(lang, f"img.{status}"), FAULT_FILL))
        x = WIDTH - 44 - sum(pill_width(text) + 10 for text, _ in marks)
        for text, fill in marks:
            x += pill(draw, x, cy, text, fill, limit=row) + 10
        y += ROW_H

    # the tributes, two columns, each payer and receiver named in their 联邦's colour
    panel = (30.0, float(y_debts), WIDTH - 30.0, float(height - 30))
    draw.rounded_rectangle(panel, 16, fill=PANEL)
    draw_text(draw, (50, y_debts + 38), t(lang, "img.tributes"), 40, INK, anchor="lm")
    if not debts:
        draw_text(draw, (50, y_debts + 70 + DEBT_H / 2), t(lang, "img.no_tributes"), 36, INK, "lm")
    col_w = (WIDTH - 100) / 2
    for i, debt in enumerate(lines):
        cx0 = 50 + (i % 2) * col_w
        cy = y_debts + 70 + (i // 2) * DEBT_H + DEBT_H / 2
        kind = t(lang, f"img.tribute.{debt.kind}") if debt.kind in _KINDS else debt.kind
        arrow = " ⇄ " if debt.mutual else " → "  # a two-way 点贡: one line (renderers.debts)
        if not debt.mutual:
            what = t(lang, "img.debt", kind=kind, n=debt.cards)
        elif debt.cards == debt.back:
            what = t(lang, "img.debt.mutual", kind=kind, n=debt.cards)
        else:
            what = t(lang, "img.debt.mutual2", kind=kind, n=debt.cards, m=debt.back)
        what_w = text_width(what, MIN_TEXT)
        room = (col_w - 40 - what_w - text_width(arrow, MIN_TEXT)) / 2
        x = cx0
        for j, seat in enumerate((debt.src, debt.dst)):
            who = player_label(seat, names, lang, MIN_TEXT, int(room))
            draw_text(draw, (x, cy), who, MIN_TEXT, TEAM_COLOR[seat % 2], anchor="lm")
            x += text_width(who, MIN_TEXT)
            if j == 0:
                draw_text(draw, (x, cy), arrow, MIN_TEXT, INK, anchor="lm")
                x += text_width(arrow, MIN_TEXT)
        draw_text(draw, (x + 12, cy), what, MIN_TEXT, INK, anchor="lm")
    return canvas


def _key(
    draw: ImageDraw.ImageDraw,
    view: SeatView,
    names: Sequence[str],
    lang: str,
    match_score: tuple[int, int] | None,
) -> None:
    """Each 联邦 in its colour: its members, this game's score, the match score."""
    for side in (0, 1):
        cy = TOP + side * KEY_H + KEY_H / 2
        draw.ellipse((34, cy - 17, 68, cy + 17), fill=TEAM_COLOR[side], outline=WHITE, width=3)
        members = "·".join(player_label(s, names, lang, MIN_TEXT, 200) for s in range(side, 6, 2))
        scores = []
        if view.score[side]:
            scores.append(t(lang, "img.score", score=f"+{view.score[side]}"))
        if match_score is not None:
            scores.append(t(lang, "img.match", score=match_score[side]))
        right = "   ".join(scores)
        right_w = text_width(right, 40)
        text = fit(members, 40, int(WIDTH - 120 - right_w - 40))
        draw_text(draw, (84, cy), text, 40, WHITE, anchor="lm")
        if right:
            draw_text(draw, (WIDTH - 34, cy), right, 40, SCORE_GOLD, anchor="rm")

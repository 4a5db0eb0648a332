"""One frame of a replay (:mod:`renderers.replay`) drawn in the table picture's style and size:
the felt, the 联邦 colours, the pills, 1200 × 1000 px, every text ≥ ``MIN_TEXT`` px (≥ 11 px when
a phone shows it 390 px wide).

A header names the frame (发牌, 第3轮, 本局结束) and who won the trick, then what happened, as
pills: 烧, 反烧, 解烧, 烧成, 诈烧 (§7), 闷 (§8), 开点 (§9), 头科 … 大落 (§10), 接风, 四户乱缠
(§12). Below, one row per seat in play order (seat i → i+1, §1), so 对头 sit three rows apart:
the name, the card count and the trick's moves in order (plays numbered, the play that stood
in gold, burn plays in orange, 过 and 让); then the seat's marks and its cards, open, grouped by
rank, strongest first (dead cards greyed).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

from PIL import Image, ImageDraw

from engine.cards import BIG, NRANKS, SMALL, TWO, parse
from engine.ranking import chuan_team
from engine.vocab import Do, EventType, Status

from .fonts import draw_text, fit, font
from .hand_image import BIG_FACE, BLACK, FACE, MONEY_FACE, RED, SMALL_FACE, rank_label
from .i18n import Catalog, t
from .replay_script import Frame, FrameKind, Mark, ReplayScript
from .table_image import (
    BURN_FILL,
    FAIL_FILL,
    FAULT_FILL,
    FELT,
    GREY,
    HEIGHT,
    INK,
    MEDAL,
    MIN_TEXT,
    OPEN_FILL,
    TEAM_COLOR,
    TEAM_TINT,
    WHITE,
    WIDTH,
    Color,
    pill,
    pill_width,
    player_label,
    rank_fill,
)

HEADER_H = 226
ROW_PITCH = 127
ROW_H = 119
ROW_X0, ROW_X1 = 14, WIDTH - 14
NAME_SIZE = 40
STEP_SIZE = 40  # the cards of a play
STEP_X = 330  # where each row's moves start: one column down the rows
CHIP_H = 46  # a group of cards in a hand
STEP_H = 52  # a play
CHIP_PAD = 3  # inside a play's chip
CHIP_GAP = 5  # between two ranks of a hand
CELL_PAD = 3  # each side of a card's label in its cell
GROUP_GAP = 12  # between two ranks of one play
CELL_LINE = (190, 194, 200)  # between two cards of one rank
LINE1, LINE2 = 33, 87  # the rows' two lines, from a row's top
TITLE_SIZE = 54
STORY_ROWS = (124, 186)  # the header's two rows of pills
DEAD_FACE = (222, 222, 222)
DEAD_TINT = (236, 236, 236)
NUMBER_FILL = (52, 56, 64)
FOUR_WAY_FILL = (150, 30, 30)
MEN_FILL = (112, 54, 160)  # 闷 as the header tells it
TRIBUTE_FILL = (74, 80, 92)
LIGHT = (200, 226, 210)  # the frame counter on the felt
MONEY_INK = (150, 96, 0)


def _story_fill(mark: Mark) -> Color:
    if mark.type in (EventType.BURN, EventType.COUNTER_BURN, EventType.BURN_SUCCESS):
        return BURN_FILL
    if mark.type == EventType.BURN_FAIL:
        return FAIL_FILL
    if mark.type == EventType.OPENED:
        return OPEN_FILL
    if mark.type == EventType.FINISHED and mark.rank is not None:
        return rank_fill(mark.rank)
    if mark.type == EventType.FOUR_WAY:
        return FOUR_WAY_FILL
    if mark.type == EventType.SMOTHERED:
        return MEN_FILL
    return GREY  # 解烧, 接风


def _dead(frame: Frame, seat: int) -> bool:
    return frame.status[seat] in (Status.REVOLTED, Status.SMOTHERED, Status.FAILED)


class _Painter:
    """Draws one frame of one script."""

    def __init__(self, script: ReplayScript, index: int) -> None:
        self.script = script
        self.frame = script.frames[index]
        self.index = index
        self.lang = script.lang
        self.cat = Catalog.load(script.lang)
        self.canvas = Image.new("RGB", (WIDTH, HEIGHT), FELT)
        self.draw = ImageDraw.Draw(self.canvas)

    def name(self, seat: int | None, width: int = 200, size: int = MIN_TEXT) -> str:
        if seat is None:
            return ""
        return player_label(seat, self.script.names, self.lang, size, width)

    # -- the header ----------------------------------------------------------------------------
    def header(self) -> None:
        frame, cat = self.frame, self.cat
        if frame.kind == FrameKind.DEAL:
            title = cat.text("replay.title.deal")
        elif frame.kind == FrameKind.TRICK:
            title = cat.text("replay.title.trick", n=frame.number)
        elif self.script.over:
            title = cat.text("replay.title.end")
        else:
            title = cat.text("replay.title.unfinished")
        y = 56
        draw_text(self.draw, (30, y), title, TITLE_SIZE, WHITE, anchor="lm")
        # the tricks are counted as the caption counts them (the deal and the end are titled)
        counter = (
            cat.text("replay.counter", n=frame.number, total=self.script.tricks)
            if frame.kind == FrameKind.TRICK
            else ""
        )
        draw_text(self.draw, (WIDTH - 30, y), counter, NAME_SIZE, LIGHT, anchor="rm")
        x = 30 + font(TITLE_SIZE).getlength(title) + 30
        room = WIDTH - 60 - font(NAME_SIZE).getlength(counter) - x
        if frame.winner is not None:
            key = "replay.failed" if frame.failed is not None else "replay.won"
            won = cat.text(key, name=self.name(frame.winner, 300, NAME_SIZE))
            draw_text(self.draw, (x, y), fit(won, NAME_SIZE, int(room)), NAME_SIZE, MEDAL[0], "lm")
        self.story(self.story_pills())

    def story_pills(self) -> list[tuple[str, Color]]:
        frame, cat, script = self.frame, self.cat, self.script
        pills: list[tuple[str, Color]] = []
        if frame.kind == FrameKind.DEAL:
            pills.append((cat.text("replay.leads", name=self.name(script.leader)), OPEN_FILL))
            for key, seats, fill in (
                ("replay.revolted", script.revolted, FAULT_FILL),
                ("replay.yaotou", script.yaotou, GREY),
                ("replay.declared", script.declared, GREY),
            ):
                pills += [(cat.text(key, name=self.name(s)), fill) for s in seats]
        elif frame.kind == FrameKind.END:
            pills += self.result_pills()
        for mark in frame.marks:
            rank = t(self.lang, f"img.rank.{mark.rank}") if mark.rank else ""
            text = cat.text(
                f"replay.mark.{mark.type}",
                name=self.name(mark.seat),
                other=self.name(mark.other),
                rank=rank,
            )
            pills.append((text, _story_fill(mark)))
        return pills

    def result_pills(self) -> list[tuple[str, Color]]:
        """The end: 串三户 and the winning 联邦's score (§10), or why the replay stops short."""
        script, cat = self.script, self.cat
        if not script.over:
            return [(cat.text("replay.stopped"), GREY)]
        sweep = chuan_team(self.frame.ranks)
        a, b = script.score
        if a == b:
            return [(cat.text("replay.tie"), GREY), *self.tribute_pills()]
        side = 0 if a > b else 1
        members = cat.text("replay.team_sep").join(self.name(s, 150) for s in range(side, 6, 2))
        out = [(cat.text("replay.score", team=members, score=abs(a - b)), TEAM_COLOR[side])]
        if sweep is not None:
            out.insert(0, (cat.text("replay.chuan"), MEDAL[0]))
        return out + self.tribute_pills()

    def tribute_pills(self) -> list[tuple[str, Color]]:
        """The tributes the game leaves (§11): payer → receiver, kind × cards."""
        out: list[tuple[str, Color]] = []
        for debt in self.script.tributes:
            kind = t(self.lang, f"img.tribute.{debt.kind}")
            what = t(self.lang, "img.debt", kind=kind, n=debt.cards)
            text = f"{self.name(debt.src, 120)}→{self.name(debt.dst, 120)} {what}"
            out.append((text, TRIBUTE_FILL))
        return out

    def story(self, pills: Sequence[tuple[str, Color]]) -> None:
        box = (20.0, 90.0, WIDTH - 20.0, float(HEADER_H))
        x, row = 30.0, 0
        for text, fill in pills:
            w = pill_width(text)
            if x + w > WIDTH - 30 and row + 1 < len(STORY_ROWS):
                x, row = 30.0, row + 1
            drawn = pill(self.draw, x, STORY_ROWS[row], text, fill, limit=box)
            x += drawn + 12

    # -- the rows ------------------------------------------------------------------------------
    def rows(self) -> None:
        for seat in range(6):
            self.row(seat, HEADER_H + seat * ROW_PITCH)

    def row(self, seat: int, y0: int) -> None:
        frame, draw = self.frame, self.draw
        side = seat % 2
        dead = _dead(frame, seat)
        box = (float(ROW_X0), float(y0), float(ROW_X1), float(y0 + ROW_H))
        if frame.winner == seat:
            glow = (ROW_X0 - 8, y0 - 5, ROW_X1 + 8, y0 + ROW_H + 5)
            draw.rounded_rectangle(glow, 24, fill=MEDAL[0])
        draw.rounded_rectangle(
            box, 18, fill=DEAD_TINT if dead else TEAM_TINT[side], outline=TEAM_COLOR[side], width=5
        )
        # line 1: the name, the card count, the trick's moves
        cy = y0 + LINE1
        name = self.name(seat, 190, NAME_SIZE)
        draw_text(draw, (32, cy), name, NAME_SIZE, TEAM_COLOR[side], anchor="lm")
        count = sum(parse(frame.hands[seat]))
        if count and not dead:
            x = 32 + font(NAME_SIZE).getlength(name) + 12
            text = t(self.lang, "img.cards", n=count)
            if x + font(MIN_TEXT).getlength(text) < STEP_X - 10:
                draw_text(draw, (x, cy), text, MIN_TEXT, GREY, anchor="lm")
        steps_end = self.steps(seat, cy, box)
        # line 2: the marks, then the cards; the marks go to the end of line 1 when the hand
        # needs the whole line and they fit there
        marks = self.seat_marks(seat)
        marks_w = sum(pill_width(text) + 10 for text, _ in marks)
        hand_x = 34.0 + marks_w
        wide = marks and not _fits(frame.hands[seat], ROW_X1 - 14 - hand_x)
        if wide and steps_end + marks_w <= ROW_X1 - 10:
            x = ROW_X1 - 14 - marks_w + 10
            for text, fill in marks:
                x += pill(draw, x, cy, text, fill, limit=box) + 10
            marks, hand_x = [], 34.0
        cy = y0 + LINE2
        x = 30.0
        for text, fill in marks:
            x += pill(draw, x, cy, text, fill, limit=box) + 10
        self.hand(frame.hands[seat], hand_x, cy, dead)

    def seat_marks(self, seat: int) -> list[tuple[str, Color]]:
        frame, lang = self.frame, self.lang
        marks: list[tuple[str, Color]] = []
        rank = frame.ranks[seat]
        if rank is not None:
            marks.append((t(lang, f"img.rank.{rank}"), rank_fill(rank)))
        status = frame.status[seat]
        if status == Status.FAILED:
            marks.append((t(lang, "img.failed"), FAIL_FILL))
        elif status in (Status.REVOLTED, Status.SMOTHERED):
            marks.append((t(lang, f"img.{status}"), FAULT_FILL))
        if frame.burning == seat:
            marks.append((t(lang, "img.burning"), BURN_FILL))
        if frame.opened[seat]:
            marks.append((t(lang, "img.opened"), OPEN_FILL))
        if seat in self.script.declared and frame.kind == FrameKind.DEAL:
            marks.append((self.cat.text("replay.declared.short"), GREY))
        return marks

    def steps(self, seat: int, cy: float, box: tuple[float, float, float, float]) -> float:
        """The seat's moves in this trick: plays numbered in the trick's order, then 过 / 让;
        where they end."""
        frame, draw = self.frame, self.draw
        x = float(STEP_X)
        order = 0
        last_play = max((k for k, s in enumerate(frame.steps) if s.do == Do.PLAY), default=-1)
        shown: set[str] = set()
        for k, step in enumerate(frame.steps):
            if step.do == Do.PLAY:
                order += 1
            if step.seat != seat:
                continue
            if step.do != Do.PLAY:
                word = self.cat.text("replay.pass" if step.do == Do.PASS else "replay.yield")
                if word not in shown:
                    shown.add(word)
                    x += pill(draw, x, cy, word, GREY, limit=box) + 10
                continue
            stood = k == last_play and frame.winner == seat
            x = self.play_chip(x, cy, order, step.cards, step.burn, stood, box[2] - 10)
        return x

    def play_chip(
        self, x: float, cy: float, order: int, cards: str, burn: bool, stood: bool, right: float
    ) -> float:
        draw = self.draw
        number = str(order)
        d = max(46.0, font(MIN_TEXT).getlength(number) + 18)
        groups = _groups(cards)
        w = _text_width(groups, STEP_SIZE) + 2 * CHIP_PAD + 8
        if x + d + 6 + w > right:  # never seen in real games: say there is more
            draw_text(draw, (x, cy), "…", MIN_TEXT, INK, anchor="lm")
            return right
        draw.rounded_rectangle((x, cy - 23, x + d, cy + 23), 23, fill=NUMBER_FILL)
        draw_text(draw, (x + d / 2, cy), number, MIN_TEXT, WHITE, anchor="mm")
        x += d + 6
        face = BURN_FILL if burn else FACE
        edge = MEDAL[0] if stood else (BURN_FILL if burn else GREY)
        frame = (x, cy - STEP_H / 2, x + w, cy + STEP_H / 2)
        draw.rounded_rectangle(frame, 10, fill=face, outline=edge, width=6 if stood else 2)
        _draw_groups(draw, x + CHIP_PAD + 4, cy, groups, STEP_SIZE, WHITE if burn else None)
        return x + w + 14

    def hand(self, notation: str, x: float, cy: float, dead: bool) -> None:
        """The cards, one chip per rank, side by side."""
        for chip in hand_layout(notation, ROW_X1 - 14 - x):
            image = hand_chip(chip, dead)
            self.canvas.paste(image, (round(x), round(cy - CHIP_H / 2)), image)
            x += chip.width + CHIP_GAP


class HandChip(NamedTuple):
    """The cards of one rank in a hand, as laid out."""

    rank: int
    n: int
    compact: bool  # written ``K×7``
    pad: int  # each side of a card's label in its cell
    width: float


@functools.cache
def hand_chip(chip: HandChip, dead: bool) -> Image.Image:
    """One rank of a hand (RGBA, drawn once): a cell per card, or ``K×7``."""
    im = Image.new("RGBA", (round(chip.width), CHIP_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    face = DEAD_FACE if dead else _face(chip.rank)
    draw.rounded_rectangle((0, 0, im.width - 1, CHIP_H - 1), 7, fill=face, outline=GREY, width=2)
    ink = GREY if dead else _ink(chip.rank)
    if chip.compact:
        text = f"{rank_label(chip.rank)}×{chip.n}"
        draw_text(draw, (im.width / 2, CHIP_H / 2), text, MIN_TEXT, ink, anchor="mm")
    else:
        _draw_groups(draw, 0, CHIP_H / 2, [(chip.rank, chip.n)], MIN_TEXT, ink, chip.pad)
    return im


def hand_layout(notation: str, room: float) -> list[HandChip]:
    """How a hand is laid out in ``room`` px, strongest rank first. Every card is a cell; when
    they would not all fit, the largest groups are written ``K×7`` instead, largest first, until
    the hand fits; then, if it must, the cells are narrowed too. Every card is always there,
    written or counted."""
    groups = _groups(notation)
    chips: list[HandChip] = []
    for pad in (CELL_PAD, 1):
        chips = [
            HandChip(r, n, False, pad, _text_width([(r, n)], MIN_TEXT, pad)) for r, n in groups
        ]
        total = sum(c.width for c in chips) + CHIP_GAP * max(len(chips) - 1, 0)
        for i in sorted(range(len(chips)), key=lambda i: (-chips[i].n, i)):
            if total <= room or chips[i].n < 3:
                break
            r, n, _, _, old = chips[i]
            chips[i] = HandChip(r, n, True, pad, _compact_width((r, n), MIN_TEXT, pad))
            total -= old - chips[i].width
        if total <= room:
            break
    return chips


def _fits(notation: str, room: float) -> bool:
    """Whether the hand fits ``room`` with every card in its own cell."""
    return all(not chip.compact and chip.pad == CELL_PAD for chip in hand_layout(notation, room))


def _groups(notation: str) -> list[tuple[int, int]]:
    """(rank, count) strongest first."""
    counts = parse(notation)
    return [(r, counts[r]) for r in range(NRANKS - 1, -1, -1) if counts[r]]


def _face(rank: int) -> Color:
    return (
        BIG_FACE
        if rank == BIG
        else SMALL_FACE
        if rank == SMALL
        else (MONEY_FACE if rank == TWO else FACE)
    )


def _ink(rank: int) -> Color:
    return RED if rank == BIG else MONEY_INK if rank == TWO else BLACK


def _text_width(groups: Sequence[tuple[int, int]], size: int, pad: int = CELL_PAD) -> float:
    f = font(size)
    total = sum(n * (f.getlength(rank_label(rank)) + 2 * pad) for rank, n in groups)
    return total + GROUP_GAP * max(len(groups) - 1, 0)


def _compact_width(group: tuple[int, int], size: int, pad: int = CELL_PAD) -> float:
    rank, n = group
    return font(size).getlength(f"{rank_label(rank)}×{n}") + 2 * pad


def _draw_groups(
    draw: ImageDraw.ImageDraw,
    x: float,
    cy: float,
    groups: Sequence[tuple[int, int]],
    size: int,
    ink: Color | None,
    pad: int = CELL_PAD,
) -> None:
    """Cards as their labels (大, 小, 2, A … 10 … 3), each in its own cell with a thin line
    between two cards of a group (so ``10 10`` never reads ``1010``), groups further apart."""
    f = font(size)
    half = size * 0.42
    for i, (rank, n) in enumerate(groups):
        if i:
            x += GROUP_GAP
        label = rank_label(rank)
        cell = f.getlength(label) + 2 * pad
        for k in range(n):
            if k:
                draw.line((x, cy - half, x, cy + half), fill=CELL_LINE, width=2)
            draw_text(draw, (x + cell / 2, cy), label, size, ink or _ink(rank), anchor="mm")
            x += cell


def replay_canvas(script: ReplayScript, index: int) -> Image.Image:
    """Frame ``index`` of ``script`` (0 = the deal, the last = the end), RGB, 1200 × 1000."""
    painter = _Painter(script, index)
    painter.header()
    painter.rows()
    return painter.canvas

"""A finished game replayed for the group, trick by trick with every hand open: the pictures
to step through and the animation, with their captions. What the bot calls (in a worker
process, off the event loop: a whole game takes a few seconds)::

    script = replay_frames(record_json, names, lang)  # ValueError: not a game record
    frame_count(script)                               # the deal + each trick + the end
    render_replay_frame(script, k)                    # PNG of frame k (0 = the deal)
    frame_caption(script, k)                          # its caption (Telegram HTML)
    render_replay_animation(record_json, names, lang) # GIF for sendAnimation
    replay_caption(script)                            # the animation's caption

The script is :mod:`renderers.replay_script`, a frame's drawing :mod:`renderers.replay_image`.
Every picture is mapped to one fixed palette (:func:`replay_palette`), so the PNGs are small,
the GIF's frames share one colour table and the same input always gives the same bytes.
"""

from __future__ import annotations

import functools
import io
import json
import random
from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.deal import deal_hands
from engine.game import Game
from engine.playout import play_out
from engine.ranking import chuan_team, score
from engine.rules import STANDARD

from .fonts import draw_text
from .hand_image import BIG_FACE, BLACK, FACE, MONEY_FACE, RED, SMALL_FACE
from .i18n import Catalog
from .replay_image import (
    DEAD_FACE,
    DEAD_TINT,
    FOUR_WAY_FILL,
    LIGHT,
    MEN_FILL,
    MONEY_INK,
    NUMBER_FILL,
    TRIBUTE_FILL,
    replay_canvas,
)
from .replay_script import (
    MARKED,
    BadRecord,
    Frame,
    FrameKind,
    Mark,
    ReplayScript,
    Step,
    frame_count,
    replay_frames,
)
from .table_image import (
    BURN_FILL,
    FAIL_FILL,
    FAULT_FILL,
    FELT,
    GREY,
    INK,
    MEDAL,
    MIN_TEXT,
    OPEN_FILL,
    RANK_FILL,
    TEAM_COLOR,
    TEAM_TINT,
    WHITE,
    WIDTH,
)
from .terms import rank_name, seat_name

__all__ = [
    "MARKED",
    "BadRecord",
    "Frame",
    "FrameKind",
    "Mark",
    "ReplayScript",
    "Step",
    "frame_caption",
    "frame_count",
    "frame_durations",
    "render_replay_animation",
    "render_replay_frame",
    "replay_caption",
    "replay_frames",
    "replay_palette",
]

DEAL_MS = 2500  # the deal: long enough to find one's own hand
TRICK_MS = 1400
EVENTFUL_MS = 2200  # a trick with a burn, a 闷, a 开点 or a player going out
END_MS = 6000


def render_replay_frame(script: ReplayScript, index: int) -> bytes:
    """Frame ``index`` (0 = the deal, ``frame_count(script) - 1`` = the end) as a PNG,
    1200 × 1000 px like the table picture."""
    out = _quantize(replay_canvas(script, index))
    buf = io.BytesIO()
    out.save(buf, "PNG", compress_level=6)
    return buf.getvalue()


def frame_durations(script: ReplayScript) -> list[int]:
    """How long the animation shows each frame, in milliseconds."""
    durations = []
    for frame in script.frames:
        if frame.kind == FrameKind.DEAL:
            durations.append(DEAL_MS)
        elif frame.kind == FrameKind.END:
            durations.append(END_MS)
        else:
            durations.append(EVENTFUL_MS if frame.marks else TRICK_MS)
    return durations


def render_replay_animation(record_json: str | bytes, names: Sequence[str], lang: str) -> bytes:
    """The whole game as a looping GIF (Telegram's sendAnimation): the deal, every trick, the
    end held longest. ``ValueError`` for text that is no game record."""
    script = replay_frames(record_json, names, lang)
    return encode_gif(script)


def encode_gif(script: ReplayScript) -> bytes:
    """The script's frames as one GIF in the fixed palette (one colour table). Pillow's
    ``optimize`` writes each frame as its change from the one before, unchanged pixels
    transparent: 0.4 the bytes of whole frames (``python -m renderers replay-bench``)."""
    frames = [_quantize(replay_canvas(script, k)) for k in range(frame_count(script))]
    buf = io.BytesIO()
    frames[0].save(
        buf,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=frame_durations(script),
        loop=0,
        disposal=1,  # each frame is drawn over the one before
        optimize=True,
    )
    return buf.getvalue()


def _quantize(canvas: Image.Image) -> Image.Image:
    return canvas.quantize(palette=replay_palette(), dither=Image.Dither.NONE)


SWATCH_TEXT = "第3轮 大小2 AKQJ 10 9 烧 闷 开点 头科 Trick 12"


@functools.cache
def replay_palette() -> Image.Image:
    """128 colours fitted, once, to what the frames show: three frames of a seeded game and a
    swatch of every fill with each ink on it (so that a colour the samples lack still has its
    own entry)."""
    fills = [FELT, *TEAM_COLOR, *TEAM_TINT, DEAD_TINT, DEAD_FACE, FACE, MONEY_FACE, BIG_FACE]
    fills += [SMALL_FACE, GREY, *MEDAL, RANK_FILL, OPEN_FILL, FAULT_FILL, FAIL_FILL, BURN_FILL]
    fills += [FOUR_WAY_FILL, NUMBER_FILL, MEN_FILL, TRIBUTE_FILL]
    inks = (WHITE, INK, RED, BLACK, MONEY_INK, LIGHT, GREY, *TEAM_COLOR)
    swatch = Image.new("RGB", (WIDTH, 60 * len(fills)), FELT)
    draw = ImageDraw.Draw(swatch)
    for i, fill in enumerate(fills):
        draw.rectangle((0, i * 60, WIDTH, i * 60 + 59), fill=fill)
        for k, ink in enumerate(inks):
            draw_text(draw, (10 + k * 300 % WIDTH, i * 60 + 30), "烧闷 10 K", MIN_TEXT, ink, "lm")
    script = _sample_script()
    parts = [replay_canvas(script, k) for k in (0, len(script.frames) // 2, -1)]
    parts.append(swatch)
    sheet = Image.new("RGB", (WIDTH, sum(p.height for p in parts)), FELT)
    y = 0
    for part in parts:
        sheet.paste(part, (0, y))
        y += part.height
    return sheet.quantize(128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


PALETTE_SEED = 3


def _sample_script() -> ReplayScript:
    rng = random.Random(PALETTE_SEED)
    game = Game(STANDARD, deal_hands(rng), 0)
    play_out(game, rng)
    record = game.record().to_json()
    return replay_frames(json.dumps(record), ("老王", "小李", "张姐", "阿强", "王叔", "小美"), "zh")


def frame_caption(script: ReplayScript, index: int) -> str:
    """A caption for frame ``index`` (Telegram HTML): the deal, the end, or which trick of how
    many (counted as the animation's caption and the picture count them) and its winner — or
    the burner who failed (诈烧) there."""
    frame = script.frames[index]
    cat = Catalog.load(script.lang)
    if frame.kind == FrameKind.DEAL:
        return cat.text(
            "replay.caption.deal", name=seat_name(script.leader, script.names, script.lang)
        )
    if frame.kind == FrameKind.END:
        return replay_caption(script)
    total = script.tricks
    if frame.winner is None:
        return cat.text("replay.caption.open", n=frame.number, total=total)
    key = "replay.caption.failed" if frame.failed is not None else "replay.caption.trick"
    name = seat_name(frame.winner, script.names, script.lang)
    return cat.text(key, n=frame.number, total=total, name=name)


def replay_caption(script: ReplayScript) -> str:
    """The animation's caption (Telegram HTML): the tricks, the ranks, 串三户 and the score."""
    cat = Catalog.load(script.lang)
    names, lang = script.names, script.lang
    lines = [cat.text("replay.caption.title", tricks=script.tricks)]
    ranks = script.frames[-1].ranks
    by_rank = sorted((r, s) for s, r in enumerate(ranks) if r is not None)
    if by_rank:
        sep = cat.text("replay.caption.sep")
        lines.append(
            sep.join(
                cat.text(
                    "replay.caption.rank", rank=rank_name(r, lang), name=seat_name(s, names, lang)
                )
                for r, s in by_rank
            )
        )
    if not script.over:
        lines.append(cat.text("replay.caption.unfinished"))
        return "\n".join(lines)
    sweep = chuan_team(ranks)
    a, b = score(ranks)
    if sweep is not None:
        lines.append(cat.text("replay.caption.chuan", team=_team(sweep, names, lang)))
    elif a != b:
        side = 0 if a > b else 1
        lines.append(
            cat.text("replay.caption.score", team=_team(side, names, lang), score=abs(a - b))
        )
    return "\n".join(lines)


def _team(side: int, names: Sequence[str], lang: str) -> str:
    return (
        Catalog.load(lang)
        .text("replay.caption.team_sep")
        .join(seat_name(s, names, lang) for s in range(side, 6, 2))
    )


# In a worker of the heavy lane (bot.lanes): a stored game's replay, from its record.
def replay_frame(record: str, names: Sequence[str], lang: str, index: int) -> bytes:
    """In a worker: frame ``index`` of a game's replay (PNG)."""
    return render_replay_frame(replay_frames(record, names, lang), index)


def replay_step(record: str, names: Sequence[str], lang: str, index: int) -> tuple[str, int]:
    """In a worker: the caption of frame ``index`` ("" when the game has no such frame) and
    the number of frames."""
    script = replay_frames(record, names, lang)
    count = frame_count(script)
    return (frame_caption(script, index) if index < count else ""), count


def animation_caption(record: str, names: Sequence[str], lang: str) -> str:
    return replay_caption(replay_frames(record, names, lang))

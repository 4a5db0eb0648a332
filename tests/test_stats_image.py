"""The /stats card and the /top leaderboard (renderers/stats_image.py) and their captions
(renderers/stats_text.py): PNGs of the right size, the same bytes for the same input, every
text readable at phone width (390 px, ≥ 11 px) and inside its box, in both languages."""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import pytest
from PIL import Image

from engine.stats import Badge, Order, PlayerStats, SeatFacts, leaderboard
from renderers.fonts import recording
from renderers.i18n import LANGS
from renderers.stats_image import render_stats, render_top
from renderers.stats_text import badge_text, stats_caption, top_caption
from renderers.table_image import WIDTH

PHONE_W, MIN_PX = 390, 11
NAMES = ("老王", "Alice", "小李", "Wang Dawei the Third", "李" * 20, "<b>Eve</b>", "🙂", "Bob")


def player(seed: int, n: int) -> PlayerStats:
    rng = random.Random(seed)
    return PlayerStats.of(
        SeatFacts(
            0,
            rng.randint(1, 6),
            rng.choice([12, 6, 4, 2, 0, -2, -4, -6, -12]),
            opened=rng.random() < 0.4,
            open_point=True,
            burns=int(rng.random() < 0.2),
            men_given=int(rng.random() < 0.1),
        )
        for _ in range(n)
    )


def check(render: Callable[[], bytes]) -> Image.Image:
    with recording() as log:
        data = render()
    assert data == render()  # deterministic
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.width == WIDTH and image.height > 300
    assert image.convert("RGB").getextrema() != ((0, 0), (0, 0), (0, 0))
    assert log and min(d.px for d in log) * PHONE_W / image.width >= MIN_PX
    for d in log:
        if d.limit is not None:
            (x0, y0, x1, y1), (lx0, ly0, lx1, ly1) = d.box, d.limit
            assert lx0 <= x0 and x1 <= lx1 and ly0 <= y0 and y1 <= ly1, d
    return image


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["老王", "Wang Dawei the Third", "🙂"])
def test_stats_card(lang: str, name: str) -> None:
    every = [str(b) for b in Badge]
    full = check(lambda: render_stats(name, player(1, 137), every, lang, key="u42"))
    bare = check(lambda: render_stats(name, PlayerStats.of([]), (), lang))
    assert full.height > bare.height  # the badges take rows
    assert render_stats(name, player(1, 137), every, lang) != render_stats(
        name, player(2, 137), every, lang
    )


@pytest.mark.parametrize("lang", LANGS)
def test_leaderboard_picture(lang: str) -> None:
    stats = {f"u{i}": player(i, 5 + 7 * i) for i in range(len(NAMES))}
    names = {f"u{i}": n for i, n in enumerate(NAMES)}
    by_points, by_rank = leaderboard(stats, Order.POINTS), leaderboard(stats, Order.AVG_RANK)
    assert by_points and by_rank
    full = check(lambda: render_top(by_points, by_rank, names, lang))
    empty = check(lambda: render_top([], [], {}, lang, min_games=10))
    assert full.height > empty.height


def test_captions() -> None:
    s = PlayerStats.of([SeatFacts(0, 1, 6), SeatFacts(0, 6, -4)])
    zh = stats_caption("<b>老王</b>", s, "zh")
    assert zh.startswith("<b>&lt;b&gt;老王&lt;/b&gt;</b>") and "2局" in zh and "+2" in zh
    assert "50%" in stats_caption("Bob", s, "en")
    assert "还没有" in stats_caption("Bob", PlayerStats.of([]), "zh")
    assert "10" in top_caption("en", 10) and top_caption("zh", empty=True) != top_caption("zh")
    for lang in LANGS:
        for b in Badge:
            line = badge_text("Eve & Co", b, lang)
            assert "Eve &amp; Co" in line and "{" not in line

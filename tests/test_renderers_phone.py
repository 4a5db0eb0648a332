"""Every image is readable on a phone: Telegram shows a photo about 390 px wide, and there the
smallest text must be at least 11 px high.

How it is measured: every text of every image is drawn through ``renderers.fonts.draw_text``,
which records its font size in pixels of the finished image (a supersampled card tile's size
divided by its reduction). A font's size is the height of its em box, the height of a CJK glyph.
Scaling the image to 390 px wide scales every text by ``390 / width``, so the smallest text there is
``min(size) × 390 / width``. Pills (labels on a rounded box) also record their box and the box
they must stay inside (a panel, a row), so no label overflows, in either language.
"""

from __future__ import annotations

import dataclasses
import functools
import io
from collections.abc import Callable, Iterator

import pytest
from PIL import Image

from engine.view import Debt, TopView
from engine.vocab import Phase, Status, TributeKind
from renderers import hand_image, render_game_over, render_hand, render_table
from renderers.fonts import Drawn, recording
from renderers.i18n import LANGS, t
from renderers.samples import SAMPLE_HAND, sample_over, sample_view

PHONE_W = 390
MIN_PX = 11
NAMES = ("老王", "Alice", "小李", "Bob", "张三丰", "Eve")
LONG = ("Wang Dawei the Third", "Alice Longname", "李" * 20, "Bob", "Zhang", "<b>Eve</b>")


@pytest.fixture(autouse=True)
def fresh_tiles() -> Iterator[None]:
    """Card tiles and badges are cached: draw them afresh so that their text is recorded."""
    caches = (hand_image.card_tile, hand_image.badge, hand_image._palette)
    for cached in caches:
        cached.cache_clear()
    yield
    for cached in caches:
        cached.cache_clear()


def drawn(render: Callable[[], bytes]) -> tuple[list[Drawn], int]:
    with recording() as log:
        data = render()
    return log, Image.open(io.BytesIO(data)).width


def smallest_on_phone(log: list[Drawn], width: int) -> float:
    return min(d.px for d in log) * min(1.0, PHONE_W / width)


def assert_readable(render: Callable[[], bytes]) -> list[Drawn]:
    log, width = drawn(render)
    assert log, "nothing recorded: text drawn around fonts.draw_text?"
    small = min(log, key=lambda d: d.px)
    assert smallest_on_phone(log, width) >= MIN_PX, (small.text, small.px, width)
    for d in log:
        if d.limit is not None:
            x0, y0, x1, y1 = d.box
            lx0, ly0, lx1, ly1 = d.limit
            assert lx0 <= x0 and x1 <= lx1 and ly0 <= y0 and y1 <= ly1, (d.text, d.box, d.limit)
    return log


HANDS = (
    SAMPLE_HAND,
    "BBBBSSSS2222222AAAKKKKQQJJJJJT999888777666555444333",  # 51 cards after tribute
    "TTTTTTT",  # a fan of 10s: the corner index shows whole
    "3",
    "BS2",
)


@pytest.mark.parametrize("hand", HANDS)
def test_hand_readable(hand: str) -> None:
    log = assert_readable(lambda: render_hand(hand, hand[:2]))
    texts = {d.text for d in log}
    assert any(text.startswith(("×", "2/")) for text in texts) or len(hand) <= 2


def _views() -> dict[str, object]:
    base = sample_view()
    return {
        "sample": base,
        "four_way": dataclasses.replace(
            base, phase=Phase.FOUR_WAY, headless=(True,) * 6, passed=(0, 1, 2, 5)
        ),
        "lead": dataclasses.replace(base, top=None),
        "statuses": dataclasses.replace(
            base,
            status=(
                Status.ACTIVE,
                Status.REVOLTED,
                Status.ACTIVE,
                Status.SMOTHERED,
                Status.FAILED,
                Status.FINISHED,
            ),
            ranks=(None, 4, None, 5, 6, 1),
            opened=(True,) * 6,
            headless=(True, False, True, False, True, False),
            passed=(0, 2),
            to_act=0,
            burning=0,
            top=TopView(0, "BBKKKKKKKKKKKKKKKK", True, True),
        ),
    }


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", list(_views()))
@pytest.mark.parametrize("names", [NAMES, LONG], ids=["names", "long_names"])
def test_table_readable(lang: str, case: str, names: tuple[str, ...]) -> None:
    view = _views()[case]
    assert_readable(lambda: render_table(view, names, lang))  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", LANGS)
def test_table_keeps_its_labels(lang: str) -> None:
    """Larger labels, and none dropped for lack of room on the sample table."""
    texts = {d.text for d in assert_readable(lambda: render_table(sample_view(), NAMES, lang))}
    for key in ("img.to_act", "img.rank.1", "img.opened", "img.burning", "img.passed"):
        assert t(lang, key) in texts, key
    assert "img.facing" not in texts and t(lang, "img.cards", n=14) in texts
    log, _ = drawn(lambda: render_table(_views()["statuses"], LONG, lang))  # type: ignore[arg-type]
    texts_list = [d.text for d in log]
    for key in ("img.smothered", "img.failed", "img.revolted", "img.rank.1", "img.rank.6"):
        assert t(lang, key) in texts_list, key
    assert texts_list.count(t(lang, "img.opened")) == 6
    four_way = dataclasses.replace(sample_view(), phase=Phase.FOUR_WAY, headless=(True,) * 6)
    texts = {d.text for d in drawn(lambda: render_table(four_way, NAMES, lang))[0]}
    assert t(lang, "img.headless") not in texts and t(lang, "img.four_way") in texts


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("names", [NAMES, LONG], ids=["names", "long_names"])
def test_game_over_readable(lang: str, names: tuple[str, ...]) -> None:
    over = sample_over()
    many = tuple(Debt(s, (s + 3) % 6, TributeKind.DIAN, 2) for s in range(6)) + over.tributes
    worst = dataclasses.replace(
        over,
        tributes=many,
        opened=(True,) * 6,
        status=(
            Status.FINISHED,
            Status.FINISHED,
            Status.FINISHED,
            Status.SMOTHERED,
            Status.REVOLTED,
            Status.FAILED,
        ),
    )
    for view in (over, worst, dataclasses.replace(over, tributes=())):
        log = assert_readable(functools.partial(render_game_over, view, names, lang, (20, 8)))
        texts = {d.text for d in log}
        if view is worst:  # every mark drawn, none dropped
            for key in ("img.opened", "img.smothered", "img.failed", "img.revolted"):
                assert t(lang, key) in texts, key


def test_game_over_names_the_tribute_payers() -> None:
    over = sample_over()
    log, _ = drawn(lambda: render_game_over(over, NAMES, "zh"))
    texts = [d.text for d in log]
    for debt in over.tributes:
        assert NAMES[debt.src] in texts and NAMES[debt.dst] in texts
    assert not any(text.isdigit() and len(text) == 1 for text in texts)  # no seat numbers


def test_measure_catches_small_text() -> None:
    """The check itself: a table drawn as it was (22 px labels in 1200 px) fails it."""
    assert 22 * PHONE_W / 1200 < MIN_PX
    log = [Drawn("过", 22, (0, 0, 10, 10))]
    assert smallest_on_phone(log, 1200) < MIN_PX

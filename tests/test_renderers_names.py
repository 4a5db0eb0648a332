"""Players' names are drawn whole: 200 real-world nicknames (tests/nicknames.txt: family terms,
rare surnames, traditional characters, mixed scripts, Latin with diacritics, Vietnamese,
Cyrillic, Greek, kana, hangul, emoji sequences, fullwidth forms) each have every character drawn
from a shipped face that holds it, checked through the code the renderers draw with
(:func:`renderers.fonts.drawable`, :func:`renderers.fonts.runs`), and the table and game-over
pictures are rendered with all of them."""

from __future__ import annotations

import io
import unicodedata
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from renderers import render_game_over, render_table
from renderers.fonts import (
    EMOJI,
    FACES,
    MISSING,
    clusters,
    draw_text,
    drawable,
    face_chars,
    fit,
    runs,
    text_width,
)
from renderers.samples import sample_over, sample_view
from renderers.table_image import player_label

NICKNAMES = tuple(
    line
    for line in (Path(__file__).parent / "nicknames.txt").read_text(encoding="utf-8").splitlines()
    if line and not line.startswith("#")
)


def test_the_list_holds_200_names() -> None:
    assert len(NICKNAMES) == 200 and len(set(NICKNAMES)) == 200


def _undrawn(name: str) -> list[str]:
    """The clusters of ``name`` that would be drawn missing: no face, or a face lacking one of
    its characters (a text face must hold every character it draws; the emoji face the base of
    each sequence, its GSUB joining the rest)."""
    text = drawable(name)
    bad = [MISSING] if MISSING in text else []
    for run in runs(text):
        if run.face is None:
            bad.append(run.text)
            continue
        for cluster in clusters(run.text):
            need = cluster[:1] if run.face.emoji else cluster
            if any(c not in face_chars(run.face) for c in need):
                bad.append(cluster)
    return bad


@pytest.mark.parametrize("name", NICKNAMES)
def test_every_character_is_drawn(name: str) -> None:
    assert not _undrawn(name), (name, _undrawn(name))
    # nothing visible is dropped: as many clusters drawn as the name has (VS16 and joiners
    # belong to their emoji; 𝓜 is drawn as M)
    visible = [c for c in clusters(unicodedata.normalize("NFC", name)) if c.strip()]
    assert len([c for c in clusters(drawable(name)) if c.strip()]) == len(visible), name


def test_names_reach_the_pictures_whole() -> None:
    for name in NICKNAMES:
        label = player_label(0, (name,), "zh", 40, 2000)
        assert label == drawable(name) and MISSING not in label, name


@pytest.mark.parametrize("start", range(0, 200, 6))
def test_table_and_game_over_draw_every_name(start: int) -> None:
    names = (NICKNAMES[start : start + 6] + NICKNAMES[:6])[:6]
    for data in (render_table(sample_view(), names), render_game_over(sample_over(), names)):
        im = Image.open(io.BytesIO(data))
        im.load()
        assert im.width == 1200


def test_mixed_scripts_use_several_faces() -> None:
    faces = {run.face for run in runs(drawable("Jürgen李🐼 Łukasz"))}
    assert EMOJI in faces and FACES[0] in faces and FACES[1] in faces
    # a word of an alphabet comes from one face: Νίκος's ί is not in the CJK face
    assert [run.face for run in runs("Νίκος")] == [FACES[1]]


def test_emoji_sequences_are_one_cluster() -> None:
    family = "👨\u200d👩\u200d👧\u200d👦"
    assert clusters(family + "家") == [family, "家"]
    assert clusters("🇨🇳🇯🇵") == ["🇨🇳", "🇯🇵"]
    assert clusters("👍🏽好") == ["👍🏽", "好"]
    # one glyph each: a family is as wide as one emoji, not four
    assert text_width(family, 40) == pytest.approx(text_width("🐼", 40), rel=0.05)


def test_fit_never_cuts_a_cluster_and_fits() -> None:
    name = drawable("👨\u200d👩\u200d👧\u200d👦 Nguyễn Thị Hường 李🐼🇨🇳 Алёна Νίκος")
    whole = clusters(name)
    for width in range(40, 700, 23):
        short = fit(name, 40, width)
        assert text_width(short, 40) <= width or short == "…", (short, width)
        kept = clusters(short.removesuffix("…"))
        assert kept == whole[: len(kept)] or kept[:-1] == whole[: len(kept) - 1], short


def _ink_rows(im: Image.Image, x0: int, x1: int) -> tuple[int, int]:
    """The top and bottom rows with ink (not the background) between columns x0 and x1."""
    rows = [
        y for y in range(im.height) if any(im.getpixel((x, y)) != (0, 0, 0) for x in range(x0, x1))
    ]
    return rows[0], rows[-1]


def test_emoji_sit_on_the_text_baseline() -> None:
    im = Image.new("RGB", (200, 100), (0, 0, 0))
    draw_text(ImageDraw.Draw(im), (10, 50), "李🐼", 40, (255, 255, 255), anchor="lm")
    split = 10 + round(text_width("李", 40))
    han, emoji = _ink_rows(im, 10, split), _ink_rows(im, split, 199)
    # the panda is drawn, in colour, centred on the ideograph's height within 4 px
    colours = {im.getpixel((x, y)) for x in range(split, 199) for y in range(100)}
    assert len(colours) > 8
    assert abs((han[0] + han[1]) / 2 - (emoji[0] + emoji[1]) / 2) <= 4, (han, emoji)
    assert emoji[1] - emoji[0] <= 44


def test_a_script_no_face_holds_is_marked() -> None:
    assert drawable("مرحبا") == MISSING  # Arabic: not shipped, shown as one "?"
    assert drawable("𝐀𝐥𝐢𝐜𝐞") == "Alice"  # a styled letter no face holds: its plain form
    assert drawable("a\u200d\ufe0fb") == "ab"  # stray joiners dropped


@pytest.mark.parametrize("name", ["꧁小仙女꧂", "ღ小雨", "ᥫᩣ小猫", "꧁༺小龙༻꧂", "ღ❀ 雨ᥫᩣ"])
def test_nickname_decorations_are_drawn(name: str) -> None:
    """Javanese, Georgian, Tai Le and Tai Tham letters that decorate nicknames on Chinese
    phones are drawn, each from its script's face (a Tai Tham vowel after a Tai Le letter on
    its own), never as ``?``."""
    assert drawable(name) == name and not _undrawn(name), (name, _undrawn(name))
    keys = {run.face.key for run in runs(name) if run.face is not None}
    assert keys & {"javanese", "georgian", "tai_le", "tai_tham"}

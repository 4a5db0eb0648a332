"""The replay of a finished game (renderers/replay.py): one frame for the deal, one per trick, one
for the end; every card of the deal accounted for; burns and 闷 on the frames where the engine
announced them; frames readable on a phone; the animation decodes to the same frames; the same
input always gives the same bytes."""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine.cards import parse
from engine.deal import deal_hands
from engine.game import Game
from engine.playout import play_out
from engine.record import replay_text
from engine.rules import STANDARD
from engine.vocab import Do
from renderers import replay_image
from renderers.fonts import covered, recording
from renderers.i18n import CATALOG_DIR, LANGS
from renderers.replay import (
    MARKED,
    FrameKind,
    ReplayScript,
    encode_gif,
    frame_caption,
    frame_count,
    frame_durations,
    render_replay_animation,
    render_replay_frame,
    replay_caption,
    replay_frames,
)
from renderers.replay_image import CHIP_GAP, ROW_X1, hand_layout

RECORDS = Path(__file__).parent / "records"
CASES = sorted(p.stem for p in RECORDS.glob("*.json") if not p.stem.endswith(".out"))
NAMES = ("老王", "Alice", "小李", "Bob", "张三丰", "<b>Eve</b>")
PHONE_W, MIN_PX = 390, 11


def example(name: str) -> str:
    return (RECORDS / f"{name}.json").read_text(encoding="utf-8")


def random_record(seed: int) -> str:
    """A whole seeded random game under the standard rules, as record JSON."""
    rng = random.Random(seed)
    game = Game(STANDARD, deal_hands(rng), rng.randrange(6))
    play_out(game, rng)
    return json.dumps(game.record().to_json())


def expected_frames(events: list[dict[str, Any]]) -> tuple[int, Counter[tuple[int, str, Any]]]:
    """From the referee's events alone: how many tricks, and on which frame each marked event
    belongs (frame 0 is the deal, trick k is frame k). RECORDS.md's order of events: what comes
    with a play belongs to the trick in progress, what follows a trick_won (开点, 接风, 诈烧…) to
    the trick it closed."""
    won = 0
    marks: Counter[tuple[int, str, Any]] = Counter()
    open_trick = False
    for ev in events:
        if ev["type"] == "play":
            open_trick = True
        if ev["type"] in {str(t) for t in MARKED}:
            frame = won + 1 if open_trick else won
            marks[(frame, ev["type"], ev["seat"])] += 1
        if ev["type"] == "trick_won":
            won += 1
            open_trick = False
    return won + int(open_trick), marks


def script_marks(script: ReplayScript) -> Counter[tuple[int, str, Any]]:
    return Counter(
        (k, str(m.type), m.seat) for k, frame in enumerate(script.frames) for m in frame.marks
    )


def check_script(record_json: str, script: ReplayScript) -> None:
    out, _ = replay_text(record_json)
    events = out["events"]
    tricks, marks = expected_frames(events)
    # the deal, each trick, the end
    assert frame_count(script) == tricks + 2 == script.tricks + 2
    assert script.frames[0].kind == FrameKind.DEAL and script.frames[-1].kind == FrameKind.END
    assert all(f.kind == FrameKind.TRICK for f in script.frames[1:-1])
    # burns, 闷, 开点, ranks… on the frames where the engine announced them
    assert script_marks(script) == marks
    # the plays of the frames are the engine's plays, in order
    plays = [(s.seat, s.cards) for f in script.frames for s in f.steps if s.do == Do.PLAY]
    assert plays == [(e["seat"], e["cards"]) for e in events if e["type"] == "play"]
    # every card of the deal: in a hand or played, seat by seat, on every frame
    played = [Counter[int]() for _ in range(6)]
    for frame in script.frames:
        for step in frame.steps:
            played[step.seat].update(dict(enumerate(parse(step.cards))))
        for seat in range(6):
            held = Counter(dict(enumerate(parse(frame.hands[seat]))))
            dealt = Counter(dict(enumerate(parse(script.dealt[seat]))))
            assert held + played[seat] == dealt, (frame.number, seat)
    assert list(script.frames[-1].ranks) == out["result"]["ranks"]
    assert script.over == out["result"]["over"]


@pytest.mark.parametrize("name", CASES)
def test_example_records(name: str) -> None:
    script = replay_frames(example(name), NAMES, "zh")
    check_script(example(name), script)
    expected = json.loads((RECORDS / f"{name}.out.json").read_text(encoding="utf-8"))
    assert script.refused == (expected["error"]["index"] if not expected["ok"] else None)


def test_example_burn_and_smother_frames() -> None:
    burn = replay_frames(example("burn"), NAMES, "zh")
    first = burn.frames[1]  # seat 2's QQQ burned by seat 1's AAA in the first trick
    assert [(str(m.type), m.seat, m.other) for m in first.marks] == [("burn", 1, 2)]
    assert [(s.seat, s.cards, s.burn) for s in first.steps if s.do == Do.PLAY] == [
        (2, "QQQ", False),
        (1, "AAA", True),
    ]
    assert first.winner == 1 and first.burning == 1
    last = burn.frames[-2]
    assert ("burn_success", 1, 2) in [(str(m.type), m.seat, m.other) for m in last.marks]
    assert all(s.burn for s in last.steps if s.do == Do.PLAY)
    smothered = replay_frames(example("smothered"), NAMES, "zh")
    trick = smothered.frames[1]  # seat 1's JJ would leave only 3s; seat 2's QQ beats it
    assert [(str(m.type), m.seat, m.other, m.rank) for m in trick.marks] == [
        ("smothered", 1, 2, None),
        ("finished", 1, None, 6),
    ]
    assert trick.status[1] == "smothered" and trick.ranks[1] == 6 and trick.hands[1] == "33"
    assert smothered.frames[0].status[1] == "active"


@pytest.mark.parametrize("seed", [3, 8])
def test_seeded_random_game(seed: int) -> None:
    record = random_record(seed)
    script = replay_frames(record, NAMES, "zh")
    check_script(record, script)
    assert script.over and sorted(script.frames[-1].ranks) == [1, 2, 3, 4, 5, 6]  # type: ignore[type-var]
    winners = [f.winner for f in script.frames[1:-1]]
    assert all(w is not None for w in winners[:-1])  # every trick but the last is won


def test_a_record_that_is_no_game_is_refused() -> None:
    with pytest.raises(ValueError):
        replay_frames('{"hands": []}', NAMES, "zh")
    with pytest.raises(ValueError):
        replay_frames(b"\xff", NAMES, "zh")


@pytest.fixture
def fresh_chips() -> Iterator[None]:
    """Hand chips are cached: draw them afresh so that their text is recorded."""
    replay_image.hand_chip.cache_clear()
    yield
    replay_image.hand_chip.cache_clear()


@pytest.mark.parametrize("lang", LANGS)
def test_frames_readable_on_a_phone(lang: str, fresh_chips: None) -> None:
    record = random_record(3)
    long_names = ("Wang Dawei the Third", "Alice Longname", "李" * 20, "Bob", "Zhang", "<b>Eve</b>")
    script = replay_frames(record, long_names, lang)
    for k in range(frame_count(script)):
        with recording() as log:
            data = render_replay_frame(script, k)
        image = Image.open(io.BytesIO(data))
        assert image.size == (1200, 1000)
        smallest = min(d.px for d in log) * PHONE_W / image.width
        assert smallest >= MIN_PX, (k, min(log, key=lambda d: d.px))
        for d in log:
            if d.limit is not None:
                x0, y0, x1, y1 = d.box
                lx0, ly0, lx1, ly1 = d.limit
                assert lx0 <= x0 and x1 <= lx1 and ly0 <= y0 and y1 <= ly1, (k, d.text)


def test_every_dealt_hand_fits_its_line_with_every_card() -> None:
    room = ROW_X1 - 14 - 34  # the whole line (marks move to line 1 when the hand needs it)
    for seed in range(40):
        for hand in deal_hands(random.Random(seed)):
            notation = "".join(c * n for c, n in zip("3456789TJQKA2SB", hand, strict=True))
            layout = hand_layout(notation, room)
            assert sum(chip.n for chip in layout) == 36
            assert sum(chip.width for chip in layout) + CHIP_GAP * (len(layout) - 1) <= room


def test_animation_decodes_to_the_frames() -> None:
    record = random_record(8)
    script = replay_frames(record, NAMES, "zh")
    gif = render_replay_animation(record, NAMES, "zh")
    assert gif[:6] == b"GIF89a" and len(gif) < 5_000_000
    image = Image.open(io.BytesIO(gif))
    n_frames = getattr(image, "n_frames", 1)
    assert n_frames == frame_count(script)
    durations = []
    for k in range(n_frames):
        image.seek(k)
        durations.append(image.info["duration"])
    assert durations == frame_durations(script)
    assert durations[-1] == max(durations)  # the end is held longest
    # a decoded frame shows what the PNG of that frame shows
    image.seek(5)
    png = Image.open(io.BytesIO(render_replay_frame(script, 5)))
    assert image.convert("RGB").tobytes() == png.convert("RGB").tobytes()


def test_same_input_same_bytes() -> None:
    record = example("short-game")
    script = replay_frames(record, NAMES, "en")
    again = replay_frames(record, NAMES, "en")
    assert script == again
    assert render_replay_frame(script, 1) == render_replay_frame(again, 1)
    assert encode_gif(script) == render_replay_animation(record, NAMES, "en")


def test_captions() -> None:
    script = replay_frames(example("short-game"), NAMES, "zh")
    caption = replay_caption(script)
    assert "头科" in caption and "&lt;b&gt;Eve&lt;/b&gt;" in caption and "<b>Eve" not in caption
    # the caption and the stepper count the same tricks
    assert f"{script.tricks}轮" in caption
    assert f"第1/{script.tricks}轮" in frame_caption(script, 1)
    unfinished = replay_frames(example("burn"), NAMES, "en")
    assert "not finished" in replay_caption(unfinished)
    last = frame_count(unfinished) - 1
    assert frame_caption(unfinished, last) == replay_caption(unfinished)
    assert f"Trick 1/{unfinished.tricks}" in frame_caption(unfinished, 1)


def test_a_failed_burn_heads_its_trick() -> None:
    """§7: the burner's play stood, then they could not lead: the trick reads 诈烧, not 赢."""
    rng = random.Random(1)
    for _ in range(40):
        game = Game(STANDARD, deal_hands(rng), 0)
        play_out(game, rng)
        script = replay_frames(json.dumps(game.record().to_json()), NAMES, "zh")
        failed = [k for k, f in enumerate(script.frames) if f.failed is not None]
        if failed:
            break
    assert failed
    caption = frame_caption(script, failed[0])
    assert "诈烧" in caption and "赢" not in caption


def test_drawn_words_are_in_the_font() -> None:
    """The shipped font is a subset (renderers/fontsubset.py): every word a frame draws must be
    in it (captions are Telegram text, not drawn)."""
    have = covered()
    for lang in LANGS:
        words = json.loads((CATALOG_DIR / f"replay.{lang}.json").read_text(encoding="utf-8"))
        for key, text in words.items():
            if not key.startswith("replay.caption."):
                missing = {c for c in text if c not in have and c not in "{}"}
                assert not missing, (key, missing)

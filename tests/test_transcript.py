"""The group transcript: one line per trick, the table's words, rebuildable, giving no hand away."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from engine.ai import decide
from engine.events import Event
from engine.match import Match
from engine.rules import STANDARD
from engine.vocab import EventType
from renderers import Transcript, describe_events
from renderers.fit import MAX_MESSAGE
from renderers.i18n import LANGS

NAMES = ("老王", "小李", "张姐", "阿强", "王叔", "小美")


def E(type_: str, seat: int | None, **fields: Any) -> Event:
    """An event written the way RECORDS.md names its type."""
    return Event(EventType(type_), seat, **fields)


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def lines_of(events: list[Event], names: tuple[str, ...] = NAMES, lang: str = "zh") -> list[str]:
    tr = Transcript(names, lang)
    tr.feed(events)
    return tr.take_finished()


def game_batches(seed: int, games: int = 1, level: str = "normal") -> list[list[Event]]:
    """The event batches of a seeded game of six AI players, as the bot receives them."""
    rng = random.Random(seed)
    match = Match(STANDARD, seed=seed)
    batches = []
    for _ in range(games):
        batches.append(match.new_game())
        while (ask := match.asked()) is not None:
            batches.append(match.apply(decide(match, ask[0], level, rng).action))
    return batches


# Seeds whose game holds: 1 a 诈烧 (easy players: the normal AI burns only when it can finish),
# 260 a 反烧 and a 烧成, 85 a 解烧 and a 闷, 11 the demo's game.
LEVELS = {1: "easy", 260: "normal", 85: "normal", 11: "normal"}
SEEDS = tuple(LEVELS)


@pytest.fixture(scope="module")
def games() -> dict[int, list[list[Event]]]:
    return {seed: game_batches(seed, level=level) for seed, level in LEVELS.items()}


def test_a_trick_is_one_line_with_the_yield_and_no_passes() -> None:
    events = [
        E("play", 1, cards="4", gouji=False),
        E("play", 2, cards="5", gouji=False),
        E("play", 3, cards="9", gouji=False),
        E("play", 4, cards="T", gouji=False),
        E("play", 5, cards="J", gouji=False),
        E("pass", 0),
        E("auto_pass", 1),
        E("yield", 2),
        E("pass", 3),
        E("play", 4, cards="Q", gouji=False),
        E("auto_pass", 5),
        E("pass", 0),
        E("pass", 1),
        E("pass", 2),
        E("trick_won", 4),
    ]
    tr = Transcript(NAMES, "zh")
    tr.feed(events[:5])
    assert tr.current() == "小李 4 → 张姐 5 → 阿强 9 → 王叔 10 → 小美 J"
    assert tr.take_finished() == []
    tr.feed(events[5:])
    assert tr.current() is None
    line = "小李 4 → 张姐 5 → 阿强 9 → 王叔 10 → 小美 J →（张姐让）→ 王叔 Q ✅"
    assert tr.take_finished() == [line]
    assert tr.take_finished() == [] and tr.cheers() == []


def test_a_failed_burn_is_one_line_ending_with_the_new_leader() -> None:
    events = [
        E("play", 3, cards="999", gouji=False),
        E("play", 4, cards="AAA", gouji=True),
        E("pass", 0, claim=True),
        E("pass", 2, claim=True),
        E("play", 3, cards="222", gouji=True),
        E("burn", 3, victim=4),
        E("auto_pass", 0),
        E("trick_won", 3),
        E("play", 3, cards="BTT", gouji=True),
        E("auto_pass", 0),
        E("trick_won", 3),
        E("play", 3, cards="BJJJ", gouji=True),
        E("auto_pass", 0),
        E("trick_won", 3),
        E("burn_fail", 3),
        E("finished", 3, rank=6),
        E("wind", 4),
    ]
    tr = Transcript(NAMES, "zh")
    tr.feed(events)
    lines = [plain(line) for line in tr.take_finished()]
    assert lines == [
        "阿强 3个9 → 王叔 3个A",
        "🔥 阿强 烧 王叔：3个2 → 大王+2个10 → 大王+3个J → 💥 诈烧，判为大落；王叔 接风",
    ]
    # the burn is cheered as it starts, and its line once it ends
    assert [plain(c) for c in tr.cheers()] == ["🔥 阿强 烧了！", *lines[1:]]


def test_burn_outcomes_smothering_and_going_out(games: dict[int, list[list[Event]]]) -> None:
    text = {s: [plain(x) for x in lines_of([e for b in games[s] for e in b])] for s in SEEDS}
    counter = next(line for line in text[260] if "反烧" in line)
    assert counter.startswith("🔥 小李 烧 张姐：小王 → 🔥 张姐 反烧：大王 → ")
    assert "（🏁 走头科）→ 🎉 烧成，小李 下局进 2 张烧贡 →" in counter
    broken = next(line for line in text[85] if "解烧" in line)
    assert (
        broken
        == "🔥 张姐 烧 阿强：2个2 → 小王+2个9 → 🧯 小美 解烧：大王+2+A（😶 张姐 被闷，判为大落）✅"
    )
    assert any("诈烧" in line for line in text[1])
    # 四户乱缠 with its rule, after the line of the trick in which it began
    for seed in SEEDS:
        i = next(i for i, line in enumerate(text[seed]) if "四户乱缠" in line)
        assert any(w in text[seed][i - 1] for w in ("走", "闷", "诈烧"))  # a player ranked
        assert "让牌" in text[seed][i] and "开点" in text[seed][i]
        assert "过了的人还能再出" in text[seed][i] and "其余三家都过" in text[seed][i]
    # the log ends with the last trick: the result is the game-over picture's, said once
    assert text[11][-1] == "阿强 2个3（🏁 走四科）"
    assert not any("本局结束" in line or "头科 小美 ·" in line for line in text[11])


def test_the_demo_game_is_a_line_per_trick(games: dict[int, list[list[Event]]]) -> None:
    events = [e for b in games[11] for e in b]
    lines = lines_of(events)
    tricks = sum(1 for e in events if e.type == "trick_won")
    deal = next(i for i, line in enumerate(lines) if "先出牌" in line) + 1  # 发牌 … the leader
    assert len(lines) <= tricks + deal + 2  # + 四户乱缠, the last trick (never won)
    assert sum(line.count(" → ") + line.count("→（") + 1 for line in lines) >= 69 / 2
    assert not any("过" in plain(line) for line in lines if "四户乱缠" not in line)


def test_cheers_are_finished_lines_read_independently(
    games: dict[int, list[list[Event]]],
) -> None:
    tr = Transcript(NAMES, "zh")
    finished: list[str] = []
    cheers: list[str] = []
    for i, batch in enumerate(games[260]):
        tr.feed(batch)
        finished += tr.take_finished()
        if i % 7 == 0:
            cheers += tr.cheers()
    cheers += tr.cheers()
    starts = [c for c in cheers if plain(c).endswith(("烧了！", "反烧！"))]
    lines = [c for c in cheers if c not in starts]
    assert starts and lines and set(lines) <= set(finished)
    assert len(starts) == sum(e.type in ("burn", "counter_burn") for b in games[260] for e in b)
    assert len(lines) < len(finished)
    words = ("烧", "闷", "开点", "走", "四户乱缠")
    assert all(any(w in c for w in words) for c in cheers)
    plain_tricks = [x for x in finished if x not in lines]
    assert all(not any(w in x for w in words[:4]) for x in plain_tricks)
    # the end of the game is neither a line of the log nor a cheer: the game-over picture says it
    assert not any("本局结束" in plain(x) for x in finished + cheers)


@pytest.mark.parametrize("lang", LANGS)
def test_rebuilt_from_the_same_events(lang: str, games: dict[int, list[list[Event]]]) -> None:
    for seed in SEEDS:
        live = Transcript(NAMES, lang)
        lines = []
        for batch in games[seed]:
            live.feed(batch)
            lines += live.take_finished()
        events = [e for b in games[seed] for e in b]
        assert lines_of(events, lang=lang) == lines  # one batch
        pairs = Transcript(NAMES, lang)
        for i in range(0, len(games[seed]), 2):
            pairs.feed([e for b in games[seed][i : i + 2] for e in b])
        assert pairs.take_finished() == lines  # batches joined differently
        for line in lines:
            assert "{" not in line and "[" not in line and len(line) <= MAX_MESSAGE


def _auto_as_plain(ev: Event) -> Event:
    return Event(EventType.PASS, ev.seat) if ev.type == "auto_pass" else ev


def _without_claims(events: list[Event]) -> list[Event]:
    return [e for e in events if not (e.type == "pass" and e.claim)]


GROUP_TEXTS: dict[str, Callable[[list[Event], str], str]] = {
    "transcript": lambda events, lang: "\n".join(lines_of(events, lang=lang)),
    "announcements": lambda events, lang: describe_events(events, NAMES, lang),
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("text_of", GROUP_TEXTS)
def test_no_group_text_tells_who_could_beat(
    lang: str, text_of: str, games: dict[int, list[list[Event]]]
) -> None:
    """§7: only a player able to beat a 够级 play is asked to burn, and only a player unable to
    beat is passed automatically — so the group must not learn either."""
    render = GROUP_TEXTS[text_of]
    for seed in SEEDS:
        batches = games[seed]
        assert any(e.type == "auto_pass" for b in batches for e in b)
        assert any(e.claim for b in batches for e in b)
        for batch in batches:
            shown = render(batch, lang)
            assert render([_auto_as_plain(e) for e in batch], lang) == shown
            assert render(_without_claims(batch), lang) == shown
            assert not re.search(r"不烧|自动|要不起|automatic|cannot beat|not burn", shown)
        whole = [e for b in batches for e in b]
        assert render(_without_claims([_auto_as_plain(e) for e in whole]), lang) == render(
            whole, lang
        )


def test_hostile_names_are_escaped_and_lines_fit() -> None:
    names = ('<script>alert("x")</script>', "&" * 200, "a", "b", "c", "d")
    events = [E("play", s % 6, cards="9", gouji=False) for s in range(3000)]
    events.append(E("trick_won", 5))
    tr = Transcript(names, "en")
    tr.feed(events[:2])
    assert "<script>" not in (tr.current() or "") and "&lt;script&gt;" in (tr.current() or "")
    tr.feed(events[2:])
    (line,) = tr.take_finished()
    assert len(line) <= MAX_MESSAGE and line.startswith("…") and line.endswith("✅")


def test_english_line() -> None:
    events = [
        E("play", 1, cards="8888", gouji=False),
        E("play", 2, cards="2999", gouji=False),
        E("yield", 4),
        E("play", 4, cards="TTTT", gouji=False),
        E("trick_won", 4),
        E("opened", 4),
    ]
    (line,) = lines_of(events, ("Wang", "Li", "Zhang", "Qiang", "Uncle Wang", "Mei"), "en")
    assert plain(line) == (
        "Li four 8s → Zhang a 2 + three 9s → Uncle Wang yields (让牌) → Uncle Wang four 10s ✅"
        " 🎯 opens (开点)"
    )


@pytest.mark.parametrize("preset", ["standard", "qingdao", "casual"])
def test_random_matches(preset: str) -> None:
    """Seeded matches of easy AI players (random legal moves: 革命, 要头, 流局, odd burns): every
    line well formed, the whole match rebuilt the same from its events."""
    from engine.rules import Rules

    for seed in range(8):
        rng = random.Random(seed)
        match = Match(Rules.preset_named(preset), seed=seed)
        live = Transcript(NAMES, "en" if seed % 2 else "zh")
        batches: list[list[Event]] = []
        for _ in range(2):
            batches.append(match.new_game())
            live.feed(batches[-1])
            while (ask := match.asked()) is not None:
                batches.append(match.apply(decide(match, ask[0], "easy", rng).action))
                live.feed(batches[-1])
                shown = live.current()
                assert shown is None or (shown and "{" not in shown and len(shown) <= MAX_MESSAGE)
        lines = live.take_finished()
        assert not any("🏆" in line for line in lines)  # the result: the game-over picture
        for line in lines:
            assert line and "{" not in line and "[" not in line and len(line) <= MAX_MESSAGE
            assert "None" not in line and "?" not in plain(line)
        again = Transcript(NAMES, "en" if seed % 2 else "zh")
        again.feed([e for b in batches for e in b])
        assert again.take_finished() == lines


def test_a_burn_running_into_four_way_simply_ends() -> None:
    """§12: no success, no failure; the trick then closes like any other."""
    events = [
        E("play", 1, cards="QQQ", gouji=True),
        E("play", 2, cards="BQQ", gouji=True),
        E("burn", 2, victim=1),
        E("trick_won", 2),
        E("play", 2, cards="333", gouji=False),
        E("finished", 2, rank=2),
        E("four_way", None),
        E("play", 3, cards="444", gouji=False),
        E("play", 4, cards="555", gouji=False),
        E("pass", 5),
        E("pass", 0),
        E("pass", 3),
        E("trick_won", 4),
    ]
    tr = Transcript(NAMES, "zh")
    tr.feed(events)
    lines = [plain(x) for x in tr.take_finished()]
    assert tr.current() is None
    assert lines[1] == "🔥 张姐 烧 小李：大王+2个Q → 3个3（🏁 走二科）→ 阿强 3个4 → 王叔 3个5 ✅"
    assert lines[2].startswith("⚔️ 四户乱缠")

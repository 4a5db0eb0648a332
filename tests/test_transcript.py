"""The group transcript: one line per trick, the table's words, rebuildable, giving no hand away."""

from __future__ import annotations

import html
import random
import re
from typing import Any, cast

import pytest

from engine.ai import decide
from engine.events import Event
from engine.match import Match
from engine.rules import STANDARD
from engine.vocab import Do, EventType, LeaderReason, TributeKind
from renderers import Transcript
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


# One plausible event of every type, with the extra fields of RECORDS.md / engine/events.py.
SAMPLES: dict[EventType, Event] = {
    EventType.PLAY: E("play", 0, cards="QQQ", gouji=True),
    EventType.PASS: E("pass", 1),
    EventType.AUTO_PASS: E("auto_pass", 2),
    EventType.YIELD: E("yield", 3),
    EventType.BURN: E("burn", 1, victim=0),
    EventType.BURN_BREAK: E("burn_break", 4, burner=1),
    EventType.COUNTER_BURN: E("counter_burn", 2, burner=1),
    EventType.BURN_SUCCESS: E("burn_success", 2, victim=1, tribute=2),
    EventType.BURN_FAIL: E("burn_fail", 2),
    EventType.SMOTHERED: E("smothered", 5, by=0),
    EventType.TRICK_WON: E("trick_won", 0),
    EventType.OPENED: E("opened", 0),
    EventType.FINISHED: E("finished", 0, rank=1),
    EventType.WIND: E("wind", 1),
    EventType.FOUR_WAY: E("four_way", None),
    EventType.GAME_OVER: E("game_over", None),
    EventType.DEALT: E("dealt", None, game=2),
    EventType.TRIBUTE_PAID: E("tribute_paid", 5, to=0, kind=TributeKind.LUO, cards="B2"),
    EventType.TRIBUTE_RETURNED: E("tribute_returned", 0, to=5, cards="99"),
    EventType.BOUGHT_THREE: E("bought_three", 1, source=4, paid="2"),
    EventType.GIVEN_THREE: E("given_three", 1, source=3),
    EventType.REVOLUTION: E("revolution", 4),
    EventType.VOID_DEAL: E("void_deal", None),
    EventType.NO_THREE: E("no_three", None),
    EventType.YAOTOU: E("yaotou", 1, choice=Do.YAOTOU),
    EventType.DECLARED: E("declared", 2),
    EventType.LEADER: E("leader", 3, reason=LeaderReason.FOURS),
}
# §7: the group never learns who could not beat; passes are left out of a trick's line
SILENT = frozenset({EventType.PASS, EventType.AUTO_PASS})


def _before(ev: Event) -> list[Event]:
    """A game under way: a trick opened by 老王, the event's seat having played into it."""
    mine = [E("play", ev.seat, cards="TTT", gouji=True)] if ev.seat is not None else []
    return [E("dealt", None, game=1), E("play", 0, cards="9", gouji=False), *mine]


def _told(events: list[Event], lang: str) -> list[str]:
    """Everything the group is shown of ``events``, the game then ending: the finished lines,
    the cheers, the line in progress."""
    tr = Transcript(NAMES, lang)
    tr.feed(events)
    shown = [tr.current() or ""]
    tr.feed([E("game_over", None)])
    return [*shown, *tr.take_finished(), *tr.cheers()]


def test_samples_cover_every_event_type() -> None:
    assert set(SAMPLES) == set(EventType)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", list(EventType))
def test_every_event_type_is_told_or_deliberately_silent(lang: str, kind: EventType) -> None:
    """The transcript the bot sends the group tells each event type, or leaves it out on
    purpose (:data:`SILENT`)."""
    ev = SAMPLES[kind]
    without, told = _told(_before(ev), lang), _told([*_before(ev), ev], lang)
    if kind in SILENT:
        assert told == without
    else:
        assert told != without
    for text in told:
        assert "{" not in text and "[" not in text and "None" not in text


def test_key_chinese_terms() -> None:
    zh = {k: plain("".join(_told([*_before(e), e], "zh"))) for k, e in SAMPLES.items()}
    T = EventType
    assert "烧" in zh[T.BURN] and "解烧" in zh[T.BURN_BREAK] and "反烧" in zh[T.COUNTER_BURN]
    assert "闷" in zh[T.SMOTHERED] and "开点" in zh[T.OPENED] and "走头科" in zh[T.FINISHED]
    assert "接风" in zh[T.WIND] and "四户乱缠" in zh[T.FOUR_WAY] and "烧成" in zh[T.BURN_SUCCESS]
    assert "革命" in zh[T.REVOLUTION] and "流局" in zh[T.VOID_DEAL] and "要头" in zh[T.YAOTOU]
    assert "宣点" in zh[T.DECLARED] and "诈烧" in zh[T.BURN_FAIL] and "落贡" in zh[T.TRIBUTE_PAID]


@pytest.mark.parametrize("lang", LANGS)
def test_hostile_names_are_escaped_in_every_line(lang: str) -> None:
    names = ('<script>alert("x")</script>', "<b>bold</b>", "a&b", "{name}", "[烧]", "x" * 300)
    tr = Transcript(names, lang)
    for ev in SAMPLES.values():
        tr.feed([*_before(ev), ev])
    text = "\n".join([*tr.take_finished(), *tr.cheers()])
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "<b>bold</b>" not in text and "&lt;b&gt;bold" in text
    assert "a&amp;b" in text and "{name}" in text  # placeholders in a name are left alone


def test_an_unknown_event_type_says_nothing_and_leaves_the_trick_open() -> None:
    tr = Transcript(NAMES, "zh")
    tr.feed(_before(SAMPLES[EventType.PLAY]))
    line, done = tr.current(), tr.take_finished()
    assert line is not None
    tr.feed([Event(cast(EventType, "a_type_of_tomorrow"), 1)])
    assert tr.current() == line and tr.take_finished() == [] and tr.cheers() == []
    tr.feed([E("play", 1, cards="K", gouji=False)])
    current = tr.current()
    assert current is not None and current.startswith(line)  # the same trick, one play more
    assert done  # the deal's line, before


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
        "🔥 阿强 烧 王叔：3个2 → 2个10+大王 → 3个J+大王 → 💥 诈烧，判为大落；王叔 接风",
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
        == "🔥 张姐 烧 阿强：2个2 → 2个9+小王 → 🧯 小美 解烧：A+2+大王（😶 张姐 被闷，判为大落）✅"
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


def _group_text(events: list[Event], lang: str) -> str:
    return "\n".join(lines_of(events, lang=lang))


@pytest.mark.parametrize("lang", LANGS)
def test_no_group_text_tells_who_could_beat(lang: str, games: dict[int, list[list[Event]]]) -> None:
    """§7: only a player able to beat a 够级 play is asked to burn, and only a player unable to
    beat is passed automatically — so the group must not learn either."""
    render = _group_text
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
        "Li four 8s → Zhang three 9s + a 2 → Uncle Wang yields (让牌) → Uncle Wang four 10s ✅"
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
    assert lines[1] == "🔥 张姐 烧 小李：2个Q+大王 → 3个3（🏁 走二科）→ 阿强 3个4 → 王叔 3个5 ✅"
    assert lines[2].startswith("⚔️ 四户乱缠")

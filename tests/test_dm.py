"""A player's DM: the table lines from the seat's own view (renderers/dm.py), the 记牌器, the
picture of a player out of play and the caption's length (bot/table.py ``hand_out``)."""

from __future__ import annotations

import copy
import io
import random
import re

import pytest
from PIL import Image

from bot.offline.dmsize import LONG, SHORT, asked_to_answer, out_of_play, table_at, utf16
from engine.ai import decide
from engine.cards import rank_of
from engine.events import Event
from engine.match import Match
from engine.rules import QINGDAO, STANDARD, Rules
from engine.seats import opposite
from engine.vocab import EventType, Status
from renderers import card_text, switch_value
from renderers.dm import short_name, table_lines
from renderers.hand_image import OUT_H, OUT_W
from renderers.played import Played

NAMES = ["老王", "张姐", "阿强", "王叔", "小美", "李四"]
FULL = (("B", 4), ("S", 4), ("2", 16), ("A", 16), ("K", 16))  # four decks of what is tracked
TRACKER = re.compile(r"(-?\d+)个大王 (-?\d+)个小王 (-?\d+)个2 (-?\d+)个A (-?\d+)个K")


def playing(rules: Rules, seed: int, moves: int) -> tuple[Match, Played, list[Event]]:
    """A seeded match the easy AI plays ``moves`` actions into; its public plays and events."""
    m = Match(rules, seed=seed)
    played = Played()
    events = m.new_game()
    played.feed(events)
    rng = random.Random(seed)
    for _ in range(moves):
        ask = m.asked()
        if ask is None:
            break
        step = m.apply(decide(m, ask[0], "easy", rng, 10).action)
        played.feed(step)
        events += step
    return m, played, events


def line_of(lines: list[str], head: str) -> str:
    return next(x for x in lines if x.startswith(head))


@pytest.mark.parametrize(("seed", "moves"), [(3, 20), (11, 60), (29, 110)])
def test_tracker_is_four_decks_minus_own_hand_and_every_play_seen(seed: int, moves: int) -> None:
    m, played, events = playing(STANDARD, seed, moves)
    # independently: the seat's own hand (its view) and the cards of every play event
    seen_played = "".join(e.cards or "" for e in events if e.type == EventType.PLAY)
    for seat in range(6):
        view = m.view(seat)
        hand = view.hand or ""
        expected = [total - hand.count(ch) - seen_played.count(ch) for ch, total in FULL]
        found = TRACKER.search(line_of(table_lines(view, NAMES, "zh", played), "记牌器"))
        assert found is not None
        assert [int(x) for x in found.groups()] == expected
        assert all(n >= 0 for n in expected)


def test_lines_depend_only_on_the_seats_view() -> None:
    m, played, events = playing(STANDARD, 11, 40)
    game = m.game
    assert game is not None
    before = {s: table_lines(m.view(s), NAMES, "zh", played) for s in range(6)}
    # move hidden cards between two other seats (same counts): seat 0's view is unchanged
    other = copy.deepcopy(game)
    a, b = 2, 4
    ra = next(r for r, n in enumerate(other.hands[a]) if n)
    rb = next(r for r, n in enumerate(other.hands[b]) if n and r != ra)
    other.hands[a][ra] -= 1
    other.hands[a][rb] += 1
    other.hands[b][rb] -= 1
    other.hands[b][ra] += 1
    for seat in (0, 1, 3, 5):  # seats that cannot see seats 2 and 4's cards
        assert other.view(seat) == game.view(seat)
        assert table_lines(game.view(seat), NAMES, "zh", played) == before[seat]
    # the spectator holds no hand: its 记牌器 is the four decks minus the plays alone
    spectator = table_lines(m.view(None), NAMES, "zh", played)
    found = TRACKER.search(line_of(spectator, "记牌器"))
    seen_played = "".join(e.cards or "" for e in events if e.type == EventType.PLAY)
    assert found is not None
    assert [int(x) for x in found.groups()] == [total - seen_played.count(ch) for ch, total in FULL]


@pytest.mark.parametrize("counts_at", [0, 10, 36])
def test_counts_only_as_counts_at_allows(counts_at: int) -> None:
    rules = STANDARD.with_switches({"counts_at": counts_at})
    m, played, _ = playing(rules, 29, 110)
    game = m.game
    assert game is not None
    for seat in range(6):
        view = m.view(seat)
        counts = line_of(table_lines(view, NAMES, "zh", played), "剩牌")
        for s in range(6):
            if s == seat or view.status[s] != Status.ACTIVE:
                continue
            name = short_name(s, NAMES, "zh")
            if s == opposite(seat):
                name = "对头" + name
            real = sum(game.hands[s])
            if view.counts[s] is None:
                assert f"{name} {real}张" not in counts  # never more than the seat may know
                assert counts_at < real
            else:
                assert f"{name} {real}张" in counts
        if counts_at == 36:
            assert "以上" not in counts


def test_the_trick_and_who_opened_and_burns_come_from_the_view() -> None:
    for moves in range(30, 90, 7):
        m, played, _ = playing(STANDARD, 11, moves)
        for seat in range(6):
            view = m.view(seat)
            lines = table_lines(view, NAMES, "zh", played)
            plays = played.current()
            if view.to_act == seat:
                plays = plays[:-1]  # the question names the top
            if view.top is None or not plays:
                assert not any(x.startswith("本轮") for x in lines)
            else:
                _, top_cards = plays[-1]
                assert line_of(lines, "本轮").endswith(card_text(top_cards, "zh"))
            opened = [s for s in range(6) if view.opened[s]]
            assert any(x.startswith("已开点") for x in lines) == bool(opened)
            assert any("在烧牌" in x for x in lines) == (view.burning is not None)


def test_played_follows_tricks() -> None:
    p = Played()
    p.feed([Event(EventType.DEALT, game=1), Event(EventType.PLAY, 0, cards="88")])
    p.feed([Event(EventType.PLAY, 1, cards="99"), Event(EventType.TRICK_WON, 1)])
    assert p.current() == []
    p.feed([Event(EventType.PLAY, 1, cards="B")])
    assert p.current() == [(1, "B")]
    assert p.counts[rank_of("8")] == 2 and p.counts[rank_of("B")] == 1
    p.feed([Event(EventType.DEALT, game=2)])
    assert p.current() == [] and sum(p.counts) == 0


def test_a_player_out_of_play_gets_a_rank_strip_and_what_is_left_to_watch() -> None:
    for lang, words in (("zh", "看大家打完"), ("en", "watch the others finish")):
        table = table_at(11, SHORT, out_of_play, lang)
        assert table.match is not None and table.match.game is not None
        assert table.match.game.status[0] != Status.ACTIVE and not table.match.over
        out = table.hand_out(0)
        assert out is not None and out.photo is not None
        assert words in out.text
        assert "记牌器" in out.text or "Still out" in out.text  # the table goes on
        assert out.photo_key.startswith("out:")
        with Image.open(io.BytesIO(out.photo())) as im:
            assert im.size == (OUT_W, OUT_H)  # a strip, not an empty table of cards


@pytest.mark.parametrize("rules", [STANDARD, QINGDAO])
def test_caption_fits_telegram_with_long_names(rules: Rules) -> None:
    names = [n * 3 for n in LONG]  # 64+ characters, emoji joined by ZWJ
    for until, seat in ((asked_to_answer, 0), (asked_to_answer, 2), (out_of_play, 0)):
        for lang in ("zh", "en"):
            table = table_at(11, names, until, lang, rules)
            table.hinted[0] = "💡" * 300  # the longest hint a caption could carry
            out = table.hand_out(seat)
            assert out is not None
            assert utf16(out.text) <= 1024
            assert out.text.count("\n") >= 2  # the table lines are there, not cut away


def test_settings_show_switch_values_in_words() -> None:
    assert [switch_value("counts_at", v, "zh") for v in (10, 36, 0)] == ["剩10张", "一直", "不报"]
    assert [switch_value("partner_cards_at", v, "zh") for v in (0, 10)] == ["不看", "剩10张"]
    assert [switch_value("counts_at", v, "en") for v in (10, 36, 0)] == ["at 10", "always", "never"]
    assert switch_value("bie3", True, "zh") == "✅"
    assert switch_value("tribute", "luo", "zh") == "只落贡"

"""The hand keyboard (bot/handkeys.py): every legal play reachable by the buttons offered, the
taps of a typical answer and lead, burns named as §7 names them, 托管 apart, labels that fit."""

from __future__ import annotations

import copy
import random
from collections import deque

import pytest

from bot.buttons import Callback, HandOp
from bot.handkeys import (
    EMPTY_SELECTION,
    ROW_UNITS,
    Keyboard,
    Pending,
    PendingKind,
    Situation,
    body_of,
    hand_keyboard,
    moves,
    quick_answers,
    situation,
    tap,
    width,
)
from bot.offline.taps import fewest_taps, new_step
from engine.actions import Action
from engine.ai import decide
from engine.cards import Counts, fmt, parse
from engine.game import Game
from engine.legal import Legal
from engine.match import Match
from engine.rules import PRESETS
from engine.vocab import Ask, Do, EventType
from renderers import prompt_text
from renderers.terms import button_cards


def reachable(legal: Legal, hand: Counts) -> set[Counts]:
    """Every choice of cards some sequence of the offered buttons leads to, and the one-tap
    answers (a rank whose only answer is one has no rank button)."""
    seen = {EMPTY_SELECTION}
    queue = deque([EMPTY_SELECTION])
    while queue:
        sel = queue.popleft()
        for op, arg in moves(legal, hand, sel):
            nxt = tap(legal, hand, sel, op, arg)
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen | {p.counts for p in quick_answers(legal)}


def positions(games: int, seed: int) -> list[tuple[Match, int]]:
    """Play decisions of seeded games (the normal AI playing every seat), each as a copy."""
    out: list[tuple[Match, int]] = []
    for g in range(games):
        match = Match(PRESETS[list(PRESETS)[g % 3]], seed=seed + g)
        match.new_game()
        rng = random.Random(seed + g)
        n = 0
        while not match.over:
            ask = match.asked()
            assert ask is not None
            seat = ask[0]
            if match.game is not None and n % 7 == 0:
                out.append((copy.deepcopy(match), seat))
            n += match.game is not None
            match.apply(decide(match, seat, "normal", rng).action)
    return out


@pytest.mark.parametrize("seed", [1, 40])
def test_every_legal_play_can_be_built_by_the_offered_buttons(seed: int) -> None:
    checked = 0
    for match, seat in positions(4, seed):
        legal = match.choices(seat)
        hand = parse(match.view(seat).hand or "")
        reach = reachable(legal, hand)
        for p in legal.plays:
            assert p.counts in reach, (legal.ask, fmt(hand), str(p))
            match.check(Action(seat, Do.PLAY, str(p)))  # 出 is offered there: a legal play
            checked += 1
    assert checked > 500


def match_at(hands: list[str], leader: int = 0, preset: str = "qingdao") -> Match:
    """A match whose game starts from ``hands`` (no 3s: nothing bound by 憋3)."""
    match = Match(PRESETS[preset], seed=1)
    match.new_game()
    assert match.setup is not None
    match.setup.game = Game.from_position(PRESETS[preset], hands, leader)
    return match


def keyboard_of(
    match: Match, seat: int, sel: Counts = EMPTY_SELECTION, lang: str = "zh"
) -> Keyboard:
    legal = match.choices(seat)
    hand = parse(match.view(seat).hand or "")
    ok = sel in [p.counts for p in legal.plays] or (legal.any_lead and any(sel))
    return hand_keyboard(
        1, match.version, legal, hand, sel, ok, False, lang, situation(match, seat)
    )


def labels(kb: Keyboard, op: HandOp) -> list[str]:
    return [b.text for row in kb for b in row if Callback.decode(b.data).op is op]


def test_an_answer_rank_tap_takes_as_many_as_the_top_needs_and_again_the_next_way() -> None:
    match = match_at(["TTT4455", "QQ2B6789", "44", "44", "44", "44"])
    match.apply(Action(0, Do.PLAY, "TTT"))
    legal = match.choices(1)
    hand = parse(match.view(1).hand or "")
    first = tap(legal, hand, EMPTY_SELECTION, HandOp.RANK, "Q")
    assert fmt(first) == "2QQ"  # two queens and a 2 make three queens (§3 贴钱)
    second = tap(legal, hand, first, HandOp.RANK, "Q")
    assert sum(second) == 3 and second != first and body_of(second) == body_of(first)
    with_joker = tap(legal, hand, first, HandOp.EXTRA, "B1")
    assert fmt(with_joker) == "BQQ"  # the 2 made way for the big joker
    assert fmt(tap(legal, hand, with_joker, HandOp.EXTRA, "B1")) == "2QQ"
    # the one-tap answers: the cheapest of each rank, 1 press
    assert [str(p) for p in quick_answers(legal)] == ["2QQ"]
    assert fewest_taps(parse("BQQ"), new_step(legal, hand)) == 2


def test_a_lead_takes_the_whole_rank_then_a_count_2s_and_jokers() -> None:
    match = match_at(["KKK222B777777", "4", "4", "4", "4", "4"])
    legal = match.choices(0)
    hand = parse(match.view(0).hand or "")
    step = new_step(legal, hand)
    sel = tap(legal, hand, EMPTY_SELECTION, HandOp.RANK, "K")
    assert fmt(sel) == "KKK"
    sel = tap(legal, hand, sel, HandOp.EXTRA, "22")
    sel = tap(legal, hand, sel, HandOp.EXTRA, "B1")
    assert fmt(sel) == "B22KKK"  # 3个K+2个2+大王: three taps, and 出
    assert fewest_taps(parse("B22KKK"), step) == 3
    one = tap(legal, hand, tap(legal, hand, EMPTY_SELECTION, HandOp.RANK, "7"), HandOp.COUNT, "1")
    assert fmt(one) == "7"  # one 7 of six: two taps (was seven)
    kb = keyboard_of(match, 0, parse("B22KKK"), "en")
    assert labels(kb, HandOp.PLAY) == ["Play 3×K+2×2+BJ"]
    assert {"✅+2×2", "✅+BJ", "+3×2"} <= set(labels(kb, HandOp.EXTRA))
    assert labels(kb, HandOp.COUNT) == ["×1", "×2", "✅×3"]  # how many of the kings


def test_auto_sits_alone_and_asks_for_its_confirmation() -> None:
    match = match_at(["KK4", "AA5", "44", "44", "44", "44"])
    match.apply(Action(0, Do.PLAY, "4"))
    legal = match.choices(1)
    hand = parse(match.view(1).hand or "")
    kb = hand_keyboard(1, 0, legal, hand, EMPTY_SELECTION, False, False, "zh")
    for row in kb:
        ops = {Callback.decode(b.data).op for b in row}
        if HandOp.AUTO in ops:
            assert ops == {HandOp.AUTO}  # never beside 过
    assert HandOp.PASS in {Callback.decode(b.data).op for b in kb[-2]}
    asking = hand_keyboard(
        1, 0, legal, hand, EMPTY_SELECTION, False, False, "en", Situation(auto_asked=True)
    )
    assert [b.text for b in asking[-1]] == ["✅ Yes, let the AI play", "✖ Cancel"]


def test_a_pending_tap_stored_before_its_kind_was_typed_still_loads() -> None:
    """Tables stored with ``Pending(version, what)`` ("auto" or the cards) load as typed."""
    import pickle

    old_auto, old_play = Pending.auto(3), Pending.play(4, "2A")
    for p in (old_auto, old_play):
        object.__setattr__(p, "what", "auto" if p.is_auto else p.cards)
        object.__delattr__(p, "kind")
        object.__delattr__(p, "cards")
    auto, play = pickle.loads(pickle.dumps((old_auto, old_play)))
    assert auto == Pending(3, PendingKind.AUTO) and auto.is_auto
    assert play == Pending(4, PendingKind.PLAY, "2A") and not play.is_auto
    assert pickle.loads(pickle.dumps(play)) == play


def burn_match() -> Match:
    """Seat 0 leads the 够级 KK; seat 1 can burn it only with AA, keeping three groups and no
    joker (§7: a burn that fails); seat 5 can 反烧 with 22; seat 4, the burner's 对头, 解烧."""
    return match_at(["KK5566", "AA789", "4455", "AA44", "6622", "B224"])


def test_burns_are_named_and_a_burn_that_will_fail_is_marked() -> None:
    match = burn_match()
    match.apply(Action(0, Do.PLAY, "KK"))
    assert match.asked() == (4, Ask.BURN)  # a teammate may burn too; seat 4 declines
    assert labels(keyboard_of(match, 4), HandOp.PASS) == ["不烧"]
    match.apply(Action(4, Do.PASS))
    assert match.asked() == (1, Ask.BURN)
    sit = situation(match, 1)
    assert sit.burn == "burn" and "AA" in sit.risky
    assert labels(keyboard_of(match, 1), HandOp.QUICK)[0] == "⚠️烧 2个A"
    assert labels(keyboard_of(match, 1, lang="en"), HandOp.QUICK)[0] == "⚠️Burn 2×A"
    confirm = hand_keyboard(
        1,
        0,
        match.choices(1),
        parse("AA789"),
        EMPTY_SELECTION,
        False,
        False,
        "zh",
        Situation("burn", sit.risky, "AA"),
    )
    assert [b.text for b in confirm[0]] == ["✖ 取消"]  # under the finger that tapped
    assert [b.text for b in confirm[1]] == ["⚠️ 确认烧 2个A（会被判诈烧）"]
    events = match.apply(Action(1, Do.PLAY, "AA"))
    assert any(e.type == EventType.BURN for e in events)
    assert match.asked() == (5, Ask.BURN)
    sit = situation(match, 5)
    assert sit.burn == "counter" and not sit.risky
    assert labels(keyboard_of(match, 5), HandOp.QUICK) == ["🔥反烧 2个2"]
    assert "反烧" in prompt_text(match.view(5), "zh") and "你能<b>烧</b>" not in prompt_text(
        match.view(5), "zh"
    )
    match.apply(Action(5, Do.PASS))
    assert match.asked() == (4, Ask.ANSWER)  # the burner's 对头: beating it is 解烧
    assert labels(keyboard_of(match, 4), HandOp.QUICK) == ["🧯解烧 2个2"]


def test_cards_on_buttons_in_the_notation_of_the_text() -> None:
    assert button_cards("BKKK22", "en") == "3×K+2×2+BJ"
    assert button_cards("BKKK22", "zh") == "3个K+2个2+大王"  # the counted rank first
    assert button_cards("SSTT", "en") == "2×10+2×SJ"
    assert button_cards("B", "zh") == "大王"
    assert button_cards("BS2", "zh") == "2+大王+小王"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_row_fits_a_phone(lang: str) -> None:
    for match, seat in positions(2, 7):
        legal = match.choices(seat)
        hand = parse(match.view(seat).hand or "")
        sels = [EMPTY_SELECTION] + [
            tap(legal, hand, EMPTY_SELECTION, *m) for m in moves(legal, hand, EMPTY_SELECTION)[:4]
        ]
        for sel in sels:
            for row in keyboard_of(match, seat, sel, lang):
                widest = max(width(b.text) for b in row)
                assert len(row) == 1 or (widest + 1) * len(row) <= ROW_UNITS, [b.text for b in row]
                assert widest <= ROW_UNITS

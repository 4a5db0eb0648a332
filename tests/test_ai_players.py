"""AI players (engine.ai): legal for every ask, blind to hidden hands, normal beats easy."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine.ai import LEVELS, REASONS, Decision, decide
from engine.arena import play_deal, run_arena
from engine.cards import NRANKS
from engine.game import Game
from engine.match import Match
from engine.rules import Rules
from engine.vocab import Ask

ALL_ASKS = {
    Ask.LEAD,
    Ask.ANSWER,
    Ask.BURN,
    Ask.LAST,
    Ask.REVOLT,
    Ask.YAOTOU,
    Ask.DECLARE,
    Ask.RETURN,
}
BUDGET_MS = 4.0  # the hard level's budget in tests: enough to run its search code


def _check(match: Match, decision: Decision, seat: int) -> None:
    assert isinstance(decision, Decision)
    assert decision.action.seat == seat
    assert decision.reason in REASONS, decision.reason
    match.check(decision.action)  # raises IllegalAction when refused


def _drive(match: Match, seed: int, seen: dict[str, set[str]], hard_every: int) -> None:
    """Play the match's current game to its end; at each ask every level must answer legally.
    Seats alternate who actually moves (normal or easy), so positions vary."""
    rng = random.Random(seed)
    n = 0
    while (ask := match.asked()) is not None:
        seat, kind = ask
        for level in LEVELS:
            if level == "hard" and n % hard_every:
                continue
            d = decide(match, seat, level, random.Random(seed * 1000 + n), BUDGET_MS)
            _check(match, d, seat)
            seen.setdefault(level, set()).add(kind)
        mover = "normal" if (seat + seed) % 3 else "easy"
        match.apply(decide(match, seat, mover, rng).action)
        n += 1


def test_every_level_is_legal_for_every_ask_kind() -> None:
    seen: dict[str, set[str]] = {}
    rules = Rules()
    # Two-game matches: game 2 brings tribute and 还贡.
    for seed in range(6):
        match = Match(rules, seed=seed)
        for _ in range(2):
            match.new_game()
            _drive(match, seed, seen, hard_every=7)
    # Deals where a seat may revolt: revolt, so that its 对头 chooses 要头 or 无头.
    found = 0
    for seed in range(400):
        match = Match(rules, seed=10_000 + seed)
        match.new_game()
        ask = match.asked()
        if ask is None or ask[1] != Ask.REVOLT:
            continue
        for level in LEVELS:  # every level answers the 革命 question legally
            _check(match, decide(match, ask[0], level, random.Random(seed), BUDGET_MS), ask[0])
            seen.setdefault(level, set()).add(Ask.REVOLT)
        match.apply(decide(match, ask[0], "easy", random.Random(1)).action)
        if match.asked() is not None and match.asked() != ask:
            _drive(match, seed, seen, hard_every=11)
            found += 1
        if found >= 3:
            break
    for level in LEVELS:
        assert seen[level] >= ALL_ASKS - {Ask.YAOTOU} or seen[level] == ALL_ASKS, seen[level]
    assert any(Ask.YAOTOU in s for s in seen.values())


@pytest.mark.parametrize("preset", ["qingdao", "casual"])
def test_levels_are_legal_under_other_presets(preset: str) -> None:
    seen: dict[str, set[str]] = {}
    match = Match(Rules.preset_named(preset), seed=3)
    match.new_game()
    _drive(match, 3, seen, hard_every=9)
    assert Ask.LEAD in seen["normal"] and Ask.ANSWER in seen["normal"]


def _positions(count: int) -> list[tuple[Game, int]]:
    """Mid-game positions of normal-vs-easy games (deep copies), with the seat asked."""
    out: list[tuple[Game, int]] = []
    for seed in range(count):
        match = Match(Rules(), seed=500 + seed)
        match.new_game()
        rng = random.Random(seed)
        steps = 0
        stop = rng.randrange(20, 120)
        while (ask := match.asked()) is not None and steps < stop:
            match.apply(decide(match, ask[0], "normal" if steps % 2 else "easy", rng).action)
            steps += 1
        game = match.game
        if game is not None and game.asked() is not None:
            out.append((copy.deepcopy(game), game.asked()[0]))  # type: ignore[index]
    return out


def _scramble(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy where the other live seats' cards are dealt among them anew (same counts)."""
    other = copy.deepcopy(game)
    seats = [s for s in range(6) if s != seat and other.active(s)]
    cards = [r for s in seats for r in range(NRANKS) for _ in range(other.hands[s][r])]
    rng.shuffle(cards)
    pos = 0
    for s in seats:
        n = sum(other.hands[s])
        hand = [0] * NRANKS
        for r in cards[pos : pos + n]:
            hand[r] += 1
        other.hands[s] = hand
        pos += n
    return other


def test_normal_never_reads_hidden_hands() -> None:
    changed_hands = 0
    for i, (game, seat) in enumerate(_positions(40)):
        before = decide(game, seat, "normal", random.Random(i))
        scrambled = _scramble(game, seat, random.Random(i + 1))
        changed_hands += scrambled.hands != game.hands
        after = decide(scrambled, seat, "normal", random.Random(i))
        assert before == after and before.params == after.params
    assert changed_hands > 20


def test_hard_is_legal_on_scrambled_positions() -> None:
    for i, (game, seat) in enumerate(_positions(8)):
        scrambled = _scramble(game, seat, random.Random(i))
        d = decide(scrambled, seat, "hard", random.Random(i), budget_ms=30)
        scrambled.check(d.action)
        assert d.reason in REASONS
        # the search plays on copies: the game itself is untouched
        assert scrambled.asked() == game.asked()


def test_normal_beats_easy() -> None:
    results = [play_deal(("standard", 77_000 + i, "normal", "easy", 1.0))[0] for i in range(20)]
    assert sum(results) / len(results) >= 0.75  # 40 games, sides swapped per deal


def test_arena_prints_json_last(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_arena("normal", "easy", 2, 1, "standard") == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    figures = json.loads(last)
    assert figures["games"] == 2
    assert 0.0 <= figures["ci95"][0] <= figures["win_rate_a"] <= figures["ci95"][1] <= 1.0
    for key in ("decision_ms_median_a", "decision_ms_median_b", "decision_ms_p95_a"):
        assert figures[key] >= 0.0
    for side in ("stats_a", "stats_b"):
        stats = figures[side]
        assert 0.0 <= stats["burn_fail_rate"] <= 1.0
        assert stats["smothered_per_game"] >= 0.0 and "declare_dian_balance" in stats
    assert run_arena("baseline", "normal", 1, 1, "standard") == 0
    assert run_arena("normal", "grandmaster", 1, 1, "standard") == 2


def test_decide_refuses_wrong_seat_and_level() -> None:
    match = Match(Rules(), seed=1)
    match.new_game()
    ask = match.asked()
    assert ask is not None
    with pytest.raises(ValueError):
        decide(match, (ask[0] + 1) % 6, "normal", random.Random(1))
    with pytest.raises(ValueError):
        decide(match, ask[0], "expert", random.Random(1))


def test_reasons_have_glosses() -> None:
    assert REASONS and all(isinstance(v, str) and v for v in REASONS.values())


def test_card_counting_follows_tribute_and_plays() -> None:
    """The AI's per-seat counts (start counts moved by the public tribute exchange, minus
    public plays) match the real counts, in game 2 of a match too."""
    from engine.ai.knowledge import from_view, start_counts

    match = Match(Rules(), seed=4)
    rng = random.Random(4)
    checked = 0
    for _ in range(2):
        match.new_game()
        while (ask := match.asked()) is not None:
            game = match.game
            if game is not None:
                assert match.setup is not None
                k = from_view(game.view(ask[0]), game.log, start_counts(match.setup.events))
                real = game.counts()
                assert all(k.counts[s] == real[s] for s in range(6) if game.active(s))
                checked += 1
            match.apply(decide(match, ask[0], "normal", rng).action)
    assert match.history[-1].number == 2 and checked > 50

"""Seeded random games pinned by a hash of everything they produce: every action, every event
(with its internal ``claim`` flag), every legal menu offered (plays in order, pass, yield), the
final ranks, tributes and score. The hashes were taken before the engine's speed work (commit
52912c5): a change meant only to make the engine faster must keep them; a change of the rules
updates them on purpose."""

from __future__ import annotations

import hashlib
import random

import pytest

from engine.deal import deal_hands
from engine.game import Game
from engine.match import Match
from engine.playout import random_action
from engine.rules import Rules

# (preset, extra switches, seed, games) -> sha256 of the games' transcript
GAME_PINS = {
    ("standard", False, 1, 40): "c78bafdbf0e2043a5f0e3e099afb4e2fef603b2935e30da78f3e576676fa33fc",
    ("qingdao", False, 2, 40): "581060adf803081c1e21530bd3f1f2cf5eeec6bd66a00b335115a854a1aad55e",
    ("casual", False, 3, 40): "eaa0e88913903ee69648cce4bf29c0764628ca3d6a5692215aff30196349be50",
    ("standard", True, 4, 40): "aab8d9be3690a37e060b1221619d5034bef566f6a8c77e2917e7168eb078ff91",
}
MATCH_PINS = {
    ("standard", 5, 4): "44d4014fa241128ba5bc59372e9b1aa9245acc188d80a83657cbf9b0ff7759af",
    ("qingdao", 6, 4): "8a46013e6cdb7be7a97301bb4c2095ff79d4188ce1a54e7555777b13f55d5f1b",
    ("casual", 7, 4): "2156343a600338b8c27ba2ae5a4f4238ab73c7e12e73abcd9becc7935673008b",
}


def _legal_line(game: Game, seat: int) -> str:
    legal = game.legal(seat)
    plays = ",".join(str(p) for p in legal.plays)
    return f"L {legal.ask} {plays} {legal.can_pass:d}{legal.can_yield:d}{legal.any_lead:d}"


def game_transcript(preset: str, kill: bool, seed: int, games: int) -> str:
    rules = Rules.preset_named(preset)
    if kill:
        rules = rules.with_switches({"kill_big_joker": True})
    rng = random.Random(seed)
    lines: list[str] = []
    for _ in range(games):
        game = Game(rules, deal_hands(rng), leader=rng.randrange(6))
        while (ask := game.asked()) is not None:
            lines.append(_legal_line(game, ask[0]))
            action = random_action(game, rng)
            lines.append(f"A {action}")
            lines.extend(f"E {e!r} {e.claim:d}" for e in game.apply(action))
        lines.append(f"R {game.ranks} {game.tributes()} {game.score()} {game.opened}")
    return "\n".join(lines)


def match_transcript(preset: str, seed: int, games: int) -> str:
    rng = random.Random(seed)
    match = Match(Rules.preset_named(preset), seed=seed)
    lines: list[str] = []
    for _ in range(games):
        lines.extend(f"E {e!r}" for e in match.new_game())
        while (ask := match.asked()) is not None:
            game = match.game
            if game is None:
                options = match.choices(ask[0]).options
                lines.append(f"O {','.join(str(o) for o in options)}")
                action = rng.choice(options)
            else:
                lines.append(_legal_line(game, ask[0]))
                action = random_action(game, rng)
            lines.append(f"A {action}")
            lines.extend(f"E {e!r} {e.claim:d}" for e in match.apply(action))
    return "\n".join(lines)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("key", list(GAME_PINS))
def test_seeded_random_games_are_unchanged(key: tuple[str, bool, int, int]) -> None:
    assert _digest(game_transcript(*key)) == GAME_PINS[key]


@pytest.mark.parametrize("key", list(MATCH_PINS))
def test_seeded_random_matches_are_unchanged(key: tuple[str, int, int]) -> None:
    assert _digest(match_transcript(*key)) == MATCH_PINS[key]

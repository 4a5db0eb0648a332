"""Badges (engine/stats/badges.py): each one earned at its moment and not otherwise, once per
player; evenings; the order they are earned in."""

from __future__ import annotations

from typing import Any

import pytest

from engine.stats import EVENING_GAP, Badge, PlayerGame, SeatFacts, badges_of, evening, new_badges

HOUR = 3600.0


def facts(rank: int = 3, points: int = 0, **kw: Any) -> SeatFacts:
    return SeatFacts(0, rank, points, **kw)


def games(*fs: SeatFacts, gap: float = 600.0, match: str = "") -> list[PlayerGame]:
    """One game every ``gap`` seconds."""
    return [PlayerGame(f, i * gap, match) for i, f in enumerate(fs)]


PLAIN = facts(3, -2)
WIN = facts(2, 4)
# badge → (the player's games, the last one the moment; a near miss of the same badge)
CASES: dict[Badge, tuple[list[PlayerGame], list[PlayerGame]]] = {
    Badge.FIRST_TOUKE: (games(PLAIN, facts(1, 4)), games(PLAIN, facts(2, 4))),
    Badge.TOUKE_STREAK: (
        games(PLAIN, *[facts(1, 4)] * 5),
        games(*[facts(1, 4)] * 4, facts(2, 4), facts(1, 4)),
    ),
    Badge.FIRST_BURN: (
        games(PLAIN, facts(1, 4, burns=1, burn_wins=1)),
        games(PLAIN, facts(6, -4, burns=1, burn_fails=1)),
    ),
    Badge.COUNTER_BURN: (
        games(facts(2, 4, counter_burns=1, burn_wins=1, counter_burn_wins=1)),
        games(facts(2, 4, counter_burns=1)),
    ),
    Badge.BURN_BREAK: (games(facts(3, 2, burn_breaks=1)), games(facts(3, 2, burned=1))),
    Badge.SWEEP: (games(facts(1, 12, sweep=True)), games(facts(6, -12, swept=True))),
    Badge.MEN_EVENING: (
        games(facts(men_given=1), PLAIN, facts(men_given=2)),
        games(facts(men_given=1), facts(men_given=1), PLAIN),
    ),
    Badge.COMEBACK: (games(facts(6, -4), facts(1, 4)), games(facts(6, -4), PLAIN, facts(1, 4))),
    Badge.REVOLUTION_WIN: (
        games(facts(3, 6, revolted=True)),
        games(facts(4, -6, revolted=True)),
    ),
    Badge.YAOTOU_OPEN: (
        games(facts(2, 4, yaotou=True, opened=True)),
        games(facts(2, 4, yaotou=True)),
    ),
    Badge.WIN_STREAK: (games(*[WIN] * 5), games(*[WIN] * 4, facts(3, 0))),
    Badge.CENTURY: (games(*[PLAIN] * 100), games(*[PLAIN] * 99)),
}


def test_every_badge_has_a_case() -> None:
    assert set(CASES) == set(Badge)


@pytest.mark.parametrize("badge", list(Badge))
def test_badge_earned_at_its_moment(badge: Badge) -> None:
    hit, miss = CASES[badge]
    assert badge in new_badges(hit[:-1], hit[-1])
    assert badge not in new_badges(miss[:-1], miss[-1])
    assert badge not in {b for b, _ in badges_of(miss)}
    assert (badge, len(hit) - 1) in badges_of(hit)


@pytest.mark.parametrize("badge", list(Badge))
def test_badge_earned_once(badge: Badge) -> None:
    hit, _ = CASES[badge]
    again = [*hit, *(PlayerGame(g.facts, g.finished_at + 1000 * HOUR) for g in hit)]
    assert badge not in new_badges(again[:-1], again[-1])  # worked out from the history
    assert badge not in new_badges(hit[:-1], hit[-1], earned={str(badge)})  # as stored


def test_evenings_by_pause_or_by_match() -> None:
    men = facts(men_given=1)
    late = [PlayerGame(men, 0.0), PlayerGame(men, HOUR), PlayerGame(men, HOUR + EVENING_GAP + 1)]
    assert len(list(evening(late, 2))) == 1
    assert Badge.MEN_EVENING not in new_badges(late[:-1], late[-1])
    one_match = [PlayerGame(men, h * EVENING_GAP * 2, "t7") for h in range(3)]
    assert len(list(evening(one_match, 2))) == 3  # a match is one evening, however slow
    assert Badge.MEN_EVENING in new_badges(one_match[:-1], one_match[-1])


def test_badges_of_in_order_earned() -> None:
    run = games(facts(6, -4), facts(1, 12, sweep=True, burns=1, burn_wins=1))
    assert badges_of(run) == [
        (Badge.FIRST_TOUKE, 1),
        (Badge.FIRST_BURN, 1),
        (Badge.SWEEP, 1),
        (Badge.COMEBACK, 1),
    ]
    assert new_badges([], run[0]) == []

"""Seat geometry (docs/rules.md §1): six seats 0–5, play counterclockwise i → i+1, teams (联邦)
A = {0, 2, 4} and B = {1, 3, 5}, each player's 对头 across the table."""

from __future__ import annotations

from collections.abc import Iterator

SEATS = range(6)


def team(seat: int) -> int:
    """0 for team A (seats 0, 2, 4), 1 for team B (§1)."""
    return seat % 2


def team_seats(side: int) -> tuple[int, int, int]:
    """The three seats of team ``side`` (0 = A, 1 = B)."""
    return (side, side + 2, side + 4)


def opposite(seat: int) -> int:
    """The 对头 (§1): the seat across the table."""
    return (seat + 3) % 6


def teammates(seat: int) -> tuple[int, int]:
    """The two other members of ``seat``'s 联邦, counterclockwise."""
    return ((seat + 2) % 6, (seat + 4) % 6)


def ccw(start: int) -> Iterator[int]:
    """All six seats counterclockwise (§1: i → i+1), starting at ``start``."""
    return ((start + k) % 6 for k in range(6))

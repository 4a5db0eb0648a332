"""A burn asked of a player whose own 联邦 made the 够级 play (docs/rules.md §7 allows it: teammates
may burn each other). Nobody wants it buzzing: the question arrives without a notification, and
the claim declines itself after :data:`OWN_SIDE_BURN_S` seconds if the player does nothing — as
any burn claim that times out, silently (§7: who could burn is nobody's business) and without
counting towards 托管."""

from __future__ import annotations

from engine.match import Match
from engine.vocab import Ask

OWN_SIDE_BURN_S = 8.0


def own_side_burn(m: Match | None, ask: tuple[int, Ask] | None) -> bool:
    """Whether ``ask`` is a burn claim on a 够级 play of the asked seat's own 联邦."""
    if m is None or ask is None or ask[1] != Ask.BURN:
        return False
    top = m.view(None).top
    return top is not None and top.seat is not None and top.seat % 2 == ask[0] % 2

"""Ranks, the end of a game and the score (docs/rules.md §10), and the debts it leaves (§9, §11)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rules import Rules
from .seats import opposite, team, teammates
from .vocab import TributeKind

RANK_POINTS = {1: 4, 2: 2, 3: 0, 4: 0, 5: -2, 6: -4}  # §10 计分


@dataclass(frozen=True)
class Debt:
    """A tribute owed for the next game (RECORDS.md ``tributes``, §11)."""

    src: int
    dst: int
    kind: TributeKind
    cards: int

    def to_json(self) -> dict[str, int | str]:
        return {"from": self.src, "to": self.dst, "kind": str(self.kind), "cards": self.cards}


def revolutionary_rank(top_order: Sequence[int], rev: int, over: bool = False) -> int | None:
    """§5.4 / §10: 四科, or 三科 when the revolutionary's teammates take 头科 and 二科; settled as
    soon as a player not on their team takes 头科 or 二科, or their teammates take both — or,
    at the latest, when the game ends (then the teammates did not take both: 四科)."""
    mates = teammates(rev)
    if top_order and top_order[0] not in mates:
        return 4
    if len(top_order) >= 2:
        return 3 if top_order[1] in mates else 4
    return 4 if over else None


def compute_ranks(
    top_order: Sequence[int],
    fails: Sequence[int],
    smothers: Sequence[int],
    rev: int | None,
    over: bool = False,
) -> list[int | None]:
    """Ranks per seat (§10). ``top_order``: players in the order they finished (and, once the
    game is over, the remaining players in their ranking order); ``fails``: 诈烧 players and
    ``smothers``: 闷 players, each in the order it happened.

    The bottom fills from 大落 upward, first every 诈烧 player then every smothered player, the
    earliest lowest; everyone else takes the best rank still free; the revolutionary's rank is
    kept out of both fills.

    Gap in docs/rules.md, decided here: while the revolutionary's rank is unsettled, a teammate at
    the bottom (闷 or 诈烧) means the teammates cannot take both 头科 and 二科, so 四科 is kept
    free for the revolutionary even if four players end at the bottom (§5.4's promise of 三科 or
    四科 wins over filling the bottom upward). It is announced only when §10 settles it."""
    ranks: list[int | None] = [None] * 6
    bottom = (*fails, *smothers)
    rev_rank = revolutionary_rank(top_order, rev, over) if rev is not None else None
    reserved = rev_rank
    if rev is not None and rev_rank is None and any(s in teammates(rev) for s in bottom):
        reserved = 4
    free = [r for r in range(1, 7) if r != reserved]
    for seat in bottom:
        ranks[seat] = free.pop()
    for seat in top_order:
        ranks[seat] = free.pop(0)
    if rev is not None and rev_rank is not None:
        ranks[rev] = rev_rank
    return ranks


def score(ranks: Sequence[int | None]) -> tuple[int, int]:
    """§10: a team's game score is its members' points minus the other team's; only the winner
    records it (串三户 = 12); a tie records nothing. Unranked seats count 0."""
    pts = [RANK_POINTS.get(r, 0) if r is not None else 0 for r in ranks]
    diff = sum(pts[s] for s in (0, 2, 4)) - sum(pts[s] for s in (1, 3, 5))
    return (diff, 0) if diff > 0 else (0, -diff)


def chuan_team(ranks: Sequence[int | None]) -> int | None:
    """§10 串三户: the team holding 头科, 二科 and 三科 (a revolutionary teammate holding 三科 is
    exactly the case "头科 and 二科 with its third member a revolutionary")."""
    for t in (0, 1):
        held = {ranks[s] for s in range(6) if team(s) == t}
        if {1, 2, 3} <= held:
            return t
    return None


def point_debts(x_declared: bool, y_declared: bool, x_open: bool, y_open: bool) -> tuple[int, int]:
    """§9's table for one pair of 对头 (X, Y): (cards X owes Y, cards Y owes X)."""
    if y_declared and not x_declared:
        yx, xy = point_debts(True, False, y_open, x_open)
        return xy, yx
    if not x_declared:  # nobody declared
        if x_open and not y_open:
            return 0, 1
        if y_open and not x_open:
            return 1, 0
        return (1, 1) if not x_open else (0, 0)
    if y_declared:  # both declared
        if x_open and not y_open:
            return 0, 4
        if y_open and not x_open:
            return 4, 0
        return 2, 2
    # X only declared
    if x_open and not y_open:
        return 0, 3
    if y_open and not x_open:
        return 3, 0
    return (1, 2) if not x_open else (2, 0)


def debts(
    rules: Rules,
    ranks: Sequence[int | None],
    opened: Sequence[bool],
    declared: Sequence[int],
    men: Sequence[tuple[int, int]],
    shao: Sequence[tuple[int, int, int]],
) -> list[Debt]:
    """The tributes a finished game leaves for the next one (§11), in payment order:
    闷贡, 烧贡, 点贡 (or 串三户's cards in its place), 落贡."""
    if rules.tribute == "off":
        return []
    chuan = chuan_team(ranks)
    full = rules.tribute == "all"
    out: list[Debt] = []
    if full and chuan is None:
        out += [Debt(src, dst, TributeKind.MEN, 1) for src, dst in men]
        out += [Debt(src, dst, TributeKind.SHAO, n) for src, dst, n in shao]
    scale = 2 if rules.point_table == "double" else 1
    for x in (0, 1, 2):
        y = opposite(x)
        if full and rules.open_point:
            xy, yx = point_debts(x in declared, y in declared, opened[x], opened[y])
            xy, yx = xy * scale, yx * scale
        else:
            xy = yx = 0
        for src, dst, n in ((x, y, xy), (y, x, yx)):
            if chuan is not None and team(src) != chuan:
                # §11 串三户: each loser gives their 对头 1 card, or their 点贡 instead.
                out.append(
                    Debt(src, dst, TributeKind.DIAN, n)
                    if n
                    else Debt(src, dst, TributeKind.CHUAN, 1)
                )
            elif n:
                out.append(Debt(src, dst, TributeKind.DIAN, n))
    if chuan is None:
        # §11 落贡: 大落 → 头科 2 cards, 二落 → 二科 1; waived between teammates.
        seat_of = {r: s for s, r in enumerate(ranks) if r is not None}
        for payer_rank, taker_rank, n in ((6, 1, 2), (5, 2, 1)):
            payer, taker = seat_of.get(payer_rank), seat_of.get(taker_rank)
            if payer is None or taker is None:
                continue
            if rules.waive_team_tribute and team(payer) == team(taker):
                continue
            out.append(Debt(payer, taker, TributeKind.LUO, n))
    return out

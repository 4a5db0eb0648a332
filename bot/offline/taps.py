"""Taps per decision: ``python -m bot.offline.taps [--games N] [--seed S]``.

Seeded games in which every seat plays as the normal AI; at each decision of the play (lead,
answer, burn claim) the presses a person needs to make the AI's choice are counted, once with
the hand keyboard of :mod:`bot.handkeys` and once with the keyboard it replaced (a rank tap took
the whole rank and each further tap one card fewer; 2s and jokers one a tap; the six cheapest
answers as one-tap buttons). A one-tap answer or 过 is one press; otherwise the fewest building
taps (a breadth-first search over the buttons offered) and 出; a burn that will fail (§7) one
more, to confirm. 提示 is left out: it would make every decision two presses."""

from __future__ import annotations

import argparse
import random
import statistics
from collections import Counter, deque
from collections.abc import Callable, Iterable

from engine.ai import decide
from engine.cards import BIG, NRANKS, SMALL, TWO, Counts, parse
from engine.legal import Legal
from engine.match import Match
from engine.plays import Play
from engine.rules import PRESETS
from engine.vocab import Do

from ..handkeys import EMPTY_SELECTION, EXTRAS, moves, quick_answers, situation, tap

Step = Callable[[Counts], Iterable[Counts]]
MAX_DEPTH = 40


def fewest_taps(target: Counts, step: Step) -> int | None:
    """The fewest taps from nothing chosen to ``target`` (None: not reachable)."""
    seen = {EMPTY_SELECTION: 0}
    queue = deque([EMPTY_SELECTION])
    while queue:
        sel = queue.popleft()
        depth = seen[sel]
        if sel == target:
            return depth
        if depth >= MAX_DEPTH:
            continue
        for nxt in step(sel):
            if nxt not in seen:
                seen[nxt] = depth + 1
                queue.append(nxt)
    return None


def new_step(legal: Legal, hand: Counts) -> Step:
    def step(sel: Counts) -> Iterable[Counts]:
        return [tap(legal, hand, sel, op, arg) for op, arg in moves(legal, hand, sel)]

    return step


# -- the keyboard before (kept here only to measure against) ----------------------------------
def old_toggle(selection: Counts, hand: Counts, rank: int) -> Counts:
    sel = list(selection)
    if rank in EXTRAS:
        sel[rank] = (sel[rank] + 1) % (hand[rank] + 1)
        return tuple(sel)
    for r in range(TWO):
        if r != rank:
            sel[r] = 0
    sel[rank] = hand[rank] if sel[rank] == 0 else sel[rank] - 1
    return tuple(sel)


def old_step(legal: Legal, hand: Counts) -> Step:
    ranks = [r for r in range(NRANKS) if any(p.counts[r] for p in legal.plays)]

    def step(sel: Counts) -> Iterable[Counts]:
        return [old_toggle(sel, hand, r) for r in ranks]

    return step


def old_quick(legal: Legal) -> list[Counts]:
    """The six cheapest answers (the key the keyboard before used)."""

    def key(p: Play) -> tuple[int, int, int, int]:
        sh = p.shape
        return (p.counts[BIG] + p.counts[SMALL], p.counts[TWO], sh.base, sh.small)

    return [] if legal.any_lead else [p.counts for p in sorted(legal.plays, key=key)[:6]]


# -- the games --------------------------------------------------------------------------------
def decision_taps(match: Match, seat: int, cards: str | None) -> tuple[int, int]:
    """(presses before, presses now) to make the play ``cards`` (None: 过 or 让牌)."""
    if cards is None:
        return 1, 1
    legal = match.choices(seat)
    hand = parse(match.view(seat).hand or "")
    target = parse(cards)
    before = (
        1 if target in old_quick(legal) else _plus_play(fewest_taps(target, old_step(legal, hand)))
    )
    now = (
        1
        if target in [p.counts for p in quick_answers(legal)]
        else _plus_play(fewest_taps(target, new_step(legal, hand)))
    )
    if cards in situation(match, seat).risky:
        now += 1  # 确认烧
    return before, now


def _plus_play(taps: int | None) -> int:
    if taps is None:
        raise AssertionError("a legal play the keyboard cannot build")
    return taps + 1  # and 出


def measure(games: int, seed: int) -> dict[str, list[tuple[int, int]]]:
    """Presses (before, now) of every play decision, by what was asked ("pass": 过 and 让牌;
    leads of a 够级 play with 2s or jokers apart)."""
    out: dict[str, list[tuple[int, int]]] = {}
    for g in range(games):
        rules = PRESETS[list(PRESETS)[g % len(PRESETS)]]
        match = Match(rules, seed=seed + g)
        match.new_game()
        rng = random.Random(seed + g)
        while not match.over:
            ask = match.asked()
            assert ask is not None
            seat, kind = ask
            d = decide(match, seat, "normal", rng)
            if match.game is not None:
                cards = d.action.cards if d.action.do == Do.PLAY else None
                key = kind if cards is not None else "pass"
                play = Play.parse(cards or "")
                if kind == "lead" and play is not None and play.gouji and play.has_money_or_flower:
                    key = "gouji lead, 2s/jokers"
                out.setdefault(key, []).append(decision_taps(match, seat, cards))
            match.apply(d.action)
    return out


def p90(values: list[int]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else 0.0


def report(taps: dict[str, list[tuple[int, int]]]) -> str:
    head = (
        f"{'decisions':<22}{'n':>6}  {'before med/p90/max/mean':>24}  {'now med/p90/max/mean':>21}"
    )
    lines = [head]
    groups = {**taps, "all": [x for v in taps.values() for x in v]}
    groups["plays (not 过)"] = [x for k, v in taps.items() for x in v if k != "pass"]
    groups["leads"] = [x for k, v in taps.items() for x in v if "lead" in k]
    for name, pairs in groups.items():
        if not pairs:
            continue
        cols = []
        for i in (0, 1):
            vals = [p[i] for p in pairs]
            mean = statistics.fmean(vals)
            cols.append(f"{statistics.median(vals):g}/{p90(vals):g}/{max(vals)}/{mean:.2f}")
        lines.append(f"{name:<22}{len(pairs):>6}  {cols[0]:>24}  {cols[1]:>21}")
    now = Counter(p[1] for pairs in taps.values() for p in pairs)
    lines.append("presses now: " + ", ".join(f"{k}: {now[k]}" for k in sorted(now)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(report(measure(args.games, args.seed)))


if __name__ == "__main__":
    main()

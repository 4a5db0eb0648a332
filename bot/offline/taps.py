"""Taps per decision: ``python -m bot.offline.taps [--games N] [--seed S]``.

Seeded games in which every seat plays as the normal AI; at each decision of the play (lead,
answer, burn claim) the presses a person needs to make the AI's choice with the hand keyboard
of :mod:`bot.handkeys` are counted: a ▶ play (a one-tap answer, or 2s or jokers led alone) or
过 is one press; otherwise the fewest building taps (a breadth-first search over the buttons
offered) and 出. A burn that will fail (§7) takes one more, to confirm, as before; so does a ▶
play that spends 2s or jokers or splits a 够级 of the hand (§4) now — "before" leaves that
second tap out, "now" counts it, and the decisions that take it are counted by reason. 提示 is
left out: it would make every decision two presses."""

from __future__ import annotations

import argparse
import random
import statistics
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from engine.ai import decide
from engine.cards import Counts, parse
from engine.legal import Legal
from engine.match import Match
from engine.rules import PRESETS
from engine.vocab import Do

from ..handkeys import EMPTY_SELECTION, caution, moves, one_taps, situation, tap

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


@dataclass
class Taps:
    """Presses per decision (before, now) by what was asked, and the second taps by reason."""

    decisions: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    second: Counter[str] = field(default_factory=Counter)


def decision_taps(match: Match, seat: int, cards: str | None) -> tuple[int, int, str]:
    """(presses before, presses now, why a second tap) to make the play ``cards`` (None: 过 or
    让牌); why: "2s/jokers", "够级" (split, spending no 2 or joker), or ""."""
    if cards is None:
        return 1, 1, ""
    legal = match.choices(seat)
    hand = parse(match.view(seat).hand or "")
    target = parse(cards)
    sit = situation(match, seat)
    risky = int(cards in sit.risky)  # 确认烧
    built = 0
    if legal.any_lead or target not in [p.counts for p in one_taps(legal, sit)]:
        found = fewest_taps(target, new_step(legal, hand))
        if found is None:
            raise AssertionError("a legal play the keyboard cannot build")
        built = found + 1 + risky  # and 出 (before, a lead's 2s or jokers alone were built)
    if target not in [p.counts for p in one_taps(legal, sit)]:
        return built, built, ""
    spends, breaks = caution(hand, cards)
    why = "" if risky else "2s/jokers" if spends else "够级" if breaks else ""
    return built or 1 + risky, 1 + (risky or bool(why)), why


def measure(games: int, seed: int) -> Taps:
    """Presses of every play decision, by what was asked ("pass": 过 and 让牌)."""
    out = Taps()
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
                before, now, why = decision_taps(match, seat, cards)
                key = kind if cards is not None else "pass"
                out.decisions.setdefault(key, []).append((before, now))
                out.second[why] += 1
            match.apply(d.action)
    return out


def p90(values: list[int]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else 0.0


def report(taps: Taps) -> str:
    heads = f"{'before med/p90/max/mean':>24}  {'now med/p90/max/mean':>21}"
    head = f"{'decisions':<16}{'n':>7}  {heads}"
    lines = [head]
    groups = {**taps.decisions, "all": [x for v in taps.decisions.values() for x in v]}
    groups["plays (not 过)"] = [x for k, v in taps.decisions.items() for x in v if k != "pass"]
    for name, pairs in groups.items():
        if not pairs:
            continue
        cols = []
        for i in (0, 1):
            vals = [p[i] for p in pairs]
            mean = statistics.fmean(vals)
            cols.append(f"{statistics.median(vals):g}/{p90(vals):g}/{max(vals)}/{mean:.2f}")
        lines.append(f"{name:<16}{len(pairs):>7}  {cols[0]:>24}  {cols[1]:>21}")
    total = sum(taps.second.values())
    second = {k: n for k, n in taps.second.items() if k}
    share = sum(second.values()) / total if total else 0.0
    lines.append(
        f"a second tap for safety: {sum(second.values())} of {total} decisions ({share:.1%}); "
        + ", ".join(f"{k}: {n}" for k, n in sorted(second.items()))
    )
    now = Counter(p[1] for pairs in taps.decisions.values() for p in pairs)
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

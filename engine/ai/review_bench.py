"""``python -m engine review-bench``: the post-game review (:mod:`engine.ai.review`) of seeded
games played by the computer (the normal level on both sides), its figures printed (never a
timed test). Per game: the CPU time of this process, the decisions in the record, those
reviewed, valued again and solved exactly, the rollouts and the picks (the two costliest
decisions of each team); and how many of the picks agree with a reference run
(``--make-reference`` writes it: the same games reviewed with :data:`~engine.ai.review.REFERENCE`
effort, other rollouts and a 60 s cap). ``--stability`` reviews each game again with another
seed, ``--resample`` with other rollouts (``salt``), and counts the games whose picks stay.

The last line printed is JSON: ``cpu_s_median`` (CPU seconds a game), ``agreement`` (the
share of places where the costliest decisions agree with the reference's), ``agreement_shown``
(the same places, as the message shows them: a near tie agrees when it names the reference's
pick), ``lines_shown`` and, with ``--resample``, ``resample_stable`` (the share of the lines
shown that reappear with other rollouts), and the rest of the figures (docs/review.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..match import Match
from ..rules import Rules
from .decision import decide
from .review import PRODUCTION, REFERENCE, Effort, Review, review_game
from .review_lines import SHOWN

DEAL_STRIDE = 1_000_003  # game seeds: seed * stride + index, as the arena's deals
REFERENCE_FILE = Path(__file__).resolve().parents[2] / "data" / "review_reference.json"
REFERENCE_SALT = "reference"  # the reference's rollouts are not the bench's
PICKS = 2  # places per team compared with the reference


def ai_game_record(rules: Rules, seed: int, levels: tuple[str, str] = ("normal", "normal")) -> str:
    """The game record (RECORDS.md, JSON text) of game 1 of a seeded match, its deal phase
    and play decided by the computer: team A (seats 0 2 4) at ``levels[0]``, team B at
    ``levels[1]``."""
    match = Match(rules, seed=seed)
    match.new_game()
    rngs = [random.Random(seed * 6 + s) for s in range(6)]
    while (ask := match.asked()) is not None:
        seat = ask[0]
        match.apply(decide(match, seat, levels[seat % 2], rngs[seat]).action)
    assert match.game is not None
    return json.dumps(match.game.record().to_json())


def picks(review: Review) -> list[list[int]]:
    """The costliest :data:`PICKS` decisions of each team, by their index in the record (the
    settled lines, then the costliest of a near tie: the team's costliest by the estimates)."""
    return [[tp.index for tp in side[:PICKS]] for side in review.teams]


def lines(review: Review) -> list[tuple[list[int], list[int]]]:
    """What each team's message shows: its settled lines and the decisions of its near tie."""
    return [
        ([tp.index for tp in side if not tp.tied], [tp.index for tp in side if tp.tied])
        for side in review.teams
    ]


def agreeing_shown(
    mine: Sequence[tuple[list[int], list[int]]], ref: Sequence[Sequence[int]]
) -> int:
    """Places (of :data:`PICKS` per team) where what a review shows agrees with the reference's
    picks: a settled line the reference picked; a place left to a near tie whose decisions
    include a reference pick (one place per pick); a place both left empty."""
    n = 0
    for (firm, tied), theirs in zip(mine, ref, strict=True):
        firm = firm[:PICKS]
        open_ = min(PICKS - len(firm), len(tied))
        rest = [i for i in theirs if i not in firm]
        n += len(set(firm) & set(theirs)) + min(open_, len(set(rest) & set(tied)))
        n += min(PICKS - len(firm) - open_, PICKS - len(theirs))
    return n


def reappearing(mine: Sequence[tuple[list[int], list[int]]], other: Review) -> tuple[int, int]:
    """(Lines a review shows, those that reappear in ``other``, the same game reviewed with
    other rollouts): a settled line reappears when ``other`` names its decision (settled or
    tied); a near tie, when ``other`` names one of its decisions."""
    shown = again = 0
    for (firm, tied), side in zip(mine, other.teams, strict=True):
        named = {tp.index for tp in side}
        shown += len(firm) + bool(tied)
        again += len(set(firm) & named) + bool(set(tied) & named)
    return shown, again


def agreeing(mine: Sequence[Sequence[int]], ref: Sequence[Sequence[int]]) -> int:
    """Places (of :data:`PICKS` per team) where two reviews agree: a decision both picked, or
    a place both left empty (no costly decision)."""
    return sum(
        len(set(a) & set(b)) + min(PICKS - len(a), PICKS - len(b))
        for a, b in zip(mine, ref, strict=True)
    )


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _line(i: int, spent: float, r: Review, extra: str = "") -> str:
    return (
        f"game {i + 1}: {spent:5.2f} s, {r.decisions} decisions, {r.compared} reviewed, "
        f"{r.deep} again, {r.exact} exactly, {r.rollouts} rollouts, "
        f"{'settled' if r.settled else 'NOT settled'}, picks {picks(r)}{extra}"
    )


def make_reference(
    games: int,
    seed: int,
    preset: str,
    budget_s: float,
    path: Path,
    effort: Effort = REFERENCE,
    first: int = 0,
) -> int:
    """Review the seeded games ``first`` … ``first + games - 1`` with the reference ``effort``
    and write their picks to ``path`` (after each game: a run cut short leaves the games done).
    The rows of other games already in ``path`` for the same seed, preset, budget and effort
    are kept (a long run split across processes writes one file)."""
    rules = Rules.preset_named(preset)
    made: dict[str, Any] = {
        "how": "python -m engine review-bench --make-reference",
        "games": games,
        "seed": seed,
        "preset": preset,
        "budget_s": budget_s,
        "effort": effort.__dict__,
        "salt": REFERENCE_SALT,
        "reviews": [],
    }
    for i in range(first, first + games):
        text = ai_game_record(rules, seed * DEAL_STRIDE + i)
        t = time.process_time()
        r = review_game(text, budget_s, salt=REFERENCE_SALT, effort=effort)
        spent = time.process_time() - t
        print(_line(i, spent, r), flush=True)
        made["reviews"].append(
            {
                "game": i,
                "record_sha256": _digest(text),
                "cpu_s": round(spent, 2),
                "picks": picks(r),
                "review": r.to_json(),
            }
        )
        _write_reference(path, made)
    print(json.dumps({"reference": str(path), "games": games}))
    return 0


def _write_reference(path: Path, made: dict[str, Any]) -> None:
    """Write ``made`` to ``path`` with the rows of the other games already there (the same
    seed, preset, budget, effort and salt), by game; atomically (a rename)."""
    mine = {row["game"] for row in made["reviews"]}
    rows = list(made["reviews"])
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        same = ("seed", "preset", "budget_s", "effort", "salt")
        if all(old.get(k) == made[k] for k in same):
            rows += [row for row in old["reviews"] if row["game"] not in mine]
    rows.sort(key=lambda row: int(row["game"]))
    out = dict(made, games=len(rows), reviews=rows)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def run(
    games: int,
    seed: int,
    preset: str,
    budget_s: float,
    samples: int | None = None,
    stability: bool = False,
    resample: bool = False,
    reference: Path = REFERENCE_FILE,
    first: int = 0,
) -> int:
    """Review the seeded games as the bot does and print the figures (module doc); ``first``:
    the index of the first game (a long run split across processes)."""
    rules = Rules.preset_named(preset)
    effort = PRODUCTION if samples is None else replace(PRODUCTION, cap=samples)
    refs: dict[int, dict[str, Any]] = {}
    if reference.exists():
        stored = json.loads(reference.read_text(encoding="utf-8"))
        if (stored["seed"], stored["preset"]) == (seed, preset):
            refs = {int(row["game"]): row for row in stored["reviews"]}
    times: list[float] = []
    agree = places = full = agree_shown = settled_ref = settled_seen = 0
    same = same_resampled = kept = 0
    shown = again = named = named_again = firm = firm_again = ties = 0
    unsettled = 0
    for i in range(first, first + games):
        text = ai_game_record(rules, seed * DEAL_STRIDE + i)
        t = time.process_time()
        r = review_game(text, budget_s, random.Random(seed * DEAL_STRIDE + i), effort=effort)
        spent = time.process_time() - t
        times.append(spent)
        unsettled += not r.settled
        extra = ""
        ref = refs.get(i)
        if ref is not None and ref["record_sha256"] == _digest(text):
            n = agreeing(picks(r), ref["picks"])
            agree, places, full = agree + n, places + 2 * PICKS, full + (n >= 3)
            agree_shown += agreeing_shown(lines(r), ref["picks"])
            for (settled, _), theirs in zip(lines(r), ref["picks"], strict=True):
                settled_seen += len(settled)
                settled_ref += len(set(settled) & set(theirs))
            extra += f", reference {ref['picks']}: {n} of {2 * PICKS}"
        if stability:
            other = review_game(text, budget_s, random.Random(f"other:{i}"), effort=effort)
            same += agreeing(picks(other), picks(r)) == 2 * PICKS
            extra += f", other seed {picks(other)}"
        if resample:
            other = review_game(text, budget_s, salt=f"resample:{i}", effort=effort)
            same_resampled += agreeing(picks(other), picks(r)) == 2 * PICKS
            kept += agreeing(picks(other), picks(r))
            extra += f", other rollouts {lines(other)}"
            again += reappearing(lines(r), other)[1]
            for (settled, tie), side in zip(lines(r), other.teams, strict=True):
                names = {tp.index for tp in side}
                named, named_again = (
                    named + len(settled) + len(tie),
                    named_again + len(names & {*settled, *tie}),
                )
                firm, firm_again = firm + len(settled), firm_again + len(names & set(settled))
                ties += bool(tie)
        shown += sum(len(settled) + bool(tie) for settled, tie in lines(r))
        print(_line(i, spent, r, f", lines {lines(r)}{extra}"), flush=True)
        for side in r.teams:
            for tp in side:
                print(
                    f"    seat {tp.seat} action {tp.index} (trick {tp.trick}, {tp.ask}): "
                    f"{tp.played} -> {tp.suggested}: -{tp.points:.1f} points, "
                    f"win -{100 * tp.win:.0f}%{'' if tp.win_sure else ' (not shown)'} "
                    f"({tp.rollouts or 'exact'}), {tp.outcome}{', tied' if tp.tied else ''}"
                )
    figures: dict[str, Any] = {
        "games": games,
        "preset": preset,
        "budget_s": budget_s,
        "effort": effort.__dict__,
        "cpu_s_max": round(max(times), 2),
        "unsettled": unsettled,
        "reference_games": places // (2 * PICKS),
        "games_3_of_4": full,
        "lines_shown": shown,
    }
    if stability:
        figures["same_picks_other_seed"] = same
    if resample:
        figures["same_picks_other_rollouts"] = same_resampled
        figures["places_kept_other_rollouts"] = round(kept / (2 * PICKS * games), 3)
        # what the message shows, reviewed again with other rollouts (docs/review.md)
        figures["settled_lines"] = firm
        figures["settled_again"] = round(firm_again / firm, 3) if firm else None
        figures["tie_lines"] = ties
        figures["named"] = named
        figures["named_again"] = round(named_again / named, 3) if named else None
        figures["resample_stable"] = round(again / shown, 3) if shown else None
    figures["cpu_s_median"] = round(statistics.median(times), 2)
    figures["agreement"] = round(agree / places, 3) if places else None
    figures["agreement_shown"] = round(agree_shown / places, 3) if places else None
    # the settled lines (of games with a reference) that the reference picks too
    figures["settled_in_reference"] = round(settled_ref / settled_seen, 3) if settled_seen else None
    print(json.dumps(figures))
    return 0


def main(args: Any) -> int:
    """``python -m engine review-bench`` with its parsed options (engine/__main__.py; its
    ``--resample-pair`` is :func:`engine.ai.review_pair.main`)."""
    path = REFERENCE_FILE if args.reference is None else Path(args.reference)
    if args.make_reference:
        effort = REFERENCE if args.samples is None else replace(REFERENCE, cap=args.samples)
        return make_reference(
            args.games, args.seed, args.preset, args.budget_s, path, effort, args.first
        )
    return run(
        args.games,
        args.seed,
        args.preset,
        args.budget_s,
        args.samples,
        args.stability,
        args.resample,
        path,
        args.first,
    )


assert SHOWN >= PICKS  # the picks compared are among those a review shows

"""``python -m renderers bench | replay-bench | samples [DIR] | subset-font [FONT] | rulebook``.

``bench`` renders a 36-card hand and a table many times and prints, as its last line, JSON with
the median times (ms) and sizes (bytes). ``samples [DIR] [SEED]`` plays a seeded game of six AI
players and writes, from it, ``hand.png`` (the first leader's hand as dealt, its largest group
selected), ``table.png`` (the
table during its first burn) and ``game_over.png`` (default ``data/samples/``, seed
``SAMPLE_SEED``). ``replay-bench`` times a game's replay (:mod:`renderers.replay_bench`).
``subset-font`` remakes the shipped CJK font. ``rulebook`` rebuilds ``data/rulebook.json`` (the
pages of ``/rules``) from ``docs/rules.md``: run it after changing the rulebook.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from engine.ai import decide
from engine.cards import RANK_CHARS, TWO, parse
from engine.match import Match
from engine.rules import STANDARD
from engine.view import SeatView
from engine.vocab import Ask

from .hand_image import render_hand
from .i18n import DATA_DIR
from .png import render_game_over, render_table
from .samples import SAMPLE_HAND, SAMPLE_NAMES, sample_over, sample_view

GAME_NAMES = ("老王", "小李", "张姐", "阿强", "王叔", "小美")  # the README's samples
SAMPLE_SEED = 30  # a game with a burn, a 解烧, a 闷, 开点 and tributes owed


def _time(fn: Callable[[], bytes], runs: int) -> tuple[float, int]:
    fn()  # warm the caches
    times = []
    size = 0
    for _ in range(runs):
        start = time.perf_counter()
        size = len(fn())
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), size


def bench(runs: int = 200) -> dict[str, float | int]:
    view = sample_view()
    hand_ms, hand_bytes = _time(lambda: render_hand(SAMPLE_HAND, "KKK"), runs)
    table_ms, table_bytes = _time(lambda: render_table(view, SAMPLE_NAMES), max(runs // 4, 10))
    over = sample_over()
    over_ms, over_bytes = _time(lambda: render_game_over(over, SAMPLE_NAMES), max(runs // 4, 10))
    return {
        "hand_ms_median": round(hand_ms, 2),
        "hand_bytes": hand_bytes,
        "hand_cards": len(SAMPLE_HAND),
        "table_ms_median": round(table_ms, 2),
        "table_bytes": table_bytes,
        "game_over_ms_median": round(over_ms, 2),
        "game_over_bytes": over_bytes,
    }


def sample_game(seed: int = SAMPLE_SEED) -> tuple[str, SeatView, SeatView, tuple[int, int]]:
    """A seeded real game of six normal AI players (standard rules): the first leader's hand as
    dealt, the table when a player is first asked to answer a burn (else its last position with a
    top),
    the final view and the match score."""
    rng = random.Random(seed)
    match = Match(STANDARD, seed=seed)
    match.new_game()
    ask = match.asked()
    hand = match.view(ask[0] if ask else 0).hand or ""
    table: SeatView | None = None
    fallback: SeatView | None = None
    while (ask := match.asked()) is not None:
        view = match.view(None)
        if view.top is not None and view.phase == "play":
            fallback = view
            burn = view.burning is not None and view.top.burn
            if table is None and burn and view.asked == Ask.ANSWER:
                table = view
        match.apply(decide(match, ask[0], "normal", rng).action)
    assert fallback is not None
    return hand, table or fallback, match.view(None), (match.totals[0], match.totals[1])


def samples(out: Path, seed: int = SAMPLE_SEED) -> None:
    hand, table, over, totals = sample_game(seed)
    out.mkdir(parents=True, exist_ok=True)
    counts = parse(hand)
    group = max(range(TWO), key=lambda r: (counts[r], r))  # the largest plain group, selected
    (out / "hand.png").write_bytes(render_hand(hand, RANK_CHARS[group] * counts[group]))
    (out / "table.png").write_bytes(render_table(table, GAME_NAMES))
    (out / "game_over.png").write_bytes(render_game_over(over, GAME_NAMES, match_score=totals))
    print(f"wrote {out}/hand.png, table.png, game_over.png (seed {seed})")


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "bench"
    if command == "bench":
        runs = int(argv[1]) if len(argv) > 1 else 200
        print(f"rendering a {len(SAMPLE_HAND)}-card hand {runs} times…")
        print(json.dumps(bench(runs)))
        return 0
    if command == "replay-bench":
        from .replay_bench import main as replay_bench_main

        replay_bench_main()
        return 0
    if command == "samples":
        out = Path(argv[1]) if len(argv) > 1 else DATA_DIR / "samples"
        samples(out, int(argv[2]) if len(argv) > 2 else SAMPLE_SEED)
        return 0
    if command == "subset-font":
        from .fontsubset import main as subset_main

        subset_main(argv[1:])
        return 0
    if command == "rulebook":
        from .rulebook import write_book

        book = write_book(DATA_DIR.parent / "docs" / "rules.md")
        pages = ", ".join(f"{lang} {len(p)} pages" for lang, p in book.items())
        print(f"wrote data/rulebook.json: {pages}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The offline demo: one game of six AI players, printed in the terminal as the group chat would
read it — the group transcript, one line per trick plus the moments a table cheers — with the
images a player would get saved to a folder. Needs no token, no network."""

from __future__ import annotations

import html
import random
import re
from pathlib import Path

from engine.ai import decide
from engine.match import Match
from engine.rules import Rules
from renderers import Transcript, render_game_over, render_hand, render_table

NAMES = {
    "zh": ("老王", "小李", "张姐", "阿强", "王叔", "小美"),
    "en": ("Wang", "Li", "Zhang", "Qiang", "Uncle Wang", "Mei"),
}
_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """Telegram HTML to terminal text."""
    return html.unescape(_TAG.sub("", text))


def run_demo(
    lang: str = "zh",
    seed: int | None = None,
    preset: str = "standard",
    level: str = "normal",
    out_dir: Path = Path("out/demo"),
    games: int = 1,
) -> int:
    rng = random.Random(seed)
    names = NAMES.get(lang, NAMES["zh"])
    match = Match(Rules.preset_named(preset), rng)
    out_dir.mkdir(parents=True, exist_ok=True)
    for number in range(1, games + 1):
        transcript = Transcript(names, lang)
        transcript.feed(match.new_game())
        for line in transcript.take_finished():
            print(plain(line))
        hand_saved = False
        step = 0
        while (ask := match.asked()) is not None:
            seat, _ = ask
            if not hand_saved and match.game is not None:
                (out_dir / f"game{number}-hand-seat1.png").write_bytes(
                    render_hand(match.view(0).hand or "")
                )
                hand_saved = True
            decision = decide(match, seat, level, rng)
            transcript.feed(match.apply(decision.action))
            for line in transcript.take_finished():
                print(plain(line))
            view = match.view(None)
            step += 1
            if step % 60 == 0:
                (out_dir / f"game{number}-table-{step}.png").write_bytes(
                    render_table(view, names, lang)
                )
        final = match.view(None)
        totals = (match.totals[0], match.totals[1])
        (out_dir / f"game{number}-over.png").write_bytes(
            render_game_over(final, names, lang, match_score=totals)
        )
    print(f"\nImages: {out_dir.resolve()}")
    return 0

"""How tall a player's DM is on a phone 390 points wide: the hand message (picture, caption,
buttons) of seeded positions, measured as :mod:`bot.offline.screens` draws chat screenshots.

    python3 -m bot.offline.dmsize [--seed 11] [--names long]

Prints, for each position, the caption's length in UTF-16 units (Telegram's limit: 1024) and the
message's height in points at 390 wide: the bubble with its keyboard, and with the chat's chrome
(header and margins) as a screenshot has it. A developer's figure, not a test.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from engine.ai import decide
from engine.match import Match
from engine.rules import STANDARD, Rules
from engine.vocab import Status

from ..model import Seat, TableState, TableStatus
from ..table import Table
from .localapi import Button, SentMessage
from .screens import chat_height

SHORT = ["老王", "张姐", "阿强", "王叔", "小美", "李四"]
LONG = [f"{n}🀄️的名字特别特别长一点也不短啊👨‍👩‍👧‍👦" for n in SHORT]


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def table_at(
    seed: int,
    names: list[str],
    until: Callable[[Match], bool],
    lang: str,
    rules: Rules = STANDARD,
) -> Table:
    """A table of six players whose match (seeded) the easy AI plays until ``until`` holds."""
    st = TableState()
    st.seats = [Seat(n, user=1000 + i, lang=lang) for i, n in enumerate(names)]
    table = Table(1, -100, None, 1000, TableStatus.PLAYING, st)
    m = Match(rules, seed=seed)
    table.match = m
    table.feed(m.new_game())
    rng = random.Random(seed)
    while (ask := m.asked()) is not None and not until(m):
        table.feed(m.apply(decide(m, ask[0], "easy", rng, 10).action))
    return table


def message(table: Table, seat: int) -> SentMessage:
    out = table.hand_out(seat)
    assert out is not None and out.photo is not None
    rows = [[Button(b.text, b.data, b.url) for b in row] for row in out.keyboard or []]
    return SentMessage(1, out.chat_id, None, out.text, "HTML", photo=out.photo(), reply_markup=rows)


def asked_to_answer(m: Match) -> bool:
    v = m.view(0)
    return v.to_act == 0 and v.top is not None and m.game is not None


def out_of_play(m: Match) -> bool:
    return m.game is not None and m.game.status[0] != Status.ACTIVE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--names", choices=("short", "long"), default="short")
    args = ap.parse_args()
    names = LONG if args.names == "long" else SHORT
    chrome = chat_height([], 390)
    print(f"390 pt wide; the chat's chrome (header, margins) is {chrome} pt")
    positions: list[tuple[str, Callable[[Match], bool], int]] = [
        ("deal phase", lambda m: True, 0),
        ("asked to answer", asked_to_answer, 0),
        ("waiting", asked_to_answer, 1),
        ("out of play", out_of_play, 0),
    ]
    for lang in ("zh", "en"):
        for label, until, seat in positions:
            table = table_at(args.seed, names, until, lang)
            msg = message(table, seat)
            h = chat_height([msg], 390)
            print(
                f"{lang} {label:16} caption {utf16(msg.text):4} UTF-16 units, "
                f"{len(msg.reply_markup)} button rows: message {h - chrome} pt, with chrome {h} pt"
            )


if __name__ == "__main__":
    main()

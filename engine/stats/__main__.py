"""``python -m engine.stats bench [--games N] [--players P] [--seed S]``: see :mod:`.bench`."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.stats", description="够级 statistics")
    sub = parser.add_subparsers(dest="command", required=True)
    bp = sub.add_parser("bench", help="time facts, a player's stats and a leaderboard")
    bp.add_argument("--games", type=int, default=10_000, help="games stored in the group")
    bp.add_argument("--players", type=int, default=30, help="people of the group")
    bp.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    from .bench import run

    figures = run(args.games, args.players, args.seed)
    for key, value in figures.items():
        print(f"{key:34} {value}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())

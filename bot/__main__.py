"""``python -m bot``: the bot with ``TELEGRAM_BOT_TOKEN`` set; without it, an offline demo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="够级 referee bot")
    parser.add_argument(
        "--demo", action="store_true", help="run the offline demo even with a token"
    )
    parser.add_argument("--seed", type=int, default=None, help="demo: seed the deal")
    parser.add_argument("--preset", default="standard", help="demo: standard, qingdao or casual")
    parser.add_argument("--level", default="normal", help="demo: AI level (easy, normal, hard)")
    parser.add_argument("--games", type=int, default=1, help="demo: games in the match")
    parser.add_argument("--out", default="out/demo", help="demo: where to save images")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    if settings.token and not args.demo:
        print(
            "The Telegram front end is not part of this build yet; "
            "running the offline demo instead (python -m bot --demo).",
            file=sys.stderr,
        )
    from .demo import run_demo

    return run_demo(settings.lang, args.seed, args.preset, args.level, Path(args.out), args.games)


if __name__ == "__main__":
    sys.exit(main())

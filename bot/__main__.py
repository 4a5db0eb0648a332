"""``python -m bot``: the bot with ``TELEGRAM_BOT_TOKEN`` set; without it, the offline demo.
``python -m bot run`` is the bot for real in any case (without a token it says so and exits 1:
the container's command); ``python -m bot health`` exits 0 while the running bot is healthy.

``python -m bot demo [--seed S] [--lang zh|en] [--preset P] [--screens DIR]`` runs the demo in
any case; ``--screens DIR`` also saves the chat screenshots there (``data/samples/`` for the
README).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from engine.rules import PRESETS

from . import backup
from .environment import Environment
from .health import health


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="够级 referee bot")
    sub = parser.add_subparsers(dest="command")
    dp = sub.add_parser("demo", help="the real bot against a local server, six simulated players")
    for p in (parser, dp):
        p.add_argument("--seed", type=int, default=None, help="demo: seed of the deal")
        p.add_argument("--lang", choices=("zh", "en"), default=None, help="demo: language")
        p.add_argument("--preset", choices=list(PRESETS), default="standard", help="demo: rules")
        p.add_argument("--out", default="out/demo", help="demo: where to save the pictures")
        p.add_argument(
            "--screens", default=None, help="demo: also save bot_group.png and bot_dm.png here"
        )
    sub.add_parser("run", help="the bot for real; refuses to start without a token")
    sub.add_parser("health", help="exit 0 if the running bot is healthy (a HEALTHCHECK)")
    sub.add_parser("check", help="with a real token: is the bot ready to run? (exit 0 if so)")
    backup.add_parser(sub)
    bp = sub.add_parser("bench", help="N tables at once against a local server; figures")
    bp.add_argument("--tables", type=int, default=200)
    bp.add_argument("--actions", type=int, default=12, help="actions to play at each table")
    bp.add_argument("--seed", type=int, default=1)
    bp.add_argument(
        "--game", action="store_true", help="one six-person game at production pacing instead"
    )
    bp.add_argument(
        "--speed", type=float, default=4.0, help="--game: the clock's speed (1: real time)"
    )
    bp.add_argument(
        "--story", action="store_true", help="the story's queries on a group's stored games"
    )
    bp.add_argument("--games", type=int, default=10_000, help="--story: games stored")
    bp.add_argument(
        "--db",
        default="sqlite",
        help="the bot's storage: sqlite (a file), postgresql (a throwaway server), or a URL",
    )
    bp.add_argument(
        "--procs",
        type=int,
        default=1,
        help="bot processes on one database behind a round-robin webhook forwarder"
        " (more than 1: PostgreSQL only)",
    )
    bp.add_argument(
        "--webhook", action="store_true", help="one process too takes its updates by webhook"
    )
    bp.add_argument(
        "--hostile", type=int, default=0, help="noisy neighbours flooding beside the tables"
    )
    args = parser.parse_args(argv)
    if args.command == "bench" and args.story:
        from .offline.storybench import main as story_bench

        return story_bench(args.games, args.seed)
    if args.command == "bench" and args.hostile:
        from .offline.hostile import main as hostile_bench

        return hostile_bench(args.tables, args.hostile, args.actions, args.seed)
    if args.command == "bench" and args.game:
        from .offline.gamebench import main as game_bench

        return game_bench(args.seed, args.speed)
    if args.command == "bench":
        from .offline.bench import main as bench

        return bench(args.tables, args.actions, args.seed, args.db, args.procs, args.webhook)
    settings = Environment.from_env()
    if args.command == "backup":
        return backup.main(settings.db_path, args.dest)
    if args.command == "check":
        from .check import check, ready

        lines = asyncio.run(check(settings))
        for line in lines:
            print(line)
        return 0 if ready(lines) else 1
    if args.command == "health":
        problem = health(settings.db_path, who=settings.heartbeat_of())
        print(f"gouji: {problem}" if problem else "gouji: healthy", file=sys.stderr)
        return 1 if problem else 0
    real = args.command == "run" or (settings.token and args.command is None)
    logging.basicConfig(
        level=logging.INFO if real else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # its lines would carry the token
    if real:
        from .runner import run_polling

        return run_polling(settings)
    from .offline.demo import run_demo

    screens = Path(args.screens) if args.screens else None
    return run_demo(args.seed, args.lang or settings.lang, args.preset, Path(args.out), screens)


if __name__ == "__main__":
    sys.exit(main())

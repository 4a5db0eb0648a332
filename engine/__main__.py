"""``python -m engine replay FILE|-`` (RECORDS.md), ``python -m engine bench``, ``arena`` and
``review-bench`` (the 复盘's CPU and agreement, :mod:`engine.ai.review_bench`)."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="够级 rules engine")
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser(
        "replay", help="referee a game record (RECORDS.md) or a match record (MATCH_RECORDS.md)"
    )
    rp.add_argument("file", help="a record file, or - for standard input")
    bp = sub.add_parser("bench", help="play seeded random games and print figures")
    bp.add_argument("--games", type=int, default=300)
    bp.add_argument("--seed", type=int, default=1)
    bp.add_argument("--preset", default="standard")
    bp.add_argument(
        "--against",
        metavar="PATH",
        help="also measure the engine of another checkout (a worktree of an older commit)",
    )
    bp.add_argument("--rounds", type=int, default=5, help="with --against: interleaved rounds")
    ap = sub.add_parser("arena", help="AI level against AI level (team A vs team B)")
    ap.add_argument("--a", default="normal", help="level of team A (seats 0, 2, 4)")
    ap.add_argument("--b", default="easy", help="level of team B (seats 1, 3, 5)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--budget-ms", type=float, default=100.0, help="hard level's time per decision")
    ap.add_argument(
        "--samples", type=int, default=None, help="hard level: fixed deals per decision (no clock)"
    )
    ap.add_argument("--progress", action="store_true", help="show a progress line on stderr")
    rb = sub.add_parser(
        "review-bench", help="the 复盘 of seeded games: CPU a game, agreement with a reference"
    )
    rb.add_argument("--games", type=int, default=20)
    rb.add_argument("--seed", type=int, default=1)
    rb.add_argument("--first", type=int, default=0, help="the first game's index (a split run)")
    rb.add_argument("--preset", default="standard")
    rb.add_argument("--budget-s", type=float, default=60.0, help="each review's work cap")
    rb.add_argument("--make-reference", action="store_true", help="write the reference file")
    rb.add_argument("--reference", default=None, help="the reference file (data/…)")
    rb.add_argument("--samples", type=int, default=None, help="rollouts per action at most")
    rb.add_argument("--stability", action="store_true", help="each game again, another seed")
    rb.add_argument("--resample", action="store_true", help="each game again, other rollouts")
    rb.add_argument(
        "--resample-pair",
        nargs=2,
        metavar=("SALT_A", "SALT_B"),
        default=None,
        help="each game with two fresh sets of rollouts (- the bench's own): lines that reappear",
    )
    rb.add_argument(
        "--check-figures",
        metavar="SALT",
        default=None,
        help="each line's figures against fresh rollouts of its two actions (salt SALT)",
    )
    rb.add_argument(
        "--check-rollouts", type=int, default=512, help="fresh rollouts an action (--check-figures)"
    )
    args = parser.parse_args(argv)
    if args.command == "replay":
        from .record import replay_text

        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            try:
                with open(args.file, "rb") as f:
                    text = f.read()
            except OSError as e:
                out = {"ok": False, "error": {"code": "bad_record", "message": str(e)}}
                print(json.dumps(out, ensure_ascii=False))
                return 2
        out, status = replay_text(text)
        print(json.dumps(out, ensure_ascii=False, indent=1))
        return status
    if args.command == "bench":
        from .bench import compare, run

        if args.against:
            return compare(args.against, args.rounds, args.games, args.seed, args.preset)
        return run(args.games, args.seed, args.preset)
    if args.command == "arena":
        from .arena import run_arena

        return run_arena(
            args.a,
            args.b,
            args.games,
            args.seed,
            args.preset,
            args.budget_ms,
            args.samples,
            args.progress or None,
        )
    if args.command == "review-bench" and args.check_figures is not None:
        from .ai.review_check import main as review_check

        return review_check(args)
    if args.command == "review-bench" and args.resample_pair is not None:
        from .ai.review_pair import main as review_pair

        return review_pair(args)
    if args.command == "review-bench":
        from .ai.review_bench import main as review_bench

        return review_bench(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())

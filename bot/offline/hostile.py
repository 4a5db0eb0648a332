"""``python -m bot bench --tables N --hostile H``: the noisy-neighbour bench (issue 33).

N calm tables of simulated players play against the local Bot API server while, after a calm
phase, H hostile groups do their worst: each plays game after game with five AI seats and its
one person in 托管 (each game ends with a 复盘), and its members flood ``/replay``,
``/record``, ``/stats``, ``/top``, junk presses and forged data within their flood budgets.
The bot runs as ``python -m bot`` in its own process with the production pacing and budgets.

The calm tables' update → first call latency is measured in both phases of the one run (the
same bot, the same tables: interleaved against its own baseline); one JSON line is printed:
``{"calm": {…}, "hostile": {…}}``, each with ``update_to_first_call_ms_p99`` and ``errors``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from .. import storage as S
from ..buttons import Callback, HandOp, Kind, LobbyOp, OverOp, StoryOp
from .bench import KNOBS, _ms, _play, _seat, _table, _watch_loop
from .botprocess import BotProcess, until
from .localapi import LocalBotApi, SentMessage, SimUser
from .simplayers import SimPlayer, button_data, lobby_message, press_lobby

FLOOD = ("/replay", "/record", "/stats", "/top", "/history", "/match", "/help")
REVIEW_S = "2"  # each hostile game's 复盘 budget (a tenth is used: nobody decided)
QUICK = {"GOUJI_PASS_THINK": "0"}  # passes shown at once: games end one after another


async def _hostile_group(
    api: LocalBotApi, k: int, stop: asyncio.Event, counts: dict[str, int]
) -> None:
    """One hostile group: games ended one after another, and a flood all along."""
    group = api.group(-20_000_000 - k, f"闹{k}", admins=[api.bot_id])
    users = [api.user(20_000 + k * 10 + i, f"闹{k}-{i}", language_code="zh") for i in range(4)]
    for u in users:
        group.join_quietly(u)
        await u.send("/start")
    player, flooders = users[0], users[1:]
    await player.send("/gouji", group)
    rng = random.Random(k)

    def lobby() -> SentMessage | None:
        try:
            return lobby_message(api, group)
        except LookupError:
            return None

    await until(lambda: lobby() is not None, 120.0)
    for op, arg in ((LobbyOp.SIT, 0), (LobbyOp.FILL, None), (LobbyOp.GO, None)):
        await press_lobby(api, group, player, op, arg, timeout=120.0)  # paced: waits its edit
    pressed: set[tuple[int, int]] = set()
    person = SimPlayer(api, player, random.Random(k), follow=True)
    while not stop.is_set():
        # the person answers what is asked, and goes to 托管 as soon as it is offered; each
        # game over, 再来一局
        for m in reversed(api.messages(player.id)):
            auto = button_data(m, HandOp.AUTO_YES) or button_data(m, HandOp.AUTO)
            if auto is not None and (m.message_id, hash(auto)) not in pressed:
                pressed.add((m.message_id, hash(auto)))
                await _press(player, m, auto)
                break
        else:
            with contextlib.suppress(LookupError):
                await person.step(patient=True)
        for m in reversed(api.messages(group.id)):
            again = button_data(m, OverOp.AGAIN)
            if again is not None:
                if (m.message_id, 0) not in pressed:
                    pressed.add((m.message_id, 0))
                    counts["games"] += 1
                    await _press(player, m, again)
                break
        # the flood: each member about twice a second, within their own budget
        shown = api.messages(group.id)
        target = shown[-1] if shown else None
        for u in flooders:
            roll = rng.random()
            if roll < 0.5 or target is None:
                await u.send(rng.choice(FLOOD), group)
                counts["commands"] += 1
            elif roll < 0.75:
                await u.forge(target, rng.choice(("x", "", "l:" + "9" * 60)))
                counts["junk"] += 1
            else:
                forged = rng.choice(
                    (
                        Callback(Kind.LOBBY, rng.randrange(1, 200), 0, LobbyOp.GO),
                        Callback(Kind.STORY, rng.randrange(10_000, 90_000), 1, StoryOp.STEP, "2"),
                        Callback(Kind.OVER, rng.randrange(1, 200), 1, OverOp.AGAIN),
                    )
                )
                await u.forge(target, forged.encode())
                counts["forged"] += 1
        await asyncio.sleep(0.5)


async def _press(user: SimUser, m: SentMessage, data: str) -> None:
    with contextlib.suppress(LookupError):  # edited or deleted meanwhile
        await user.press(m, data=data)


def _figures(
    api: LocalBotApi, since: int, chats: set[int], log_errors: int, seconds: float, n: int
) -> dict[str, Any]:
    lat = api.latency()[since:]
    of = api.latency_chats()[since:]
    calm = [s for s, c in zip(lat, of, strict=True) if c in chats]
    return {
        "actions": n,
        "seconds": round(seconds, 1),
        "updates": len(calm),
        "update_to_first_call_ms_median": _ms(calm, 0.5),
        "update_to_first_call_ms_p99": _ms(calm, 0.99),
        "update_to_first_call_ms_max": _ms(calm, 1.0),
        "errors": log_errors,
    }


async def run(tables: int, hostile: int, actions: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "hostile.sqlite3")
        async with LocalBotApi() as api:
            knobs = {**KNOBS, "GOUJI_SEED": str(seed), "GOUJI_REVIEW_S": REVIEW_S, **QUICK}
            bot = BotProcess(api, db, knobs, log=Path(tmp) / "hostile.log")
            await bot.start()
            errors: list[str] = []
            retries: dict[str, int] = {}
            async with S.storage_for(db) as storage:
                try:
                    seated = [await _table(api, k) for k in range(tables)]
                    await api.idle(quiet=0.3, timeout=300.0)
                    await asyncio.gather(*(_seat(api, g, us) for g, us in seated))
                    await api.idle(quiet=1.0, timeout=300.0)
                    # the calm tables' chats: their groups and their players' private chats
                    chats = {g.id for g, _ in seated} | {u.id for _, us in seated for u in us}
                    figures: dict[str, Any] = {}
                    for phase in ("calm", "hostile"):
                        stop = asyncio.Event()
                        counts = {"games": 0, "commands": 0, "junk": 0, "forged": 0}
                        noisy = [
                            asyncio.create_task(_hostile_group(api, k, stop, counts))
                            for k in range(hostile if phase == "hostile" else 0)
                        ]
                        if noisy:  # under way: the floods, and a first game ended each
                            with contextlib.suppress(TimeoutError):
                                await until(partial(_ended, counts, hostile), 240.0)
                        errors0 = _errors(bot)
                        since = len(api.latency())
                        t0, cpu0 = time.perf_counter(), _cpu_s(bot)
                        lags: list[float] = []
                        watch = asyncio.create_task(_watch_loop(lags))
                        n, _ = await _play(api, storage, seated, actions)
                        watch.cancel()
                        seconds = time.perf_counter() - t0
                        cpu = _cpu_s(bot) - cpu0
                        stop.set()
                        await asyncio.gather(*noisy, return_exceptions=True)
                        figures[phase] = _figures(
                            api, since, chats, _errors(bot) - errors0, seconds, n
                        )
                        figures[phase]["bot_cpu_s"] = round(cpu, 1)  # its own process
                        figures[phase]["bench_loop_lag_ms_p99"] = _ms(lags, 0.99)
                        if noisy:
                            figures[phase]["hostile"] = dict(counts)
                    errors = _error_lines(bot)
                    for line in bot.log_text().splitlines():
                        if "retrying" in line:
                            why = line.split(": ", 1)[-1].split(" in chat")[0].split(" to chat")[0]
                            why = why.split("(", 1)[-1].split(")")[0] if "(" in why else why
                            retries[why] = retries.get(why, 0) + 1
                finally:
                    await bot.stop()
    for line in errors[:5]:  # the bot's log never holds a hand or the token
        print("  error:", line[:300], file=sys.stderr)
    for why, n in sorted(retries.items()):  # what the calls given up on met before
        print(f"  retried: {n} × {why}", file=sys.stderr)
    return figures


def _cpu_s(bot: BotProcess) -> float:
    """The bot's process's CPU time so far (user and system, as /proc says; 0 elsewhere)."""
    if bot.proc is None:
        return 0.0
    try:
        fields = Path(f"/proc/{bot.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _ended(counts: dict[str, int], groups: int) -> bool:
    return counts["games"] >= groups


def _errors(bot: BotProcess) -> int:
    return len(_error_lines(bot))


def _error_lines(bot: BotProcess) -> list[str]:
    return [line for line in bot.log_text().splitlines() if " ERROR " in line]


def main(tables: int, hostile: int, actions: int, seed: int) -> int:
    print(f"bench: {tables} calm tables, then beside {hostile} hostile groups; {actions} actions")
    figures = asyncio.run(run(tables, hostile, actions, seed))
    for phase, values in figures.items():
        print(f"  {phase}: {values}")
    calm, noisy = figures["calm"], figures["hostile"]
    p99c, p99h = calm["update_to_first_call_ms_p99"], noisy["update_to_first_call_ms_p99"]
    if p99c and p99h:
        print(f"  hostile / calm p99: {p99h / p99c:.2f}")
    print(json.dumps(figures))
    return 0

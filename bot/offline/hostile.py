"""``python -m bot bench --tables N --hostile H``: the noisy-neighbour bench (issue 33).

N calm tables of simulated players play against the local Bot API server while, after a calm
phase, H hostile groups do their worst: each plays game after game with five AI seats and its
one person in 托管 (each game ends with a 复盘), and its members flood ``/replay``,
``/record``, ``/stats``, ``/top``, junk presses and forged data within their flood budgets.
The bot runs as ``python -m bot`` in its own process with the production pacing and budgets.

The calm tables' update → first call latency is measured in both phases of the one run (the
same bot, the same tables: interleaved against its own baseline); one JSON line is printed:
``{"calm": {…}, "hostile": {…}}``, each with ``update_to_first_call_ms_p99`` and ``errors``.

A game's presses change as it goes on (its first actions have more taps that store nothing,
its later ones more moves that are stored, and slower), so the calm figures are measured half
before the hostile phase and half after it (calm, hostile, calm: both at the same stage of
the games on average), the second half once the hostile groups' last games have ended and
their messages are out.
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
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .. import storage as S
from ..buttons import Callback, HandOp, Kind, LobbyOp, OverOp, StoryOp
from .bench import KNOBS, _ms, _play, _seat, _table, _watch_loop
from .botprocess import BotProcess, until
from .localapi import LocalBotApi, SentMessage, SimGroup, SimUser
from .simplayers import SimPlayer, button_data, lobby_message, press_lobby

FLOOD = ("/replay", "/record", "/stats", "/top", "/history", "/match", "/help")
SETTLED_S = 4.0  # quiet this long: the hostile groups' last messages are out (a group's pace: 3 s)
REVIEW_S = "2"  # each hostile game's 复盘 budget (a tenth is used: nobody decided)
QUICK = {"GOUJI_PASS_THINK": "0"}  # passes shown at once: games end one after another
# a hostile group's simulated people look at the latest messages only (the bench's own CPU,
# which shares the machine with the bot, stays what a calm table's costs)
RECENT = 20


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
        for m in reversed(api.messages(player.id)[-RECENT:]):
            auto = button_data(m, HandOp.AUTO_YES) or button_data(m, HandOp.AUTO)
            if auto is not None and (m.message_id, hash(auto)) not in pressed:
                pressed.add((m.message_id, hash(auto)))
                await _press(player, m, auto)
                break
        else:
            with contextlib.suppress(LookupError):
                await person.step(patient=True)
        for m in reversed(api.messages(group.id)[-RECENT:]):
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


@dataclass
class _Phase:
    """What one phase's segments measured, together."""

    lat: list[float] = field(default_factory=list)  # the calm tables' updates' latencies
    lags: list[float] = field(default_factory=list)  # the bench's own event loop's
    actions: int = 0
    seconds: float = 0.0
    cpu_s: float = 0.0
    bench_cpu_s: float = 0.0  # this process's: the local server and the simulated people
    errors: int = 0

    def figures(self) -> dict[str, Any]:
        return {
            "actions": self.actions,
            "seconds": round(self.seconds, 1),
            "updates": len(self.lat),
            "update_to_first_call_ms_median": _ms(self.lat, 0.5),
            "update_to_first_call_ms_p99": _ms(self.lat, 0.99),
            "update_to_first_call_ms_max": _ms(self.lat, 1.0),
            "errors": self.errors,
            "bot_cpu_s": round(self.cpu_s, 1),  # its own process
            "bench_cpu_s": round(self.bench_cpu_s, 1),
            "bench_loop_lag_ms_p99": _ms(self.lags, 0.99),
        }


async def _segment(
    api: LocalBotApi,
    storage: S.SqlStorage,
    bot: BotProcess,
    seated: list[tuple[SimGroup, list[SimUser]]],
    actions: int,
    into: _Phase,
) -> None:
    """The calm tables play ``actions`` more actions each; what it measured added ``into``."""
    chats = {g.id for g, _ in seated} | {u.id for _, us in seated for u in us}
    errors0 = _errors(bot)
    since = len(api.latency())
    t0, cpu0, own0 = time.perf_counter(), _cpu_s(bot), time.process_time()
    watch = asyncio.create_task(_watch_loop(into.lags))
    n, _ = await _play(api, storage, seated, actions)
    watch.cancel()
    into.seconds += time.perf_counter() - t0
    into.cpu_s += _cpu_s(bot) - cpu0
    into.bench_cpu_s += time.process_time() - own0
    into.actions += n
    into.errors += _errors(bot) - errors0
    lat, of = api.latency()[since:], api.latency_chats()[since:]
    into.lat += [s for s, c in zip(lat, of, strict=True) if c in chats]


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
                    # calm (half its actions), hostile, calm (the other half)
                    calm, noisy = _Phase(), _Phase()
                    await _segment(api, storage, bot, seated, actions // 2, calm)
                    stop = asyncio.Event()
                    counts = {"games": 0, "commands": 0, "junk": 0, "forged": 0}
                    groups = [
                        asyncio.create_task(_hostile_group(api, k, stop, counts))
                        for k in range(hostile)
                    ]
                    if groups:  # under way: the floods, and a first game ended each
                        with contextlib.suppress(TimeoutError):
                            await until(partial(_ended, counts, hostile), 240.0)
                    await _segment(api, storage, bot, seated, actions, noisy)
                    stop.set()
                    await asyncio.gather(*groups, return_exceptions=True)
                    # their last games end (托管 and AI seats play on) and their messages go
                    t0 = time.perf_counter()
                    with contextlib.suppress(TimeoutError):
                        await api.idle(quiet=SETTLED_S, timeout=300.0)
                    settled = time.perf_counter() - t0
                    await _segment(api, storage, bot, seated, actions - actions // 2, calm)
                    figures = {"calm": calm.figures(), "hostile": noisy.figures()}
                    figures["hostile"]["hostile"] = dict(counts)
                    figures["hostile"]["settled_s"] = round(settled, 1)
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

"""``python -m bot bench [--tables N] [--db sqlite|postgresql|URL] [--procs P] [--webhook]``:
N tables of simulated players at once against the local Bot API server. The bot runs as
``python -m bot`` in its own process with the production pacing, so its latency and memory are
measured apart from the simulated world. ``--db``: the bot's storage — a SQLite file (the
default), a throwaway PostgreSQL server with its default (durable) settings, or the PostgreSQL
database at a URL. ``--procs P``: P bot processes on that database (PostgreSQL only) in webhook
mode behind a forwarder that gives each table's updates to one of them
(:class:`~bot.offline.cluster.BotCluster`, ``by_table``); one process
polls, as it always did, unless ``--webhook`` puts it behind the forwarder too.
Figures printed, the last line JSON (``storage``, ``procs``, ``tables``, ``actions``,
``update_to_first_call_ms_median`` / ``_p99``, ``answer_ms_median`` / ``_p99`` (a press to its
answerCallbackQuery), ``rss_kb_per_table`` (the processes that hold the tables;
``all_rss_kb_per_table`` with the worker processes, ``workers_rss_kb`` theirs),
``api_calls_per_action``, ``errors``, ``stalled_tables`` (no action stored for :data:`STALL_S`:
each printed with who was asked and the last calls to its chats); ``heap_kb_per_table``: the bot's
heap by owner per table played, bot.memreport, and ``tables_held``: tables in the processes'
memory at the end, over all of them; ``per_process``: each bot process's resident memory,
heap and allocator before and after, so that a sum over several can be checked). Never a timed
test."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import re
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import storage as S
from ..buttons import LobbyOp
from ..chats import Chats
from ..deployment import deployment_for
from ..tables import Config, Tables
from .botprocess import BotProcess, until
from .cluster import BotCluster
from .localapi import LocalBotApi, SimGroup, SimUser
from .pgcluster import PgCluster
from .simplayers import SimPlayer, lobby_message, press_lobby

KNOBS = {"GOUJI_AI_DELAY": "0", "GOUJI_PACE": "3,1", "GOUJI_TURN_S": "3600"}


async def _table(api: LocalBotApi, k: int) -> tuple[SimGroup, list[SimUser]]:
    group = api.group(-10_000_000 - k, f"桌{k}", admins=[api.bot_id])
    users = [api.user(10_000 + k * 10 + i, f"玩家{k}-{i}", language_code="zh") for i in range(6)]
    for u in users:
        group.join_quietly(u)  # members of the group already
        await u.send("/start")
    await users[0].send("/gouji", group)
    return group, users


_VERSIONS = "SELECT chat_id, version FROM game_tables WHERE status IN ('playing', 'over')"


def _versions(db: Path) -> dict[int, int]:
    """Stored actions per chat in a SQLite file (read alongside the bot: WAL)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(_VERSIONS).fetchall()
    return {chat: version for chat, version in rows}


async def _stored_versions(db: S.SqlStorage) -> dict[int, int]:
    """Stored actions per chat (the bot's own database, read alongside it)."""
    return {chat: version for chat, version in await db._rows(_VERSIONS)}


def _lobby_shown(api: LocalBotApi, group: SimGroup) -> bool:
    try:
        lobby_message(api, group)
    except LookupError:
        return False
    return True


async def _seat(api: LocalBotApi, group: SimGroup, users: list[SimUser]) -> None:
    # the lobby is paced like every group message: it may come after a quiet moment
    await until(lambda: _lobby_shown(api, group), 120.0)
    for seat, u in enumerate(users):  # the lobby is paced: tables seat in parallel
        await press_lobby(api, group, u, LobbyOp.SIT, seat, timeout=60.0)
    await press_lobby(api, group, users[0], LobbyOp.GO, timeout=60.0)


STALL_S = 75.0  # a table with no new stored action this long is stalled (not merely slow)


def _deadline(tables: int, actions: int) -> float:
    """The outer safety of a bench's play: far beyond what the token's budget of calls needs
    (Telegram's ~30 calls a second, a dozen calls an action), so that it cuts only a run that
    went wrong; a table that stops is found by :data:`STALL_S` long before."""
    return max(300.0, tables * actions * 0.6)


def _last_call(api: LocalBotApi, chat_id: int, now: float) -> str:
    """The last call the bot made to ``chat_id``: its method, status and how long ago."""
    for call in reversed(api.calls):
        if call.chat_id == chat_id:
            return f"{call.method} {call.status} {now - call.time:.0f} s ago"
    return "none"


def _why(
    api: LocalBotApi, group: SimGroup, players: list[SimPlayer], played: int, why: str
) -> dict[str, Any]:
    """What a stalled table looked like: who was asked (a question message shown in their
    private chat), the last call to its group and to each of its players' chats."""
    now = time.monotonic()
    asked = [i for i, p in enumerate(players) if p.hand_message() is not None]
    return {
        "chat": group.id,
        "why": why,
        "played": played,
        "asked": asked,  # seats with a question shown to them (none: nobody was asked)
        "group_last_call": _last_call(api, group.id, now),
        "players_last_call": [_last_call(api, p.user.id, now) for p in players],
        # what the asked were answered and shown: a press refused, and why
        "asked_saw": {i: _saw(api, players[i]) for i in asked},
    }


def _saw(api: LocalBotApi, player: SimPlayer) -> dict[str, Any]:
    """The question an asked player sees (its text's end, its buttons) and the bot's answers
    to their last presses."""
    msg = player.hand_message()
    answers = api.world.answers.get(player.user.id, [])[-8:]
    return {
        "question": msg.plain[-160:] if msg is not None else None,
        "buttons": [b.callback_data for b in msg.buttons] if msg is not None else [],
        "answers": [f"{'alert ' if a.show_alert else ''}{a.text}" for a in answers],
        "pressed": player.pressed,
        "messages": [(m.message_id, m.edits) for m in api.messages(player.user.id)][-4:],
        "calls": _calls(api, player.user.id),
    }


def _calls(api: LocalBotApi, chat_id: int, most: int = 16) -> list[str]:
    """The bot's last calls to a chat: method, message, status, how long ago."""
    now = time.monotonic()
    calls = [c for c in api.calls if c.chat_id == chat_id][-most:]
    return [
        f"{c.method} {c.params.get('message_id', '')} {c.status} {now - c.time:.1f}s" for c in calls
    ]


async def _play(
    api: LocalBotApi, db: S.SqlStorage, seated: list[tuple[SimGroup, list[SimUser]]], actions: int
) -> tuple[int, list[dict[str, Any]]]:
    """Simulated players play ``actions`` actions at every table; the actions stored, and the
    tables that stalled: no new action stored for :data:`STALL_S` (they never started, or a
    press got lost), so that one such table does not hold the others — a table that is only
    slow (the token's budget of calls shared by every table) is not stalled. A deadline far
    beyond the budget's needs is the outer safety (:func:`_deadline`)."""
    begin = await _stored_versions(db)
    done: dict[int, int] = {}
    stalled: list[dict[str, Any]] = []
    end = time.perf_counter() + _deadline(len(seated), actions)

    async def drive(group: SimGroup, users: list[SimUser]) -> None:
        k = -group.id
        players = [SimPlayer(api, u, random.Random(k * 10 + i)) for i, u in enumerate(users)]
        look = random.Random(k)
        last, moved_at = -1, time.perf_counter()
        while (played := done.get(group.id, 0) - begin.get(group.id, 0)) < actions:
            now = time.perf_counter()
            if played != last:
                last, moved_at = played, now
            why = "no action stored" if now - moved_at > STALL_S else ""
            why = why or ("the deadline" if now > end else "")
            if why:
                stalled.append(_why(api, group, players, played, why))
                return
            # people look at their phones now and then, each table at its own moments (not
            # all tables in step, which would make every press of the bench arrive at once)
            await asyncio.sleep(look.uniform(0.1, 0.5))
            for p in players:
                await p.step(patient=True)

    async def count() -> None:
        while True:
            done.update(await _stored_versions(db))
            await asyncio.sleep(0.5)

    counter = asyncio.create_task(count())
    try:
        await asyncio.gather(*(drive(g, us) for g, us in seated))
    finally:
        counter.cancel()
    done.update(await _stored_versions(db))
    return sum(done.get(g.id, 0) - begin.get(g.id, 0) for g, _ in seated), stalled


class _NoOutput:
    """Nothing is sent or scheduled while tables are only loaded."""

    def post(self, out: object) -> None:
        raise AssertionError("a loaded table posted a message")

    def schedule(self, name: str, delay: float, job: object, background: bool = False) -> None:
        raise AssertionError("a loaded table set a timer")

    def cancel(self, name: str) -> None:
        return None

    def on(self, kind: str, runner: object) -> None:
        return None

    async def flush(self) -> None:
        return None


async def state_kb_per_table(db: str) -> float:
    """What the bot holds in memory for one table (its state, match, transcript), measured with
    tracemalloc by loading every stored table the way a restarted bot does."""
    gc.collect()
    async with S.storage_for(db) as storage:
        rows = await storage.unfinished_tables()
        registry = Tables(
            storage, _NoOutput(), deployment_for(storage), Config(), Chats(storage, "zh")
        )
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tables = [await registry.load(row) for row in rows]
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
    return round(held / max(len(tables), 1) / 1024, 1)


@dataclass(frozen=True)
class Setup:
    """How the bot runs: ``procs`` processes; by webhook behind the forwarder (else polling)."""

    procs: int = 1
    webhook: bool = False


async def run_bench(
    tables: int, actions: int, seed: int, db_kind: str, setup: Setup = Setup()
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        if db_kind == "postgresql":
            with PgCluster() as pg:
                url = await pg.create_database("bench")
                return await _run(tables, actions, seed, url, tmp, setup)
        db = str(Path(tmp) / "bench.sqlite3") if db_kind == "sqlite" else db_kind
        return await _run(tables, actions, seed, db, tmp, setup)


def _warm(tables: int, setup: Setup) -> int:
    """The warm-up's tables: a quarter of the measured ones (one at least) for each process."""
    return max(1, tables // 4) * setup.procs


def _bots(api: LocalBotApi, url: str, seed: int, tmp: str, setup: Setup) -> BotProcess | BotCluster:
    knobs = {**KNOBS, "GOUJI_SEED": str(seed)}
    if setup.procs == 1 and not setup.webhook:
        return BotProcess(api, url, knobs, log=Path(tmp) / "bench.log")
    # each table's updates to one process, as a load balancer routing by chat would: each
    # process holds only the tables it serves
    return BotCluster(api, url, knobs, setup.procs, Path(tmp), by_table=True)


async def _run(
    tables: int, actions: int, seed: int, url: str, tmp: str, setup: Setup
) -> dict[str, Any]:
    async with LocalBotApi() as api:
        bot = _bots(api, url, seed, tmp, setup)
        await bot.start()
        async with S.storage_for(url) as db:
            try:
                # a quarter of the tables (one at least) play first in each process: what
                # every table a process serves shares — fonts, the worker processes' picture
                # caches, connection pools and their prepared statements, the engine's capped
                # tables, SQLite's page cache, the allocator's pools — grows to its working size
                # before the tables are counted. Each of several processes is warmed as one
                # alone is (a quarter of the tables each, the forwarder giving consecutive
                # tables to the processes in turn): its fixed cost is no table's
                warm = [await _table(api, tables + k) for k in range(_warm(tables, setup))]
                await api.idle(quiet=0.3, timeout=60.0)
                await asyncio.gather(*(_seat(api, g, us) for g, us in warm))
                await _play(api, db, warm, actions)
                await api.idle(quiet=3.5, timeout=120.0)  # paced edits sent
                # a first report before memory is read (where a report cannot walk the heap
                # in a child process, its walk leaves some 1 MB in each process the first time)
                await bot.heap()
                rss0, main0 = bot.rss_kb(), bot.rss_main_kb()
                mem0 = _memory(bot)  # (read before the report's walk, as rss0)
                heap0 = await bot.heap()
                mem0 = _with_report(bot, mem0)
                seated = [await _table(api, k) for k in range(tables)]
                await api.idle(quiet=0.3, timeout=300.0)
                await asyncio.gather(*(_seat(api, g, us) for g, us in seated))
                # every table was started within a second or two (never so in real life): the
                # measured play begins once the deals' messages are out
                await api.idle(quiet=1.0, timeout=300.0)
                start_calls = sum(api.counts().values())
                start_lat = len(api.latency())
                start_answers = len(api.answer_latency())
                t0, cpu0 = time.perf_counter(), bot.cpu_s()
                lags: list[float] = []
                watch = asyncio.create_task(_watch_loop(lags))
                n, stalled = await _play(api, db, seated, actions)
                watch.cancel()
                elapsed, cpu = time.perf_counter() - t0, bot.cpu_s() - cpu0
                rss1, main1 = bot.rss_kb(), bot.rss_main_kb()
                mem1 = _memory(bot)
                heap1 = await bot.heap()
                mem1 = _with_report(bot, mem1)
                calls = sum(api.counts().values()) - start_calls
                lat = api.latency()[start_lat:]
                methods = api.first_calls()[start_lat:]
                answers = api.answer_latency()[start_answers:]
                rest = await _at_rest(api, bot)
            finally:
                await bot.stop()
            log = bot.log_text()
            state_kb = await state_kb_per_table(url)
    heap_total0 = sum(v for k, v in heap0.items() if k != "tables")
    kept = _keep_log(log) if stalled else None  # to find out why (the run's folder goes)
    error_lines = [line for line in log.splitlines() if " ERROR " in line]
    errors = len(error_lines)
    by_method: dict[str, list[float]] = {}
    for method, seconds in zip(methods, lat, strict=True):
        by_method.setdefault(method, []).append(seconds)
    slowest = {  # which first calls make the tail
        method: f"n={len(xs)} p50={_ms(xs, 0.5)} p99={_ms(xs, 0.99)} max={_ms(xs, 1.0)}"
        for method, xs in sorted(by_method.items(), key=lambda kv: -len(kv[1]))
    }
    spread = bot.forwarder.counts.values() if isinstance(bot, BotCluster) else []
    return {
        "procs": setup.procs,
        "webhook": setup.webhook or setup.procs > 1,
        "tables": tables,
        "actions": n,
        "seconds": round(elapsed, 1),
        "actions_per_s": round(n / elapsed, 1),
        "update_to_first_call_ms_median": _ms(lat, 0.5),
        "update_to_first_call_ms_p99": _ms(lat, 0.99),
        "first_calls": slowest,
        # a press → its answer (answerCallbackQuery), whatever call came first
        "answer_ms_median": _ms(answers, 0.5),
        "answer_ms_p99": _ms(answers, 0.99),
        # the bot processes' own CPU (not their workers') an action: a figure a loaded machine
        # distorts less than latency
        "bot_cpu_ms_per_action": round(cpu / max(n, 1) * 1000, 1),
        "bench_loop_lag_ms_p99": _ms(lags, 0.99),
        "bench_loop_lag_ms_max": _ms(lags, 1.0),
        "bot_rss_kb": rss1,
        # the processes that hold the tables (the bot's own, each of several): what a table
        # costs
        "rss_kb_per_table": round((main1 - main0) / tables, 1),
        # with the worker processes (pictures, searches, 复盘): they hold no table, their
        # caches grow to a working size and stay there (docs/operations.md), so over a hundred
        # tables their growth is noise of ±100 KB a table
        "all_rss_kb_per_table": round((rss1 - rss0) / tables, 1),
        "workers_rss_kb": [rss0 - main0, rss1 - main1],  # before and after the tables played
        "state_kb_per_table": state_kb,
        # the bot processes' heap (bot.memreport) by owner, per table played
        "heap_kb_per_table": {
            k: round((heap1.get(k, 0) - heap0.get(k, 0)) / tables / 1024, 1)
            for k in heap1
            if k != "tables"
        },
        "heap_kb_per_table_total": round(
            sum(v - heap0.get(k, 0) for k, v in heap1.items() if k != "tables") / tables / 1024,
            1,
        ),
        # the same once the messages waiting for the token's budget are out (the state the
        # figures before the tables were read in): what the tables themselves hold, without
        # the backlog the saturated budget left in the chats' queues at the play's end
        "rss_kb_per_table_at_rest": _per_table(rest[0], main0, tables),
        "heap_kb_per_table_at_rest": _per_table(rest[1], heap_total0, tables, 1024),
        "tables_held": heap1.get("tables", 0),  # over all processes (each held once is 1×)
        # each bot process before and after the tables played: resident (anonymous, files
        # mapped), the heap by owner in all, tables held, Python's objects, malloc's figures
        "per_process": [
            {k: [a.get(k), b.get(k)] for k in b} for a, b in zip(mem0, mem1, strict=True)
        ],
        "api_calls_per_action": round(calls / max(n, 1), 2),
        "errors": errors,
        "stalled_tables": len(stalled),
        "stalled": stalled,  # each with why: who was asked, the last calls to its chats
        "updates_per_process": sorted(spread),  # as the forwarder handed them out
        "error_lines": error_lines[:5],  # the bot's log never holds a hand or the token
        "warnings": _warnings(log),
        "flood_waits": _flood_waits(log),  # 429s, by the kind of chat they met
        "log_kept": kept,  # the bot's log, kept when a table stalled
    }


async def _at_rest(api: LocalBotApi, bot: BotProcess | BotCluster) -> tuple[int | None, int | None]:
    """The bot processes' resident memory (KB) and heap by owner in all (bytes) once every
    waiting message is out; ``None`` when the bot does not settle within two minutes."""
    try:
        await api.idle(quiet=3.5, timeout=120.0)
    except TimeoutError:
        return None, None
    main = bot.rss_main_kb()  # (read before the report's walk)
    heap = await bot.heap()
    return main, sum(v for k, v in heap.items() if k != "tables")


def _per_table(now: int | None, before: int, tables: int, unit: int = 1) -> float | None:
    """``now - before`` a table, in ``unit`` (None: not read)."""
    return None if now is None else round((now - before) / tables / unit, 1)


def _memory(bot: BotProcess | BotCluster) -> list[dict[str, int]]:
    """Each bot process's memory now (BotProcess.memory)."""
    return bot.memory() if isinstance(bot, BotCluster) else [bot.memory()]


def _with_report(bot: BotProcess | BotCluster, mem: list[dict[str, int]]) -> list[dict[str, int]]:
    """Each process's ``mem`` with its last report's figures (BotProcess.reported)."""
    reported = bot.reported() if isinstance(bot, BotCluster) else [bot.reported()]
    return [{**m, **r} for m, r in zip(mem, reported, strict=True)]


async def _watch_loop(lags: list[float]) -> None:
    """How late this process's own event loop (the local server and the simulated players) wakes
    up: when it is busy, the latencies it measures include its own delay, not only the bot's."""
    while True:
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append(time.perf_counter() - start - 0.01)


def _keep_log(log: str) -> str:
    """The bot's log written where it outlives the run; its path."""
    path = Path(tempfile.mkdtemp(prefix="gouji-bench-")) / "bot.log"
    path.write_text(log, encoding="utf-8")
    return str(path)


def _warnings(log: str, most: int = 6) -> dict[str, int]:
    """The bot's warnings by kind (numbers left out: flood waits, retried calls), the most
    frequent first."""
    kinds = Counter(
        re.sub(r"-?\d+(\.\d+)?", "#", line.split(" WARNING ", 1)[1])
        for line in log.splitlines()
        if " WARNING " in line
    )
    return dict(kinds.most_common(most))


def _flood_waits(log: str) -> dict[str, int]:
    """The bot's flood waits (429) by the kind of chat that met them: a group's over its 20
    writes a minute, a private chat's over one a second, either over the 30 a second in all."""
    chats = [int(m.group(1)) for m in re.finditer(r"flood wait of \S+ s in chat (-?\d+)", log)]
    return {"group": sum(c < 0 for c in chats), "private": sum(c > 0 for c in chats)}


def _ms(seconds: list[float], q: float) -> float | None:
    xs = sorted(seconds)
    return round(xs[int(q * (len(xs) - 1))] * 1000, 1) if xs else None


def main(
    tables: int, actions: int, seed: int, db: str = "sqlite", procs: int = 1, webhook: bool = False
) -> int:
    kind = "postgresql" if db != "sqlite" else db
    if procs < 1 or (procs > 1 and kind == "sqlite"):
        print(
            "bench: --procs N > 1 needs PostgreSQL (--db postgresql, or a postgresql:// URL):"
            " one SQLite file takes one bot process only",
            file=sys.stderr,
        )
        return 2
    setup = Setup(procs, webhook or procs > 1)
    how = f"{procs} processes by webhook" if setup.webhook else "its own process, polling"
    print(f"bench: {tables} tables, {actions} actions each; the bot in {how} on {kind}")
    figures = {"storage": kind, **asyncio.run(run_bench(tables, actions, seed, db, setup))}
    for key, value in figures.items():
        if key == "stalled":  # a table a line: what it waited for
            print(f"  {key}:", *(f"    {why}" for why in value), sep="\n")
        else:
            print(f"  {key}: {value}")
    # not in JSON
    detail = (
        "first_calls",
        "stalled",
        "error_lines",
        "warnings",
        "updates_per_process",
        "log_kept",
    )
    print(json.dumps({k: v for k, v in figures.items() if k not in detail}))
    return 0 if figures["errors"] == 0 and figures["stalled_tables"] == 0 else 1

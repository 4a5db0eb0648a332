"""``python -m bot bench [--tables N]``: N tables of simulated players at once, in one process,
against the local Bot API server, with the production pacing; figures printed, the last line
JSON (``tables``, ``actions``, ``update_to_first_call_ms_median`` / ``_p99``,
``rss_kb_per_table``, ``api_calls_per_action``, ``errors``). Never a timed test."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import resource
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from .localapi import LocalBotApi, SimGroup, SimUser
from .runner import local_bot, runtime
from .service import Config
from .simplayers import SimPlayer, press_lobby


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def _rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def _table(api: LocalBotApi, k: int) -> tuple[SimGroup, list[SimUser]]:
    group = api.group(-10_000_000 - k, f"桌{k}", admins=[api.bot_id])
    users = [api.user(10_000 + k * 10 + i, f"玩家{k}-{i}", language_code="zh") for i in range(6)]
    for u in users:
        await u.send("/start")
    await users[0].send("/gouji", group)
    return group, users


async def run_bench(tables: int, actions: int, seed: int, images: bool) -> dict[str, Any]:
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    rss0 = _rss_kb()
    async with LocalBotApi() as api:
        with tempfile.TemporaryDirectory() as tmp:
            cfg = Config(ai_delay=0.0, seed=seed, turn_s=3600.0)
            async with local_bot(
                api,
                str(Path(tmp) / "bench.sqlite3"),
                cfg,
                group_interval=3.0,
                private_interval=0.5,
            ) as app:
                rt = runtime(app)
                seated: list[tuple[SimGroup, list[SimUser]]] = []
                for k in range(tables):
                    seated.append(await _table(api, k))
                await api.idle(quiet=0.2, timeout=120.0)

                async def sit(group: SimGroup, users: list[SimUser]) -> None:
                    for seat, u in enumerate(users):  # the lobby is paced: tables in parallel
                        await press_lobby(api, group, u, f"s{seat}", timeout=60.0)

                await asyncio.gather(*(sit(g, us) for g, us in seated))
                if not images:
                    for t in rt.service.tables.values():
                        t.st.settings = replace(t.st.settings, image=False)
                await asyncio.gather(
                    *(press_lobby(api, g, us[0], "G", timeout=60.0) for g, us in seated)
                )
                start_calls = sum(api.counts().values())
                start_lat = len(api.latency())
                t0 = time.perf_counter()

                async def drive(group: SimGroup, users: list[SimUser], k: int) -> int:
                    players = [
                        SimPlayer(api, u, random.Random(k * 10 + i)) for i, u in enumerate(users)
                    ]
                    table = rt.service.table_at(group.id, None)
                    assert table is not None and table.match is not None
                    begin = table.match.version
                    while table.match.version - begin < actions and not table.match.over:
                        for p in players:
                            await p.step(patient=True)
                        await asyncio.sleep(0.3)  # a person looks at the phone now and then
                    return table.match.version - begin

                done = await asyncio.gather(*(drive(g, us, k) for k, (g, us) in enumerate(seated)))
                elapsed = time.perf_counter() - t0
                await rt.sender.drain(timeout=120.0)
                rss1 = _rss_kb()
                calls = sum(api.counts().values()) - start_calls
                lat = sorted(api.latency()[start_lat:])
    logging.getLogger().removeHandler(errors)
    n = sum(done)
    p99 = lat[int(0.99 * (len(lat) - 1))] if lat else 0.0
    return {
        "tables": tables,
        "actions": n,
        "seconds": round(elapsed, 1),
        "actions_per_s": round(n / elapsed, 1),
        "update_to_first_call_ms_median": round(statistics.median(lat) * 1000, 1) if lat else None,
        "update_to_first_call_ms_p99": round(p99 * 1000, 1),
        "rss_kb_per_table": round((rss1 - rss0) / tables, 1),
        "api_calls_per_action": round(calls / max(n, 1), 2),
        "errors": errors.count + rt.sender.errors,
    }


def main(tables: int, actions: int, seed: int, images: bool) -> int:
    logging.basicConfig(level=logging.WARNING)
    print(f"bench: {tables} tables, {actions} actions each, images {'on' if images else 'off'}")
    figures = asyncio.run(run_bench(tables, actions, seed, images))
    for key, value in figures.items():
        print(f"  {key}: {value}")
    print(json.dumps(figures))
    return 0 if figures["errors"] == 0 else 1

"""The bench's memory figures: each process warmed alike, and what each process holds."""

from __future__ import annotations

import asyncio
import gc
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from botkit import world

from bot import memreport
from bot.offline.bench import Setup, _per_table, _warm
from bot.offline.botprocess import _smaps_rollup
from bot.offline.forwarder import TableRoutes


def test_each_process_is_warmed_as_one_alone() -> None:
    assert _warm(60, Setup()) == 15
    assert _warm(60, Setup(3, True)) == 45
    assert _warm(2, Setup(3, True)) == 3  # one table each at least


def test_the_warm_tables_are_spread_evenly_over_the_processes() -> None:
    # the bench's groups (bench._table: chat -10,000,000 - k), routed by chat as the forwarder
    # does: consecutive tables go to the processes in turn
    routes = TableRoutes()
    keys = [
        routes.key(json.dumps({"message": {"chat": {"id": -10_000_000 - k}}}).encode())
        for k in range(60, 60 + _warm(60, Setup(3, True)))
    ]
    assert Counter(k % 3 for k in keys if k is not None) == {0: 15, 1: 15, 2: 15}


def test_a_process_reports_its_objects_and_allocator() -> None:
    figures = memreport.process()
    assert figures["objects"] > 0 and figures["blocks"] > 0
    if "malloc_kb" in figures:  # glibc
        assert figures["malloc_kb"] > 0 and figures["malloc_free_kb"] >= 0


def test_resident_memory_splits_into_anonymous_and_files() -> None:
    rollup = _smaps_rollup(os.getpid())
    if rollup:  # Linux
        assert 0 < rollup["Anonymous"] < rollup["Rss"]


@pytest.mark.e2e  # a bot's parts over the local server
async def test_a_report_counts_the_database_connections_held(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        figures = memreport.report(w.parts)
        assert figures["process"]["connections"] == 0  # SQLite: no pool
        assert figures["tables"] == 0 and figures["process"]["objects"] > 0


def test_a_figure_at_rest_is_per_table_or_none() -> None:
    assert _per_table(None, 100, 10) is None  # the bot never settled: not read
    assert _per_table(1100, 100, 10) == 100.0
    assert _per_table(3 * 1024 * 10 + 500, 500, 10, 1024) == 3.0


def test_the_main_heaps_resident_part_is_read_from_smaps(tmp_path: Path) -> None:
    smaps = tmp_path / "smaps"
    smaps.write_text(
        "55c6eb47d000-55c6eb47e000 r--p 00000000 fe:00 26723   /usr/bin/python3.11\n"
        "Size:                  4 kB\nRss:                   4 kB\n"
        "55c71c57f000-55c71e2dc000 rw-p 00000000 00:00 0                          [heap]\n"
        "Size:              30068 kB\nRss:               21308 kB\nVmFlags: rd wr mr mw me ac\n"
        "7f74ea8fe000-7f74eb1fe000 rw-p 00000000 00:00 0 \nRss:                9048 kB\n"
    )
    assert memreport.heap_rss_kb(str(smaps)) == 21308
    assert memreport.heap_rss_kb(str(tmp_path / "none")) == 0  # not Linux
    if "malloc_kb" in memreport.process():  # glibc, Linux
        assert memreport.process()["malloc_heap_rss_kb"] > 0


@pytest.mark.e2e  # a bot's parts over the local server
async def test_a_report_is_written_whole_by_a_child_process(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        path = tmp_path / "mem.json"
        memreport.write(w.parts, path)  # the walk in a child: the loop goes on meanwhile
        for _ in range(3000):
            if path.exists():
                break
            await asyncio.sleep(0.01)
        data = json.loads(path.read_text(encoding="utf-8"))  # renamed into place: whole
        assert data["tables"] == 0 and data["process"]["objects"] > 0
        assert set(data["bytes"]) >= {"match", "outbox", "sender"}
        assert not list(tmp_path.glob("*.part"))


def test_a_report_leaves_the_collector_as_it_was(tmp_path: Path) -> None:
    class Parts:  # nothing to walk: the child fails, the parent goes on
        pass

    assert gc.isenabled()
    memreport.write(Parts(), tmp_path / "mem.json")  # type: ignore[arg-type]
    assert gc.isenabled()

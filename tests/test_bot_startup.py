"""Start-up refuses clearly: no token, a token the server refuses, a server out of reach, a
database that cannot be used — each ends ``python -m bot`` with exit code 1 and one sentence,
the token never in any output; ``python -m bot health`` tells a running bot from a dead one."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from bot import health as H
from bot.offline.botprocess import BotProcess, until
from bot.offline.localapi import LocalBotApi

pytestmark = pytest.mark.e2e

SECRET = "424242:NEVER-PRINT-THIS-TOKEN"


async def run_bot(env: dict[str, str], *args: str) -> tuple[int, str]:
    """``python -m bot ARGS`` with ``env`` (on top of this one's, without a token): the exit
    code and everything it printed."""
    base = {k: v for k, v in os.environ.items() if k != "TELEGRAM_BOT_TOKEN"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        env={**base, "NO_PROXY": "127.0.0.1,localhost", **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode()


def one_sentence(out: str) -> str:
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out  # no traceback, no log noise
    assert lines[0].startswith("gouji: ")
    return lines[0]


async def test_without_a_token_run_refuses(tmp_path: Path) -> None:
    code, out = await run_bot({"GOUJI_DB": str(tmp_path / "g.sqlite3")}, "run")
    assert code == 1 and "TELEGRAM_BOT_TOKEN" in one_sentence(out)


async def test_a_refused_token_and_an_unreachable_server(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite3")
    async with LocalBotApi() as api:
        code, out = await run_bot(
            {"TELEGRAM_BOT_TOKEN": SECRET, "TELEGRAM_BASE_URL": api.base_url, "GOUJI_DB": db}
        )
    assert code == 1 and "refused the token" in one_sentence(out)
    assert "NEVER-PRINT" not in out and "424242" not in out
    code, out = await run_bot(
        {
            "TELEGRAM_BOT_TOKEN": SECRET,
            "TELEGRAM_BASE_URL": "http://127.0.0.1:9/bot",  # nothing listens there
            "GOUJI_DB": db,
        }
    )
    assert code == 1 and "cannot reach" in one_sentence(out)
    assert "NEVER-PRINT" not in out


async def test_an_unusable_database_is_named_before_anything_starts(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.sqlite3"
    corrupt.write_bytes(b"this is not a database" * 100)
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    for db, words in ((corrupt, "not a SQLite database"), (blocked / "g.sqlite3", "folder")):
        code, out = await run_bot({"TELEGRAM_BOT_TOKEN": SECRET, "GOUJI_DB": str(db)})
        assert code == 1 and words in one_sentence(out), out
        assert "NEVER-PRINT" not in out


def test_a_read_only_database_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "ro.sqlite3"
    sqlite3.connect(db).close()
    connect = sqlite3.connect

    def read_only(path: object, timeout: float = 5.0) -> sqlite3.Connection:
        return connect(f"file:{path}?mode=ro", uri=True, timeout=timeout)  # a root-owned mount

    monkeypatch.setattr(sqlite3, "connect", read_only)
    problem = H.database_problem(str(db))
    assert problem is not None and "read-only" in problem


def test_health_reads_the_heartbeat(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite3")
    assert "heartbeat" in (H.health(db) or "")
    H.Heartbeat(H.heartbeat_path(db)).beat()
    assert H.health(db) is None
    assert "ago" in (H.health(db, now=time.time() + H.HEARTBEAT_STALE + 5) or "")


async def test_a_running_bot_is_healthy_and_a_stopped_one_soon_is_not(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    async with LocalBotApi() as api:
        bot = BotProcess(api, db, {"GOUJI_AI_DELAY": "0", "GOUJI_PACE": "0,0"})
        await bot.start()
        try:
            beat = H.heartbeat_path(str(db))
            await until(beat.exists, 30.0)
            code, out = await run_bot({"GOUJI_DB": str(db)}, "health")
            assert code == 0, out
        finally:
            await bot.stop()
    os.utime(beat, (time.time() - 600, time.time() - 600))  # as if stopped ten minutes ago
    code, out = await run_bot({"GOUJI_DB": str(db)}, "health")
    assert code == 1 and "ago" in out

"""Shared test setup: the environment the real python-telegram-bot client needs on loopback; the
storage backends (a PostgreSQL server for the session)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from backends import BACKENDS, Backend

from bot.offline.localapi import LocalBotApi
from bot.offline.pgcluster import PgCluster

# The slowest modules (``--durations``), started first: under xdist a long test started last
# would run alone while the other workers idle.
SLOWEST_FIRST = ("test_bot_procs.py", "test_bot_kill.py", "test_bot_durable.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that start a bot (``e2e``) first, the slowest leading; the order within each
    group kept."""

    def key(item: pytest.Item) -> tuple[bool, int]:
        name = item.path.name
        slow = SLOWEST_FIRST.index(name) if name in SLOWEST_FIRST else len(SLOWEST_FIRST)
        return item.get_closest_marker("e2e") is None, slow

    items.sort(key=key)


@pytest.fixture(autouse=True)
def _telegram_client_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # RetryAfter.retry_after warns (an error here) unless PTB_TIMEDELTA opts into timedelta;
    # httpx would send loopback traffic to a configured proxy without NO_PROXY.
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One throwaway PostgreSQL server for the test session (per xdist worker), stopped and
    removed at the end. Without PostgreSQL installed the tests that need it skip — except in
    CI (``CI`` set), where they fail: CI installs it (.ci/run)."""
    try:
        cluster = PgCluster(fast=True)
    except FileNotFoundError as e:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no PostgreSQL server to test against: {e}")
    with cluster:
        yield cluster


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Each storage backend in turn: SQLite files, databases on the session's PostgreSQL."""
    name: str = request.param
    cluster = request.getfixturevalue("pg_cluster") if name == "postgresql" else None
    return Backend(name, tmp_path, cluster)


@pytest.fixture
async def api() -> AsyncIterator[LocalBotApi]:
    """A local Bot API server of its own (test_localapi_*.py)."""
    server = LocalBotApi()
    await server.start()
    yield server
    await server.stop()

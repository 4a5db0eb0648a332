"""Shared test setup: the environment the real python-telegram-bot client needs on loopback."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _telegram_client_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # RetryAfter.retry_after warns (an error here) unless PTB_TIMEDELTA opts into timedelta;
    # httpx would send loopback traffic to a configured proxy without NO_PROXY.
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")

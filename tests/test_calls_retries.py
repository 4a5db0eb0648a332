"""A call's retries (bot.calls): flood waits (429) are waited out however many come, failures
are tried again a few times, then the call is given up."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest
from telegram.error import NetworkError, RetryAfter

from bot import calls as C
from bot.calls import MAX_TRIES, Calls


async def _nobody(chat_id: int) -> None:
    return None


def _failing(errors: list[Exception]) -> Callable[[], Awaitable[object]]:
    async def make() -> object:
        if errors:
            raise errors.pop(0)
        return True

    return make


@pytest.fixture(autouse=True)
def _no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr("bot.calls.asyncio.sleep", sleep)
    return slept


async def test_flood_waits_are_waited_out_not_counted_as_failures(_no_sleep: list[float]) -> None:
    """Under a storm of calls, a question's message met more flood waits than the tries a
    failure gets: it goes all the same once allowed (a lost question stalls its table)."""
    calls = Calls(_nobody)
    floods: list[Exception] = [RetryAfter(timedelta(seconds=3)) for _ in range(MAX_TRIES + 3)]
    assert await calls.call(10, _failing(floods)) is True
    assert calls.errors == 0
    assert _no_sleep == [3.0] * (MAX_TRIES + 3)


async def test_failures_are_tried_a_few_times_then_given_up() -> None:
    calls = Calls(_nobody)
    errors: list[Exception] = [NetworkError("down") for _ in range(MAX_TRIES + 1)]
    assert await calls.call(10, _failing(errors)) is False
    assert calls.errors == 1 and calls.calls == MAX_TRIES


async def test_flood_waits_longer_than_the_bound_give_the_call_up() -> None:
    calls = Calls(_nobody)
    wait = timedelta(seconds=C.MAX_FLOOD_WAIT_S / 2 + 1)
    floods: list[Exception] = [RetryAfter(wait) for _ in range(3)]
    assert await calls.call(10, _failing(floods)) is False
    assert calls.errors == 1

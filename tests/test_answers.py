"""A press is answered once, and at once: by its handler when it is quick, else with no text
when the handler is slow (bot.answers)."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.answers import Answering
from bot.outbox import Answer


class Calls:
    def __init__(self) -> None:
        self.sent: list[tuple[float, Answer]] = []

    async def send(self, answer: Answer) -> None:
        await asyncio.sleep(0)
        self.sent.append((time.monotonic(), answer))


async def test_a_quick_handler_gives_its_own_answer() -> None:
    calls = Calls()
    answering = Answering(calls.send, 0.05)
    assert await answering.give(Answer("出了 3")) is True
    await asyncio.sleep(0.1)  # the early answer never comes after the handler's
    assert [a.text for _, a in calls.sent] == ["出了 3"]
    assert not answering.early


async def test_a_slow_handler_leaves_the_press_answered_at_once() -> None:
    calls = Calls()
    answering = Answering(calls.send, 0.05)
    await asyncio.sleep(0.15)  # the table is held elsewhere meanwhile
    assert [a.text for _, a in calls.sent] == [""]  # the spinner stopped, no toast
    assert await answering.give(Answer("出了 3", alert=True)) is False
    assert len(calls.sent) == 1  # answered once
    assert answering.early


async def test_a_press_handled_elsewhere_is_not_answered_here() -> None:
    calls = Calls()
    answering = Answering(calls.send, 0.02)
    answering.cancel()  # the update was claimed by another process (bot.webhook)
    await asyncio.sleep(0.05)
    assert calls.sent == []


async def test_without_a_limit_the_handler_answers_however_late() -> None:
    calls = Calls()
    answering = Answering(calls.send, None)
    await asyncio.sleep(0.05)
    assert calls.sent == []
    assert await answering.give(Answer("ok")) is True
    assert [a.text for _, a in calls.sent] == ["ok"]


async def test_a_handler_that_fails_leaves_the_press_answered() -> None:
    calls = Calls()

    async def press() -> Answer:
        Answering(calls.send, 0.02)
        await asyncio.sleep(0.05)
        raise RuntimeError("the database went away")

    with pytest.raises(RuntimeError):
        await press()
    await asyncio.sleep(0.01)
    assert [a.text for _, a in calls.sent] == [""]


async def test_the_handler_s_answer_goes_out_before_its_change_is_stored() -> None:
    """bot.router tells the answer as soon as the handler is done (the table still held, its
    change being stored): the call is under way before the press's handling ends."""
    calls = Calls()
    answering = Answering(calls.send, 0.05)
    answer = Answer("出了 3")
    answering.now(answer)  # under the table's lock: no wait for the call
    await asyncio.sleep(0.1)  # the change stored meanwhile, slowly
    assert [a.text for _, a in calls.sent] == ["出了 3"]  # no early answer: this one was in time
    assert await answering.give(answer) is True
    assert len(calls.sent) == 1

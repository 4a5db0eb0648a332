"""Freed memory given back to the system (bot.trim): at once when the process goes quiet, now
and then otherwise, and nothing at all where there is no glibc."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from collections.abc import Iterator

import pytest

from bot import trim as trim_module


@pytest.fixture
def no_libc_cached() -> Iterator[None]:
    trim_module.libc_or_none.cache_clear()
    yield
    trim_module.libc_or_none.cache_clear()


async def _trims(monkeypatch: pytest.MonkeyPatch, states: list[bool], every: float) -> list[int]:
    """Run the trimming task while ``quiet()`` gives ``states`` one a tick (then stays as the
    last); after which look each trim came."""
    looked: list[bool] = []
    trims: list[int] = []
    seen_all = asyncio.Event()

    def quiet() -> bool:
        if len(looked) == len(states):
            seen_all.set()
            return states[-1]
        looked.append(states[len(looked)])
        return looked[-1]

    monkeypatch.setattr(trim_module, "trim", lambda: trims.append(len(looked)))
    task = asyncio.create_task(trim_module.trimming(quiet, every=every, tick=0))
    try:
        await asyncio.wait_for(seen_all.wait(), 30)
    finally:
        task.cancel()
    return trims


async def test_a_trim_when_the_process_goes_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    # quiet from the start: nothing freed yet; busy, then quiet: one trim, not one a tick
    trims = await _trims(monkeypatch, [True, False, True, True, False, False, True], every=3600)
    assert trims == [3, 7]


async def test_a_trim_now_and_then_while_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    trims = await _trims(monkeypatch, [False] * 5, every=0)
    assert trims[:5] == [1, 2, 3, 4, 5]


@pytest.mark.usefixtures("no_libc_cached")
def test_nothing_where_there_is_no_c_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert trim_module.libc_or_none() is None
    trim_module.trim()  # no error, nothing done


@pytest.mark.usefixtures("no_libc_cached")
def test_nothing_where_the_c_library_is_not_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    class Musl:  # a C library without malloc_trim
        def __init__(self, name: str) -> None:
            self.name = name

    monkeypatch.setattr(ctypes.util, "find_library", lambda name: "libc.musl.so")
    monkeypatch.setattr(ctypes, "CDLL", Musl)
    assert trim_module.libc_or_none() is None
    trim_module.trim()


@pytest.mark.usefixtures("no_libc_cached")
def test_nothing_where_the_c_library_cannot_be_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str) -> ctypes.CDLL:
        raise OSError(name)

    monkeypatch.setattr(ctypes.util, "find_library", lambda name: "libc.so.6")
    monkeypatch.setattr(ctypes, "CDLL", refuse)
    assert trim_module.libc_or_none() is None
    trim_module.trim()

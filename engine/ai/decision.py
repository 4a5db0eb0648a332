"""The one entry point of the AI: :func:`decide` answers whatever the engine asks a seat.

It reads only what that seat may see: its :class:`~engine.view.SeatView`, the deal phase's
options for it, the public log of plays (``Game.log``) and the public deal events (tribute cards
moved, for card counts). The hard level additionally simulates deals of the hidden cards made
from that knowledge alone, never the real ones (:mod:`engine.ai.search`, :mod:`engine.ai.deals`).

Reproducibility: with the same ``rng`` state (or none: then a generator seeded from the seat's
own view and the length of the public log), the same level and, for the hard level, a fixed
``samples`` count, a decision depends on nothing but what the seat may see.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..actions import Action
from ..cards import parse
from ..events import Event
from ..game import Game
from ..match import Match
from ..playout import random_action
from ..setup import Setup
from ..view import SeatView
from ..vocab import Do
from . import baseline
from .deal_policy import decide_deal
from .knowledge import from_view, start_counts
from .play_policy import decide_play
from .search import search

LEVELS = ("easy", "normal", "hard")  # the levels offered to players
ARENA_LEVELS = (*LEVELS, "baseline")  # and the frozen earlier normal player, for the arena only
DEFAULT_BUDGET_MS = 100.0  # the hard level's thinking time per decision unless told otherwise
DEFAULT_DEADLINE_S = 2.0  # decide_async: past this the search stops and normal's choice is used


@dataclass(frozen=True)
class Decision:
    """An action for the engine, and why: ``reason`` is a code of :data:`REASONS`, ``params``
    its parameters (e.g. ``{"cards": "55"}``)."""

    action: Action
    reason: str
    params: dict[str, str | int] = field(default_factory=dict, compare=False)


def decide(
    source: Match | Game | Setup,
    seat: int,
    level: str = "normal",
    rng: random.Random | None = None,
    budget_ms: float = DEFAULT_BUDGET_MS,
    deal_events: Sequence[Event] | None = None,
    *,
    samples: int | None = None,
    stop: threading.Event | None = None,
) -> Decision:
    """What ``seat`` should do now at ``level`` (easy | normal | hard), for every ask of either
    phase: lead, answer, burn claim, yield (after 让牌: ``last``), 革命, 要头, 宣点, 还贡.

    ``source`` is the table's Match (or a bare Game / Setup); it is only read, never changed.
    ``rng``: a seeded ``random.Random`` for reproducible choices; when None, one is derived
    from the seat's own view and the public log (never an unseeded generator), so the same
    position always gets the same decision. ``budget_ms`` bounds the hard level's thinking
    time; ``samples`` (hard only) fixes the number of simulated deals instead, so the decision
    does not depend on the machine's speed. ``stop`` (set from another thread) ends the hard
    level's search at once: it then answers with the normal level's decision.
    ``deal_events`` (tribute moves of the deal) are taken from the Match when not given."""
    if level not in ARENA_LEVELS:
        raise ValueError(f"unknown AI level {level!r} (one of {', '.join(LEVELS)})")
    setup: Setup | None
    game: Game | None
    if isinstance(source, Match):
        setup, game = source.setup, source.game
        if deal_events is None and setup is not None:
            deal_events = setup.events
    elif isinstance(source, Setup):
        setup, game = source, source.game
        if deal_events is None:
            deal_events = source.events
    else:
        setup, game = None, source
    if game is None:
        if setup is None:
            raise ValueError("no game is running")
        _asked(setup.asked(), seat)
        view = setup.view(seat)
        rng = rng if rng is not None else _public_rng(view, 0, level)
        return _decide_deal(setup, view, seat, level, rng)
    _asked(game.asked(), seat)
    view = game.view(seat)
    rng = rng if rng is not None else _public_rng(view, len(game.log), level)
    return _decide_play(game, view, seat, level, rng, budget_ms, deal_events or (), samples, stop)


async def decide_async(
    match: Match | Game | Setup,
    seat: int,
    level: str,
    rng: random.Random | None = None,
    *,
    samples: int | None = None,
    budget_ms: float = DEFAULT_BUDGET_MS,
    deadline_s: float = DEFAULT_DEADLINE_S,
    deal_events: Sequence[Event] | None = None,
) -> Decision:
    """:func:`decide` for an asyncio program (the bot): it runs in a worker thread
    (``asyncio.to_thread``), so the event loop is never blocked by the hard level's search.
    If ``deadline_s`` passes first, the search is told to stop and the normal level's
    decision is returned (a stopped search falls back to it within one rollout).

    Contract: ``decide`` only reads ``match``; the caller must not change it (apply an action,
    start a game) until this coroutine returns — e.g. by holding the table's lock across the
    ``await``. When it returns, the worker thread has finished with the match."""
    stop = threading.Event()

    def run() -> Decision:
        return decide(match, seat, level, rng, budget_ms, deal_events, samples=samples, stop=stop)

    task = asyncio.ensure_future(asyncio.to_thread(run))
    try:
        return await asyncio.wait_for(asyncio.shield(task), deadline_s)
    except TimeoutError:
        stop.set()  # the search ends within one rollout and answers with the normal choice
        return await task
    except asyncio.CancelledError:
        stop.set()
        await asyncio.shield(task)  # the match is not released before the thread is done
        raise


def _public_rng(view: SeatView, log_len: int, level: str) -> random.Random:
    """A generator seeded by what the seat sees: its view and how many actions were logged."""
    key = f"{level}|{log_len}|{view!r}".encode()
    return random.Random(int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big"))


def _asked(ask: tuple[int, str] | None, seat: int) -> str:
    if ask is None or ask[0] != seat:
        raise ValueError(f"seat {seat} is not asked to act now")
    return ask[1]


def _decide_deal(
    setup: Setup, view: SeatView, seat: int, level: str, rng: random.Random
) -> Decision:
    options = setup.options(seat)
    if len(options) == 1:
        return Decision(options[0], "only_choice", _cards(options[0]))
    if level == "easy":
        act = rng.choice(options)
        return Decision(act, "random", _cards(act))
    assert view.hand is not None and view.asked is not None
    policy = baseline.decide_deal if level == "baseline" else decide_deal
    act, reason = policy(view.asked, parse(view.hand), options)
    return Decision(act, reason, _cards(act))


def _decide_play(
    game: Game,
    view: SeatView,
    seat: int,
    level: str,
    rng: random.Random,
    budget_ms: float,
    deal_events: Sequence[Event],
    samples: int | None,
    stop: threading.Event | None,
) -> Decision:
    if level == "easy":
        act = random_action(game, rng)
        return Decision(act, "random", _cards(act))
    legal = game.legal(seat)
    k = from_view(view, game.log, start_counts(deal_events))
    deadline = time.perf_counter() + budget_ms / 1000.0
    policy = baseline.decide_play if level == "baseline" else decide_play
    choice = policy(k, legal.plays, legal.can_yield, rng)
    cards = str(choice.play) if choice.play is not None else ""
    normal = Decision(Action(seat, Do(choice.do), cards), choice.reason, dict(choice.params))
    if level == "hard":
        found = search(game, view, k, legal, normal.action, rng, deadline, samples, stop)
        if found is not None:
            return Decision(*found)
    return normal


def _cards(act: Action) -> dict[str, str | int]:
    return {"cards": act.cards} if act.cards else {}


__all__ = [
    "ARENA_LEVELS",
    "DEFAULT_BUDGET_MS",
    "LEVELS",
    "Decision",
    "decide",
    "decide_async",
]

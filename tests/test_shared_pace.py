"""Several processes share Telegram's overall budget of calls (bot.pacing.SharedPace): their
calls together never reach the local server's 30 a second, however late a call leaves after
its turn was granted (issue 35: with three processes on PostgreSQL, a flood wait now and then,
every one of them over the 30 a second in all — a call that waited after its turn for its
chat's pace, learnt from its lease only then, left among later turns' calls)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from telegram import Bot, Message
from telegram.error import BadRequest
from test_bot_pace import FakeBot, NoStore, Slots, _moved, _refused, sender_of

from bot.deployment import Single, Turn
from bot.offline.localapi import LocalBotApi
from bot.outbox import Out, Slot, SlotKind
from bot.pacing import Pace, Pacing, SharedPace, Window
from bot.queues import ChatQueue, Queues
from bot.sender import Sender
from bot.uploads import Uploads


class Budget:
    """The budget's row of bot.coord (``PgCoord.pace``), in memory: one for all processes."""

    def __init__(self) -> None:
        self.next_at = 0.0

    async def pace(self, interval: float, turns: int = 1, after: float = 0.0) -> float:
        span = interval * turns
        self.next_at = max(self.next_at, time.time() + after) + span
        return self.next_at - span


class Process(Single):
    """One of several processes, as far as its calls go (bot.deployment.Shared): the budget
    of calls shared, and a chat's pace learnt from its lease once its turn is granted —
    ``called``: when another process last called the chats it delivers to."""

    def __init__(self, budget: Budget, called: float | None = None) -> None:
        super().__init__(NoStore())  # type: ignore[arg-type]  # (nothing stored)
        self.budget = budget
        self.called = called

    def pace(self, per_s: float, burst: int) -> Pace:
        return SharedPace(self.budget, per_s, burst)  # type: ignore[arg-type]

    @asynccontextmanager
    async def delivering(self, chat_id: int, chat: ChatQueue, forget: Any) -> AsyncIterator[Turn]:
        if self.called is not None:  # as the lease tells (Shared.delivering)
            chat.last = max(chat.last, self.called)
        async with super().delivering(chat_id, chat, forget) as turn:
            yield turn


def _sender(bot: Bot, process: Process) -> Sender:
    store = NoStore()
    sender = Sender(
        bot,
        Queues(),
        process,
        slots=Slots({}),
        uploads=Uploads(store),
        outbox=store,
        on_refused=_refused,
        on_migrated=_moved,
        pacing=Pacing.telegram(),
    )
    sender.queues.started -= 60.0  # (started a while ago: a chat's first call waits no pace)
    sender.start()
    return sender


async def test_processes_calls_stay_within_telegrams_30_a_second() -> None:
    """Process A's chats were called by another process a moment ago: each of its calls waits
    for its chat's pace after its turn, and they all leave together a second later — while B
    and C spend the turns of that second. Taken late, those turns would make some 45 calls
    in a second; each call waits for a turn of its own instead (its late one given up), and
    the server (Telegram's limits) never answers 429."""
    budget = Budget()
    async with LocalBotApi() as api:
        users = [api.user(20_000 + k, f"玩家{k}") for k in range(90)]
        for u in users:
            await u.send("/start")
        async with Bot(api.token, base_url=api.base_url) as bot:
            called = time.monotonic()
            a = _sender(bot, Process(budget, called))
            b, c = _sender(bot, Process(budget)), _sender(bot, Process(budget))
            for u in users[:20]:
                a.post(Out(u.id, "你好"))
            await asyncio.sleep(0.8)  # A's turns granted, its calls waiting for their chats
            for k, u in enumerate(users[20:]):
                (b, c)[k % 2].post(Out(u.id, "你好"))
            for s in (a, b, c):
                await s.drain(timeout=30.0)
                await s.close()
        sent = [call for call in api.calls if call.method == "sendMessage"]
        assert len(sent) >= len(users)
        assert not [call for call in sent if call.status == 429]
        assert isinstance(a.pace, SharedPace) and a.pace.retaken > 0  # (what is tested)


class GoneBot(FakeBot):
    """A message to edit that is gone (deleted by its reader): the edit refused."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[float] = []  # when each call came

    async def edit_message_text(self, text: str, *, chat_id: int, **_: Any) -> bool:
        self.at.append(time.monotonic())
        self.calls.append(("edit", chat_id, text))
        raise BadRequest("Message to edit not found")

    async def send_message(self, chat_id: int, text: str, **kw: Any) -> Message:
        self.at.append(time.monotonic())
        return await super().send_message(chat_id, text, **kw)


async def test_a_messages_second_call_waits_for_its_chats_pace() -> None:
    """A message whose edit is refused is sent anew — its second call to the chat, which
    waits for the chat's pace as a message's first call does (it went at once: two calls to
    a private chat in a few milliseconds)."""
    bot = GoneBot()
    hand = Slot(1, SlotKind.HAND, 0)
    sender = sender_of(bot, Slots({hand: 5}), pacing=Pacing(0.0, 0.3, 0.0))
    sender.post(Out(9, "等待", slot=hand))
    await sender.drain(timeout=5.0)
    assert [c[0] for c in bot.calls] == ["edit", "send"]
    assert bot.at[1] - bot.at[0] >= 0.3 - 0.005  # (a lower bound: a loaded machine only adds)
    await sender.close()


async def test_a_process_never_sends_two_calls_in_the_same_instant() -> None:
    """A process that woke late holds the calls of several turns at once: the window lets
    them out half a turn apart at least, never as one bunch (a bunch of five in two
    milliseconds, on top of the other processes' calls, made 30 in a second)."""
    window = Window(100, gap=0.02)
    at: list[float] = []

    async def call() -> None:
        await window.enter()
        at.append(time.monotonic())

    await asyncio.gather(*(call() for _ in range(6)))
    gaps = [b - a for a, b in itertools.pairwise(at)]
    assert all(g >= 0.02 - 0.002 for g in gaps), gaps  # (a lower bound: load only adds)

"""Simulated players for the demo, the end-to-end tests and the load bench: people who read
their private chat and press only the buttons the bot actually shows them."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence

from .codec import BadCallback, Callback
from .localapi import LocalBotApi, SentMessage, SimGroup, SimUser

RETRY_AFTER_S = 5.0  # a patient player taps again on a message unchanged this long


def op_of(data: str | None) -> str | None:
    try:
        return Callback.decode(data).op
    except BadCallback:
        return None


class SimPlayer:
    """A player who, when their hand message asks them something, answers it: a one-tap answer
    or 过, a rank then 出牌, the hint then 出牌, or a deal-phase choice; ``rng`` varies it."""

    def __init__(
        self,
        api: LocalBotApi,
        user: SimUser,
        rng: random.Random,
        hints: float = 0.4,
        follow: bool = False,
    ):
        """``hints``: how often a lead is chosen by the 提示 button rather than a random rank;
        ``follow``: always do what 提示 suggests (a player who plays like the normal AI)."""
        self.api = api
        self.user = user
        self.rng = rng
        self.hints = hints
        self.follow = follow
        self.presses = 0
        self._plan: list[str] = []
        self._seen: tuple[int, int] | None = None
        self._seen_at = 0.0

    def hand_message(self) -> SentMessage | None:
        """The newest message in the private chat that asks something (has buttons besides
        托管)."""
        for m in reversed(self.api.messages(self.user.id)):
            ops = [op_of(b.callback_data) for b in m.buttons]
            if any(op is not None and op != "a" for op in ops):
                return m
        return None

    async def _press(self, msg: SentMessage, op: str) -> bool:
        for b in msg.buttons:
            if op_of(b.callback_data) == op:
                await self.user.press(msg, data=b.callback_data)
                self.presses += 1
                return True
        return False

    async def _follow_hint(self, msg: SentMessage, ops: list[str]) -> bool:
        """Do what 提示 suggests: ask for it, then play what it chose (or pass). The answer is
        read from the message itself (its 💡 line), so a player whose hint was lost — the bot
        restarted in between — simply asks again: the same position gives the same hint."""
        options = [o for o in ops if o.startswith("o")]
        if options:
            return await self._press(msg, options[-1])  # decline 革命 / 要头 / 宣点
        if "💡" not in msg.plain:
            return await self._press(msg, "i")
        if "p" in ops:
            return await self._press(msg, "p")
        return await self._press(msg, "x")

    async def step(self, patient: bool = False) -> bool:
        """Press one button if something is asked; False when nothing is. ``patient``: not
        again on a message that has not changed since the last press (the bot paces its
        edits; a person waits to see the result of a tap), unless it stayed so for a few
        seconds (a tap that changed nothing: the person tries something else)."""
        msg = self.hand_message()
        if msg is None:
            return False
        seen = (msg.message_id, msg.edits)
        now = time.monotonic()
        if patient and seen == self._seen and now - self._seen_at < RETRY_AFTER_S:
            return False
        self._seen, self._seen_at = seen, now
        ops = [o for o in (op_of(b.callback_data) for b in msg.buttons) if o is not None]
        rng = self.rng
        if "p" in ops and self._plan and self._plan[0] == "p":
            self._plan.pop(0)
            return await self._press(msg, "p")
        options = [o for o in ops if o.startswith("o")]
        if options:  # 革命 / 要头 / 宣点: mostly the last choice (decline), sometimes the first
            return await self._press(msg, options[0] if rng.random() < 0.25 else options[-1])
        if self.follow:
            return await self._follow_hint(msg, ops)
        if any(o.startswith("t") for o in ops):  # 还贡: the hint picks, then send
            if "p" in ops:
                return await self._press(msg, "p")
            return await self._press(msg, "i")
        quick = [o for o in ops if o.startswith("q")]
        if quick and rng.random() < 0.6:
            return await self._press(msg, quick[0] if rng.random() < 0.7 else rng.choice(quick))
        if "x" in ops and (rng.random() < 0.5 or not quick):
            # 过 / 不烧 when answering; a lead has no 过
            return await self._press(msg, "x")
        if "p" in ops:
            return await self._press(msg, "p")
        ranks = [o for o in ops if o.startswith("r")]
        if ranks and rng.random() > self.hints:
            self._plan = ["p"]
            return await self._press(msg, rng.choice(ranks))
        if "c" in ops:
            return await self._press(msg, "c")
        self._plan = ["p"]
        return await self._press(msg, "i")


async def play_until(
    api: LocalBotApi,
    players: Sequence[SimPlayer],
    done: Callable[[], bool],
    max_rounds: int = 20000,
    quiet: float = 0.02,
    each_round: Callable[[], None] | None = None,
) -> int:
    """Let the players act until ``done()``; the number of presses. A player whose press got
    no new question (a refused or stale button) simply tries again next round. ``each_round``
    is called once the chats are quiet, before the players look at them (the demo takes its
    screenshots there)."""
    presses = 0
    idle_rounds = 0
    for _ in range(max_rounds):
        await api.idle(quiet=quiet, timeout=30.0)
        if done():
            return presses
        if each_round is not None:
            each_round()
        moved = False
        for p in players:
            if await p.step():
                moved = True
                presses += 1
                await api.idle(quiet=quiet, timeout=30.0)
                if done():
                    return presses
        if not moved:
            idle_rounds += 1
            await asyncio.sleep(0.02)  # an AI is thinking or a timer runs
        else:
            idle_rounds = 0
    raise TimeoutError(f"the game did not end within {max_rounds} rounds")


async def seat_everyone(
    api: LocalBotApi, group: SimGroup, users: Sequence[SimUser], opener: SimUser
) -> SentMessage:
    """``/gouji`` by ``opener``, everyone starts the bot and takes their seat in order; the
    lobby message."""
    for u in users:
        await u.send("/start")
    await opener.send("/gouji", group)
    await api.idle()
    for seat, u in enumerate(users):
        await press_lobby(api, group, u, f"s{seat}")
    return lobby_message(api, group)


def lobby_message(api: LocalBotApi, group: SimGroup) -> SentMessage:
    for m in reversed(api.messages(group.id)):
        if any((b.callback_data or "").startswith("l") for b in m.buttons):
            return m
    raise LookupError("no lobby message")


def _lobby_button(msg: SentMessage, op: str) -> str:
    for b in msg.buttons:
        if op_of(b.callback_data) == op and b.callback_data:
            return b.callback_data
    raise LookupError(op)


async def press_lobby(
    api: LocalBotApi, group: SimGroup, user: SimUser, op: str, timeout: float = 10.0
) -> None:
    """Press a lobby button and wait until the lobby shows the result (the bot paces its
    group messages, so the edit may come a little later)."""
    lobby = lobby_message(api, group)
    edits = lobby.edits
    await user.press(lobby, data=_lobby_button(lobby, op))
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while lobby.edits == edits and loop.time() < end:
        await asyncio.sleep(0.05)

"""Simulated players for the demo, the end-to-end tests and the load bench: people who read
their private chat and press only the buttons the bot actually shows them."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence

from ..buttons import Callback, HandOp, Kind, LobbyOp, Op, callback_of
from .localapi import LocalBotApi, SentMessage, SimGroup, SimUser

RETRY_AFTER_S = 5.0  # a patient player taps again on a message unchanged this long
AUTO_OPS = (HandOp.AUTO, HandOp.AUTO_YES, HandOp.CANCEL)  # 托管 and its confirmation


def buttons_of(msg: SentMessage) -> list[Callback]:
    """The bot's buttons on a message, decoded (links and foreign data left out)."""
    return [cb for cb in (callback_of(b.callback_data) for b in msg.buttons) if cb is not None]


def button_data(msg: SentMessage, op: Op, arg: str | int | None = None) -> str | None:
    """The callback data of the message's button ``op`` (with ``arg``, if given)."""
    for b in msg.buttons:
        cb = callback_of(b.callback_data)
        if cb is not None and cb.op is op and (arg is None or cb.arg == str(arg)):
            return b.callback_data
    return None


def button_data_is(data: str | None, op: Op) -> bool:
    cb = callback_of(data)
    return cb is not None and cb.op is op


def has_button(msg: SentMessage, kind: Kind, op: Op) -> bool:
    return any(cb.kind == kind and cb.op is op for cb in buttons_of(msg))


class SimPlayer:
    """A player who, when their hand message asks them something, answers it: a one-tap answer
    or 过, a rank (perhaps a count of it) then 出牌, the hint then 出牌, or a deal-phase choice;
    a burn the bot warns about is confirmed or cancelled; a ▶ play that asks for a second tap
    (it spends 2s or jokers) is confirmed, as meant; ``rng`` varies it."""

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
        self.pressed: list[str] = []  # the last presses' callback data (a stalled table's why)
        self._plan: list[HandOp] = []
        self._seen: tuple[int, int] | None = None
        self._seen_at = 0.0

    def hand_message(self) -> SentMessage | None:
        """The newest message in the private chat that asks something (has hand buttons
        besides 托管; a page of /rules has buttons too, but asks nothing)."""
        for m in reversed(self.api.messages(self.user.id)):
            if any(cb.kind == Kind.HAND and cb.op not in AUTO_OPS for cb in buttons_of(m)):
                return m
        return None

    async def _press(self, msg: SentMessage, op: HandOp, arg: str | None = None) -> bool:
        data = button_data(msg, op, arg)
        if data is None:
            return False
        await self.user.press(msg, data=data)
        self.presses += 1
        self.pressed = [*self.pressed[-7:], f"{data}@{msg.message_id}.{msg.edits}"]
        return True

    async def _tap(self, msg: SentMessage, cb: Callback) -> bool:
        return await self._press(msg, HandOp(cb.op), cb.arg)

    async def _follow_hint(self, msg: SentMessage, ops: list[Callback]) -> bool:
        """Do what 提示 suggests: ask for it, then play what it chose (or pass). The answer is
        read from the message itself (its 💡 line), so a player whose hint was lost — the bot
        restarted in between — simply asks again: the same position gives the same hint."""
        options = [o for o in ops if o.op == HandOp.OPTION]
        if options:
            return await self._tap(msg, options[-1])  # decline 革命 / 要头 / 宣点
        if "💡" not in msg.plain:
            return await self._press(msg, HandOp.HINT)
        if any(o.op == HandOp.PLAY for o in ops):
            return await self._press(msg, HandOp.PLAY)
        return await self._press(msg, HandOp.PASS)

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
        ops = buttons_of(msg)
        have = {o.op for o in ops}
        rng = self.rng
        if HandOp.SURE in have:  # the ▶ play tapped was meant (no draw: the same games)
            return await self._press(msg, HandOp.SURE)
        if HandOp.CONFIRM in have:  # a burn that will fail (§7): mostly go ahead
            if self.follow or rng.random() < 0.5:
                return await self._press(msg, HandOp.CONFIRM)
            self._plan = [HandOp.PASS]  # 取消, then 不烧
            return await self._press(msg, HandOp.CANCEL)
        if self._plan and self._plan[0] in have:
            if HandOp.COUNT in have and self._plan[0] == HandOp.PLAY and rng.random() < 0.3:
                counts = [o for o in ops if o.op == HandOp.COUNT]
                return await self._tap(msg, rng.choice(counts))  # fewer of the rank
            return await self._press(msg, self._plan.pop(0))
        self._plan = []
        options = [o for o in ops if o.op == HandOp.OPTION]
        if options:  # 革命 / 要头 / 宣点: mostly the last choice (decline), sometimes the first
            return await self._tap(msg, options[0] if rng.random() < 0.25 else options[-1])
        if self.follow:
            return await self._follow_hint(msg, ops)
        if HandOp.RETURN_RANK in have:  # 还贡: the hint picks, then send
            if HandOp.PLAY in have:
                return await self._press(msg, HandOp.PLAY)
            return await self._press(msg, HandOp.HINT)
        # one-tap answers (a lead's ▶ 2s or jokers alone are left to the hint: a lead has no 过)
        quick = [o for o in ops if o.op == HandOp.QUICK] if HandOp.PASS in have else []
        if quick and rng.random() < 0.6:
            return await self._tap(msg, quick[0] if rng.random() < 0.7 else rng.choice(quick))
        if HandOp.PASS in have and (rng.random() < 0.5 or not quick):
            # 过 / 不烧 when answering; a lead has no 过
            return await self._press(msg, HandOp.PASS)
        if HandOp.PLAY in have:
            return await self._press(msg, HandOp.PLAY)
        ranks = [o for o in ops if o.op == HandOp.RANK]
        if ranks and rng.random() > self.hints:
            self._plan = [HandOp.PLAY]
            return await self._tap(msg, rng.choice(ranks))
        if HandOp.CLEAR in have:
            return await self._press(msg, HandOp.CLEAR)
        self._plan = [HandOp.PLAY]
        return await self._press(msg, HandOp.HINT)


async def play_until(
    api: LocalBotApi,
    players: Sequence[SimPlayer],
    done: Callable[[], bool],
    max_rounds: int = 20000,
    quiet: float = 0.02,
    each_round: Callable[[], None] | None = None,
    settle: Callable[[], Awaitable[None]] | None = None,
) -> int:
    """Let the players act until ``done()``; the number of presses. A player whose press got
    no new question (a refused or stale button) simply tries again next round. ``each_round``
    is called once the chats are quiet, before the players look at them (the demo takes its
    screenshots there). ``settle`` waits until the bot is idle (``localbot.settle`` for a bot
    in this process); without it, until the server saw ``quiet`` seconds of silence (a bot in
    another process)."""

    async def wait() -> None:
        if settle is not None:
            await settle()
        else:
            await api.idle(quiet=quiet, timeout=30.0)

    presses = 0
    idle_rounds = 0
    for _ in range(max_rounds):
        await wait()
        if done():
            return presses
        if each_round is not None:
            each_round()
        moved = False
        for p in players:
            if await p.step():
                moved = True
                presses += 1
                await wait()
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
        group.join_quietly(u)  # members of the group already
        await u.send("/start")
    await opener.send("/gouji", group)
    await api.idle()
    for seat, u in enumerate(users):
        await press_lobby(api, group, u, LobbyOp.SIT, seat)
    return lobby_message(api, group)


def lobby_message(api: LocalBotApi, group: SimGroup) -> SentMessage:
    for m in reversed(api.messages(group.id)):
        if any(cb.kind == Kind.LOBBY for cb in buttons_of(m)):
            return m
    raise LookupError("no lobby message")


async def press_lobby(
    api: LocalBotApi,
    group: SimGroup,
    user: SimUser,
    op: LobbyOp,
    seat: int | None = None,
    timeout: float = 10.0,
) -> None:
    """Press a lobby button (``seat``: which seat to take) and wait until the lobby shows the
    result (the bot paces its group messages, so the edit may come a little later). A lobby
    not shown yet, or without that button yet (the bot is slow on a loaded machine: its
    message comes after the server fell quiet), is waited for as long: LookupError then."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        try:
            lobby = lobby_message(api, group)
            data = button_data(lobby, op, seat)
        except LookupError:
            data = None
        if data is not None:
            break
        if loop.time() >= end:
            lobby_message(api, group)  # LookupError: no lobby message
            raise LookupError(op)
        await asyncio.sleep(0.05)
    edits = lobby.edits
    await user.press(lobby, data=data)
    end = loop.time() + timeout
    while lobby.edits == edits and loop.time() < end:
        await asyncio.sleep(0.05)

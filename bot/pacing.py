"""How fast the bot calls Telegram: :class:`Pacing` (the limits, as one value) and the turns
in the budget of calls over all chats — this process's (:class:`Pace`) or, with several
processes, all of theirs together (:class:`SharedPace`, bot.coord)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from .coord import PgCoord


@dataclass(frozen=True)
class Pacing:
    """How fast the sender calls Telegram: seconds between two calls to one group and to one
    private chat, and calls a second over all chats after a first ``burst``. Telegram's
    limits: about 20 messages a minute in a group, about one a second in a private chat, about
    30 a second in all (25 a second after a burst of 5 never makes more than 30 in a second)."""

    group_s: float = 3.0
    private_s: float = 1.0
    overall_per_s: float = 25.0
    burst: int = 5

    @staticmethod
    def telegram() -> Pacing:
        return Pacing()

    @staticmethod
    def off() -> Pacing:
        """No pacing (a local server without limits)."""
        return Pacing(0.0, 0.0, 0.0)

    def faster(self, factor: float) -> Pacing:
        """The same pacing on a clock ``factor`` times as fast (tests and demos against a
        local server whose limits run as fast: ``RateLimits.faster``)."""
        return Pacing(
            self.group_s / factor, self.private_s / factor, self.overall_per_s * factor, self.burst
        )

    def interval(self, chat_id: int) -> float:
        return self.group_s if chat_id < 0 else self.private_s


class Pace:
    """At most ``per_s`` calls a second over all chats (after a first ``burst``), granted in the
    order asked; 0: no limit. A chat's worker waits for its turn *before* it takes its next
    message, so under load the message stays in the chat's queue, where newer content replaces
    it, and its picture is drawn only when its call can go out: the bot keeps no backlog of
    calls waiting for Telegram's budget, only each chat's newest content."""

    def __init__(self, per_s: float, burst: int = 5) -> None:
        self.interval = 1.0 / per_s if per_s > 0 else 0.0
        self.burst = burst
        self._next = 0.0  # when the budget is free again, at this pace

    async def turn(self) -> None:
        if not self.interval:
            return
        now = time.monotonic()
        self._next = max(self._next, now) + self.interval
        wait = self._next - now - self.burst * self.interval
        if wait > 0:
            await asyncio.sleep(wait)


class SharedPace(Pace):
    """:class:`Pace` over all processes of the bot (bot.coord): their calls together stay
    within the bot's budget. The turns wanted meanwhile are taken together, one statement at a
    time for the whole process (never one a call: the budget's row would be the database's
    busiest, and every call waiting for it would hold a connection)."""

    def __init__(self, coord: PgCoord, per_s: float, burst: int = 5) -> None:
        super().__init__(per_s, burst)
        self.coord = coord
        self._wanted: list[asyncio.Future[float]] = []  # turns asked, not yet taken
        self._taking: asyncio.Task[None] | None = None

    async def turn(self) -> None:
        if not self.interval:
            return
        want = asyncio.get_running_loop().create_future()
        self._wanted.append(want)
        if self._taking is None or self._taking.done():
            self._taking = asyncio.get_running_loop().create_task(self._take())
        at = await want
        wait = at - time.time() - self.burst * self.interval
        if wait > 0:
            await asyncio.sleep(wait)

    async def _take(self) -> None:
        """The turns asked for, in one statement; those asked meanwhile, in the next."""
        while self._wanted:
            wanted, self._wanted = self._wanted, []
            try:
                first = await self.coord.pace(self.interval, len(wanted))
            except Exception as e:  # the database away a moment: those callers see it
                for want in wanted:
                    if not want.done():
                        want.set_exception(e)
                continue
            for i, want in enumerate(wanted):
                if not want.done():  # a caller gone meanwhile: its turn goes unused
                    want.set_result(first + i * self.interval)

"""How fast the bot calls Telegram: :class:`Pacing` (the limits, as one value), the turns in
the budget of calls over all chats — this process's (:class:`Pace`) or, with several
processes, all of theirs together (:class:`SharedPace`, bot.coord) — and a group's rhythm: its
table and log edited once a beat at most (:class:`Beat`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeAlias

from .coord import PgCoord
from .outbox import RETIRE, Out, Slot, SlotKind

# A group's table and log are edited at most once in this many seconds: the decisions of a
# burst (a pass, a one-tap answer, the next play) show in one edit. A player sees each
# decision at once in their own chat; the group, a table at most this old (a change after a
# quiet beat at once). With one new question, the old one retired and the actor's message
# edited (three private calls a decision, 3.3 at people's tapping), the group's writes are
# what keeps a decision within four calls (issue 35): `python -m bot bench --game` measured
# 4.45 calls a decision at a 9 s beat, 4.07 at 15 s, 3.94 at 20 s.
BEAT_S = 20.0
LOG_BEATS = 3  # the log page: edited once in so many beats at most
# several processes: a process takes turns in the shared budget at most this far ahead (what
# the other processes' questions wait behind)
AHEAD_S = 0.5
SLACK_S = 0.001  # a timer may wake this much early: the turn is granted then
# several processes: a call goes out within its turn — at most EARLY_TURNS intervals before the
# turn's time, LATE_TURNS after it (later, it takes a fresh turn, first in line): the calls of
# all processes in any second then stay within per_s + EARLY_TURNS + LATE_TURNS + 1 — 28 at 25
# a second, two under Telegram's 30 for calls that reach it closer together than they left (a
# turn kept by a call that left late, past other processes' turns, was what met the 30 a
# second of issue 35's flood waits)
EARLY_TURNS = 0
LATE_TURNS = 2
# several processes: a chat's worker is granted its turn this far ahead of the turn's time, for
# what it does before its call (the chat's lease and stored messages read, its picture drawn);
# the call then waits for the turn's time (SharedPace.spend)
LEAD_S = 0.25
log = logging.getLogger("gouji.pacing")


@dataclass(frozen=True)
class Pacing:
    """How fast the sender calls Telegram: seconds between two calls to one group and to one
    private chat, and calls a second over all chats after a first ``burst``. Telegram's
    limits: about 20 messages a minute in a group, about one a second in a private chat, about
    30 a second in all (25 a second after a burst of 3 never makes more than 28 in a second:
    two to spare for calls that reach Telegram closer together than they left)."""

    group_s: float = 3.0
    private_s: float = 1.0
    overall_per_s: float = 25.0
    burst: int = 3
    beat_s: float = BEAT_S  # a group's table and log: edited once a beat at most (Beat)

    @staticmethod
    def telegram() -> Pacing:
        return Pacing()

    @staticmethod
    def off() -> Pacing:
        """No pacing (a local server without limits)."""
        return Pacing(0.0, 0.0, 0.0, beat_s=0.0)

    def faster(self, factor: float) -> Pacing:
        """The same pacing on a clock ``factor`` times as fast (tests and demos against a
        local server whose limits run as fast: ``RateLimits.faster``)."""
        return Pacing(
            self.group_s / factor,
            self.private_s / factor,
            self.overall_per_s * factor,
            self.burst,
            self.beat_s / factor,
        )

    def interval(self, chat_id: int) -> float:
        return self.group_s if chat_id < 0 else self.private_s


def asks(out: Out) -> bool:
    """Whether ``out`` asks a player to act: their hand message in their private chat with
    buttons at the match's version (a question, sent anew; the player's taps shown on it while
    it asks — a player waiting for one is stuck), not a hand that only waits, at any version
    (its keyboard only 托管: bot.handkeys.ANY_VERSION), sent anew or not — the deal's hands of
    the players it asks nothing are no questions (they crowded the real ones at the first
    leads). A hand sent anew without buttons asks; so does the retirement of an old question
    (:data:`bot.outbox.RETIRE`, ``new``)."""
    slot = out.slot
    if out.chat_id < 0 or slot is None or slot.kind != SlotKind.HAND:
        return False
    if out.act:
        return out.act == RETIRE and out.new
    if not out.keyboard:
        return out.new
    return any(
        b.data is not None and b.data.split(".", 2)[1:2] != ["0"]
        for row in out.keyboard
        for b in row
    )


# The order of turns in a saturated budget of calls (:meth:`Pace.turn`): a chat with a question
# waiting first, then the players' other private messages (their taps' feedback, the old
# question retired), then the groups' pictures, captions and log pages — which coalesce while
# they wait (newest wins). Every :data:`SHARE`-th turn goes the other way round: a group's
# table is late under load, never stopped.
QUESTION, PRIVATE, GROUP = 0, 1, 2
SHARE = 4
Asked: TypeAlias = int | asyncio.Future[float]  # a turn asked: by a chat (its id) or by a task


def level(chat_id: int, question: bool = False) -> int:
    """A chat's place in the order of turns (``question``: one waits in its queue)."""
    return QUESTION if question else PRIVATE if chat_id > 0 else GROUP


class Pace:
    """At most ``per_s`` calls a second over all chats (after a first ``burst``), granted in the
    order asked within each level (:data:`QUESTION`, :data:`PRIVATE`, :data:`GROUP`: a lower
    one first); 0: no limit. A chat with messages waiting is a number here (:meth:`want`), not
    a task: its worker is made when its turn is granted (``granted``), then takes the chat's
    newest message — under load the message stays in the chat's queue, where newer content
    replaces it, and its picture is drawn only when its call can go out: the bot keeps no
    backlog of calls waiting for Telegram's budget, only each chat's newest content. A call
    tried again waits for a turn of its own (:meth:`turn`)."""

    def __init__(self, per_s: float, burst: int = 5) -> None:
        self.interval = 1.0 / per_s if per_s > 0 else 0.0
        self.burst = burst
        self._next = 0.0  # when the budget is free again, at this pace
        # the turns asked at each level, in the order asked: a chat's id (:meth:`want`) or a
        # task's future (:meth:`turn`)
        self._asked: tuple[deque[Asked], ...] = (deque(), deque(), deque())
        self._waiting = 0  # turns asked and not yet granted (nor given up)
        self._wants: dict[int, int] = {}  # chat → the level of the turn it wants
        self._chats: dict[int, tuple[asyncio.Future[float], int]] = {}  # chat → its turn asked
        self._timer: asyncio.TimerHandle | None = None
        self._granted = 0
        self._slot = 0.0  # the time of the turn taken last (:meth:`_take`)
        # a chat's turn granted (bot.sender: its worker made then)
        self.granted: Callable[[int], None] = _nobody

    def want(self, chat_id: int, at: int) -> None:
        """A turn for ``chat_id`` at level ``at`` (:func:`level`): ``granted(chat_id)`` is called
        when it comes (at once when the budget is free). A chat wants one turn at a time;
        :meth:`hurry` may move it up meanwhile."""
        if chat_id in self._wants:
            if at < self._wants[chat_id]:
                self._move(chat_id, at)
            return
        if not self.interval or (not self._waiting and self._take()):
            self._note(chat_id)
            self._give(chat_id)
            return
        self._wants[chat_id] = at
        self._asked[at].append(chat_id)
        self._waiting += 1
        self._arm()

    def wants(self, chat_id: int) -> int | None:
        """The level of the turn the chat wants (None: it wants none)."""
        return self._wants.get(chat_id)

    def forget(self) -> None:
        """No chat wants a turn any more (the sender stops)."""
        for chat_id, at in self._wants.items():
            self._asked[at].remove(chat_id)
        self._waiting -= len(self._wants)
        self._wants.clear()

    async def turn(self, at: int = GROUP, chat_id: int | None = None, first: bool = False) -> None:
        """A turn in the budget, at level ``at`` (:func:`level`), for the task that awaits it
        (a call tried again); ``chat_id``: the chat it is for (:meth:`hurry` may move it up
        meanwhile; its call goes in this turn: :meth:`spend`); ``first``: before every turn
        asked at that level (a call that waited its turn once already)."""
        if not self.interval:
            return
        if not self._waiting and self._take():
            if chat_id is not None:
                self._note(chat_id)
            return
        turn: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if first:
            self._asked[at].appendleft(turn)
        else:
            self._asked[at].append(turn)
        self._waiting += 1
        turn.add_done_callback(self._given)
        if chat_id is not None:
            self._chats[chat_id] = (turn, at)
        try:
            self._arm()
            slot = await turn
            if chat_id is not None:
                self._note(chat_id, slot)
        finally:
            if chat_id is not None and self._chats.get(chat_id, (None, 0))[0] is turn:
                del self._chats[chat_id]

    async def spend(self, chat_id: int) -> None:
        """Just before a call to ``chat_id`` goes out: its turn spent (one process: the turn
        granted; its calls' lateness is the :class:`Window`'s to catch)."""

    def _note(self, chat_id: int, slot: float | None = None) -> None:
        """The chat's turn granted (``slot``: its time; else the turn taken last)."""

    def hurry(self, chat_id: int) -> None:
        """A question posted to a chat that waits for a turn: the turn goes first."""
        if chat_id in self._wants:
            self._move(chat_id, QUESTION)
            return
        turn, at = self._chats.get(chat_id, (None, QUESTION))
        if turn is not None and at != QUESTION and not turn.done():
            self._chats[chat_id] = (turn, QUESTION)
            self._asked[QUESTION].append(turn)  # (its older place: skipped once granted)
            self._arm()

    def _move(self, chat_id: int, at: int) -> None:
        """A chat's wanted turn moved up to level ``at`` (last of those asked there)."""
        was = self._wants[chat_id]
        if at >= was:
            return
        self._asked[was].remove(chat_id)  # (a few hundred ids at most: microseconds)
        self._asked[at].append(chat_id)
        self._wants[chat_id] = at
        self._arm()

    def _given(self, turn: asyncio.Future[float]) -> None:
        self._waiting -= 1

    def _give(self, chat_id: int) -> None:
        try:
            self.granted(chat_id)
        except Exception:  # never the grants' loop broken by one chat
            log.exception("a turn of chat %d not taken", chat_id)

    def _head(self) -> deque[Asked] | None:
        """The turns whose first one is to be granted next (turns granted or given up
        meanwhile dropped)."""
        share = (self._granted + 1) % SHARE == 0  # the groups' share: theirs first
        asked = self._asked
        for turns in (asked[GROUP], *asked) if share else asked:
            while turns and not isinstance(turns[0], int) and turns[0].done():
                turns.popleft()
            if turns:
                return turns
        return None

    def _grant(self) -> None:
        """The turns due now granted, the next one's time awaited."""
        self._timer = None
        while (turns := self._head()) is not None and self._take():
            turn = turns.popleft()
            self._granted += 1
            if isinstance(turn, int):
                del self._wants[turn]
                self._waiting -= 1
                self._note(turn)
                self._give(turn)
            else:
                turn.set_result(self._slot)
        self._arm()

    def _kick(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._grant()

    def _take(self) -> bool:
        """A turn spent if one is free now."""
        now = time.monotonic()
        start = max(self._next, now)
        if start + self.interval - now > self.burst * self.interval + SLACK_S:
            return False
        self._next = start + self.interval
        self._slot = start
        return True

    def _due(self) -> float | None:
        """In how many seconds the next turn is free (None: not known yet)."""
        return self._next + self.interval - self.burst * self.interval - time.monotonic()

    def _more(self) -> None:
        """More turns wanted than known (several processes: taken in the shared budget)."""

    def _arm(self) -> None:
        if self._timer is not None or self._head() is None:
            return
        self._more()
        due = self._due()
        if due is not None:
            self._timer = asyncio.get_running_loop().call_later(max(0.0, due), self._grant)


def _nobody(chat_id: int) -> None:
    raise RuntimeError(f"a turn granted to chat {chat_id} with nobody to take it")


class Window:
    """At most ``most`` calls in any second, and ``gap`` seconds at least between two, each
    waiting for its place just before it goes out: the last guard of Telegram's overall
    limit, whatever delayed calls after their turns (a picture drawn slowly under load goes
    out later than its turn, among later turns'; a process that woke late sends the calls
    of several turns at once — never in the same millisecond: with several processes, such
    bunches on top of the others' calls made 30 in a second)."""

    def __init__(self, most: int, span: float = 1.0, gap: float = 0.0) -> None:
        self.most = most
        self.span = span
        self.gap = gap
        self._times: deque[float] = deque()

    async def enter(self) -> None:
        times = self._times
        while True:
            now = time.monotonic()
            while times and now - times[0] >= self.span:
                times.popleft()
            if times and now - times[-1] < self.gap:
                await asyncio.sleep(times[-1] + self.gap - now)
            elif len(times) < self.most:
                times.append(now)
                return
            else:
                await asyncio.sleep(times[0] + self.span - now)


class SharedPace(Pace):
    """:class:`Pace` over all processes of the bot (bot.coord): their calls together stay
    within the bot's budget. Turns are taken for the turns wanted, a few at a time in one
    statement for the whole process (never one a call: the budget's row would be the
    database's busiest, and every call waiting for it would hold a connection), and at most
    :data:`AHEAD_S` ahead: what a process took is what the others' questions wait behind.
    Within the process they are granted as :class:`Pace` grants its own (questions first),
    :data:`LEAD_S` ahead of their time; each call then goes out within its turn
    (:meth:`spend`): the turns are one interval apart over all processes, so their calls are
    too, give or take :data:`EARLY_TURNS` and :data:`LATE_TURNS` intervals."""

    def __init__(self, coord: PgCoord, per_s: float, burst: int = 5) -> None:
        super().__init__(per_s, burst)
        self.coord = coord
        self._slots: deque[float] = deque()  # turns taken in the budget (epoch s), not granted
        self._taking: asyncio.Task[None] | None = None
        self._ahead = max(burst + 1, round(AHEAD_S * per_s))  # turns taken at most
        self.early = EARLY_TURNS * self.interval
        self.late = LATE_TURNS * self.interval
        self.lead = max(LEAD_S, self.early)
        self._turns: dict[int, float] = {}  # chat → the time of its turn granted, not spent
        self._rtt = 0.0  # how long taking turns took last (they are asked to start after it)
        self.retaken = 0  # calls that left too late for their turn: a fresh one taken

    def _note(self, chat_id: int, slot: float | None = None) -> None:
        turns = self._turns
        turns[chat_id] = self._slot if slot is None else slot
        if len(turns) > 1024:  # turns granted to chats that made no call (nothing changed)
            now = time.time()
            self._turns = {c: t for c, t in turns.items() if t > now - self.late}

    async def spend(self, chat_id: int) -> None:
        """The call to ``chat_id`` waits for its turn's time (granted :data:`LEAD_S` ahead).
        One that comes too late for it (its chat's lease or picture took long: it would leave
        among later turns' calls), or a second call of one message (an edit refused: sent
        anew), takes a fresh turn, first in line, and goes in it (late then by no more than
        the process's own delay: never held back for ever)."""
        if not self.interval:
            return
        slot = self._turns.pop(chat_id, None)
        if slot is not None:
            if await self._on_time(slot):
                return
            self.retaken += 1
        await self.turn(QUESTION, chat_id, first=True)
        slot = self._turns.pop(chat_id, None)
        if slot is not None:
            await self._on_time(slot)

    async def _on_time(self, slot: float) -> bool:
        """Waits for the turn at ``slot`` (:data:`EARLY_TURNS` ahead at most); whether it is
        still on time."""
        wait = slot - self.early - time.time()
        if wait > 0:
            await asyncio.sleep(wait)
        return time.time() - slot <= self.late

    def _take(self) -> bool:
        now = time.time()
        slots = self._slots
        while slots and slots[0] < now - self.late:
            slots.popleft()  # past: a call in it now would go among later turns' calls
        if slots and slots[0] - now - self.lead <= SLACK_S:
            self._slot = slots.popleft()
            return True
        self._more()
        return False

    def _due(self) -> float | None:
        if not self._slots:
            return None  # (being taken: :meth:`_taking_slots` grants them)
        return self._slots[0] - self.lead - time.time()

    def _more(self) -> None:
        """More turns taken in the budget when more are wanted than taken, and those taken
        run low (half of :data:`AHEAD_S`'s: a statement for several turns, never one a call)."""
        slots = len(self._slots)
        if self._taking is None and self._waiting > slots and slots <= self._ahead // 2:
            self._taking = asyncio.get_running_loop().create_task(self._taking_slots())

    async def _taking_slots(self) -> None:
        """The turns wanted (at most :data:`AHEAD_S`'s), in one statement, starting no sooner
        than the statement's last round trip from now (turns past when they arrive are
        lost); then granted as they come due. The database away a moment: taken again soon
        (the calls wait)."""
        taken = False
        try:
            while (want := min(self._waiting, self._ahead) - len(self._slots)) > 0:
                asked = time.time()
                try:
                    first = await self.coord.pace(self.interval, want, self._rtt)
                except Exception as e:
                    log.warning("the budget of calls not taken (%r): taken again soon", e)
                    await asyncio.sleep(0.5)
                    continue
                self._rtt = min(AHEAD_S, time.time() - asked)
                self._slots.extend(first + i * self.interval for i in range(want))
                taken = True
                break
        finally:
            self._taking = None
        if taken:
            self._kick()
        else:
            self._arm()


class Beat:
    """The rhythm of each table's kept group messages — its table picture and its log page:
    a change after a quiet beat is shown at once, and opens a beat of ``seconds``; what
    changes during it waits for its end and is shown then, once, as the table stands then
    (``flush``: the table's part rebuilds the messages, under the table's lock). The log page
    keeps a slower beat, ``log_beats`` beats (its lines not yet in it are shown on the table
    meanwhile: bot.table.Table.table_out). Only edits wait: a message sent anew, the first of
    a log page, an act (delete, pin) go at once; a waiting edit of a message sent anew is then
    moot (it goes with the newest content), one of a message unpinned still comes (the game's
    last lines in its log)."""

    def __init__(
        self,
        seconds: float,
        flush: Callable[[int], Coroutine[Any, Any, None]],
        clock: Callable[[], float] = time.monotonic,
        log_beats: int = LOG_BEATS,
    ) -> None:
        self.seconds = seconds
        self.log_s = seconds * log_beats
        self.flush = flush
        self.clock = clock
        self.opened: dict[int, float] = {}  # table → when its current beat opened
        self.logged: dict[int, float] = {}  # table → when its log was last edited
        self.waiting: dict[int, set[Slot]] = {}  # table → kept messages to edit at its end
        self._wake_at: dict[int, float] = {}  # table → when its flush is due
        self._tasks: set[asyncio.Task[None]] = set()

    def sort(
        self, table_id: int, chat_id: int, log_kept: bool, outs: list[Out], now: bool = False
    ) -> list[Out]:
        """What of ``outs`` (one change's messages) goes now; the table's kept edits wait for
        the end of a beat that is open. ``log_kept``: the log page in place exists (an edit
        of it may wait; the first of a page goes now); ``now``: everything goes now (the
        game's end: its last lines)."""
        if self.seconds <= 0 or chat_id > 0:
            return outs
        waiting = self.waiting.setdefault(table_id, set())
        at = self.clock()
        others = [s for s in waiting if s.kind != SlotKind.LOG]  # (the log may wait longer)
        open_ = now or (not others and self._due(self.opened, table_id, at, self.seconds))
        if now:
            waiting.clear()  # what waited goes with these, the newest content
        if open_:
            self.opened[table_id] = at
        go: list[Out] = []
        for out in outs:
            if out.chat_id != chat_id or out.slot is None or out.slot.table != table_id:
                go.append(out)
                continue
            kind = out.slot.kind
            log = kind == SlotKind.LOG
            edit = kind == SlotKind.TABLE or (log and log_kept)
            if not edit or out.new or out.act:
                if not out.act:  # the newest content goes now: what waited is moot
                    waiting.discard(out.slot)
                if log and not out.act:
                    self.logged[table_id] = at
                go.append(out)
            elif open_ and (not log or now or self._due(self.logged, table_id, at, self.log_s)):
                if log:
                    self.logged[table_id] = at
                go.append(out)
            else:
                waiting.add(out.slot)
        if waiting:
            self._wake(table_id, at)
        return go

    def _due(self, since: dict[int, float], table_id: int, at: float, seconds: float) -> bool:
        return at - since.get(table_id, at - seconds) >= seconds * 0.999

    def _wake(self, table_id: int, at: float) -> None:
        """A flush when the next of the waiting messages is due (unless one comes sooner)."""
        waiting = self.waiting.get(table_id, set())
        ends = [self.opened.get(table_id, at) + self.seconds]
        if any(s.kind == SlotKind.LOG for s in waiting):
            ends.append(self.logged.get(table_id, at) + self.log_s)
        if all(s.kind == SlotKind.LOG for s in waiting):
            ends = [max(ends)]  # the log alone waits for its own beat
        # nothing goes before the table's beat ends (take): waking sooner, at a log's end
        # already past, was a busy loop of flushes until then
        when = ends[0]
        due = self._wake_at.get(table_id)
        if due is not None and due <= when:
            return
        self._wake_at[table_id] = when
        asyncio.get_running_loop().call_later(max(0.0, when - at), self._spawn, table_id)

    def _spawn(self, table_id: int) -> None:
        task = asyncio.get_running_loop().create_task(self._flush(table_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _flush(self, table_id: int) -> None:
        """The flush, its failure told, never raised (the process stopping, the table moved to
        another process: the next change, or the table resumed there, shows it)."""
        try:
            await self.flush(table_id)
        except Exception as e:  # a task of its own: nobody awaits it
            log.warning("table %d: its beat's edits not shown (%r)", table_id, e)

    def take(self, table_id: int) -> set[Slot]:
        """A flush: the kept messages due now (to edit); a new beat opens with them."""
        at = self.clock()
        self._wake_at.pop(table_id, None)
        waiting = self.waiting.get(table_id, set())
        out: set[Slot] = set()
        if self._due(self.opened, table_id, at, self.seconds):
            log_due = self._due(self.logged, table_id, at, self.log_s)
            out = {s for s in waiting if s.kind != SlotKind.LOG or log_due}
        if out:
            waiting -= out
            self.opened[table_id] = at
            if any(s.kind == SlotKind.LOG for s in out):
                self.logged[table_id] = at
        if waiting:
            self._wake(table_id, at)
        return out

    def log_waits(self, table_id: int) -> bool:
        """Whether an edit of the log page waits (its new lines then shown on the table)."""
        return any(s.kind == SlotKind.LOG for s in self.waiting.get(table_id, ()))

    def forget(self, table_id: int) -> None:
        for kept in (self.waiting, self.opened, self.logged, self._wake_at):
            kept.pop(table_id, None)

"""``python -m bot bench --game [--speed K] [--seed S]``: one whole game of six people at
production pacing, against the local server keeping Telegram's flood limits. The bot runs as
``python -m bot`` in its own process; the six simulated people think 1.5–5 s before each
decision and take about half a second between two taps of one decision, as people do.

``--speed K`` runs everything on a clock K times as fast — Telegram's limits, the bot's pacing
and the people's thinking alike — for the same game in a K-th of the time (K = 1: real time).

Printed: flood waits (429) met, the answer latency of presses (p50/p99), the time from a
decision to the next player's question (median, p90), API calls per decision by method,
notifying messages per decision, uploads and their bytes; the last line JSON. And the
targets of the calls (issue 35), the exit status failing when one is missed:

- ``calls_per_decision``: calls other than press answers, a decision; the simulated people
  tap more than people do (``taps_per_decision``, people: about :data:`PEOPLE_TAPS`), and each
  tap that does not decide costs an edit of a question (``asking_edits_per_decision``), so
  ``calls_per_decision_at_people_taps`` counts those edits at people's tapping:
  ≤ :data:`MAX_CALLS`;
- ``private_new_per_question``: new private messages but each player's first (the hand dealt,
  unless it asks), a question asked by a new message (``questions``, about one a decision):
  exactly 1 (the question's buzz);
- ``group_writes_per_minute_max``: the most writes (sends, edits, deletes, pins) to the
  group in any 60 s of the game's clock: ≤ :data:`MAX_GROUP_PER_MIN` (Telegram's limit);
- ``rate_limited``: 0."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ..buttons import HandOp, Kind, callback_of
from ..pacing import BEAT_S
from .bench import _seat, _table, _versions
from .botprocess import BotProcess
from .demo import game_over
from .localapi import ApiCall, LocalBotApi, RateLimits
from .simplayers import SimPlayer, buttons_of

THINK_S = (1.5, 5.0)  # a person's time to decide when asked
TAP_S = (0.4, 1.0)  # between two taps of one decision
RETRY_S = 5.0  # a tap that changed nothing: tried again after this long
ANSWERS = ("answerCallbackQuery",)
POLLS = ("getUpdates",)
PEOPLE_TAPS = 1.2  # taps a decision of people (issue 35)
MAX_CALLS = 4.0  # calls a decision at people's tapping
MAX_GROUP_PER_MIN = 20  # writes to a group in any minute (Telegram's limit)
WRITES = ("send", "edit", "delete", "pin", "unpin")  # a method that writes to a chat
SENDS = ("sendMessage", "sendPhoto")
EDITS = ("editMessageCaption", "editMessageMedia", "editMessageText", "editMessageReplyMarkup")


class _Prompts:
    """Every question the bot puts to a player as a new message (it notifies), and when; the
    new private messages, the edits of questions, the writes to groups."""

    def __init__(self) -> None:
        self.asked: list[tuple[float, int]] = []  # (when, chat)
        self.notifying = 0  # new messages to anyone that notify
        self.private_new = 0  # new private messages but each player's first hand dealt
        self.private_chats: set[int] = set()  # chats that got a new message
        self.asking_edits = 0  # edits of a private message that still asks (a tap's)
        self.group_writes: list[float] = []  # when a group was written to

    def __call__(self, call: ApiCall) -> None:
        chat = call.chat_id
        if call.status != 200 or chat is None:
            return
        if chat < 0 and call.method.startswith(WRITES):
            self.group_writes.append(call.time)
        markup = call.params.get("reply_markup", "")
        if chat > 0 and call.method in EDITS and _asks(markup):
            self.asking_edits += 1
        if call.method not in SENDS:
            return
        if call.params.get("disable_notification") != "True":
            self.notifying += 1
        if chat > 0:
            asks = _asks(markup)
            if asks or chat in self.private_chats:  # a chat's first: the hand dealt
                self.private_new += 1
            self.private_chats.add(chat)
            if asks:
                self.asked.append((call.time, chat))

    def most_in(self, window: float) -> int:
        """The most group writes in any ``window`` seconds (of the real clock)."""
        return most_in(self.group_writes, window)


def _asks(markup: str) -> bool:
    """A keyboard that asks a question (any hand button but 托管)."""
    try:
        rows = json.loads(markup).get("inline_keyboard", []) if markup else []
    except ValueError:
        return False
    for row in rows:
        for b in row:
            cb = callback_of(b.get("callback_data"))
            if cb is not None and cb.kind == Kind.HAND and cb.op != HandOp.AUTO:
                return True
    return False


async def _person(
    p: SimPlayer, rng: random.Random, speed: float, over: Any, presses: list[tuple[float, int]]
) -> None:
    """One person: waits for a question, thinks, taps; a tap at a time, looking at the result."""
    seen: tuple[int, int] | None = None
    since = time.monotonic()
    while not over():
        msg = p.hand_message()
        key = (msg.message_id, msg.edits) if msg is not None else None
        now = time.monotonic()
        if msg is None or not buttons_of(msg) or (key == seen and now - since < RETRY_S / speed):
            await asyncio.sleep(0.05 / speed)
            continue
        new_question = seen is None or key is None or key[0] != seen[0]
        pause = rng.uniform(*THINK_S) if new_question else rng.uniform(*TAP_S)
        await asyncio.sleep(pause / speed)
        seen, since = key, time.monotonic()
        presses.append((time.monotonic(), p.user.id))
        await p.step()


def most_in(times: list[float], window: float) -> int:
    """The most of ``times`` in any ``window`` seconds (a sliding window)."""
    ts = sorted(times)
    most, j = 0, 0
    for i, at in enumerate(ts):
        while j < len(ts) and ts[j] < at + window:
            j += 1
        most = max(most, j - i)
    return most


def _q(xs: list[float], q: float) -> float | None:
    ys = sorted(xs)
    return round(ys[int(q * (len(ys) - 1))] * 1000, 1) if ys else None


async def run_game(seed: int, speed: float) -> dict[str, Any]:
    limits = RateLimits.telegram().faster(speed)
    async with LocalBotApi(rate=limits) as api:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "game.sqlite3"
            knobs = {
                "GOUJI_SEED": str(seed),
                "GOUJI_AI_DELAY": "0",
                "GOUJI_TURN_S": "3600",
                "GOUJI_PACE": f"{3.0 / speed},{1.0 / speed}",
                # a seat that cannot beat is shown thinking as long as a person would (the
                # middle of production's 1.5–4 s), on the bench's clock
                "GOUJI_PASS_THINK": f"{2.75 / speed}",
            }
            bot = BotProcess(api, db, knobs)
            await bot.start()
            prompts = _Prompts()
            try:
                group, users = await _table(api, 0)
                await api.idle(quiet=3.5 / speed, timeout=120.0)
                await _seat(api, group, users)
                begin = _versions(db).get(group.id, 0)
                first_call = len(api.calls)
                api.listeners.append(prompts)
                answers0 = len(api.answer_latency())
                uploads0 = len(api.uploads)
                presses: list[tuple[float, int]] = []
                players = [
                    SimPlayer(api, u, random.Random(seed * 10 + i), hints=0.2)
                    for i, u in enumerate(users)
                ]
                t0 = time.perf_counter()

                def over() -> bool:
                    return game_over(api, group) or time.perf_counter() - t0 > 3600 / speed

                await asyncio.gather(
                    *(
                        _person(p, random.Random(seed * 100 + i), speed, over, presses)
                        for i, p in enumerate(players)
                    )
                )
                elapsed = time.perf_counter() - t0
                # the group's last beat (bot.pacing.Beat) included
                await api.idle(quiet=max(4.0, BEAT_S + 1.0) / speed, timeout=120.0)
                actions = _versions(db).get(group.id, 0) - begin
            finally:
                await bot.stop()
            log = bot.log.read_text(encoding="utf-8", errors="replace")
    calls = [c for c in api.calls[first_call:] if c.status == 200]
    by_method: dict[str, int] = {}
    for c in calls:
        if c.method not in ANSWERS + POLLS:
            by_method[c.method] = by_method.get(c.method, 0) + 1
    sent = sum(by_method.values())
    waits = _to_next_question(presses, prompts.asked)
    answers = api.answer_latency()[answers0:]
    uploads = api.uploads[uploads0:]
    n = max(actions, 1)
    taps = len(presses) / n
    # the edits of questions at people's tapping: each tap beyond a decision's own costs one
    # edit at most; the measured ones scaled to people's extra taps
    extra = max(taps - 1.0, 0.0)
    tap_edits = prompts.asking_edits / n
    at_people = tap_edits * min(1.0, (PEOPLE_TAPS - 1.0) / extra) if extra > 0 else tap_edits
    return {
        "speed": speed,
        "decisions": actions,
        "game_s": round(elapsed * speed, 1),  # in the game's own (Telegram's) seconds
        "presses": len(presses),
        "rate_limited": sum(1 for c in api.calls[first_call:] if c.status == 429),
        "answer_ms_p50": _q(answers, 0.5),
        "answer_ms_p99": _q(answers, 0.99),
        "answer_ms_max": _q(answers, 1.0),
        # in the game's own seconds: the pacing waits are part of it
        "to_next_question_ms_median": round(statistics.median(waits) * speed * 1000)
        if waits
        else None,
        "to_next_question_ms_p90": round(sorted(waits)[int(0.9 * (len(waits) - 1))] * speed * 1000)
        if waits
        else None,
        "calls_per_decision": round(sent / max(actions, 1), 2),
        "per_method_per_decision": {
            m: round(n / max(actions, 1), 2)
            for m, n in sorted(by_method.items(), key=lambda kv: -kv[1])
        },
        "taps_per_decision": round(taps, 2),
        "asking_edits_per_decision": round(tap_edits, 2),
        "calls_per_decision_at_people_taps": round(sent / n - tap_edits + at_people, 2),
        "questions": len(prompts.asked),  # asked as new messages (they buzz)
        # one new private message a question, none else (but the hands dealt)
        "private_new_per_question": round(prompts.private_new / max(len(prompts.asked), 1), 2),
        "group_writes_per_minute_max": prompts.most_in(60.0 / speed),
        "notifying_per_decision": round(prompts.notifying / max(actions, 1), 2),
        "uploads": len(uploads),
        "uploaded_kb": round(sum(uploads) / 1024, 1),
        "errors": sum(1 for line in log.splitlines() if " ERROR " in line),
        "over": game_over(api, group),
    }


def _to_next_question(
    presses: list[tuple[float, int]], asked: list[tuple[float, int]]
) -> list[float]:
    """For each question put to a player, the time since the latest press of another player
    before it (the decision that passed the turn on)."""
    out: list[float] = []
    for at, chat in asked:
        before = [t for t, user in presses if t <= at and user != chat]
        if before:
            out.append(at - before[-1])
    return out


def main(seed: int, speed: float) -> int:
    print(f"bench: one six-person game at production pacing, on a clock {speed:g}× as fast")
    figures = asyncio.run(run_game(seed, speed))
    for key, value in figures.items():
        print(f"  {key}: {value}")
    print(json.dumps(figures))
    missed = missed_targets(figures)
    for what in missed:
        print(f"  target missed: {what}")
    return 0 if not missed else 1


def missed_targets(f: dict[str, Any]) -> list[str]:
    """The targets a game's figures miss (issue 35), as sentences."""
    out = []
    if not f["over"]:
        out.append("the game did not end")
    if f["errors"]:
        out.append(f"{f['errors']} errors in the bot's log")
    if f["rate_limited"]:
        out.append(f"{f['rate_limited']} flood waits (429)")
    if f["calls_per_decision_at_people_taps"] > MAX_CALLS:
        out.append(f"calls per decision at people's tapping > {MAX_CALLS}")
    if f["private_new_per_question"] != 1.0:
        out.append("not one new private message per question")
    if f["group_writes_per_minute_max"] > MAX_GROUP_PER_MIN:
        out.append(f"over {MAX_GROUP_PER_MIN} writes a minute to the group")
    return out

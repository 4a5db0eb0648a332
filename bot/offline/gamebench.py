"""``python -m bot bench --game [--speed K] [--seed S]``: one whole game of six people at
production pacing, against the local server keeping Telegram's flood limits. The bot runs as
``python -m bot`` in its own process; the six simulated people think 1.5–5 s before each
decision and take about half a second between two taps of one decision, as people do.

``--speed K`` runs everything on a clock K times as fast — Telegram's limits, the bot's pacing
and the people's thinking alike — for the same game in a K-th of the time (K = 1: real time).

Printed: flood waits (429) met, the answer latency of presses (p50/p99), the time from a
decision to the next player's question (median, p90), API calls per decision by method,
notifying messages per decision, uploads and their bytes; the last line JSON."""

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


class _Prompts:
    """Every question the bot puts to a player as a new message (it notifies), and when."""

    def __init__(self) -> None:
        self.asked: list[tuple[float, int]] = []  # (when, chat)
        self.notifying = 0  # new messages to anyone that notify

    def __call__(self, call: ApiCall) -> None:
        if call.status != 200 or call.method not in ("sendMessage", "sendPhoto"):
            return
        if call.params.get("disable_notification") != "True":
            self.notifying += 1
        markup = call.params.get("reply_markup", "")
        if call.chat_id is not None and call.chat_id > 0 and _asks(markup):
            self.asked.append((call.time, call.chat_id))


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
                await api.idle(quiet=4.0 / speed, timeout=120.0)
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
    ok = figures["over"] and figures["errors"] == 0 and figures["rate_limited"] == 0
    return 0 if ok else 1

"""The bot process killed (SIGKILL) at random moments of a six-person game and restarted each
time: the game ends with exactly the actions of an uninterrupted run — nothing lost, nothing
applied twice —, the group hears every cheer of that run, and every player is asked again where
they were."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from botkit import NAMES, open_and_seat, start
from botkit import over as game_over

from bot.offline.botprocess import BotProcess
from bot.offline.localapi import LocalBotApi, RateLimits, SimGroup, SimUser
from bot.offline.simplayers import SimPlayer

pytestmark = pytest.mark.e2e  # the bot end to end, through the local server

KILLS = 20
AIMED = 3  # of them, kills aimed at a cheer stored and not yet sent
SEED = 21
KNOBS = {
    "GOUJI_SEED": str(SEED),
    "GOUJI_AI_DELAY": "0",
    "GOUJI_PACE": "0.2,0",  # the group paced: cheers wait in its queue, where kills strike
    "GOUJI_TURN_S": "3600",
    # a seat that cannot beat is shown passing for a moment, not a person's 1.5-4 s: the holds
    # (timers, kills striking them) stay, the real waits go
    "GOUJI_PASS_THINK": "0.05",
}


def stored_actions(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT action FROM actions ORDER BY table_id, seq").fetchall()
    return [r[0] for r in rows]


def waiting_in_outbox(db: Path) -> int:
    """Messages the bot stored with their actions and has not delivered yet."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return int(conn.execute("SELECT count(*) FROM outbox").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


async def aimed(db: Path) -> bool:
    """Whether a cheer is stored and not yet sent, watching for a moment after a press."""
    for _ in range(20):
        if waiting_in_outbox(db):
            return True
        await asyncio.sleep(0.005)
    return False


def announcements(api: LocalBotApi, group: SimGroup) -> list[str]:
    """What the group was told as news (cheers, the game over): the messages that notify and
    are never edited (the lobby, the table, the log and the bot's notices are silent or edited)."""
    return [
        m.plain
        for m in api.messages(group.id)
        if not m.disable_notification and m.edits == 0 and not m.deleted
    ]


async def one_game(
    tmp: Path, kills: int, rng: random.Random
) -> tuple[list[str], int, int, list[str]]:
    """A scripted game (players who do what 提示 says); killed ``kills`` times: the first
    :data:`AIMED` kills the moment a cheer waits in the outbox, the others at random."""
    db = tmp / "bot.sqlite3"
    async with LocalBotApi(rate=RateLimits(per_chat_per_s=30.0, per_chat_burst=8)) as api:
        group: SimGroup = api.group(-3001, "牌桌", admins=[api.bot_id])
        users: list[SimUser] = [api.user(700 + i, NAMES[i], language_code="zh") for i in range(6)]
        bot = BotProcess(api, db, KNOBS)
        await bot.start()
        done = 0
        try:
            w = _Shim(api)
            await open_and_seat(w, group, users)  # type: ignore[arg-type]
            await start(w, group, users[0])  # type: ignore[arg-type]
            players = [
                SimPlayer(api, u, random.Random(i), follow=True) for i, u in enumerate(users)
            ]
            finished = game_over(w, group)  # type: ignore[arg-type]
            presses = 0
            while not finished():
                await api.idle(quiet=0.03, timeout=60.0)
                moved = False
                for p in players:
                    if finished():
                        break
                    if await p.step():
                        moved = True
                        presses += 1
                        if done < min(kills, AIMED) and await aimed(db):
                            await bot.kill()  # a cheer was stored with its action, not sent
                            done += 1
                            await bot.start()
                        elif AIMED <= done < kills and rng.random() < 0.08:
                            # somewhere between the press arriving and its answers going out
                            await asyncio.sleep(rng.choice([0.0, 0.002, 0.005, 0.01, 0.03]))
                            await bot.kill()
                            done += 1
                            await bot.start()
                        await api.idle(quiet=0.03, timeout=60.0)
                if not moved:
                    await asyncio.sleep(0.05)
                assert presses < 5000, "the game did not end"
            await api.idle(quiet=1.0, timeout=60.0)  # the group's last paced messages
            said = announcements(api, group)
        finally:
            await bot.stop()
        return stored_actions(db), done, bot.starts, said


class _Shim:
    """What botkit's lobby helpers need of a World when the bot runs in another process."""

    def __init__(self, api: LocalBotApi) -> None:
        self.api = api

    async def settle(self) -> None:
        await self.api.idle(quiet=0.5, timeout=60.0)  # longer than the group's pace


async def test_killed_twenty_times_the_game_ends_as_if_never_killed(tmp_path: Path) -> None:
    (tmp_path / "calm").mkdir()
    (tmp_path / "killed").mkdir()
    # the two runs side by side, each with its own server, bot process and database
    (reference, _, _, cheers), (killed, kills, starts, heard) = await asyncio.gather(
        one_game(tmp_path / "calm", 0, random.Random(1)),
        one_game(tmp_path / "killed", KILLS, random.Random(2)),
    )
    assert kills >= KILLS and starts == kills + 1
    assert len(reference) > 100
    assert killed == reference  # the same deals and actions, each exactly once
    # every cheer of the calm run reached the group (stored with its action, sent after the
    # restart), in the same order; a message is sent twice only if a kill struck while its
    # very call was on its way (nobody can tell then whether it arrived): at most one a kill
    assert len(cheers) >= 5
    assert not Counter(cheers) - Counter(heard), "a cheer was lost"
    extra = Counter(heard) - Counter(cheers)
    assert set(extra) <= set(cheers) and sum(extra.values()) <= kills
    assert list(dict.fromkeys(heard)) == list(dict.fromkeys(cheers))

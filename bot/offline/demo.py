"""``python -m bot demo``: the real bot, end to end, with no token and no network.

A local Bot API server starts in this process, the real bot polls it, and six simulated players
open a table in a group, take their seats (each starting the bot first) and play one whole game
by pressing the buttons they are shown. The group's messages print in order, ending with the
final ranks; the pictures a player sees are saved under ``out/demo/``, with screenshots of the
group chat at the end (``group.png``) and of the first player's private chat when the bot first
asks them to play (``dm.png``).
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import statistics
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine.rules import PRESETS

from ..budget import ROBOTS
from ..buttons import HandOp, Kind, LobbyOp, OverOp
from ..pacing import Pacing
from ..tables import Config
from .localapi import LocalBotApi, RateLimits, SentMessage, SimGroup
from .localbot import local_bot, runtime
from .screens import last_screen, render_chat
from .simplayers import (
    SimPlayer,
    button_data_is,
    buttons_of,
    has_button,
    lobby_message,
    play_until,
    press_lobby,
    seat_everyone,
)

NAMES = {
    "zh": ("老王", "小李", "张姐", "阿强", "王叔", "小美"),
    "en": ("Wang", "Li", "Zhang", "Qiang", "Uncle Wang", "Mei"),
}
GROUP_ID = -1001234
# The demo's clock: Telegram's flood limits (kept by the local server) and the bot's pacing run
# this many times as fast, so a whole game of players who never hesitate takes a minute or so
SPEED = 10.0
# Telegram's own header lines for the screenshots: the bot's name, "bot", the group's members
SCREEN_HEADERS = {
    "zh": ("够级裁判", "机器人", "{n} 位成员"),
    "en": ("Gouji referee", "bot", "{n} members"),
}


def game_over(api: LocalBotApi, group: SimGroup) -> bool:
    return any(has_button(m, Kind.OVER, OverOp.AGAIN) for m in api.messages(group.id))


async def play_one_game(
    api: LocalBotApi,
    group: SimGroup,
    seed: int,
    lang: str,
    preset: str,
    humans: int = 6,
    each_round: Callable[[list[SimPlayer]], None] | None = None,
) -> list[SimPlayer]:
    """Seat ``humans`` simulated players (AI for the rest), pick the preset, play to the end;
    ``each_round(players)`` runs whenever the chats are quiet (see :func:`play_until`)."""
    names = NAMES.get(lang, NAMES["zh"])
    users = [api.user(1000 + i, names[i], language_code=lang) for i in range(humans)]
    await seat_everyone(api, group, users, users[0])
    for _ in range(len(PRESETS)):
        if _preset_is(api, group, preset, lang):
            break
        await press_lobby(api, group, users[0], LobbyOp.PRESET)
    await press_lobby(api, group, users[0], LobbyOp.GO)
    players = [
        SimPlayer(api, u, random.Random(seed * 10 + i), follow=True) for i, u in enumerate(users)
    ]
    hook = None if each_round is None else lambda: each_round(players)
    await play_until(api, players, lambda: game_over(api, group), each_round=hook)
    return players


def _preset_is(api: LocalBotApi, group: SimGroup, preset: str, lang: str) -> bool:
    from renderers import t

    label = t(lang, f"bot.preset.{preset}")
    lobby = lobby_message(api, group)
    return any(
        label in b.text and button_data_is(b.callback_data, LobbyOp.PRESET) for b in lobby.buttons
    )


class DmSnapshot:
    """Keeps a copy of the first player's private chat the first time they are asked to play
    (their hand message shows rank or play buttons); an ``each_round`` hook of the demo."""

    def __init__(self, api: LocalBotApi) -> None:
        self.api = api
        self.messages: list[SentMessage] | None = None

    def __call__(self, players: list[SimPlayer]) -> None:
        if self.messages is not None:
            return
        asked = players[0].hand_message()
        ops = {cb.op for cb in buttons_of(asked)} if asked else set()
        if ops & {HandOp.RANK, HandOp.QUICK}:
            self.messages = copy.deepcopy(self.api.messages(players[0].user.id))


def save_screens(
    api: LocalBotApi,
    group: SimGroup,
    dm: Sequence[SentMessage],
    lang: str,
    out_dirs: Sequence[tuple[Path, str]],
) -> None:
    """``group.png``: the end of the group chat; ``dm.png``: the private chat ``dm``; written
    to each ``(directory, name prefix)``."""
    bot_name, bot_label, members = SCREEN_HEADERS.get(lang, SCREEN_HEADERS["zh"])
    group_png = render_chat(
        last_screen(api.messages(group.id)),
        group.title,
        subtitle=members.format(n=7),  # six players and the bot
    )
    dm_png = render_chat(last_screen(dm), bot_name, subtitle=bot_label) if dm else None
    for directory, prefix in out_dirs:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"{prefix}group.png").write_bytes(group_png)
        if dm_png is not None:
            (directory / f"{prefix}dm.png").write_bytes(dm_png)


def figures(
    api: LocalBotApi, actions: int, group_id: int, uploaded: tuple[int, int] = (0, 0)
) -> dict[str, Any]:
    """API calls per applied action by method, answer latency, group messages, pictures
    uploaded (``uploaded``: how many, how many bytes; the others went by file_id)."""
    counts = api.counts()
    total = sum(counts.values())
    lat = sorted(api.latency())
    p95 = lat[int(0.95 * (len(lat) - 1))] if lat else 0.0
    stats = api.stats()
    return {
        "actions": actions,
        "api_calls": total,
        "api_calls_per_action": round(total / max(actions, 1), 2),
        "per_method_per_action": {
            m: round(n / max(actions, 1), 3) for m, n in counts.most_common()
        },
        "press_to_first_call_ms_median": round(statistics.median(lat) * 1000, 1) if lat else None,
        "press_to_first_call_ms_p95": round(p95 * 1000, 1),
        "group_messages": len(api.messages(group_id)),
        # every message the group was sent (deleted ones too), and how many made phones buzz
        "group_sent": len(sent := api.messages(group_id, include_deleted=True)),
        "group_buzzing": sum(1 for m in sent if not m.disable_notification),
        "rate_limited": stats.get("rate_limited", 0),
        "uploads": uploaded[0],
        "uploaded_kb": round(uploaded[1] / 1024, 1),
        "pictures_by_file_id": sum(
            1
            for c in api.calls
            if c.method in ("sendPhoto", "editMessageMedia") and "<file>" not in c.params.values()
        ),
    }


async def demo(
    seed: int,
    lang: str,
    preset: str,
    out_dir: Path,
    quiet: bool = False,
    screens: Path | None = None,
) -> int:
    """``screens``: also save the chat screenshots there as ``bot_group.png`` and
    ``bot_dm.png`` (the README's samples)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    async with LocalBotApi(rate=RateLimits.telegram().faster(SPEED)) as api:
        dm = DmSnapshot(api)
        group = api.group(GROUP_ID, "够级" if lang == "zh" else "Gouji", admins=[api.bot_id])
        with tempfile.TemporaryDirectory() as tmp:
            cfg = Config(
                bot_username="gouji_bot",
                ai_delay=0.0,
                seed=seed,
                turn_s=3600.0,
                pass_think_s=0.0,  # the demo's players press at once: no think-times either
                lang=lang,
                user_rate=ROBOTS,  # simulated players tap faster than people can
                chat_rate=ROBOTS,
                review_budget_s=1.0,  # a quick 复盘 after the game
            )
            pacing = Pacing.telegram().faster(SPEED)
            async with local_bot(api, f"{tmp}/demo.sqlite3", cfg, pacing=pacing) as app:
                players = await play_one_game(api, group, seed, lang, preset, each_round=dm)
                await runtime(app).sender.drain()
                await api.idle()
                table = runtime(app).parts.tables.all()[0]
                sender = runtime(app).sender
                uploaded = (sender.uploads.uploads_sent, sender.uploads.uploaded_bytes)
                actions = table.match.version - 1 if table.match else 0
        if not quiet:
            for m in api.messages(GROUP_ID):
                print(m.plain)
                print()
        _save_pictures(api, players, out_dir)
        targets = [(out_dir, "")] + ([(screens, "bot_")] if screens is not None else [])
        save_screens(api, group, dm.messages or [], lang, targets)
        fig = figures(api, actions, GROUP_ID, uploaded)
        print(f"Pictures: {out_dir.resolve()}")
        print(json.dumps(fig, ensure_ascii=False))
    return 0


def _save_pictures(api: LocalBotApi, players: list[SimPlayer], out_dir: Path) -> None:
    hand = [m for m in api.messages(players[0].user.id) if m.photo]
    if hand:
        (out_dir / "hand.png").write_bytes(hand[-1].photo or b"")
    photos = [m for m in api.messages(GROUP_ID) if m.photo]
    if photos:
        (out_dir / "table.png").write_bytes(photos[0].photo or b"")
        (out_dir / "game_over.png").write_bytes(photos[-1].photo or b"")


def run_demo(
    seed: int | None, lang: str, preset: str, out_dir: Path, screens: Path | None = None
) -> int:
    return asyncio.run(
        demo(seed if seed is not None else 11, lang, preset, out_dir, screens=screens)
    )

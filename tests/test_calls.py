"""Calls a decision at the accepted floor (issue 35), through the local server: a message is
edited only when what it shows changes (a bystander's hand message stays as it is while others
decide: 托管's buttons carry no match version), and a group gets at most 20 writes a minute
(Telegram counts edits, deletes and pins there too) over a whole played game."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest
from botkit import SPEED, World, open_and_seat, over, people, start, world

from bot.offline.localapi import ApiCall
from bot.offline.simplayers import SimPlayer, play_until

pytestmark = pytest.mark.e2e

EDITS = ("editMessageCaption", "editMessageMedia", "editMessageText", "editMessageReplyMarkup")
GROUP_PER_MIN = 20

Shown = tuple[str, tuple[tuple[str, ...], ...], str]


class Watch:
    """What each private message shows (its text, its buttons' labels, its picture) before
    every edit of it: an edit that changes none of them is a call for nothing."""

    def __init__(self, w: World) -> None:
        self.w = w
        self.shown: dict[tuple[int, int], Shown] = {}
        self.wasted: list[tuple[int, str]] = []  # (chat, text) of edits that changed nothing
        self.edits = 0
        self.group_writes: list[float] = []

    def state(self, chat: int) -> dict[tuple[int, int], Shown]:
        out = {}
        for m in self.w.api.messages(chat):
            labels = tuple(tuple(b.text for b in row) for row in m.reply_markup)
            photo = hashlib.blake2b(m.photo or b"", digest_size=8).hexdigest()
            out[(chat, m.message_id)] = (m.text, labels, photo)
        return out

    def __call__(self, call: ApiCall) -> None:
        chat = call.chat_id
        if chat is None or call.status != 200:
            return
        if chat < 0:
            if call.method.startswith(("send", "edit", "delete", "pin", "unpin")):
                self.group_writes.append(call.time)
            return
        now = self.state(chat)
        if call.method in EDITS:
            key = (chat, int(call.params.get("message_id", 0)))
            self.edits += 1
            if key in self.shown and now.get(key) == self.shown[key]:
                self.wasted.append((chat, now[key][0]))
        self.shown.update(now)

    def most_in(self, window: float) -> int:
        ts = sorted(self.group_writes)
        most, j = 0, 0
        for i, at in enumerate(ts):
            while j < len(ts) and ts[j] < at + window:
                j += 1
            most = max(most, j - i)
        return most


async def test_no_hand_message_is_edited_by_a_decision_that_does_not_change_it(
    tmp_path: Path,
) -> None:
    """Six people through the deal phase (宣点, 买3, tribute: every hand is looked at after each
    decision) and a whole game: every edit of a private message changes its text, its buttons
    or its picture."""
    async with world(tmp_path, seed=5, pass_think_s=0.02) as w:
        group = w.api.group(-3501, "不白改", admins=[w.api.bot_id])
        users = people(w, 6, base=3500)
        await open_and_seat(w, group, users)
        watch = Watch(w)
        w.api.listeners.append(watch)
        await start(w, group, users[0])
        players = [SimPlayer(w.api, u, random.Random(i), follow=True) for i, u in enumerate(users)]
        await play_until(w.api, players, over(w, group), settle=w.settle)
        await w.settle()
        assert watch.edits > 50  # the game was played, its hands edited
        assert not watch.wasted, watch.wasted[:3]


async def test_a_group_gets_at_most_twenty_writes_a_minute(tmp_path: Path) -> None:
    """A whole game with its cheers, its log, its pauses for automatic passes: in no minute
    (of the test's clock, :data:`botkit.SPEED` times as fast) more than 20 writes to the
    group."""
    async with world(tmp_path, seed=11, pass_think_s=0.05) as w:
        group = w.api.group(-3502, "二十", admins=[w.api.bot_id])
        users = people(w, 6, base=3520)
        await open_and_seat(w, group, users)
        watch = Watch(w)
        w.api.listeners.append(watch)
        await start(w, group, users[0])
        players = [
            SimPlayer(w.api, u, random.Random(10 + i), hints=0.2) for i, u in enumerate(users)
        ]
        await play_until(w.api, players, over(w, group), settle=w.settle)
        await w.settle()
        assert len(watch.group_writes) > GROUP_PER_MIN  # enough for the limit to matter
        assert watch.most_in(60.0 / SPEED) <= GROUP_PER_MIN

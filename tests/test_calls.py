"""Calls a decision at the accepted floor (issue 35), through the local server: a message is
edited only when what it shows changes (a bystander's hand message stays as it is while others
decide: 托管's buttons carry no match version), and a group gets at most 20 writes a minute
(Telegram counts edits, deletes and pins there too) over a whole played game."""

from __future__ import annotations

import asyncio
import hashlib
import random
from dataclasses import replace
from pathlib import Path

import pytest
from botkit import SPEED, World, open_and_seat, over, people, start, world

from bot.offline.gamebench import most_in
from bot.offline.localapi import ApiCall
from bot.offline.simplayers import SimPlayer, play_until
from bot.outbox import Out, Slot, SlotKind
from bot.pacing import Beat, Pacing

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
        self.group_edits: dict[int, int] = {}  # message → edits

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
            if call.method in EDITS:
                mid = int(call.params.get("message_id", 0))
                self.group_edits[mid] = self.group_edits.get(mid, 0) + 1
            return
        now = self.state(chat)
        if call.method in EDITS:
            key = (chat, int(call.params.get("message_id", 0)))
            self.edits += 1
            if key in self.shown and now.get(key) == self.shown[key]:
                self.wasted.append((chat, now[key][0]))
        self.shown.update(now)

    def most_in(self, window: float) -> int:
        return most_in(self.group_writes, window)


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


async def test_the_groups_table_and_log_keep_one_beat(tmp_path: Path) -> None:
    """With the beat on (bot.pacing.Beat): the decisions of a burst show in one edit of the
    group's table, and once the game is over the log holds every line."""
    # a beat of 0.5 s (a minute on the test's clock: this machine may be loaded, the bursts
    # of decisions slower than the players' speed)
    pacing = replace(Pacing.telegram().faster(SPEED), beat_s=0.5)
    async with world(tmp_path, seed=11, pass_think_s=0.02, pacing=pacing) as w:
        group = w.api.group(-3503, "一拍", admins=[w.api.bot_id])
        users = people(w, 6, base=3540)
        await open_and_seat(w, group, users)
        watch = Watch(w)
        w.api.listeners.append(watch)
        await start(w, group, users[0])
        table = w.table(group)
        table_msg = table.st.table_msg
        players = [
            SimPlayer(w.api, u, random.Random(20 + i), hints=0.2) for i, u in enumerate(users)
        ]
        begin = table.version
        await play_until(w.api, players, over(w, group), settle=w.settle)
        await asyncio.sleep(2 * pacing.beat_s)  # the last beat's end
        await w.settle()
        decisions = table.version - begin
        assert decisions > 40
        # the table message of the game (until the cheers move it down) edited less than
        # once a decision: bursts show in one edit
        edits = sum(watch.group_edits.values())
        assert watch.group_edits.get(table_msg or 0, 0) < decisions
        assert edits < decisions
        assert watch.most_in(60.0 / SPEED) <= GROUP_PER_MIN
        # nothing lost: the log's last page shows the game's last lines
        page = w.api.message(group.id, table.st.log_msgs[table.st.log_page])
        assert table.lines and page.text == table.log_out(table.lines).text


async def test_a_beat_lets_a_change_after_a_quiet_beat_through_and_holds_the_rest() -> None:
    """bot.pacing.Beat on its own: the first change goes at once and opens a beat; edits
    during it wait for its end (each message once); a message sent anew goes at once and
    makes its waiting edit moot; an act goes at once and leaves it waiting; the game's end
    goes at once with all."""
    clock = [100.0]
    flushed: list[int] = []

    async def flush(table_id: int) -> None:
        flushed.append(table_id)

    beat = Beat(9.0, flush, clock=lambda: clock[0])
    chat = -7
    table_out = Out(chat, "t", slot=Slot(1, SlotKind.TABLE))
    log_out = Out(chat, "l", slot=Slot(1, SlotKind.LOG, 1))
    cheer = Out(chat, "🔥")
    hand = Out(5, "h", slot=Slot(1, SlotKind.HAND, 0))
    assert beat.sort(1, chat, True, [cheer, log_out, table_out, hand]) == [
        cheer,
        log_out,
        table_out,
        hand,
    ]
    clock[0] += 3
    assert beat.sort(1, chat, True, [log_out, table_out, hand]) == [hand]
    assert beat.waiting[1] == {log_out.slot, table_out.slot}
    anew = Out(chat, "t", slot=Slot(1, SlotKind.TABLE), new=True)
    unpin = Out(chat, "", slot=Slot(1, SlotKind.LOG, 1), act="unpin")
    assert beat.sort(1, chat, True, [cheer, anew, unpin]) == [cheer, anew, unpin]
    assert beat.waiting[1] == {log_out.slot}
    # the first of a log page is sent at once
    assert beat.sort(1, chat, False, [log_out]) == [log_out]
    assert beat.waiting[1] == set()
    clock[0] += 1
    assert beat.sort(1, chat, True, [table_out]) == []
    await asyncio.sleep(0)
    clock[0] += 9
    assert beat.take(1) == {table_out.slot}
    clock[0] += 1
    assert beat.sort(1, chat, True, [table_out]) == []  # a new beat opened at the take
    assert beat.sort(1, chat, True, [log_out, table_out], now=True) == [log_out, table_out]
    assert not beat.waiting[1]
    off = Beat(0.0, flush)
    assert off.sort(1, chat, True, [table_out]) == [table_out]
    # the log keeps a slower beat: the table goes when a beat opens, the log waits its own
    slow = Beat(9.0, flush, clock=lambda: clock[0])
    log2, table2 = (
        Out(chat, "l", slot=Slot(2, SlotKind.LOG, 1)),
        Out(chat, "t", slot=Slot(2, SlotKind.TABLE)),
    )
    assert slow.sort(2, chat, True, [log2, table2]) == [log2, table2]
    clock[0] += 10
    assert slow.sort(2, chat, True, [log2, table2]) == [table2]
    assert slow.log_waits(2)
    clock[0] += 10  # a beat over, not the log's (3 beats)
    assert slow.take(2) == set()
    clock[0] += 8
    assert slow.take(2) == {log2.slot} and not slow.log_waits(2)

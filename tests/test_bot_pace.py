"""The sender's overall pace (bot/pacing.py ``Pace``): calls to all chats together keep to a
budget, in the order asked, and a message waiting for its turn stays in its chat's queue, where
newer content replaces it — so under load the bot sends each chat's newest state once, and
draws no picture that is then replaced."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from telegram import Chat, Message
from telegram.error import ChatMigrated, NetworkError, TimedOut

from bot.buttons import HandOp
from bot.deployment import Single
from bot.handkeys import auto_row, hand_button
from bot.outbox import Out, Slot, SlotKind
from bot.pacing import GROUP, PRIVATE, QUESTION, Pace, Pacing, Window, asks
from bot.queues import Queues
from bot.sender import RETRIES, Sender
from bot.uploads import Uploads


async def _granted(pace: Pace, asked: list[tuple[str, int]]) -> list[tuple[str, float]]:
    """Turns asked at once (name, level), in the order granted, with when."""
    loop = asyncio.get_running_loop()
    out: list[tuple[str, float]] = []

    async def one(name: str, at: int) -> None:
        await pace.turn(at)
        out.append((name, loop.time()))

    await asyncio.gather(*(one(n, f) for n, f in asked))
    return out


async def test_pace_grants_a_burst_then_one_call_per_interval_in_order() -> None:
    # turns 200 ms apart: a loaded machine's late wake-ups (tens of ms) stay well inside them
    pace = Pace(per_s=5.0, burst=2)
    start = asyncio.get_running_loop().time()
    got = await _granted(pace, [(str(k), GROUP) for k in range(6)])  # six chats at once
    assert [n for n, _ in got] == ["0", "1", "2", "3", "4", "5"]
    assert got[1][1] - start < 0.1  # the burst at once
    # then one each 200 ms: never sooner than that (a late one may be caught up with)
    since = [round(at - start, 3) for _, at in got]
    assert all(s >= (k - 1) * 0.2 - 0.002 for k, s in enumerate(since)), since
    await asyncio.sleep(0.7)  # a quiet while: the burst is there again
    at = asyncio.get_running_loop().time()
    again = await _granted(pace, [("a", GROUP), ("b", GROUP)])
    assert again[1][1] - at < 0.1
    assert Pace(0.0).interval == 0.0  # off: never waits


async def test_a_question_takes_the_next_turn_of_a_saturated_budget() -> None:
    """Issue 35: under a budget saturated by the tables' edits, a chat's question is not
    queued behind them: its turn is the next one granted."""
    pace = Pace(per_s=100.0, burst=1)
    asked = [(f"edit {k}", GROUP) for k in range(20)] + [("question", QUESTION)]
    got = [n for n, _ in await _granted(pace, asked)]
    assert got.index("question") <= 1, got  # (the burst's first turn went at once)


async def test_a_question_posted_to_a_waiting_chat_hurries_its_turn() -> None:
    pace = Pace(per_s=100.0, burst=1)
    order: list[str] = []

    async def chat(chat_id: int) -> None:
        await pace.turn(GROUP, chat_id)
        order.append(str(chat_id))

    tasks = [asyncio.create_task(chat(k)) for k in range(1, 21)]
    await asyncio.sleep(0)  # every chat waits for its turn
    pace.hurry(20)  # the last chat got a question meanwhile
    await asyncio.gather(*tasks)
    assert order.index("20") <= 1, order


class Slots:
    """Slots' message ids, kept in a dict (the sender's ``SlotStore``)."""

    def __init__(self, ids: dict[Slot, int]) -> None:
        self.ids = ids

    async def slot_id(self, slot: Slot) -> int | None:
        return self.ids.get(slot)

    async def slot_sent(self, slot: Slot, message_id: int) -> None:
        self.ids[slot] = message_id


class NoStore:
    """No uploads, no outbox (the sender's stores, none kept)."""

    async def get_upload(self, digest: str) -> str | None:
        return None

    async def save_upload(self, digest: str, file_id: str) -> None:
        return None

    async def message_delivered(self, outbox_id: int) -> None:
        return None


async def _refused(chat_id: int) -> None:
    raise AssertionError("nobody blocked the bot")


async def _moved(old: int, new: int) -> None:
    raise AssertionError("no group moved")


def sender_of(
    bot: Any,
    slots: Slots | None = None,
    refused: Any = _refused,
    moved: Any = _moved,
    pacing: Pacing | None = None,
) -> Sender:
    """A started sender to ``bot``, one process, nothing stored."""
    store = NoStore()
    sender = Sender(
        bot,
        Queues(),
        Single(store),  # type: ignore[arg-type]
        slots=slots or Slots({}),
        uploads=Uploads(store),
        outbox=store,
        on_refused=refused,
        on_migrated=moved,
        pacing=pacing,
    )
    sender.start()
    return sender


class FakeBot:
    """The few Bot API calls the sender makes, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []
        self.next_id = 1

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Message:
        self.calls.append(("send", chat_id, text))
        self.next_id += 1
        return Message(self.next_id, datetime.now(UTC), Chat(chat_id, "private"))

    async def edit_message_text(self, text: str, *, chat_id: int, **_: Any) -> bool:
        self.calls.append(("edit", chat_id, text))
        return True


async def test_under_the_pace_a_waiting_message_takes_its_newest_content() -> None:
    bot = FakeBot()
    ids: dict[Slot, int] = {}

    # a burst of 5, then one call each 20 ms
    sender = sender_of(bot, Slots(ids), pacing=Pacing(0.0, 0.0, 50.0))
    for chat in range(1, 9):  # eight players' hands appear at once
        sender.post(Out(chat, f"hand {chat} v1", slot=Slot(7, SlotKind.HAND, chat)))
    await asyncio.sleep(0)  # every chat's worker now waits for its turn
    for version in (2, 3, 4):  # quick taps of the last players meanwhile
        for chat in (7, 8):
            sender.post(Out(chat, f"hand {chat} v{version}", slot=Slot(7, SlotKind.HAND, chat)))
    await sender.drain(timeout=5.0)
    assert [c for c in bot.calls if c[1] in (7, 8)] == [
        ("send", 7, "hand 7 v4"),
        ("send", 8, "hand 8 v4"),
    ]
    assert len(bot.calls) == 8  # one call per chat: nothing sent that was replaced
    await sender.close()


class MovedGroupBot(FakeBot):
    """A group that became a supergroup: its old id answers ChatMigrated, as Telegram does."""

    async def send_message(self, chat_id: int, text: str, **kw: Any) -> Message:
        if chat_id == -5:
            raise ChatMigrated(-1005)
        return await super().send_message(chat_id, text, **kw)


async def test_queued_messages_follow_a_group_to_its_new_id() -> None:
    bot = MovedGroupBot()
    moves: list[tuple[int, int]] = []

    async def moved(old: int, new: int) -> None:
        moves.append((old, new))

    sender = sender_of(bot, moved=moved)
    for text in ("开点！", "走头科", "本局结束"):
        sender.post(Out(-5, text))
    await sender.drain(timeout=5.0)
    assert moves == [(-5, -1005)]
    assert bot.calls == [("send", -1005, t) for t in ("开点！", "走头科", "本局结束")]
    await sender.close()


class SlowNetworkBot(FakeBot):
    """A send whose answer is lost: it reached the chat, but the call timed out."""

    async def send_message(self, chat_id: int, text: str, **kw: Any) -> Message:
        await super().send_message(chat_id, text, **kw)
        raise TimedOut()


async def test_a_new_message_that_timed_out_is_not_sent_twice() -> None:
    bot = SlowNetworkBot()
    sender = sender_of(bot)
    sender.post(Out(7, "轮到你出牌"))
    await sender.drain(timeout=5.0)
    assert bot.calls == [("send", 7, "轮到你出牌")]  # once, though its answer never came
    assert sender.errors == 1
    await sender.close()


class DeletingBot(FakeBot):
    async def delete_message(self, chat_id: int, message_id: int, **_: Any) -> bool:
        self.calls.append(("delete", chat_id, str(message_id)))
        return True


async def test_a_message_sent_anew_deletes_the_one_it_replaces_at_once() -> None:
    """One question, one live message, and one picture of the hand: a hand message sent anew
    (the player is asked again) deletes the one before it as soon as it is out."""
    bot = DeletingBot()
    ids: dict[Slot, int] = {}

    sender = sender_of(bot, Slots(ids))
    hand = Slot(1, SlotKind.HAND, 0)
    for turn in range(1, 4):
        sender.post(Out(9, f"turn {turn}", slot=hand, new=True))
        await sender.drain(timeout=5.0)
    sender.post(Out(9, "played; waiting", slot=hand))  # answered: edited in place
    await sender.drain(timeout=5.0)
    sender.post(Out(9, "your turn once more", slot=hand, new=True))
    await sender.drain(timeout=5.0)
    deletes = [c for c in bot.calls if c[0] == "delete"]
    assert deletes == [("delete", 9, "2"), ("delete", 9, "3"), ("delete", 9, "4")]
    await sender.close()


async def test_under_a_saturated_budget_a_question_goes_before_the_tables_edits() -> None:
    """Issue 35: thirty tables' pictures wait for the budget of calls; a player's question
    posted after them is the next call out (the tables' edits wait, coalescing)."""
    bot = FakeBot()
    tables = range(1, 31)
    ids = {Slot(k, SlotKind.TABLE): 100 + k for k in tables}
    sender = sender_of(bot, Slots(ids), pacing=Pacing(0.0, 0.0, 100.0, burst=1))
    for k in tables:
        sender.post(Out(-k, f"table {k}", slot=Slot(k, SlotKind.TABLE)))
    await asyncio.sleep(0.02)  # every group's worker waits for its turn
    sender.post(Out(7, "轮到你出牌", slot=Slot(1, SlotKind.HAND, 0), new=True))
    await sender.drain(timeout=5.0)
    chats = [c[1] for c in bot.calls]
    assert len(chats) == 31
    assert chats.index(7) <= 5, chats  # not behind the twenty-odd edits still waiting
    await sender.close()


async def _asked_anew(tap: str) -> list[tuple[str, int, str]]:
    """Forty players' messages (no question) wait for a saturated budget; player 7 is asked
    anew (their old question, message 50, to be deleted) and, once it is out, taps a rank on
    it — posted through the sender (``"sender"``), to the queues as the tables post
    (``"tables"``), or not at all (``""``). The calls made."""
    bot = DeletingBot()
    hand = Slot(1, SlotKind.HAND, 0)
    others = range(100, 140)
    ids = {hand: 50} | {Slot(k, SlotKind.HAND, 0): 100 + k for k in others}
    sender = sender_of(bot, Slots(ids), pacing=Pacing(0.0, 0.0, 100.0, burst=1))
    for k in others:
        sender.post(Out(k, f"hand {k}", slot=Slot(k, SlotKind.HAND, 0)))
    await asyncio.sleep(0.02)
    sender.post(Out(7, "轮到你出牌", slot=hand, new=True))
    async with asyncio.timeout(2.0):
        while ("send", 7, "轮到你出牌") not in bot.calls:
            await asyncio.sleep(0.001)
    # the tap shown on the new question: it still asks
    asking = [[hand_button("出牌", 1, 7, HandOp.PLAY)], auto_row(1, False, False, "zh")]
    if tap:
        (sender if tap == "sender" else sender.queues).post(Out(7, "已选 3", asking, slot=hand))
    await sender.drain(timeout=5.0)
    await sender.close()
    return bot.calls


@pytest.mark.parametrize("tap", ["sender", "tables"])
async def test_an_old_question_deleted_moves_up_with_the_players_next_question(tap: str) -> None:
    """Commit 046a035: a question sent anew deletes the player's old one — a call of the
    chat's own while the chat's later messages wait behind it. Under a budget saturated by
    other players' messages, the player's tap shown on the new question (a question itself)
    moves the delete up with it, posted as the tables post it too (to the queues): the player
    sees their tap at once, not after every other chat's edits (the bench's tables stalled at
    their first lead)."""
    calls = [(c[0], c[1]) for c in await _asked_anew(tap)]
    sent, shown = calls.index(("send", 7)), calls.index(("edit", 7))
    assert calls.index(("delete", 7)) < shown <= sent + 4, calls  # not after the 40 others


async def test_an_old_question_is_deleted_at_once_after_the_new_one() -> None:
    """The old question's delete goes at the question's level: it does not wait behind the
    other players' messages (an untapped question's chat would hold a tap posted later behind
    it, and the old buttons stay meanwhile)."""
    calls = [(c[0], c[1]) for c in await _asked_anew("")]
    assert calls.index(("delete", 7)) <= calls.index(("send", 7)) + 2, calls
    assert len(calls) == 42


async def test_a_question_posted_by_the_tables_hurries_its_chats_turn() -> None:
    """The tables post to the queues, not through the sender: a question posted so to a chat
    whose worker waits for a turn (at the private level, for a message that asks nothing)
    still moves the turn up."""
    bot = FakeBot()
    slots = {Slot(k, SlotKind.HAND, 0): 100 + k for k in range(1, 42)}
    sender = sender_of(bot, Slots(slots), pacing=Pacing(0.0, 0.0, 100.0, burst=1))
    for k in range(1, 42):  # forty-one players' hands edited, nothing asked
        sender.post(Out(k, f"hand {k}", slot=Slot(k, SlotKind.HAND, 0)))
    await asyncio.sleep(0.02)  # every chat's worker waits for its turn
    asking = [[hand_button("出牌", 1, 7, HandOp.PLAY)], auto_row(1, False, False, "zh")]
    sender.queues.post(Out(41, "轮到你出牌", asking, slot=Slot(41, SlotKind.HAND, 0)))
    await sender.drain(timeout=5.0)
    chats = [c[1] for c in bot.calls]
    assert chats.index(41) <= 5, chats
    await sender.close()


class FlakyBot(FakeBot):
    """Chat 7's first send meets a network error (tried again)."""

    async def send_message(self, chat_id: int, text: str, **kw: Any) -> Message:
        if chat_id == 7 and not any(c[1] == 7 for c in self.calls):
            self.calls.append(("failed", 7, text))
            raise NetworkError("reset")
        return await super().send_message(chat_id, text, **kw)


async def test_a_question_tried_again_keeps_its_place_before_other_messages() -> None:
    """A question's call tried again takes its turn at the question's level: not behind the
    other players' messages waiting for a saturated budget."""
    bot = FlakyBot()
    slots = {Slot(k, SlotKind.HAND, 0): 100 + k for k in range(100, 220)}
    sender = sender_of(bot, Slots(slots), pacing=Pacing(0.0, 0.0, 100.0, burst=1))
    for k in range(100, 220):  # 120 of them: 1.2 s of turns
        sender.post(Out(k, f"hand {k}", slot=Slot(k, SlotKind.HAND, 0)))
    await asyncio.sleep(0.02)
    sender.post(Out(7, "轮到你出牌", slot=Slot(1, SlotKind.HAND, 0), new=True))
    await sender.drain(timeout=10.0)
    calls = [(c[0], c[1]) for c in bot.calls]
    # the retry waits half a second (bot.calls), 50 turns: then it goes next
    assert calls.index(("send", 7)) <= 70, calls
    await sender.close()


def test_a_question_is_a_hand_sent_anew_or_edited_while_it_asks() -> None:
    """What goes first (issue 35): the question, and the asked player's taps shown on it (a
    player waiting to see a tap is stuck); not a waiting hand's edits, nor a group's."""
    hand = Slot(1, SlotKind.HAND, 0)
    waiting = [auto_row(1, False, False, "zh")]
    asking = [[hand_button("出牌", 1, 7, HandOp.PLAY)], *waiting]
    assert asks(Out(5, "轮到你", None, slot=hand, new=True))
    assert asks(Out(5, "已选 3", asking, slot=hand))
    assert not asks(Out(5, "等待", waiting, slot=hand))
    assert not asks(Out(-5, "桌", asking, slot=Slot(1, SlotKind.TABLE)))


async def test_a_delivery_interrupted_by_the_database_is_tried_again() -> None:
    """A chat's delivery that fails before its first call (several processes: its lease or
    outbox unreadable a moment) is tried again: the question waiting is sent, not left in the
    queue until the chat's next message."""
    bot = FakeBot()
    sender = sender_of(bot)
    failing = [True]
    delivering = sender.deployment.delivering

    def flaky(chat_id: int, chat: Any, forget: Any) -> Any:
        if failing:
            failing.clear()
            raise ConnectionError("the database is away")
        return delivering(chat_id, chat, forget)

    sender.deployment.delivering = flaky  # type: ignore[method-assign]
    sender.post(Out(7, "轮到你出牌", slot=Slot(1, SlotKind.HAND, 0), new=True))
    await sender.drain(timeout=5.0)
    assert bot.calls == [("send", 7, "轮到你出牌")]
    await sender.close()


async def test_a_delivery_that_keeps_failing_is_not_tried_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fault that stays (not the database away a moment) ends the chat's worker after
    RETRIES tries in a row: no endless loop of tries; the message waits in its queue."""
    monkeypatch.setattr("bot.sender.RETRY_S", 0.0)
    bot = FakeBot()
    sender = sender_of(bot)
    tries: list[int] = []

    def broken(chat_id: int, chat: Any, forget: Any) -> Any:
        tries.append(chat_id)
        raise ConnectionError("never back")

    sender.deployment.delivering = broken  # type: ignore[method-assign]
    sender.post(Out(7, "轮到你出牌", slot=Slot(1, SlotKind.HAND, 0), new=True))
    for _ in range(200):
        await asyncio.sleep(0)
    assert len(tries) == RETRIES + 1 and bot.calls == []
    await sender.close()


async def test_the_groups_keep_a_share_of_a_saturated_budget() -> None:
    """Players' messages first, but a group's table is late, never stopped: every fourth turn
    goes to a group while groups wait."""
    pace = Pace(per_s=200.0, burst=1)
    asked = [(f"dm {k}", PRIVATE) for k in range(12)] + [(f"group {k}", GROUP) for k in range(3)]
    got = [n for n, _ in await _granted(pace, asked)]
    assert [i for i, n in enumerate(got) if n.startswith("group")] == [4, 8, 12], got


async def test_no_more_calls_in_any_second_than_the_window_allows() -> None:
    """The last guard of Telegram's overall limit (issue 35, 0 × 429): calls delayed after
    their turns (a picture drawn slowly) never make more than the window's number in a
    second, however they bunch."""
    loop = asyncio.get_running_loop()
    window = Window(3, span=0.1)
    at: list[float] = []

    async def call() -> None:
        await window.enter()
        at.append(loop.time())

    await asyncio.gather(*(call() for _ in range(7)))
    assert all(b - a >= 0.099 for a, b in zip(at, at[3:], strict=False)), at

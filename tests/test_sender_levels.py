"""Which messages go first in a saturated budget of calls (bot/pacing.py ``asks``): a player's
question, not the deal's new hand messages of the players it asks nothing (issue 35: at the
first leads those crowded the real questions, and the others' hand updates waited ~141 s)."""

from __future__ import annotations

import asyncio

from test_bot_pace import DeletingBot, FakeBot, Slots, sender_of

from bot.buttons import HandOp
from bot.handkeys import auto_row, hand_button
from bot.outbox import RETIRE, Out, Slot, SlotKind
from bot.pacing import PRIVATE, QUESTION, Pacing, asks
from bot.queues import ChatQueue

WAITING = [auto_row(1, False, False, "zh")]  # a hand's keyboard while others act: 托管 only
ASKING = [[hand_button("出牌", 1, 7, HandOp.PLAY)], *WAITING]


def test_a_new_hand_that_asks_nothing_is_no_question() -> None:
    hand = Slot(1, SlotKind.HAND, 0)
    assert not asks(Out(5, "发牌了", WAITING, slot=hand, new=True))  # the deal, not asked
    assert asks(Out(5, "轮到你", ASKING, slot=hand, new=True))
    # the old question's retirement goes at a question's level, another message's not
    assert asks(Out(5, "", slot=hand, new=True, message_id=9, act=RETIRE))
    assert not asks(Out(5, "", slot=hand, message_id=9, act=RETIRE))


async def test_the_deals_hands_wait_behind_a_question() -> None:
    """Forty players' new hand messages (the deal: nothing asked of them) wait for a saturated
    budget; a question posted after them is among the next calls, not the 41st."""
    bot = FakeBot()
    sender = sender_of(bot, Slots({}), pacing=Pacing(0.0, 0.0, 100.0, burst=1))
    for k in range(100, 140):
        sender.post(Out(k, f"hand {k}", WAITING, slot=Slot(k, SlotKind.HAND, 0), new=True))
    await asyncio.sleep(0.02)
    assert sender.pace.wants(139) == PRIVATE
    sender.post(Out(7, "轮到你出牌", ASKING, slot=Slot(1, SlotKind.HAND, 0), new=True))
    assert sender.pace.wants(7) in (QUESTION, None)
    await sender.drain(timeout=5.0)
    chats = [c[1] for c in bot.calls]
    assert len(chats) == 41 and chats.index(7) <= 3, chats
    await sender.close()


async def test_a_hand_goes_at_a_questions_level_while_its_chat_has_a_question() -> None:
    """A chat with a question waiting is served at the question's level whatever its first
    message: the deal's hand before the question goes with it, and the old hand's deletes."""
    bot = DeletingBot()
    hand = Slot(1, SlotKind.HAND, 0)
    ids = {hand: 50} | {Slot(k, SlotKind.HAND, 0): 100 + k for k in range(100, 140)}
    sender = sender_of(bot, Slots(ids), pacing=Pacing(0.0, 0.0, 100.0, burst=1))
    for k in range(100, 140):
        sender.post(Out(k, f"hand {k}", WAITING, slot=Slot(k, SlotKind.HAND, 0)))
    await asyncio.sleep(0.02)
    sender.post(Out(7, "新的一局"))  # no question
    sender.post(Out(7, "轮到你出牌", ASKING, slot=hand, new=True))
    await sender.drain(timeout=5.0)
    calls = [(c[0], c[1]) for c in bot.calls]
    assert calls.index(("delete", 7)) <= 6, calls
    await sender.close()


def test_an_old_messages_retirement_outlives_the_slot_sent_anew() -> None:
    """The old question's delete waits in its chat's queue (bot.outbox.RETIRE): an edit of
    the slot does not coalesce into it, and the slot sent anew meanwhile makes the edits moot,
    not the delete — else the old message, buttons and all, would stay."""
    chat = ChatQueue(0.0)
    hand = Slot(1, SlotKind.HAND, 0)
    retire = Out(5, "", slot=hand, new=True, message_id=9, act=RETIRE)
    chat.queue.append(retire)
    edit = Out(5, "已选 3", ASKING, slot=hand)
    assert chat.add(edit) == [] and chat.queue == [retire, edit]
    again = Out(5, "轮到你出牌", ASKING, slot=hand, new=True)
    assert chat.add(again) == [edit] and chat.queue == [retire, again]

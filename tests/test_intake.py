"""A flood is cheap on the event loop (issue 33, bot/intake.py): a press of junk — data the
bot never made, or data its message does not carry — is answered from the raw update, before
python-telegram-bot reads it: no handler, no table, no storage; charged to its presser alone,
and not answered at all past their budget. Real presses go on as before, polling or by
webhook."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from botkit import World, join_and_start, open_and_seat, people, world

from bot.budget import Budgets, Rate
from bot.buttons import Callback, Kind, LobbyOp
from bot.intake import Intake, junk_key
from bot.offline.simplayers import button_data, lobby_message
from bot.storyqueue import StoryQueue

LOBBY_GO = Callback(Kind.LOBBY, 7, 0, LobbyOp.GO).encode()


def press(
    update_id: int, data: Any, *, offered: list[str] | None = None, date: int = 1
) -> dict[str, Any]:
    keyboard = [[{"text": "b", "callback_data": d}] for d in offered or []]
    message: dict[str, Any] = {"message_id": 5, "date": date, "chat": {"id": -1, "type": "group"}}
    if offered is not None:
        message["reply_markup"] = {"inline_keyboard": keyboard}
    return {
        "update_id": update_id,
        "callback_query": {
            "id": f"q{update_id}",
            "from": {"id": 42, "is_bot": False, "first_name": "x", "language_code": "zh"},
            "chat_instance": "c",
            "message": message,
            "data": data,
        },
    }


def test_junk_is_told_from_a_press_the_message_carries() -> None:
    assert junk_key(press(1, "x", offered=["x"])) == "bot.bad_button"  # not the bot's data
    assert junk_key(press(1, None, offered=[])) == "bot.bad_button"
    assert junk_key(press(1, "l:" + "9" * 60)) == "bot.bad_button"
    assert junk_key(press(1, LOBBY_GO, offered=[])) == "bot.stale"  # not on its message
    assert junk_key(press(1, LOBBY_GO)) == "bot.stale"  # no keyboard at all
    assert junk_key(press(1, LOBBY_GO, offered=[LOBBY_GO], date=0)) == "bot.stale"  # too old
    assert junk_key(press(1, LOBBY_GO, offered=["y", LOBBY_GO])) is None  # a real press
    assert junk_key({"update_id": 1, "message": {"text": "/help"}}) is None
    assert junk_key({"update_id": 1}) is None


async def test_junk_is_answered_within_its_pressers_budget_then_not_at_all() -> None:
    answered: list[tuple[str, str]] = []

    async def answer(query_id: str, text: str) -> None:
        answered.append((query_id, text))

    intake = Intake(Budgets(user=Rate(per_s=0.001, burst=3)), answer)
    real = press(9, LOBBY_GO, offered=[LOBBY_GO])
    batch = [press(i, "x") for i in range(1, 6)] + [real, press(10, LOBBY_GO, offered=[])]
    kept = intake.batch(batch)
    # the real press handed on; the newest update stays as an empty one (the next getUpdates
    # confirms it)
    assert kept == [real, {"update_id": 10}]
    await asyncio.sleep(0)
    assert [q for q, _ in answered] == ["q1", "q2", "q3"]  # three in the budget, then none
    assert all("按钮" in text or "过期" in text for _, text in answered)
    assert (intake.junk, intake.unanswered) == (6, 3)
    assert intake.batch([real]) == [real] and intake.batch([]) == []


async def test_a_press_of_any_shape_never_breaks_intake() -> None:
    """Fields of the wrong type anywhere (a modified client, a broken proxy): intake never
    raises; what is not a press Telegram sends goes on to python-telegram-bot, which refuses it
    as it always did; a junk press with an English code is answered in English."""
    answered: list[str] = []

    async def answer(query_id: str, text: str) -> None:
        answered.append(text)

    intake = Intake(Budgets(), answer)
    odd: list[Any] = []
    for field, value in (("from", "42"), ("from", None), ("id", 7), ("id", None)):
        update = press(1, "x")
        update["callback_query"][field] = value
        odd.append(update)
    for markup in ({"inline_keyboard": "x"}, {"inline_keyboard": [None, "y", [7]]}, "z", None):
        update = press(2, LOBBY_GO, offered=[])
        update["callback_query"]["message"]["reply_markup"] = markup
        odd.append(update)
    for update in odd:
        intake.take(update)  # never raises
    assert not intake.junk_press(odd[0]) and not intake.junk_press(odd[2])  # handed on
    assert intake.batch(["x", None, 3]) == ["x", None, 3]  # not updates at all: left alone
    english = press(3, "x")
    english["callback_query"]["from"]["language_code"] = "en-GB"
    assert intake.junk_press(english)
    await asyncio.sleep(0)
    assert answered and answered[-1].isascii()


@pytest.mark.e2e
@pytest.mark.parametrize("webhook", [False, True], ids=["polling", "webhook"])
async def test_a_junk_press_touches_no_handler_and_no_storage(
    tmp_path: Path, webhook: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world(tmp_path, people_rates=True, webhook=webhook) as w:
        g = w.api.group(-5301, "垃圾二")
        owner, flooder = people(w, 2, base=760)
        await open_and_seat(w, g, [owner])
        await join_and_start(w, g, flooder)
        presses, reads = count(w, monkeypatch)
        lobby = lobby_message(w.api, g)
        for data in ("x", "", LOBBY_GO, "o1.0.G"):  # junk, junk, not on the lobby, junk
            await flooder.forge(lobby, data)
        await w.settle()
        assert presses == [] and reads == []  # answered at intake: nothing else read it
        texts = [a.text or "" for a in flooder.answers()]
        assert len(texts) == 4 and sum("过期" in x for x in texts) == 1, texts
        sit = button_data(lobby_message(w.api, g), LobbyOp.SIT, 1)
        assert sit is not None
        await flooder.press(lobby_message(w.api, g), data=sit)  # a real press goes on
        await w.settle()
        assert len(presses) == 1
        seated = w.table(g).st.seats[1]
        assert seated is not None and seated.user == flooder.id


def count(w: World, monkeypatch: pytest.MonkeyPatch) -> tuple[list[object], list[str]]:
    """The router's presses and the storage's calls from now on."""
    presses: list[object] = []
    reads: list[str] = []
    router = w.parts.router
    real_press = router.press

    async def counted_press(*args: Any, **kwargs: Any) -> Any:
        presses.append(args[0])
        return await real_press(*args, **kwargs)

    monkeypatch.setattr(router, "press", counted_press)
    storage = w.parts.tables.storage
    for name in dir(type(storage)):
        method = getattr(storage, name)
        if name.startswith("_") or not asyncio.iscoroutinefunction(method):
            continue

        def counted(*args: Any, _name: str = name, _method: Any = method, **kw: Any) -> Any:
            reads.append(_name)
            return _method(*args, **kw)

        monkeypatch.setattr(storage, name, counted)
    return presses, reads


def command(text: str, *, chat: int = -9, kind: str = "supergroup", **extra: Any) -> dict[str, Any]:
    name = text.split()[0]
    message: dict[str, Any] = {
        "message_id": 3,
        "date": 1,
        "chat": {"id": chat, "type": kind},
        "from": {"id": 42, "is_bot": False, "first_name": "x"},
        "text": text,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(name)}],
        **extra,
    }
    return {"update_id": 8, "message": message}


async def test_a_story_command_whose_answer_waits_already_is_dropped_and_charged() -> None:
    """A group's /replay while its /replay waits in the group's queue would only take its
    place: dropped before PTB reads it, charged to the sender's and the group's budgets; any
    other command, or one the queue does not hold, goes on as always."""
    stories = StoryQueue(bound=100)
    gate = asyncio.Event()
    stories.submit(-9, "history:None:", 2, gate.wait)  # running: the queue is busy
    stories.submit(-9, "replay:None:", 6, gate.wait)  # waiting
    stories.submit(-9, "replay:77:", 6, gate.wait)  # waiting, in a forum topic
    budgets = Budgets(user=Rate(per_s=0.001, burst=100), chat=Rate(per_s=0.001, burst=100))
    intake = Intake(budgets, stories=stories, username=lambda: "gouji_bot")
    await asyncio.sleep(0)
    assert intake.take(command("/replay"))
    assert intake.take(command("/REPLAY@Gouji_Bot 3"))
    assert intake.take(command("/replay", message_thread_id=77, is_topic_message=True))
    for other in (
        command("/history"),  # running, not waiting: its repeat is queued again
        command("/record"),  # nothing of it waits
        command("/replay@other_bot"),
        command("/replay", chat=-10),
        command("/replay", chat=42, kind="private"),
        command("/replay", sender_chat={"id": -9, "type": "supergroup"}),
        command("/replay", message_thread_id=78, is_topic_message=True),
        {"update_id": 9, "edited_message": command("/replay")["message"]},
    ):
        assert not intake.take(other), other
    assert intake.repeats == 3
    assert budgets.user._buckets[42][0] < 98 and budgets.chat._buckets[-9][0] < 98
    gate.set()
    await stories.close()


def test_junk_is_charged_to_its_presser_and_few_of_a_flood_are_answered() -> None:
    """Ten junk presses at once: five answered (a real player's stale taps are told so), all
    ten charged to the presser's own budget (their next command waits), none to the chat's."""
    clock = [0.0]
    budgets = Budgets(clock=lambda: clock[0])
    answered = [budgets.junk(42) for _ in range(10)]
    assert answered == [True] * 5 + [False] * 5
    assert not budgets.spend(42, -9)  # the presser's budget is spent
    assert budgets.spend(43, -9)  # the chat's is not
    clock[0] += 2.0  # a sixth of the pace: one more answered after two seconds
    assert budgets.junk(42) and not budgets.junk(42)


@pytest.mark.e2e
async def test_by_webhook_a_dropped_repeat_counts_as_handled_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By webhook a story command whose answer waits already is dropped once its update is
    claimed: delivered again later, when nothing waits any more, it is not handled then."""
    from test_bot_isolation import command_update, post_raw

    async with world(tmp_path, webhook=True) as w:
        g = w.api.group(-5302, "钩子二")
        (me,) = people(w, 1, base=770)
        await open_and_seat(w, g, [me])
        said = len(w.api.messages(g.id))
        update = json.dumps(command_update(10**9 + 1, g, me, "/replay")).encode()
        stories = w.parts.router.stories
        monkeypatch.setattr(stories, "waits", lambda chat_id, key: True)  # one waits already
        assert await post_raw(w, update) == 200
        intake = w.app.bot_data.rt.intake
        assert intake.repeats == 1
        monkeypatch.undo()  # nothing waits now: handled for real, were it handled again
        assert await post_raw(w, update) == 200
        await w.settle()
        assert len(w.api.messages(g.id)) == said  # no answer: handled once, by dropping it

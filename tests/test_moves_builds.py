"""What a change builds, counted (bot/moves.py): the group's table message is made once a
change, even when the log waits for its beat and the table shows its new lines meanwhile; and a
seat the AI plays for its player (托管) has its hand message made again only when what it
shows of the seat changes — not when the seat is asked, nor when the AI passes for it."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from botkit import SPEED, World, open_and_seat, over, people, start, world

from bot.buttons import HandOp, LobbyOp
from bot.moves import Moves
from bot.offline.localapi import SimGroup, SimUser
from bot.offline.simplayers import button_data, press_lobby
from bot.pacing import Pacing
from bot.table import Table

pytestmark = pytest.mark.e2e  # the bot on the local server


async def one_in_auto(w: World, g: SimGroup, me: SimUser) -> None:
    """``me`` and five AI seats; once the cards are played, ``me`` hands the seat to the AI."""
    await open_and_seat(w, g, [me])
    await press_lobby(w.api, g, me, LobbyOp.FILL)
    await start(w, g, me)
    for _ in range(20):  # the deal phase's questions answered (the last button: no)
        msg = [m for m in w.api.messages(me.id) if m.buttons][-1]
        if button_data(msg, HandOp.AUTO) is not None:
            break
        data = msg.buttons[-1].callback_data
        assert data is not None
        await me.press(msg, data=data)
        await w.settle()
    for op in (HandOp.AUTO, HandOp.AUTO_YES):
        msg = [m for m in w.api.messages(me.id) if m.buttons][-1]
        await me.press(msg, data=button_data(msg, op))
        await w.settle()


async def played_out(w: World, g: SimGroup) -> None:
    """The AI plays the game to its end."""
    for _ in range(400):
        if over(w, g)():
            return
        await w.settle()
    raise AssertionError("the game did not end")


async def test_an_auto_seats_hand_message_is_made_only_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[str, str]] = []  # (picture key, caption) of each hand message of seat 0
    real = Table.hand_out

    def hand_out(self: Table, seat: int) -> Any:
        out = real(self, seat)
        s = self.st.seats[seat]
        if out is not None and s is not None and s.auto:
            made.append((out.photo_key, out.text))
        return out

    async with world(tmp_path, seed=3) as w:
        g = w.api.group(-5901, "托管")
        (me,) = people(w, 1, base=930)
        monkeypatch.setattr(Table, "hand_out", hand_out)
        await one_in_auto(w, g, me)
        await played_out(w, g)
    pictures = [k for k, _ in made]
    # each new one shows another hand (or the seat's rank once out), but the game's end, which
    # shows every seat its result; before, 44 were made for 15 pictures: each question to the
    # seat and each pass the AI made for it edited its caption
    again = sum(1 for a, b in pairwise(pictures) if a == b)
    assert len(made) > 5 and again <= 1, (len(made), again)


async def test_the_groups_table_is_made_once_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the group's beat on (the log edited at a slower beat: its new lines shown on the
    table meanwhile) and at each deal, where the table is sent anew."""
    made = [0]
    unlogged = [0]  # tables made with lines the log does not show yet
    real_parts, real_out = Table._table_parts, Table.table_out

    def parts(self: Table) -> Any:
        made[0] += 1
        return real_parts(self)

    def table_out(self: Table, lines: Any = ()) -> Any:
        unlogged[0] += bool(lines)
        return real_out(self, lines)

    most: list[int] = []
    real_commit = Moves.commit

    async def commit(self: Moves, *args: Any, **kw: Any) -> None:
        before = made[0]
        await real_commit(self, *args, **kw)
        most.append(made[0] - before)

    monkeypatch.setattr(Table, "_table_parts", parts)
    monkeypatch.setattr(Table, "table_out", table_out)
    monkeypatch.setattr(Moves, "commit", commit)
    pacing = replace(Pacing.telegram().faster(SPEED), beat_s=0.2)
    async with world(tmp_path, seed=3, pacing=pacing, ai_delay=0.05) as w:
        g = w.api.group(-5902, "一次")
        (me,) = people(w, 1, base=940)
        await one_in_auto(w, g, me)
        await played_out(w, g)
    assert unlogged[0] > 5  # the log kept its own beat: its new lines shown on the table
    assert len(most) > 20 and max(most) == 1, most

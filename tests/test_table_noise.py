"""Once, in order (issue 34 §2): the result said once, by the game-over picture, after the last
trick's cheer; a game's badges as one silent line; no 轮到 for a seat being passed; a burn asked
on your own 联邦's 够级 does not buzz and declines itself soon; two-way 点贡 as one line."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from botkit import open_and_seat, over, people, start, world

from bot.model import Seat, TableState, TableStatus
from bot.offline.simplayers import SimPlayer, play_until
from bot.quiet import OWN_SIDE_BURN_S, own_side_burn
from bot.table import Table
from engine.ai import decide
from engine.match import Match
from engine.ranking import Debt
from engine.rules import Rules
from engine.vocab import TributeKind
from renderers.debts import debt_lines, debts_text
from renderers.story_text import match_text
from renderers.transcript import badges_line

NAMES = ["周五", "老李头", "喆喆", "Kitty", "虎哥", "小雨"]


@pytest.mark.e2e
async def test_the_result_is_said_once_after_the_last_cheer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[tuple[bool, str]] = []  # every table caption built: (during a hold, text)
    real = Table.table_out

    def table_out(self: Table) -> Any:
        out = real(self)
        shown.append((self.held() is not None, out.text))
        return out

    monkeypatch.setattr(Table, "table_out", table_out)
    async with world(tmp_path, pass_think_s=0.02) as w:
        group = w.api.group(-1001, "牌友群", admins=[w.api.bot_id])
        users = people(w, 6)
        await open_and_seat(w, group, users)
        await start(w, group, users[0])
        players = [SimPlayer(w.api, u, random.Random(i), follow=True) for i, u in enumerate(users)]
        await play_until(w.api, players, over(w, group), settle=w.settle)
        await w.settle()
        sent = w.api.messages(group.id, include_deleted=True)
        kept = w.api.messages(group.id)
        # the result once: only the game-over picture says 本局结束, with one caption
        (result,) = [m for m in sent if "本局结束" in m.plain]
        assert result.photo is not None and not result.deleted
        assert not any("本局结束" in h for m in sent for h in m.history)
        # no trick-log line states the ranks; the final table picture is gone
        assert not any("🏆" in m.plain for m in sent if m is not result)
        table = w.table(group)
        tables = [m for m in sent if m.photo is not None and m is not result]
        assert tables and all(m.deleted for m in tables), "a table picture outlived the game"
        assert table.st.table_msg not in [m.message_id for m in kept]
        # the last trick's cheer lands before the picture; after it only silent lines
        cheers = [m for m in sent if "🏁" in m.plain and not m.edits and m.photo is None]
        assert cheers and max(c.message_id for c in cheers) < result.message_id
        after = [m for m in sent if m.message_id > result.message_id]
        assert all(m.disable_notification for m in after), [m.plain for m in after]
        # badges: at most one line a game, silent; a first game's 首个头科 unannounced
        badges = [m for m in sent if m.plain.startswith("🏅")]
        assert len(badges) <= 1 and all(m.disable_notification for m in badges)
        assert not any("首个头科" in m.plain for m in badges)
        # the pin of the log came and went without a sound
        assert group.pin_notices and not any(m.pinned for m in kept)
    # a seat the bot passes for is never named as the one to play
    held = [text for during, text in shown if during]
    assert held, "the game had no pause for automatic passes"
    assert not any("轮到" in text for text in held)
    assert any("看牌中" in text for text in held)


def test_badges_of_a_game_are_one_line() -> None:
    line = badges_line([("周五", "sweep"), ("喆喆", "sweep"), ("虎哥", "sweep")], "zh")
    assert line == "🏅 新徽章：「串三户」周五、喆喆、虎哥"
    two = badges_line([("周五", "sweep"), ("Kitty", "first_burn"), ("喆喆", "sweep")], "zh")
    assert two == "🏅 新徽章：「串三户」周五、喆喆；「首次烧成」Kitty"
    assert "\n" not in two and badges_line([], "zh") == ""
    assert badges_line([("Ann", "sweep")], "en").startswith("🏅 New badges: ")


def test_two_way_point_tribute_is_one_line() -> None:
    dian = TributeKind.DIAN
    debts = [
        Debt(0, 3, dian, 1),
        Debt(1, 4, dian, 1),
        Debt(3, 0, dian, 1),
        Debt(4, 1, dian, 2),
        Debt(2, 5, dian, 3),
    ]
    lines = debt_lines(debts)
    assert [(x.src, x.dst, x.cards, x.back) for x in lines] == [
        (0, 3, 1, 1),
        (1, 4, 1, 2),
        (2, 5, 3, 0),
    ]
    text = debts_text(debts, NAMES, "zh")
    assert text[0] == "• 周五 ⇄ Kitty：互进点贡，各 1张"
    assert text[1] == "• 老李头 ⇄ 虎哥：互进点贡，老李头 1张、虎哥 2张"
    assert text[2] == "• 喆喆 → 小雨：点贡 3张"
    # a 落贡 and a 点贡 between the same two never fold (different tributes)
    mixed = [Debt(0, 3, TributeKind.LUO, 1), Debt(3, 0, dian, 1)]
    assert len(debt_lines(mixed)) == 2
    # /match says it the same way
    page = match_text(1, NAMES, [], (0, 0), None, debts, True, "zh")
    assert "周五 ⇄ Kitty：互进点贡，各 1张" in page and "Kitty → 周五" not in page


def own_side_burn_match() -> Match:
    """A match (computer players) stopped where a seat is asked to burn its own 联邦's 够级."""
    for seed in range(60):
        rng = random.Random(seed)
        m = Match(Rules.preset_named("standard"), seed=seed)
        m.new_game()
        while (ask := m.asked()) is not None:
            if own_side_burn(m, ask):
                return m
            m.apply(decide(m, ask[0], "normal", rng).action)
    raise AssertionError("no seed asks a player to burn their own 联邦")


def test_a_burn_on_your_own_side_does_not_buzz_and_declines_itself() -> None:
    m = own_side_burn_match()
    ask = m.asked()
    assert ask is not None
    seat = ask[0]
    st = TableState(seats=[Seat(NAMES[i], 100 + i) for i in range(6)])
    table = Table(1, -1001, None, 100, TableStatus.PLAYING, st, m.version, m)
    (out,) = table.hand_outs({seat}, ask)
    # the seat's own view: asked as a new message, without a notification
    assert out.new and out.silent and out.chat_id == 100 + seat and out.keyboard
    # any other burn claim still buzzes
    other = next(s for s in range(6) if s % 2 != seat % 2)
    assert not own_side_burn(m, (other, ask[1])) or other % 2 == seat % 2
    # the turn timer: the claim declines itself after a few seconds, with no reminder
    from bot.moves import Moves

    scheduled: dict[str, float] = {}

    class Timers:
        def cancel(self, name: str) -> None:
            scheduled.pop(name, None)

        def schedule(self, name: str, delay: float, job: object) -> None:
            scheduled[name] = delay

    class Cfg:
        turn_s = 60.0
        ai_delay = 0.0

    moves = Moves.__new__(Moves)
    moves.cfg = Cfg()  # type: ignore[assignment]
    moves.timers = Timers()  # type: ignore[assignment]
    moves.schedule(table)
    assert scheduled == {"step:1": OWN_SIDE_BURN_S}

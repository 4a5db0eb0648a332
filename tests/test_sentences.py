"""Every sentence agrees with what the engine will do: over all presets and the switches that
decide tribute (docs/rules.md §11, §13), seeded games are played and what the group and each
asked seat were told is checked against the engine — every 烧贡 a 烧成 promises is a debt the
next deal collects (and none is promised where none is collected), a counter-burn promises
two cards only where the table collects 烧贡, a 宣点 promises 点贡 only where it is paid, a 诈烧
is told the rank it will get (§10: 大落, or 二落 after an earlier 诈烧), no 够级 is named in
四户乱缠 (§12), and every rank the transcript names is the rank the game records."""

from __future__ import annotations

import dataclasses
import html
import itertools
import random
import re
from collections import Counter

import pytest

from engine.ai import decide
from engine.events import Event
from engine.match import Match
from engine.ranking import chuan_team
from engine.rules import PRESETS, Rules
from engine.view import SeatView
from engine.vocab import Ask, Do, EventType, Phase, TributeKind
from renderers import Transcript, prompt_text
from renderers.dm import table_lines
from renderers.played import Played
from renderers.samples import sample_view
from renderers.terms import rank_name

NAMES = ("老王", "小李", "张姐", "阿强", "王叔", "小美")
RANKS = {rank_name(r, "zh"): r for r in range(1, 7)}
_R = "(头科|二科|三科|四科|二落|大落)"
_N = "(" + "|".join(NAMES) + ")"
BURN_SUCCESS = re.compile(r"烧成，" + _N + r" 下局进 (\d) 张烧贡")
# rank claims of the transcript, each naming the seat it places
NAMED_RANKS = (
    re.compile(_N + r" 被闷，判为" + _R),
    re.compile(_N + r" 诈烧，判为" + _R),
    re.compile(_N + r" 改为" + _R),
    re.compile(_N + r" 革命，定为" + _R),
)
OVER_RANK = re.compile(_R + " " + _N)
BOTTOM = re.compile("诈烧，判为" + _R)

BOTH = (True, False)
SWITCHES = [
    {"tribute": tribute, "bie3": bie3, "waive_team_tribute": waive}
    for tribute, bie3, waive in itertools.product(
        ("all", "luo", "off"), (True, False), (True, False)
    )
]
CONFIGS = [
    (preset, switches)
    for preset in PRESETS
    for switches in SWITCHES
    if preset != "casual" or switches["tribute"] != "off" or switches["bie3"]
] + [
    ("standard", {"open_point": False}),
    ("standard", {"declare_point": False}),
    ("standard", {"point_table": "double"}),
    ("qingdao", {"open_point": True, "declare_point": True}),
]

SEATS = [(1, ("easy",) * 6), (2, ("normal", "easy") * 3), (3, ("normal",) * 6)]


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", text))


class Table:
    """A seeded match, every sentence kept: easy players burn often and fail (诈烧), normal ones
    burn when they can finish (烧成); ``levels`` gives each seat's."""

    def __init__(self, rules: Rules, seed: int, levels: tuple[str, ...]) -> None:
        self.rules = rules
        self.levels = levels
        self.match = Match(rules, seed=seed)
        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.bottoms: dict[int, str] = {}  # seat → the 诈烧 rank its latest burn ask named
        self.failed: dict[int, str] = {}  # seat → that rank, when the seat failed a burn

    def game(self) -> list[Event]:
        """Deal and play one game; the deal's events."""
        tr = Transcript(NAMES, "zh", self.rules)
        dealt = self.match.new_game()
        tr.feed(dealt)
        while (ask := self.match.asked()) is not None:
            seat, kind = ask
            self.told(seat, kind, tr.played)
            events = self.match.apply(decide(self.match, seat, self.levels[seat], self.rng).action)
            for ev in events:
                if ev.type == EventType.BURN_FAIL and ev.seat in self.bottoms:
                    self.failed[ev.seat] = self.bottoms[ev.seat]
            tr.feed(events)
        self.lines = [plain(line) for line in tr.take_finished()]
        game = self.match.game
        assert game is not None
        for seat, said in self.failed.items():  # §10: the rank the burn ask named
            assert RANKS[said] == game.ranks[seat], (seat, said, game.ranks)
        self.failed.clear()
        self.bottoms.clear()
        return dealt

    def told(self, seat: int, kind: Ask, played: Played) -> None:
        """What the asked seat reads, checked against what the rules will do and the table."""
        view = self.match.view(seat)
        text = plain(prompt_text(view, "zh", NAMES))
        counts = next((x for x in table_lines(view, NAMES, "zh", played) if "剩牌" in x), None)
        if counts is not None and self.match.game is not None:
            check_counts(plain(counts), [sum(h) for h in self.match.game.hands], view)
        if kind == Ask.BURN:
            found = BOTTOM.search(text)
            assert found is not None, text
            self.bottoms[seat] = found.group(1)
            counter = view.top is not None and view.top.burn
            assert ("两张烧贡" in text) == (counter and self.rules.tribute == "all"), text
        if kind == Ask.DECLARE:
            paid = self.rules.open_point and self.rules.tribute == "all"
            assert ("多进点贡" in text) == paid, text
        if view.phase == "four_way":
            assert "够级" not in text, text  # §12: no 够级 in 四户乱缠


def check_counts(line: str, held: list[int], view: SeatView) -> None:
    """The DM's 剩牌 line: every count it gives is the count the seat holds, every seat it says
    holds more than N does (§13 counts_at)."""
    told = view.rules.counts_at
    for entry in line.removeprefix("剩牌：").split(" · "):
        if m := re.fullmatch("(?:对头)?" + _N + r" (\d+)张", entry):
            assert held[NAMES.index(m.group(1))] == int(m.group(2)), (line, held)
        elif m := re.fullmatch(r"(.+) 超过(\d+)张", entry):
            assert int(m.group(2)) == told
            for name in m.group(1).split("、"):
                assert held[NAMES.index(name.removeprefix("对头"))] > told, (line, held)
        elif m := re.fullmatch(r"别家都超过 (\d+) 张", entry):
            active = [s for s in range(6) if s != view.seat and view.status[s] == "active"]
            assert int(m.group(1)) == told and all(held[s] > told for s in active), (line, held)
        else:  # out of play: a rank or what put them out
            assert re.fullmatch("(?:对头)?" + _N + " (" + _R[1:-1] + "|走了|革命|闷|诈烧)", entry)


def shao_promised(lines: list[str]) -> Counter[tuple[int, int]]:
    return Counter(
        (NAMES.index(m.group(1)), int(m.group(2)))
        for line in lines
        for m in BURN_SUCCESS.finditer(line)
    )


@pytest.mark.parametrize(("preset", "switches"), CONFIGS, ids=str)
def test_every_promise_is_what_the_engine_does(preset: str, switches: dict[str, object]) -> None:
    rules = Rules.preset_named(preset).with_switches(switches)
    for seed, levels in SEATS:
        table = Table(rules, seed, levels)
        table.game()
        for _ in range(2):
            game = table.match.game
            assert game is not None
            lines, ranks = table.lines, list(game.ranks)
            debts = table.match.history[-1].tributes
            promised = shao_promised(lines)
            owed = Counter((d.src, d.cards) for d in debts if d.kind == TributeKind.SHAO)
            waived = any("串三户不进烧贡" in line for line in lines)
            if chuan_team(ranks) is not None and rules.tribute == "all":
                assert waived == bool(promised)
                assert not owed
            else:
                assert not waived
                assert promised == owed, (lines, debts)
            if rules.tribute != "all":
                assert not any(word in line for line in lines for word in ("烧贡", "闷贡", "点贡"))
            check_ranks(lines, ranks)
            # what the next deal collects is exactly the debts the game left (§11)
            dealt = table.game()
            paid = Counter((e.seat, e.to, e.kind) for e in dealt if e.type == "tribute_paid")
            assert paid == Counter((d.src, d.dst, d.kind) for d in debts)


def check_ranks(lines: list[str], ranks: list[int | None]) -> None:
    """Every rank the transcript names for a seat is the rank the game recorded (a rank said
    earlier may be corrected in words: 改为)."""
    claims: dict[int, list[int]] = {}
    for line in lines:
        for pattern in NAMED_RANKS:
            for m in pattern.finditer(line):
                claims.setdefault(NAMES.index(m.group(1)), []).append(RANKS[m.group(2)])
        if line.startswith("🏆 本局结束"):
            listed = {NAMES.index(m.group(2)): RANKS[m.group(1)] for m in OVER_RANK.finditer(line)}
            assert listed == {s: r for s, r in enumerate(ranks) if r is not None}, line
    for seat, said in claims.items():
        assert said[-1] == ranks[seat], (seat, said, ranks)


@pytest.mark.parametrize("choice", [Do.YAOTOU, Do.WUTOU])
def test_yaotou_speaks_of_opening_only_where_there_is_any(choice: Do) -> None:
    """§9: with 开点 off nobody opens: 要头 and 无头 are told without it (the group's line and
    the asked player's question)."""
    for rules in (
        Rules.preset_named("standard"),
        Rules.preset_named("standard").with_switches({"open_point": False}),
    ):
        tr = Transcript(NAMES, "zh", rules)
        tr.feed([Event(EventType.YAOTOU, 1, choice=choice)])
        (line,) = tr.take_finished()
        assert ("开点" in line) == rules.open_point, line
        view = dataclasses.replace(
            sample_view(), rules=rules, seat=1, to_act=1, asked=Ask.YAOTOU, phase=Phase.SETUP
        )
        asked = prompt_text(view, "zh", NAMES)
        assert ("开点" in asked) == rules.open_point, asked

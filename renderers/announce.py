"""The group's lines for the deal phase (RECORDS.md "events", engine/events.py: 进贡, 还贡, 买3,
革命, 流局, 宣点, 要头, the leader) and the caption of the game-over picture. The group's running
account of a game is :class:`renderers.transcript.Transcript`, which takes its deal lines from
here; everything it tells is tested there (tests/test_transcript.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.events import Event
from engine.ranking import chuan_team
from engine.rules import Rules
from engine.seats import opposite
from engine.view import SeatView

from .i18n import Catalog, fit_message, lang_or_default
from .terms import hand_text, rank_name, seat_name, team_names, tribute_name


class _Writer:
    """Lines of one message: shares the English term markers across lines."""

    def __init__(self, names: Sequence[str], lang: str, rules: Rules | None = None) -> None:
        self.rules = rules
        self.lang = lang_or_default(lang)
        self.cat = Catalog.load(self.lang)
        self.names = names
        self.seen: set[str] = set()

    def name(self, seat: int | None) -> str:
        return seat_name(seat, self.names, self.lang)

    def hand(self, notation: str) -> str:
        """Cards that are not one play (tribute): ``2个大王、2``."""
        return hand_text(notation, self.lang)

    def team(self, side: int) -> str:
        return team_names(side, self.names, self.lang)

    def line(self, key: str, **params: object) -> str:
        return self.cat.text(key, self.seen, **params)

    def event(self, ev: Event) -> str | None:
        """One line for a deal-phase event, None for any other type."""
        kind_ = ev.type
        name = self.name(ev.seat)
        if kind_ == "revolution":
            return self.line("ev.revolution", name=name)
        if kind_ in ("void_deal", "no_three"):
            return self.line(f"ev.{kind_}")
        if kind_ == "dealt":
            return self.line("ev.dealt", game=ev.game or 1)
        if kind_ == "tribute_paid":
            cards = ev.cards or ""
            params = {
                "name": name,
                "to": self.name(ev.to),
                "kind": tribute_name((ev.kind or ""), self.lang),
            }
            if not cards:
                return self.line("ev.tribute_paid.none", **params)
            return self.line("ev.tribute_paid", cards=self.hand(cards), **params)
        if kind_ == "tribute_returned":
            cards = self.hand(ev.cards or "")
            return self.line("ev.tribute_returned", name=name, to=self.name(ev.to), cards=cards)
        if kind_ == "bought_three":
            giver = self.name(ev.source)
            return self.line(
                "ev.bought_three", name=name, giver=giver, paid=self.hand(ev.paid or "")
            )
        if kind_ == "given_three":
            return self.line("ev.given_three", name=name, giver=self.name(ev.source))
        if kind_ == "yaotou":
            choice = "yaotou" if (ev.choice or "") == "yaotou" else "wutou"
            opens = self.rules is None or self.rules.open_point  # §9: 开点 may be off
            return self.line(f"ev.yaotou.{choice}" + ("" if opens else ".noopen"), name=name)
        if kind_ == "declared":
            who = ev.seat
            target = self.name(opposite(who)) if who is not None else "?"
            return self.line("ev.declared", name=name, target=target)
        if kind_ == "leader":
            reason = ev.reason or ""
            if reason not in ("fours", "threes", "random", "daluo"):
                reason = "random"
            return self.line(f"ev.leader.{reason}", name=name)
        return None  # a type this catalog does not know: say nothing rather than guess

    def score(self, view: SeatView, match_score: tuple[int, int] | None) -> list[str]:
        """串三户, the game's score and the match score."""
        lines: list[str] = []
        sweep = chuan_team(view.ranks)
        if sweep is not None:
            lines.append(self.line("over.chuan", team=self.team(sweep)))
        a, b = view.score
        if a or b:
            side = 0 if a else 1
            lines.append(self.line("over.score", team=self.team(side), score=_signed(a or b)))
        else:
            lines.append(self.line("over.score.tie"))
        if match_score is not None:
            a_team, b_team = self.team(0), self.team(1)
            lines.append(
                self.line(
                    "over.match", a_team=a_team, a=match_score[0], b=match_score[1], b_team=b_team
                )
            )
        return lines


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def game_over_caption(
    view: SeatView,
    names: Sequence[str],
    lang: str = "zh",
    match_score: tuple[int, int] | None = None,
) -> str:
    """The one caption of the game-over picture (which shows the ranks and the tributes): the
    title, the ranks in one line (what a notification and a search show), the game's score and
    the match score — the result said once (issue 34)."""
    w = _Writer(names, lang)
    seen: set[str] = set()
    order = sorted((r, s) for s, r in enumerate(view.ranks) if r is not None and 1 <= r <= 6)
    ranks = w.cat.text("tr.over.sep").join(
        w.cat.text("tr.over.rank", seen, rank=rank_name(r, w.lang), name=w.name(s))
        for r, s in order
    )
    lines = [w.line("over.title"), *([ranks] if ranks else []), *w.score(view, match_score)]
    return fit_message(lines, w.lang)


def deal_line(
    event: Event, names: Sequence[str], lang: str = "zh", rules: Rules | None = None
) -> str | None:
    """The group's line for an event of the deal (§5, §11: 进贡, 还贡, 买3, 革命, 流局, 宣点, 要头,
    the leader…); None for any other type. With the table's ``rules``, nothing is said of
    开点 where it is off."""
    return _Writer(names, lang, rules).event(event)

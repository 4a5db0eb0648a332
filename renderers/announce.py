"""Group-chat announcements of engine events (RECORDS.md "events", engine/events.py).

Every event type of ``PLAY_EVENTS`` and ``DEAL_EVENTS`` has an announcement; ``SILENT_EVENTS``
lists the types deliberately not announced (none at present), ``SAID_AS`` the types announced with
another type's words. Nothing said to the group tells who could have beaten a play (§7): a
declined burn claim is silent and an automatic pass reads as a pass, runs of passes folding into
one line. The group's running account of a game is :class:`renderers.transcript.Transcript`;
these announcements are the per-event form.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.events import Event
from engine.ranking import chuan_team
from engine.seats import opposite
from engine.view import SeatView
from engine.vocab import Status

from .debts import debts_text
from .i18n import Catalog, fit_message, lang_or_default
from .terms import card_text, hand_text, rank_name, seat_name, team_names, tribute_name

SILENT_EVENTS: frozenset[str] = frozenset()
SAID_AS = {"auto_pass": "pass"}  # an automatic pass reads like any pass


class _Writer:
    """Lines of one message: shares the English term markers across lines."""

    def __init__(self, names: Sequence[str], lang: str) -> None:
        self.lang = lang_or_default(lang)
        self.cat = Catalog.load(self.lang)
        self.names = names
        self.seen: set[str] = set()

    def name(self, seat: int | None) -> str:
        return seat_name(seat, self.names, self.lang)

    def cards(self, notation: str) -> str:
        """A play, as counted: ``4个8+2``."""
        return card_text(notation, self.lang)

    def hand(self, notation: str) -> str:
        """Cards that are not one play (tribute): ``2个大王、2``."""
        return hand_text(notation, self.lang)

    def team(self, side: int) -> str:
        return team_names(side, self.names, self.lang)

    def rank(self, rank: int) -> str:
        return rank_name(rank, self.lang)

    def line(self, key: str, **params: object) -> str:
        return self.cat.text(key, self.seen, **params)

    def event(self, ev: Event, placed: bool = False) -> str | None:
        """One line for ``ev``; ``placed``: a ``finished`` that is a placing, not going out."""
        kind_ = SAID_AS.get(ev.type, ev.type)
        if kind_ in SILENT_EVENTS or (ev.type == "pass" and ev.claim):
            return None  # a declined burn (§7) is nobody's business
        name = self.name(ev.seat)
        if kind_ == "play":
            key = "ev.play.gouji" if bool(ev.gouji) else "ev.play"
            return self.line(key, name=name, cards=self.cards(ev.cards or ""))
        if kind_ in ("pass", "yield", "burn_fail", "trick_won", "opened", "wind", "revolution"):
            return self.line(f"ev.{kind_}", name=name)
        if kind_ in ("four_way", "game_over", "void_deal", "no_three"):
            return self.line(f"ev.{kind_}")
        if kind_ == "burn":
            return self.line("ev.burn", name=name, victim=self.name(ev.victim))
        if kind_ in ("burn_break", "counter_burn"):
            return self.line(f"ev.{kind_}", name=name, burner=self.name(ev.burner))
        if kind_ == "burn_success":
            return self.line(
                "ev.burn_success",
                name=name,
                victim=self.name(ev.victim),
                tribute=ev.tribute or 1,
            )
        if kind_ == "smothered":
            return self.line("ev.smothered", name=name, by=self.name(ev.by))
        if kind_ == "finished":
            rank = ev.rank
            if rank is None or not 1 <= rank <= 6:
                return None
            if placed:
                return self.line("ev.finished.placed", name=name, rank=self.rank(rank))
            return self.line("ev.finished", name=name, rank=self.line(f"rank.go.{rank}"))
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
            return self.line(f"ev.yaotou.{choice}", name=name)
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

    def game_over(self, view: SeatView, match_score: tuple[int, int] | None) -> list[str]:
        lines = [self.line("over.title")]
        by_rank = sorted((r, s) for s, r in enumerate(view.ranks) if r is not None and 1 <= r <= 6)
        for rank, who in by_rank:
            marks = ""
            if view.opened[who]:
                marks += self.line("over.mark.opened")
            status = view.status[who] if who < len(view.status) else ""
            if status in (Status.REVOLTED, Status.SMOTHERED, Status.FAILED):
                marks += self.line(f"over.mark.{status}")
            lines.append(
                self.line("over.rank_line", rank=self.rank(rank), name=self.name(who), marks=marks)
            )
        return lines + self.score(view, match_score) + self.debts(view)

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

    def debts(self, view: SeatView) -> list[str]:
        """The tributes owed for the next game (§11)."""
        lines: list[str] = []
        if view.tributes:
            lines.append(self.line("over.tributes"))
            lines += debts_text(view.tributes, self.names, self.lang)  # two-way 点贡: one line
        elif view.rules.tribute != "off":
            lines.append(self.line("over.no_tributes"))
        return lines


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def describe_event(event: Event, names: Sequence[str], lang: str = "zh") -> str | None:
    """One HTML line announcing ``event`` to the group, or None for a silent event."""
    return _Writer(names, lang).event(event)


def describe_events(
    events: Iterable[Event],
    names: Sequence[str],
    lang: str = "zh",
    view: SeatView | None = None,
    match_score: tuple[int, int] | None = None,
) -> str:
    """One group message (≤ 4096 characters) for a batch of events. Runs of passes (automatic or
    not) fold into one line and declined burn claims are left out; with the final ``view`` a
    ``game_over`` event adds ranks, score and tributes."""
    w = _Writer(names, lang)
    batch = list(events)
    lines: list[str] = []
    run: list[str] = []
    last_player: int | None = None
    faulted: set[int] = set()  # smothered, failed or revolted: ranked without going out

    def flush() -> None:
        if run:
            lines.append(w.line("ev.pass", name=w.cat.template("list.sep").join(run)))
            run.clear()

    for i, ev in enumerate(batch):
        k = SAID_AS.get(ev.type, ev.type)
        if ev.type == "pass" and ev.claim:
            continue
        if k == "pass":
            run.append(w.name(ev.seat))
            continue
        flush()
        who = ev.seat
        if k == "play":
            last_player = who
        elif k in ("smothered", "burn_fail", "revolution") and who is not None:
            faulted.add(who)
        if k == "game_over" and view is not None:
            lines.extend(w.game_over(view, match_score))
            continue
        if k == "trick_won" and any(e.type == "wind" for e in batch[i + 1 : i + 4]):
            lines.append(w.line("ev.trick_won.out", name=w.name(who)))
            continue
        placed = k == "finished" and (
            who in faulted or (last_player is not None and who != last_player)
        )
        line = w.event(ev, placed)
        if line is not None:
            lines.append(line)
    flush()
    return fit_message(lines, w.lang)


def game_over_text(
    view: SeatView,
    names: Sequence[str],
    lang: str = "zh",
    match_score: tuple[int, int] | None = None,
) -> str:
    """The end of a game for the group: ranks 头科…大落 with 开点 and faults, 串三户, the score,
    the match score and the tributes owed for the next game."""
    w = _Writer(names, lang)
    return fit_message(w.game_over(view, match_score), w.lang)


def game_over_caption(
    view: SeatView,
    names: Sequence[str],
    lang: str = "zh",
    match_score: tuple[int, int] | None = None,
) -> str:
    """The short caption of the game-over picture (which shows the ranks and the tributes): the
    title, the game's score and the match score, said once."""
    w = _Writer(names, lang)
    return fit_message([w.line("over.title"), *w.score(view, match_score)], w.lang)


def deal_line(event: Event, names: Sequence[str], lang: str = "zh") -> str | None:
    """The group's line for an event of the deal (§5, §11: 进贡, 还贡, 买3, 革命, 宣点, 要头, the
    leader…), or for any event this module announces; None for a silent one."""
    return _Writer(names, lang).event(event)

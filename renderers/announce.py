"""Group-chat announcements of engine events (RECORDS.md "events", engine/events.py).

Every event type of ``PLAY_EVENTS`` and ``DEAL_EVENTS`` has an announcement; ``SILENT_EVENTS``
lists the types deliberately not announced (none at present: a pass is one short line, and runs of
``auto_pass`` fold into one line in :func:`describe_events`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.events import Event
from engine.seats import opposite, team
from engine.view import SeatView
from engine.vocab import Status

from .i18n import Catalog, fit_message, lang_or_default
from .terms import card_text, rank_name, seat_name, tribute_name

SILENT_EVENTS: frozenset[str] = frozenset()


def _int(event: Event, key: str) -> int | None:
    value = event.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(event: Event, key: str) -> str:
    value = event.get(key)
    return value if isinstance(value, str) else ""


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
        return card_text(notation, self.lang)

    def rank(self, rank: int) -> str:
        return rank_name(rank, self.lang)

    def line(self, key: str, **params: object) -> str:
        return self.cat.text(key, self.seen, **params)

    def event(self, ev: Event, placed: bool = False) -> str | None:
        """One line for ``ev``; ``placed``: a ``finished`` that is a placing, not going out."""
        kind = ev.type
        if kind in SILENT_EVENTS:
            return None
        name = self.name(ev.seat)
        if kind == "play":
            key = "ev.play.gouji" if ev.get("gouji") is True else "ev.play"
            return self.line(key, name=name, cards=self.cards(_str(ev, "cards")))
        if kind == "auto_pass":
            return self.line("ev.auto_pass", names=name)
        if kind == "pass" and ev.get("claim") is True:
            return self.line("ev.pass.claim", name=name)  # declined a burn (§7): not a pass
        if kind in ("pass", "yield", "burn_fail", "trick_won", "opened", "wind", "revolution"):
            return self.line(f"ev.{kind}", name=name)
        if kind in ("four_way", "game_over", "void_deal", "no_three"):
            return self.line(f"ev.{kind}")
        if kind == "burn":
            return self.line("ev.burn", name=name, victim=self.name(_int(ev, "victim")))
        if kind in ("burn_break", "counter_burn"):
            return self.line(f"ev.{kind}", name=name, burner=self.name(_int(ev, "burner")))
        if kind == "burn_success":
            return self.line(
                "ev.burn_success",
                name=name,
                victim=self.name(_int(ev, "victim")),
                tribute=_int(ev, "tribute") or 1,
            )
        if kind == "smothered":
            return self.line("ev.smothered", name=name, by=self.name(_int(ev, "by")))
        if kind == "finished":
            rank = _int(ev, "rank")
            text = self.rank(rank) if rank is not None and 1 <= rank <= 6 else "?"
            return self.line(
                "ev.finished.placed" if placed else "ev.finished", name=name, rank=text
            )
        if kind == "dealt":
            return self.line("ev.dealt", game=_int(ev, "game") or 1)
        if kind == "tribute_paid":
            cards = _str(ev, "cards")
            params = {
                "name": name,
                "to": self.name(_int(ev, "to")),
                "kind": tribute_name(_str(ev, "kind"), self.lang),
            }
            if not cards:
                return self.line("ev.tribute_paid.none", **params)
            return self.line("ev.tribute_paid", cards=self.cards(cards), **params)
        if kind == "tribute_returned":
            cards = self.cards(_str(ev, "cards"))
            return self.line(
                "ev.tribute_returned", name=name, to=self.name(_int(ev, "to")), cards=cards
            )
        if kind == "bought_three":
            giver = self.name(_int(ev, "from"))
            return self.line(
                "ev.bought_three", name=name, giver=giver, paid=self.cards(_str(ev, "paid"))
            )
        if kind == "given_three":
            return self.line("ev.given_three", name=name, giver=self.name(_int(ev, "from")))
        if kind == "yaotou":
            choice = "yaotou" if ev.get("choice") == "yaotou" else "wutou"
            return self.line(f"ev.yaotou.{choice}", name=name)
        if kind == "declared":
            target = self.name(opposite(ev.seat)) if ev.seat is not None else "?"
            return self.line("ev.declared", name=name, target=target)
        if kind == "leader":
            reason = _str(ev, "reason")
            if reason not in ("fours", "threes", "random", "daluo"):
                reason = "random"
            return self.line(f"ev.leader.{reason}", name=name)
        return None  # a type this catalog does not know: say nothing rather than guess

    def game_over(self, view: SeatView, match_score: tuple[int, int] | None) -> list[str]:
        lines = [self.line("over.title")]
        by_rank = sorted((r, s) for s, r in enumerate(view.ranks) if r is not None and 1 <= r <= 6)
        for rank, seat in by_rank:
            marks = ""
            if view.opened[seat]:
                marks += self.line("over.mark.opened")
            status = view.status[seat] if seat < len(view.status) else ""
            if status in (Status.REVOLTED, Status.SMOTHERED, Status.FAILED):
                marks += self.line(f"over.mark.{status}")
            lines.append(
                self.line("over.rank_line", rank=self.rank(rank), name=self.name(seat), marks=marks)
            )
        sweep = sweep_team(view)
        if sweep is not None:
            lines.append(self.line("over.chuan", team=self.line(f"team.{'AB'[sweep]}")))
        a, b = view.score
        lines.append(self.line("over.score", a=_signed(a), b=_signed(b)))
        if match_score is not None:
            lines.append(self.line("over.match", a=match_score[0], b=match_score[1]))
        if view.tributes:
            lines.append(self.line("over.tributes"))
            for debt in view.tributes:
                lines.append(
                    self.line(
                        "over.debt",
                        src=self.name(debt.src),
                        dst=self.name(debt.dst),
                        kind=tribute_name(debt.kind, self.lang),
                        cards=debt.cards,
                    )
                )
        elif view.rules.tribute != "off":
            lines.append(self.line("over.no_tributes"))
        return lines


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def sweep_team(view: SeatView) -> int | None:
    """The team (0 = A, 1 = B) that made 串三户 (RULES.md §10), or None."""
    seat_of = {r: s for s, r in enumerate(view.ranks) if r is not None}
    if 1 not in seat_of or 2 not in seat_of or team(seat_of[1]) != team(seat_of[2]):
        return None
    side = team(seat_of[1])
    third = [s for s in range(6) if team(s) == side and s not in (seat_of[1], seat_of[2])]
    if 3 in seat_of and team(seat_of[3]) == side:
        return side
    if third and third[0] in view.revolted:
        return side
    return None


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
    """One group message (≤ 4096 characters) for a batch of events. Runs of ``auto_pass`` fold
    into one line; with the final ``view`` a ``game_over`` event adds ranks, score and tributes."""
    w = _Writer(names, lang)
    lines: list[str] = []
    run: list[str] = []
    last_player: int | None = None
    faulted: set[int] = set()  # smothered, failed or revolted: ranked without going out

    def flush() -> None:
        if run:
            lines.append(w.line("ev.auto_pass", names=w.cat.template("list.sep").join(run)))
            run.clear()

    for ev in events:
        if ev.type == "auto_pass":
            run.append(w.name(ev.seat))
            continue
        flush()
        if ev.type == "play":
            last_player = ev.seat
        elif ev.type in ("smothered", "burn_fail", "revolution") and ev.seat is not None:
            faulted.add(ev.seat)
        if ev.type == "game_over" and view is not None:
            lines.extend(w.game_over(view, match_score))
            continue
        placed = ev.type == "finished" and (
            ev.seat in faulted or (last_player is not None and ev.seat != last_player)
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

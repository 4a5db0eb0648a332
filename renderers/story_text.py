"""The group's messages of the evening's story (Telegram HTML): ``/history``'s page of games,
``/match``'s running match, and the captions of a game's record. Pure: plain data in, text out.

Dates are shown in China's time (UTC+8, no daylight saving): 够级 is Qingdao's game, and a
group's players share one evening.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.ranking import Debt, chuan_team

from .debts import debts_text
from .i18n import fit_message, t
from .terms import rank_name, seat_name, team_names

CHINA_UTC_OFFSET_S = 8 * 3600


@dataclass(frozen=True)
class HistoryEntry:
    """One finished game as ``/history`` lists it: its match (the table), its number there,
    when it ended (seconds since the epoch), the names by seat, the ranks by seat (1 = 头科) and
    team A's signed margin (§10; team B's is its negative)."""

    table_id: int
    number: int
    finished_at: float
    names: tuple[str, ...]
    ranks: tuple[int, ...]
    margin: int


def when(finished_at: float) -> str:
    """``12-03 21:14`` in China's time."""
    return time.strftime("%m-%d %H:%M", time.gmtime(finished_at + CHINA_UTC_OFFSET_S))


def result_line(names: Sequence[str], ranks: Sequence[int], margin: int, lang: str) -> str:
    """Who won a game and by how much (§10: 串三户 named), or a tie."""
    sweep = chuan_team(list(ranks))
    if sweep is not None:
        return t(lang, "story.chuan", team=team_names(sweep, names, lang))
    if margin == 0:
        return t(lang, "story.tie")
    side = 0 if margin > 0 else 1
    return t(lang, "story.won", team=team_names(side, names, lang), score=abs(margin))


def history_entry(entry: HistoryEntry, lang: str = "zh") -> str:
    """A game's lines: its match, number and date; the players by rank; the result."""
    head = t(
        lang,
        "story.history.game",
        table=entry.table_id,
        n=entry.number,
        date=when(entry.finished_at),
    )
    sep = t(lang, "story.sep")
    by_rank = sorted((r, s) for s, r in enumerate(entry.ranks) if 1 <= r <= 6)
    ranks = sep.join(
        t(lang, "story.rank", rank=rank_name(r, lang), name=seat_name(s, entry.names, lang))
        for r, s in by_rank
    )
    return "\n".join((head, ranks, result_line(entry.names, entry.ranks, entry.margin, lang)))


def history_text(entries: Sequence[HistoryEntry], lang: str = "zh") -> str:
    """``/history``: a page of the group's games, newest first."""
    if not entries:
        return t(lang, "story.history.none")
    lines = [t(lang, "story.history.title")]
    for e in entries:
        lines += ["", history_entry(e, lang)]
    return fit_message(lines, lang)


@dataclass(frozen=True)
class MatchGame:
    """A finished game of the running match: its number, ranks by seat and team A's margin."""

    number: int
    ranks: tuple[int, ...]
    margin: int


def match_text(
    table_id: int,
    names: Sequence[str],
    games: Sequence[MatchGame],
    totals: tuple[int, int],
    playing: int | None,
    tributes: Sequence[Debt],
    tribute_on: bool,
    lang: str = "zh",
) -> str:
    """``/match``: the games of the table's match so far with each result, the match score,
    and either the game being played (``playing``: its number) or the tributes the next game
    begins with (§11)."""
    lines = [t(lang, "story.match.title", table=table_id, games=len(games))]
    for g in games:
        result = result_line(names, g.ranks, g.margin, lang)
        lines.append(t(lang, "story.match.game", n=g.number, result=result))
    lines.append(
        t(
            lang,
            "over.match",
            a_team=team_names(0, names, lang),
            a=totals[0],
            b=totals[1],
            b_team=team_names(1, names, lang),
        )
    )
    if playing is not None:
        lines.append(t(lang, "story.match.playing", n=playing))
    elif tributes:
        lines.append(t(lang, "over.tributes"))
        lines += debts_text(tributes, names, lang)  # two-way 点贡: one line (renderers.debts)
    elif games and tribute_on:
        lines.append(t(lang, "over.no_tributes"))
    return fit_message(lines, lang)


def record_caption(table_id: int, number: int, lang: str = "zh") -> str:
    """The caption of a game's record sent as a document."""
    return t(lang, "story.record.caption", table=table_id, n=number)

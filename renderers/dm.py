"""The table as one seat sees it, in a few short lines for the caption of its DM::

    本轮：张姐 3个8 → 阿强 3个9 → 王叔 3个10
    剩牌：张姐 8张 · 对头王叔 9张 · 小美 头科 · 阿强、老李 超过10张
    🔥 阿强 在烧牌
    已开点：王叔、张姐
    记牌器：外面还有 2个大王 3个小王 9个2 12个A 14个K

Everything comes from the seat's own view (:meth:`engine.match.Match.view`) and from the plays
the whole table saw (:class:`renderers.played.Played`): card counts only as far as §13
``counts_at`` shows them, nobody's hand. Pure: the same view and plays give the same lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import BIG, SMALL, TWO, rank_of
from engine.seats import opposite
from engine.view import SeatView
from engine.vocab import Phase, Status

from .i18n import Catalog, lang_or_default
from .played import Played
from .terms import card_text, clean_name, person, rank_name

DECKS = 4  # §1: four decks, each with one big and one small joker and four of every rank
ACE = rank_of("A")
KING = rank_of("K")
SHORT_NAME = 8  # characters of a name in the DM's table lines
TRICK_PLAYS = 3  # the latest plays of the trick shown
_IN_PLAY = (Phase.PLAY, Phase.FOUR_WAY)


def short_name(seat: int, names: Sequence[str], lang: str) -> str:
    """A name for the DM's table lines: at most :data:`SHORT_NAME` characters, escaped."""
    raw = clean_name(names[seat]) if 0 <= seat < len(names) else ""
    if not raw:
        return Catalog.load(lang).text("seat", n=seat + 1)
    return person(raw[: SHORT_NAME - 1] + "…" if len(raw) > SHORT_NAME else raw)


def still_out(view: SeatView, played: Played) -> dict[str, int]:
    """记牌器: big jokers, small jokers, 2s, aces and kings neither in the seat's own hand nor
    played so far (4 decks: 4, 4, 16, 16, 16). Cards that changed hands in 进贡, 还贡 or 买3 are
    still in some hand, so they count as out unless this seat holds them now; dead cards (闷,
    诈烧, 革命) were never shown, so they count as out too."""
    own = [0] * len(played.counts)
    for ch in view.hand or "":
        own[rank_of(ch)] += 1
    full = {BIG: DECKS, SMALL: DECKS, TWO: 4 * DECKS, ACE: 4 * DECKS, KING: 4 * DECKS}
    out = {r: n - own[r] - played.counts[r] for r, n in full.items()}
    return {
        "big": out[BIG],
        "small": out[SMALL],
        "two": out[TWO],
        "ace": out[ACE],
        "king": out[KING],
    }


def table_lines(
    view: SeatView, names: Sequence[str], lang: str, played: Played | None = None
) -> list[str]:
    """A few short lines of HTML about the table as ``view``'s seat sees it: the current trick,
    the others' card counts (as §13 ``counts_at`` allows) or ranks, who is burning (§7), who has
    opened (§9) and, with ``played``, the 记牌器 (what is still out of big and small jokers, 2s,
    aces and kings). Nothing else than ``view`` and ``played`` is read."""
    lang = lang_or_default(lang)
    cat = Catalog.load(lang)
    seen: set[str] = set()

    def line(key: str, **params: object) -> str:
        return cat.text(key, seen, **params)

    def who(seat: int) -> str:
        return line("dm.you") if seat == view.seat else short_name(seat, names, lang)

    out: list[str] = []
    trick = _trick(view, played)
    if view.seat is not None and view.to_act == view.seat:
        trick = trick[:-1]  # the question names the top itself
    if trick:
        steps = [line("dm.play", name=who(s), cards=card_text(c, lang)) for s, c in trick]
        more = line("dm.more") if len(trick) > TRICK_PLAYS else ""
        out.append(line("dm.trick", plays=more + line("dm.join").join(steps[-TRICK_PLAYS:])))
    if view.phase in (Phase.SETUP, *_IN_PLAY):
        out.append(_counts(view, names, lang, seen))
    if view.burning is not None and view.phase == Phase.PLAY:
        out.append(line("dm.burning", name=who(view.burning)))
    opened = [who(s) for s in range(6) if view.opened[s]]
    if view.rules.open_point and view.phase in _IN_PLAY and opened:
        out.append(line("dm.opened", names=line("dm.list").join(opened)))
    if played is not None and view.phase in _IN_PLAY:
        out.append(line("dm.tracker", **still_out(view, played)))
    return out


def _trick(view: SeatView, played: Played | None) -> list[tuple[int, str]]:
    """The plays of the trick in progress, ending with the view's top (only the top when the
    plays do not end with it)."""
    top = view.top
    if top is None:
        return []
    plays = played.current() if played is not None else []
    if not plays or plays[-1] != (top.seat, top.cards):
        return [(top.seat, top.cards)]
    return plays


def _counts(view: SeatView, names: Sequence[str], lang: str, seen: set[str]) -> str:
    """The others' cards from the 下家 on (every seat for the spectator): a count where §13
    ``counts_at`` shows it, a rank once out of play; the seats whose count is hidden together
    at the end (they hold more than ``counts_at``)."""
    cat = Catalog.load(lang)
    me = view.seat
    order = range(6) if me is None else [(me + k) % 6 for k in range(1, 6)]
    shown: list[str] = []
    hidden: list[str] = []
    for s in order:
        name = short_name(s, names, lang)
        if me is not None and s == opposite(me):
            name = cat.text("dm.opposite", seen, name=name)
        rank = view.ranks[s]
        n = view.counts[s]
        if view.status[s] != Status.ACTIVE:
            what = rank_name(rank, lang) if rank else cat.text(f"dm.status.{view.status[s]}")
        elif n is None:
            hidden.append(name)
            continue
        else:
            what = cat.text("dm.cards", seen, n=n)
        shown.append(cat.text("dm.seat", seen, name=name, what=what))
    told = view.rules.counts_at  # a hidden count is more than this (§13 counts_at)
    if hidden and not shown and told > 0:
        none = "dm.counts.none" if me is not None else "dm.counts.none.all"
        return cat.text(none, seen, n=told)
    if hidden:
        rest = "dm.hidden.rest" if told > 0 else "dm.hidden.rest.unknown"
        shown.append(cat.text(rest, seen, n=told, names=cat.text("dm.list").join(hidden)))
    return cat.text("dm.counts", seen, seats=cat.text("dm.sep").join(shown))

"""The post-game review (复盘) as the message players see: per 联邦 its costliest decisions,
each quoting the trick as the group's log wrote it (so it can be found there), what the
computer would have done, a short reason, what became of the player, and the cost in whole
points — a range (``−3～−6 分``) when the rollouts know it less closely than a point
(:func:`engine.ai.review_lines.points_range`) (Telegram HTML)::

    「老王 3个K」喆喆 没管：电脑会出 3个A，管上就能把牌权拿回来。
    后来 喆喆 被闷。（−4 分，胜率 −30%）

The win chance is shown only when it is large and stable (``TurningPoint.win_sure``); a near
tie (``TurningPoint.tied``: moves the rollouts cannot tell apart) is shown under a line saying
the computer cannot tell which of them costs more; a review whose budget ran out before its
ranking settled is titled a demo (``Review.settled``)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action
from engine.ai.review import Review, TurningPoint
from engine.ai.review_lines import points_range, win_percent
from engine.cards import BIG, SMALL, TWO, parse
from engine.vocab import Ask, Do

from .i18n import Catalog, fit_message
from .terms import card_text, rank_name, seat_name, team_names

MINUS = "\u2212"  # a typographic minus: −4 分


def review_text(review: Review, names: Sequence[str], lang: str = "zh") -> str:
    """The whole review: a title (a demo's when the review did not settle), then each 联邦
    named by its members with its turning points — the settled ones, then a near tie's under
    a line that says so — (or a line saying it made no clear mistake). ``names`` are the
    players' names by seat."""
    cat = Catalog.load(lang)
    seen: set[str] = set()  # English terms explained once per message
    lines = [cat.text("review.title" if review.settled else "review.title.demo", seen)]
    for side, points in enumerate(review.teams):
        lines.append(cat.text("review.team", seen, team=team_names(side, names, lang)))
        if not points:
            lines.append(cat.text("review.none", seen))
        settled = [tp for tp in points if not tp.tied]
        tied = [tp for tp in points if tp.tied]
        lines += [turning_point_text(tp, names, lang, seen) for tp in settled]
        if tied:
            lines.append(cat.text("review.tie" if len(tied) > 1 else "review.tie.one", seen))
            lines += [turning_point_text(tp, names, lang, seen) for tp in tied]
    return fit_message(lines, lang)


def turning_point_text(
    tp: TurningPoint, names: Sequence[str], lang: str = "zh", seen: set[str] | None = None
) -> str:
    """One turning point: the trick quoted, what the seat did, the computer's choice and its
    reason, what became of the seat, the cost (module doc)."""
    cat = Catalog.load(lang)
    seen = set() if seen is None else seen
    name = seat_name(tp.seat, names, lang)
    played = tp.played
    steps = []
    if tp.top_seat is not None and tp.top:
        steps.append(
            cat.text(
                "tr.play",
                seen,
                name=seat_name(tp.top_seat, names, lang),
                cards=card_text(tp.top, lang),
            )
        )
    if played.do == Do.PLAY:
        steps.append(cat.text("tr.play", seen, name=name, cards=card_text(played.cards, lang)))
    quote = cat.text("tr.join").join(steps)
    burn = tp.ask == Ask.BURN
    key = f"review.did.{_kind(played, burn)}"
    did = cat.text(key, seen, name=name) if key in cat else ""
    key = f"review.do.{_kind(tp.suggested, burn)}"
    cards = card_text(tp.suggested.cards, lang) if tp.suggested.cards else ""
    suggest = cat.text(key, seen, cards=cards)
    return cat.text(
        "review.line",
        seen,
        quote=quote,
        did=did,
        suggest=suggest,
        reason=cat.text(f"review.why.{reason_key(tp)}", seen),
        fate=_fate(tp, name, lang, cat, seen),
        cost=cost_text(tp.points, tp.win if tp.win_sure else 0.0, lang, tp.points_se),
    )


def _kind(act: Action, burn: bool) -> str:
    if act.do == Do.PLAY:
        return "burn" if burn else "play"
    if act.do == Do.YIELD:
        return "yield"
    return "no_burn" if burn else "pass"


def _control(act: Action) -> int:
    """The 2s and jokers an action spends."""
    if not act.cards:
        return 0
    counts = parse(act.cards)
    return counts[TWO] + counts[SMALL] + counts[BIG]


def reason_key(tp: TurningPoint) -> str:
    """Why the computer's choice is better, in a few words (a catalog key's last part), from
    what was asked and the two actions."""
    played, better = tp.played, tp.suggested
    partner = tp.top_seat is not None and (tp.top_seat - tp.seat) % 2 == 0
    if partner and better.do == Do.PLAY and tp.ask != Ask.LEAD:
        return "take_over"  # §7 allows burning (and beating) a 联邦's play
    if tp.ask == Ask.BURN:
        return "burn_not" if played.do == Do.PLAY else "burn_yes"
    if tp.ask == Ask.LEAD:
        if _control(better) > _control(played):
            return "lead_strong"
        if _control(better) < _control(played):
            return "lead_keep"
        return "lead_other"
    if better.do == Do.YIELD:
        return "yield"
    if played.do == Do.YIELD:
        return "no_yield"
    if played.do != Do.PLAY:
        return "beat"
    if better.do != Do.PLAY:
        return "pass_keep" if _control(played) else "pass"
    if _control(better) < _control(played):
        return "cheaper"
    if _control(better) > _control(played):
        return "stronger"
    return "other_beat"


def _fate(tp: TurningPoint, name: str, lang: str, cat: Catalog, seen: set[str]) -> str:
    """What became of the seat in the game after the decision."""
    if tp.outcome in ("burned", "smothered", "burn_fail"):
        return cat.text(f"review.fate.{tp.outcome}", seen, name=name)
    if 1 <= tp.rank <= 6:
        return cat.text("review.fate.out", seen, name=name, rank=rank_name(tp.rank, lang))
    return ""


def cost_text(points: float, win: float, lang: str = "zh", se: float = 0.0) -> str:
    """What a decision cost, in whole points: ``−4 分``, or ``−3～−5 分`` when its rollouts
    put it only that closely (``se``: the cost's standard error,
    :func:`engine.ai.review_lines.points_range`); and
    ``，胜率 −30%`` when the win chance lost is given (:func:`~engine.ai.review_lines.win_percent`;
    left out below one step)."""
    cat = Catalog.load(lang)
    low, high = points_range(points, se)
    shown = f"{MINUS}{low}"
    if high > low:
        shown = cat.text("review.range", low=shown, high=f"{MINUS}{high}")
    pct = win_percent(win)
    if pct <= 0:
        return cat.text("review.cost.points", points=shown)
    return cat.text("review.cost", points=shown, win=f"{MINUS}{pct}%")

"""The post-game review (复盘) as the message players see: per 联邦 its costliest decisions,
each with the trick, who, what they did, what the AI suggests and what it cost, e.g.
``第12轮 小美 出了 3个K，AI 建议 过（−2.5 分，胜率 −23%）`` (Telegram HTML)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action
from engine.ai.review import Review, TurningPoint
from engine.vocab import Ask, Do

from .i18n import Catalog, fit_message, t
from .terms import card_text, seat_name, team_names

MINUS = "\u2212"  # a typographic minus: −23%


def review_text(review: Review, names: Sequence[str], lang: str = "zh") -> str:
    """The whole review: a title, then each 联邦 named by its members with its turning points
    (or a line saying it made no clear mistake). ``names`` are the players' names by seat."""
    cat = Catalog.load(lang)
    seen: set[str] = set()  # English terms explained once per message
    lines = [cat.text("review.title", seen)]
    for side, points in enumerate(review.teams):
        lines.append(cat.text("review.team", seen, team=team_names(side, names, lang)))
        if not points:
            lines.append(cat.text("review.none", seen))
        lines += [turning_point_text(tp, names, lang, seen) for tp in points]
    return fit_message(lines, lang)


def turning_point_text(
    tp: TurningPoint, names: Sequence[str], lang: str = "zh", seen: set[str] | None = None
) -> str:
    """One turning point: ``第12轮 小美 出了 3个K，AI 建议 过（−2.5 分，胜率 −23%）``."""
    cat = Catalog.load(lang)
    seen = set() if seen is None else seen
    burn = tp.ask == Ask.BURN
    key, params = _key("review.did", tp.played, burn, lang)
    did = cat.text(key, seen, **params)
    key, params = _key("review.do", tp.suggested, burn, lang)
    suggest = cat.text(key, seen, **params)
    return cat.text(
        "review.line",
        seen,
        trick=tp.trick,
        name=seat_name(tp.seat, names, lang),
        did=did,
        suggest=suggest,
        cost=cost_text(tp.points, tp.win, lang),
    )


def _key(prefix: str, act: Action, burn: bool, lang: str) -> tuple[str, dict[str, str]]:
    """The catalog key of an action (a play, a pass, 让牌; for a burn claim 烧 or not) and its
    cards in words."""
    if act.do == Do.PLAY:
        return f"{prefix}.{'burn' if burn else 'play'}", {"cards": _cards(act.cards, lang)}
    if act.do == Do.YIELD:
        return f"{prefix}.yield", {}
    return f"{prefix}.{'no_burn' if burn else 'pass'}", {}


def _cards(notation: str, lang: str) -> str:
    """A play in words; one card with its article in English (``an ace``, zh ``A``)."""
    if len(notation) == 1:
        return t(lang, f"card.a.{notation}")
    return card_text(notation, lang)


def cost_text(points: float, win: float, lang: str = "zh") -> str:
    """What a decision cost: ``−2.5 分，胜率 −23%``; the win chance is left out unless the
    suggestion raised it (by a whole percent at least: a cost in points may come with none)."""
    cat = Catalog.load(lang)
    shown = f"{MINUS}{points:.1f}" if round(points, 1) > 0 else f"{-points:+.1f}"
    pct = round(100 * win)
    if pct <= 0:
        return cat.text("review.cost.points", points=shown)
    return cat.text("review.cost", points=shown, win=f"{MINUS}{pct}%")

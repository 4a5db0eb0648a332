"""Short captions for the ``/stats`` and ``/top`` pictures and the line announcing a badge
(Telegram HTML; names escaped here, through :func:`renderers.terms.person`)."""

from __future__ import annotations

from engine.stats import MIN_GAMES, Badge, PlayerStats

from .i18n import t
from .stats_image import percent, signed
from .terms import person


def stats_caption(name: str, stats: PlayerStats, lang: str = "zh") -> str:
    """One line under a player's card: games, win rate, points, 头科."""
    who = person(name)
    if not stats.games:
        return t(lang, "stats.caption.none", name=who)
    return t(
        lang,
        "stats.caption",
        name=who,
        games=stats.games,
        win_rate=percent(stats.win_rate),
        points=signed(stats.points),
        touke=stats.touke,
    )


def top_caption(
    lang: str = "zh", min_games: int = MIN_GAMES, empty: bool = False, tonight: int = 0
) -> str:
    """One line under the leaderboard; ``tonight``: the number of tonight's games it shows
    instead, while nobody has ``min_games``."""
    if tonight:
        return t(lang, "stats.top.caption.tonight", n=min_games, games=tonight)
    return t(lang, "stats.top.caption.none" if empty else "stats.top.caption", n=min_games)


def badge_name(badge: Badge | str, lang: str = "zh") -> str:
    return t(lang, f"img.badge.{badge}")


def badge_text(name: str, badge: Badge | str, lang: str = "zh") -> str:
    """The group's line when a player earns a badge: its name and what it is for."""
    return t(
        lang,
        "stats.earned",
        name=person(name),
        badge=badge_name(badge, lang),
        desc=t(lang, f"stats.badge.{badge}"),
    )

"""Inline keyboards, as plain data (rows of :class:`Button`): the lobby, a player's hand (the
play's keyboard is :mod:`bot.handkeys`), the deal phase's questions, the game over. Pure
functions of what the engine offers, so only legal moves are ever shown; the sender turns them
into Telegram markup."""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action
from engine.cards import NRANKS, RANK_CHARS, Counts, fmt
from engine.legal import Legal
from engine.rules import PRESETS
from engine.vocab import Ask, Do
from renderers import button_text, card_text, t
from renderers.terms import held_label

from .buttons import Callback, HandOp, Kind, LobbyOp, Op, OverOp, VoteOp
from .handkeys import (
    EMPTY_SELECTION,
    NOTHING_SPECIAL,
    Button,
    Keyboard,
    Situation,
    auto_row,
    hand_keyboard,
    smallest_first,
)
from .model import AiLevel, Seat

PER_ROW = 5  # rank buttons of a 还贡 in a row

__all__ = [
    "EMPTY_SELECTION",
    "Button",
    "Keyboard",
    "Situation",
    "hand_keyboard",
    "smallest_first",
]


def _b(text: str, kind: Kind, table: int, version: int, op: Op, arg: str | int = "") -> Button:
    return Button(text, Callback(kind, table, version, op, str(arg)).encode())


def rank_label(rank: int, held: int, chosen: int, lang: str) -> str:
    """A 还贡 rank button: what the hand holds (``K·5张``, as a lead's), or how many of them
    are chosen (``✅K 1/5``)."""
    if chosen:
        return f"✅{card_text(RANK_CHARS[rank], lang)} {chosen}/{held}"
    return held_label(RANK_CHARS[rank], held, lang)


def _rank_rows(
    table: int,
    version: int,
    ranks: Sequence[int],
    hand: Counts,
    selection: Counts,
    op: HandOp,
    lang: str,
) -> Keyboard:
    """Rank buttons, :data:`PER_ROW` a row (``op`` RETURN_RANK: cards for 还贡)."""
    return [
        [
            _b(
                rank_label(r, hand[r], selection[r], lang),
                Kind.HAND,
                table,
                version,
                op,
                RANK_CHARS[r],
            )
            for r in ranks[i : i + PER_ROW]
        ]
        for i in range(0, len(ranks), PER_ROW)
    ]


# -- keyboards --------------------------------------------------------------------------------
_OPTION_LABEL = {
    Do.REVOLT: "revolt",
    Do.NO_REVOLT: "no_revolt",
    Do.YAOTOU: "yaotou",
    Do.WUTOU: "wutou",
    Do.DECLARE: "declare",
    Do.NO_DECLARE: "no_declare",
}


def deal_keyboard(
    table: int,
    version: int,
    legal: Legal,
    hand: Counts,
    selection: Counts,
    returnable: Counts,
    lang: str,
) -> Keyboard:
    """The deal phase's questions (§5): one button per answer; for 还贡 (§11) the cards are
    chosen rank by rank among those allowed, then sent."""
    if legal.ask != Ask.RETURN:
        return [
            [
                _b(
                    button_text(_OPTION_LABEL[o.do], lang),
                    Kind.HAND,
                    table,
                    version,
                    HandOp.OPTION,
                    k,
                )
                for k, o in enumerate(legal.options)
            ]
        ]
    rows: Keyboard = []
    ranks = [r for r in range(NRANKS - 1, -1, -1) if returnable[r]]
    rows.extend(_rank_rows(table, version, ranks, hand, selection, HandOp.RETURN_RANK, lang))
    picks = {o.cards for o in legal.options}
    act: list[Button] = []
    if any(selection):
        act.append(_b(button_text("clear", lang), Kind.HAND, table, version, HandOp.CLEAR))
    chosen = fmt(selection)
    if chosen in picks:
        label = t(lang, "bot.btn.return_cards", cards=card_text(chosen, lang))
        act.append(_b(label, Kind.HAND, table, version, HandOp.PLAY))
    act.append(_b(button_text("hint", lang), Kind.HAND, table, version, HandOp.HINT))
    rows.append(act)
    return rows


def option_for(legal: Legal, selection: Counts) -> Action | None:
    """The 还贡 option matching the chosen cards, if any."""
    chosen = fmt(selection)
    return next((o for o in legal.options if o.cards == chosen), None)


def waiting_keyboard(
    table: int, auto: bool, lang: str, sit: Situation = NOTHING_SPECIAL
) -> Keyboard:
    """A player's hand message while others act: only 托管 on or off (with its confirmation),
    the same at every version of the match (bot.handkeys.ANY_VERSION)."""
    return [auto_row(table, auto, sit.auto_asked, lang)]


def lobby_keyboard(
    table: int,
    version: int,
    seats: Sequence[Seat | None],
    preset: str,
    ai_level: AiLevel,
    countdown: bool,
    lang: str,
) -> Keyboard:
    """Take a seat (two rows: the two 联邦), leave, rules and AI options, start."""
    rows: Keyboard = []
    for side in (0, 1):
        row = []
        for s in (side, side + 2, side + 4):
            seat = seats[s]
            label = t(lang, "bot.btn.sit", n=s + 1) if seat is None else f"{s + 1}·{seat.name[:8]}"
            row.append(_b(label, Kind.LOBBY, table, version, LobbyOp.SIT, s))
        rows.append(row)
    rows.append(
        [
            _b(t(lang, "bot.btn.sit_any"), Kind.LOBBY, table, version, LobbyOp.SIT_ANY),
            _b(t(lang, "bot.btn.leave"), Kind.LOBBY, table, version, LobbyOp.LEAVE),
        ]
    )
    names = list(PRESETS)
    rows.append(
        [
            _b(
                t(lang, "bot.btn.preset", preset=t(lang, f"bot.preset.{preset}")),
                Kind.LOBBY,
                table,
                version,
                LobbyOp.PRESET,
            ),
            _b(t(lang, "bot.btn.rules"), Kind.LOBBY, table, version, LobbyOp.RULES),
        ]
    )
    assert preset in names
    rows.append(
        [
            _b(
                t(lang, "bot.btn.ai_level", level=t(lang, f"bot.level.{ai_level}")),
                Kind.LOBBY,
                table,
                version,
                LobbyOp.LEVEL,
            ),
            _b(t(lang, "bot.btn.fill_ai"), Kind.LOBBY, table, version, LobbyOp.FILL),
        ]
    )
    last = [_b(t(lang, "bot.btn.start"), Kind.LOBBY, table, version, LobbyOp.GO)]
    if not countdown:
        last.append(_b(t(lang, "bot.btn.countdown"), Kind.LOBBY, table, version, LobbyOp.COUNTDOWN))
    rows.append(last)
    return rows


def over_keyboard(table: int, version: int, lang: str) -> Keyboard:
    return [[_b(t(lang, "bot.btn.again"), Kind.OVER, table, version, OverOp.AGAIN)]]


def afk_keyboard(table: int, version: int, seat: int, votes: int, need: int, lang: str) -> Keyboard:
    """The AFK notice's buttons: vote to leave ``seat`` to the AI, or take it over."""
    return [
        [
            _b(
                t(lang, "bot.btn.vote_ai", n=votes, need=need),
                Kind.VOTE,
                table,
                version,
                VoteOp.AI,
                seat,
            ),
            _b(t(lang, "bot.btn.take_over"), Kind.VOTE, table, version, VoteOp.TAKE, seat),
        ]
    ]

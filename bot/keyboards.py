"""Inline keyboards, as plain data (rows of :class:`Button`): the lobby, a player's hand, the
deal phase's questions, the game over. Pure functions of what the engine offers, so only legal
moves are ever shown; the sender turns them into Telegram markup."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import Action
from engine.cards import BIG, NRANKS, RANK_CHARS, SMALL, TWO, Counts, fmt
from engine.legal import Legal
from engine.plays import Play
from engine.rules import PRESETS
from engine.vocab import Ask, Do
from renderers import button_text, card_text, t

from .buttons import Callback, HandOp, Kind, LobbyOp, Op, OverOp, VoteOp
from .model import AiLevel, Seat

QUICK = 6  # one-tap answers offered, smallest first
PER_ROW = 5  # rank buttons in a row
EXTRAS = (TWO, SMALL, BIG)
EMPTY_SELECTION: Counts = (0,) * NRANKS  # cards that join a play of another rank (贴钱, 挂花, §3)


@dataclass(frozen=True)
class Button:
    text: str
    data: str | None = None  # callback data
    url: str | None = None  # a link (deep link to the bot's DM)


Keyboard = list[list[Button]]


def _b(text: str, kind: Kind, table: int, version: int, op: Op, arg: str | int = "") -> Button:
    return Button(text, Callback(kind, table, version, op, str(arg)).encode())


# -- the selection of cards to play -----------------------------------------------------------
def toggle(selection: Counts, hand: Counts, rank: int) -> Counts:
    """A tap on ``rank``'s button. A plain rank: the first tap takes the whole group, each
    further tap one card fewer, down to none; choosing another plain rank replaces it (a play
    has one body rank, §3). A 2 or a joker: each tap adds one, past the last back to none."""
    sel = list(selection)
    if rank in EXTRAS:
        sel[rank] = (sel[rank] + 1) % (hand[rank] + 1)
        return tuple(sel)
    for r in range(TWO):
        if r != rank:
            sel[r] = 0
    sel[rank] = hand[rank] if sel[rank] == 0 else sel[rank] - 1
    return tuple(sel)


def usable_ranks(legal: Legal) -> list[int]:
    """Ranks that take part in some legal play, strongest first (what the rank buttons offer)."""
    used = [False] * NRANKS
    for p in legal.plays:
        for r, n in enumerate(p.counts):
            if n:
                used[r] = True
    return [r for r in range(NRANKS - 1, -1, -1) if used[r]]


def smallest_first(plays: Sequence[Play]) -> list[Play]:
    """Answers ordered as a player would spend them: lowest body, fewest 2s and jokers."""

    def key(p: Play) -> tuple[int, int, int, int]:
        sh = p.shape
        return (p.counts[BIG] + p.counts[SMALL], p.counts[TWO], sh.base, sh.small)

    return sorted(plays, key=key)


def rank_label(rank: int, held: int, chosen: int, lang: str) -> str:
    name = card_text(RANK_CHARS[rank], lang)
    if chosen:
        return f"✅{name} {chosen}/{held}"
    return f"{name}×{held}"


def _rank_rows(
    table: int,
    version: int,
    ranks: Sequence[int],
    hand: Counts,
    selection: Counts,
    op: HandOp,
    lang: str,
) -> Keyboard:
    """Rank buttons, :data:`PER_ROW` a row; ``op`` RANK (a play's cards) or RETURN_RANK."""
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
def hand_keyboard(
    table: int,
    version: int,
    legal: Legal,
    hand: Counts,
    selection: Counts,
    selection_ok: bool,
    auto: bool,
    lang: str,
) -> Keyboard:
    """The asked player's keyboard in the play: rank buttons, one-tap answers, 出牌 with what
    would be played, 过 / 不烧, 让牌, 提示, 托管."""
    rows: Keyboard = []
    if legal.ask in (Ask.ANSWER, Ask.BURN, Ask.LAST) and legal.plays:
        quick = smallest_first(legal.plays)[:QUICK]
        row: list[Button] = []
        for k, p in enumerate(quick):
            row.append(
                _b("▶ " + card_text(str(p), lang), Kind.HAND, table, version, HandOp.QUICK, k)
            )
            if len(row) == 3:
                rows.append(row)
                row = []
        if row:
            rows.append(row)
    ranks = usable_ranks(legal)
    rows.extend(_rank_rows(table, version, ranks, hand, selection, HandOp.RANK, lang))
    act: list[Button] = []
    if any(selection):
        act.append(_b(button_text("clear", lang), Kind.HAND, table, version, HandOp.CLEAR))
    if selection_ok:
        label = t(lang, "bot.btn.play_cards", cards=card_text(fmt(selection), lang))
        act.append(_b(label, Kind.HAND, table, version, HandOp.PLAY))
    if act:
        rows.append(act)
    last: list[Button] = []
    if legal.can_pass:
        key = "no_burn" if legal.ask == Ask.BURN else "pass"
        last.append(_b(button_text(key, lang), Kind.HAND, table, version, HandOp.PASS))
    if legal.can_yield:
        last.append(_b(button_text("yield", lang), Kind.HAND, table, version, HandOp.YIELD))
    last.append(_b(button_text("hint", lang), Kind.HAND, table, version, HandOp.HINT))
    last.append(_auto_button(table, version, auto, lang))
    rows.append(last)
    return rows


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


def waiting_keyboard(table: int, version: int, auto: bool, lang: str) -> Keyboard:
    """A player's hand message while others act: only 托管 on or off."""
    return [[_auto_button(table, version, auto, lang)]]


def _auto_button(table: int, version: int, auto: bool, lang: str) -> Button:
    label = t(lang, "bot.btn.auto_off" if auto else "bot.btn.auto")
    return _b(label, Kind.HAND, table, version, HandOp.AUTO)


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

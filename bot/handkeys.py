"""The asked player's keyboard in the play, as a small machine: what each tap chooses, which
buttons are offered for the cards chosen so far, and their labels (docs/rules.md §3, §6, §7).

Leading (any legal lead may be made): a rank tap chooses the whole rank (again: none of it),
``n张`` buttons set how many of that rank, ``+2`` ``+2×2`` ``+大王`` … set the 2s and jokers
riding along (贴钱, 挂花). Answering a top (every beating play is known): the one-tap answers
play the smallest answer of each rank at once; a rank tap chooses that rank's smallest answer
with as many cards as the top needs (2s, then jokers filling in, §3), a second tap the next way
of making it; ``+2`` ``+大王`` … use that many 2s or jokers in it. Every legal play stays
reachable (tests/test_handkeys.py proves it on seeded positions).

Burns are named as §7 names them: a claim on a 够级 top is 烧, on a burn play 反烧; the burner's
对头 (or a 无头 player) beating a burn play is 解烧. A burn that cannot meet its duty (§7,
``Game.burn_feasible``) is marked and asks a second tap before it is played.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.cards import BIG, NRANKS, RANK_CHARS, SMALL, THREE, TWO, Counts, fmt, minus, parse
from engine.legal import Legal, duty_leads
from engine.match import Match
from engine.plays import Play, as_play
from engine.vocab import Ask
from renderers import button_text, t

from .buttons import Callback, HandOp, Kind

QUICK = 6  # one-tap answers offered, one per rank, cheapest first
EXTRAS = (TWO, SMALL, BIG)  # cards that join a play of another rank (贴钱, 挂花, §3)
EMPTY_SELECTION: Counts = (0,) * NRANKS
ANSWERS = (Ask.ANSWER, Ask.BURN, Ask.LAST)  # asks answered by beating the top
ROW_UNITS = 33  # a 390 px phone row: about three buttons of eleven narrow characters
AUTO = "auto"  # what a pending 托管 confirmation waits for

Move = tuple[HandOp, str]  # a building button: its op and argument, as in its callback data


@dataclass(frozen=True)
class Pending:
    """A tap waiting for its confirmation: 托管 (:data:`AUTO`, any version) or a burn's cards
    at the match version it was tapped at."""

    version: int
    what: str


@dataclass(frozen=True)
class Situation:
    """What the keyboard needs beyond the legal plays: how beating the top is called (``burn``:
    "burn" 烧, "counter" 反烧, "break" 解烧, or ""), the burns that cannot meet their duty, and
    a pending confirmation ("", :data:`AUTO` or a burn's cards)."""

    burn: str = ""
    risky: frozenset[str] = frozenset()
    pending: str = ""


NOTHING_SPECIAL = Situation()  # an ordinary answer or lead, nothing waiting for a confirmation


def situation(match: Match, seat: int, pending: Pending | None = None) -> Situation:
    """The :class:`Situation` of ``seat`` now (§7: the Legal ask and the top's burn flag tell
    烧 from 反烧 and 解烧; ``Game.burn_feasible`` tells a burn that will fail)."""
    game = match.game
    legal = match.choices(seat)
    burn = ""
    risky: frozenset[str] = frozenset()
    top_burn = game is not None and game.top is not None and game.top.burn
    if game is not None and legal.ask == Ask.BURN:
        burn = "counter" if top_burn else "burn"
        risky = frozenset(str(p) for p in legal.plays if game.burn_feasible(seat, str(p)) is False)
    elif legal.ask in ANSWERS and top_burn:
        burn = "break"
    what = ""
    if pending is not None and (pending.what == AUTO or pending.version == match.version):
        what = pending.what
    return Situation(burn, risky, what)


def duty_shortfall(hand: Counts, cards: str, bie3: bool) -> tuple[int, int]:
    """(joker leads the burn would still need, jokers left) after burning with ``cards`` (§7:
    every lead but the last carries a joker)."""
    after = minus(hand, parse(cards))
    bound = bie3 and after[THREE] > 0
    return duty_leads(after, bound), after[SMALL] + after[BIG]


# -- the groups of answers ----------------------------------------------------------------------
def body_of(counts: Sequence[int]) -> int:
    """The rank a play is made of (its group): the plain rank, else 2 (only 2s besides jokers),
    else its strongest joker (joker-only plays)."""
    for r in range(TWO):
        if counts[r]:
            return r
    return TWO if counts[TWO] else BIG if counts[BIG] else SMALL


def spend_key(p: Play) -> tuple[int, int, int, int]:
    """How much a play spends: jokers, then 2s, then the body's rank, then big jokers."""
    return (p.counts[BIG] + p.counts[SMALL], p.counts[TWO], p.shape.base, p.counts[BIG])


def smallest_first(plays: Iterable[Play]) -> list[Play]:
    """Answers ordered as a player would spend them: lowest body, fewest 2s and jokers."""
    return sorted(plays, key=spend_key)


def answer_groups(plays: Iterable[Play]) -> dict[int, list[Play]]:
    """Beating plays by the rank they are made of, strongest group first, each cheapest first."""
    out: dict[int, list[Play]] = {}
    for p in smallest_first(plays):
        out.setdefault(body_of(p.counts), []).append(p)
    return dict(sorted(out.items(), reverse=True))


def quick_answers(legal: Legal) -> list[Play]:
    """The one-tap answers: the cheapest answer of each rank, cheapest first (none for a lead)."""
    if legal.ask not in ANSWERS:
        return []
    firsts = [g[0] for g in answer_groups(legal.plays).values()]
    return smallest_first(firsts)[:QUICK]


# -- taps -------------------------------------------------------------------------------------
def _extra_arg(rank: int, n: int) -> str:
    return f"{RANK_CHARS[rank]}{n}"


def moves(legal: Legal, hand: Counts, selection: Counts) -> list[Move]:
    """The building buttons offered for ``selection``: rank taps, counts, 2s and jokers."""
    out: list[Move] = []
    if legal.any_lead:
        ranks = sorted({body_of(p.counts) for p in legal.plays if body_of(p.counts) < TWO})
        out.extend((HandOp.RANK, RANK_CHARS[r]) for r in reversed(ranks))
        body = body_of(selection)
        if body < TWO and hand[body] > 1:
            out.extend((HandOp.COUNT, str(n)) for n in range(1, hand[body] + 1))
        for x in EXTRAS:
            out.extend((HandOp.EXTRA, _extra_arg(x, n)) for n in range(1, hand[x] + 1))
        return out
    groups = answer_groups(legal.plays)
    out.extend((HandOp.RANK, RANK_CHARS[g]) for g in groups)
    chosen = as_play(selection)
    if chosen is not None and chosen in legal.plays:
        group = groups[body_of(selection)]
        for x in EXTRAS:
            counts = sorted({p.counts[x] for p in group} - {0})
            out.extend((HandOp.EXTRA, _extra_arg(x, n)) for n in counts)
    return out


def tap(legal: Legal, hand: Counts, selection: Counts, op: HandOp, arg: str) -> Counts:
    """The cards chosen after a building button (one of :func:`moves`, or 清空)."""
    if op == HandOp.CLEAR:
        return EMPTY_SELECTION
    sel = list(selection)
    if legal.any_lead:
        match op:
            case HandOp.RANK:
                rank = RANK_CHARS.index(arg)
                taken = sel[rank] > 0
                for r in range(TWO):
                    sel[r] = 0
                sel[rank] = 0 if taken else hand[rank]
            case HandOp.COUNT:
                sel[body_of(sel)] = int(arg)
            case HandOp.EXTRA:
                x, n = RANK_CHARS.index(arg[0]), int(arg[1:])
                sel[x] = 0 if sel[x] == n else n
        return tuple(sel)
    groups = answer_groups(legal.plays)
    chosen = as_play(selection)
    current = chosen if chosen is not None and chosen in legal.plays else None
    match op:
        case HandOp.RANK:
            group = groups[RANK_CHARS.index(arg)]
            if current is None or current not in group:
                return group[0].counts
            return group[(group.index(current) + 1) % len(group)].counts
        case HandOp.EXTRA if current is not None:
            x, n = RANK_CHARS.index(arg[0]), int(arg[1:])
            want = 0 if selection[x] == n else n
            group = groups[body_of(selection)]
            fits = [p for p in group if p.counts[x] == want]
            if fits:
                # the cheapest way of making it that adds no other 2 or joker (they make way)
                def change(p: Play) -> tuple[int, tuple[int, int, int, int]]:
                    added = sum(max(0, p.counts[e] - selection[e]) for e in EXTRAS if e != x)
                    return added, spend_key(p)

                return min(fits, key=change).counts
    return selection


# -- labels -----------------------------------------------------------------------------------
def short_cards(notation: str, lang: str) -> str:
    """A play in the buttons' compact notation: ``K×3+2×2+BJ`` (``大王`` in Chinese)."""
    counts = parse(notation)
    order = [r for r in range(TWO - 1, -1, -1) if counts[r]] + [TWO, BIG, SMALL]
    parts = []
    for r in order:
        n = counts[r]
        if n:
            name = t(lang, f"taps.card.{RANK_CHARS[r]}")
            parts.append(name if n == 1 else f"{name}×{n}")
    return "+".join(parts)


def width(text: str) -> int:
    """Display width on a phone: wide (CJK) characters and emoji count two."""
    units = 0
    for ch in text:
        if unicodedata.combining(ch) or ch in "\ufe0f\u200d":
            continue
        wide = unicodedata.east_asian_width(ch) in "WF" or ord(ch) >= 0x1F000
        units += 2 if wide else 1
    return units


def _play_label(cards: str, sit: Situation, lang: str, quick: bool) -> str:
    shown = short_cards(cards, lang)
    if sit.burn:
        kind = "risky" if cards in sit.risky else "play"
        return t(lang, f"taps.{sit.burn}.{kind}", cards=shown)
    return t(lang, "taps.quick" if quick else "bot.btn.play_cards", cards=shown)


def move_label(move: Move, legal: Legal, hand: Counts, selection: Counts, lang: str) -> str:
    op, arg = move
    if op == HandOp.COUNT:
        n = int(arg)
        label = t(lang, "taps.count", n=n)
        return "✅" + label if selection[body_of(selection)] == n else label
    if op == HandOp.EXTRA:
        x, n = RANK_CHARS.index(arg[0]), int(arg[1:])
        label = "+" + short_cards(RANK_CHARS[x] * n, lang)
        return "✅" + label if selection[x] == n else label
    rank = RANK_CHARS.index(arg)
    name = t(lang, f"taps.card.{arg}")
    if legal.any_lead:
        return f"✅{name}" if selection[rank] else f"{name}×{hand[rank]}"
    chosen = as_play(selection)
    if chosen is not None and chosen in legal.plays and body_of(selection) == rank:
        group = answer_groups(legal.plays)[rank]
        return ("🔄" if len(group) > 1 else "✅") + name
    return name


# -- the keyboard -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Button:
    text: str
    data: str | None = None  # callback data
    url: str | None = None  # a link (deep link to the bot's DM)


Keyboard = list[list[Button]]


def hand_button(text: str, table: int, version: int, op: HandOp, arg: str | int = "") -> Button:
    return Button(text, Callback(Kind.HAND, table, version, op, str(arg)).encode())


def pack(buttons: Sequence[Button], most: int) -> Keyboard:
    """Buttons in rows of at most ``most``, each row as wide as a phone shows it whole (every
    button gets an equal share of :data:`ROW_UNITS`, with room for its padding)."""
    rows: Keyboard = []
    row: list[Button] = []
    for b in buttons:
        grown = [*row, b]
        widest = max(width(x.text) for x in grown)
        if row and (len(grown) > most or (widest + 1) * len(grown) > ROW_UNITS):
            rows.append(row)
            grown = [b]
        row = grown
    if row:
        rows.append(row)
    return rows


def auto_row(table: int, version: int, auto: bool, pending: str, lang: str) -> list[Button]:
    """托管, alone in its row: on only after 确认托管 (a mis-tap is cancelled), off at once."""
    if auto:
        return [hand_button(t(lang, "bot.btn.auto_off"), table, version, HandOp.AUTO)]
    if pending == AUTO:
        return [
            hand_button(t(lang, "taps.auto.yes"), table, version, HandOp.AUTO_YES),
            hand_button(t(lang, "taps.cancel"), table, version, HandOp.CANCEL),
        ]
    return [hand_button(t(lang, "bot.btn.auto"), table, version, HandOp.AUTO)]


def hand_keyboard(
    table: int,
    version: int,
    legal: Legal,
    hand: Counts,
    selection: Counts,
    selection_ok: bool,
    auto: bool,
    lang: str,
    sit: Situation = NOTHING_SPECIAL,
) -> Keyboard:
    """The asked player's keyboard: one-tap answers, rank buttons and their counts, 2s and
    jokers, 清空 and 出 (saying what it plays), 过 / 不烧, 让牌, 提示; 托管 in its own row."""
    rows: Keyboard = []
    b = hand_button
    if sit.pending and sit.pending != AUTO:  # a burn that will fail, tapped once (§7)
        cards = sit.pending
        confirm = t(lang, f"taps.{sit.burn or 'burn'}.confirm", cards=short_cards(cards, lang))
        rows.append([b(confirm, table, version, HandOp.CONFIRM)])
        rows.append([b(t(lang, "taps.cancel"), table, version, HandOp.CANCEL)])
        rows.append(auto_row(table, version, auto, "", lang))
        return rows
    quick = [
        b(_play_label(str(p), sit, lang, quick=True), table, version, HandOp.QUICK, k)
        for k, p in enumerate(quick_answers(legal))
    ]
    rows.extend(pack(quick, 3))
    building = moves(legal, hand, selection)
    for op, most in ((HandOp.RANK, 6), (HandOp.COUNT, 6), (HandOp.EXTRA, 4)):
        row = [
            b(move_label(m, legal, hand, selection, lang), table, version, op, m[1])
            for m in building
            if m[0] == op
        ]
        rows.extend(pack(row, most))
    act: list[Button] = []
    if any(selection):
        act.append(b(button_text("clear", lang), table, version, HandOp.CLEAR))
    if selection_ok:
        label = _play_label(fmt(selection), sit, lang, quick=False)
        act.append(b(label, table, version, HandOp.PLAY))
    rows.extend(pack(act, 2))
    last: list[Button] = []
    if legal.can_pass:
        key = "no_burn" if legal.ask == Ask.BURN else "pass"
        last.append(b(button_text(key, lang), table, version, HandOp.PASS))
    if legal.can_yield:
        last.append(b(button_text("yield", lang), table, version, HandOp.YIELD))
    last.append(b(button_text("hint", lang), table, version, HandOp.HINT))
    rows.append(last)
    rows.append(auto_row(table, version, auto, sit.pending, lang))
    return rows

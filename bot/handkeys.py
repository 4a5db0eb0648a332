"""The asked player's keyboard in the play, as a small machine: what each tap chooses, which
buttons are offered for the cards chosen so far, and their labels (docs/rules.md §3, §6, §7).

Leading (any legal lead may be made): a rank tap (``K·5张``: what the hand holds) chooses the
whole rank (again: none of it), ``n张`` buttons set how many of that rank, ``+2`` ``+2个2``
``+大王`` … set the 2s and jokers riding along (贴钱, 挂花); as the hand ends, ``▶ 2个2``
``▶ 大王`` lead 2s or jokers alone. Answering a top (every beating play is known): the one-tap
answers play the smallest answer of each rank; a rank tap chooses that rank's smallest answer
with as many cards as the top needs (2s, then jokers filling in, §3), a second tap the next way
of making it; ``+2`` ``+大王`` … use that many 2s or jokers in it. A rank whose only answer is
already a one-tap answer has no rank button (no two buttons play the same cards). Every legal
play stays reachable (tests/test_handkeys.py proves it on seeded positions).

Burns are named as §7 names them: a claim on a 够级 top is 烧, on a burn play 反烧; the burner's
对头 (or a 无头 player) beating a burn play is 解烧. A burn that cannot meet its duty (§7,
``Game.burn_feasible``) is marked and asks a second tap before it is played.

One tap never costs a hand: a ▶ play that spends 2s or jokers, or splits a 够级 the hand holds
(§4), turns the keyboard into its confirmation (✖ 取消 on top, where the finger was, then
``⚠️ 确认出 …``), bound to the turn it was tapped in (:class:`Pending`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from engine.actions import Action, IllegalAction
from engine.cards import BIG, NRANKS, RANK_CHARS, SMALL, THREE, TWO, Counts, fmt, minus, parse
from engine.legal import Legal, duty_leads
from engine.match import Match
from engine.plays import GOUJI_THRESHOLD, Play, as_play
from engine.vocab import Ask, Do
from renderers import button_text, t
from renderers.terms import button_cards, held_label

from .buttons import Callback, HandOp, Kind

QUICK = 6  # one-tap answers offered, one per rank, cheapest first
EXTRAS = (TWO, SMALL, BIG)  # cards that join a play of another rank (贴钱, 挂花, §3)
EMPTY_SELECTION: Counts = (0,) * NRANKS
ANSWERS = (Ask.ANSWER, Ask.BURN, Ask.LAST)  # asks answered by beating the top
ROW_UNITS = 33  # a 390 px phone row: about three buttons of eleven narrow characters
LEAD_TAPS_RANKS = 2  # a lead's ▶ 2s and jokers alone are offered from this few plain ranks left

Move = tuple[HandOp, str]  # a building button: its op and argument, as in its callback data


class PendingKind(Enum):
    """What a tap waiting for its confirmation is: 托管 or a play."""

    AUTO = "auto"  # 托管 asked for: 确认托管 or 取消, any version
    PLAY = "play"  # a play's cards, confirmed only in the turn it was tapped in


@dataclass(frozen=True)
class Pending:
    """A tap waiting for its confirmation: 托管 (any version) or a play's cards (a burn that
    will fail, a ▶ play that spends 2s or jokers or splits a 够级) at the match version it was
    tapped at: a confirmation from another turn is stale."""

    version: int
    kind: PendingKind
    cards: str = ""  # the play's cards (PLAY only)

    @classmethod
    def auto(cls, version: int) -> Pending:
        return cls(version, PendingKind.AUTO)

    @classmethod
    def play(cls, version: int, cards: str) -> Pending:
        return cls(version, PendingKind.PLAY, cards)

    @property
    def is_auto(self) -> bool:
        return self.kind is PendingKind.AUTO

    def __setstate__(self, state: dict[str, object]) -> None:
        """A table stored before the kind was typed: ``what`` was "auto" or the cards."""
        if "what" in state:
            what = str(state.pop("what"))
            auto = what == PendingKind.AUTO.value
            state["kind"] = PendingKind.AUTO if auto else PendingKind.PLAY
            state["cards"] = "" if auto else what
        for k, v in state.items():
            object.__setattr__(self, k, v)


@dataclass(frozen=True)
class Situation:
    """What the keyboard needs beyond the legal plays: how beating the top is called (``burn``:
    "burn" 烧, "counter" 反烧, "break" 解烧, or ""), the burns that cannot meet their duty, a
    play waiting for its confirmation (its cards, or ""), and a lead's ▶ plays of 2s or jokers
    alone (:func:`lead_taps`); ``auto_asked``: 托管 waits for its confirmation."""

    burn: str = ""
    risky: frozenset[str] = frozenset()
    pending: str = ""
    leads: tuple[str, ...] = ()
    auto_asked: bool = False


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
    cards = ""
    if pending is not None and not pending.is_auto and pending.version == match.version:
        cards = pending.cards
    asked = pending is not None and pending.is_auto
    leads = tuple(str(p) for p in lead_taps(match, seat)) if legal.any_lead else ()
    return Situation(burn, risky, cards, leads, asked)


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


def lead_taps(match: Match, seat: int) -> list[Play]:
    """A lead's ▶ plays of 2s or jokers alone, the ways they are led (the normal AI leads them
    so, as a hand ends): all the 2s held, all the big jokers, all the small ones, all of them
    together; each once and only if it is a legal lead now (a burner's duty, §7; 憋3, §8); at
    most three (holding all three kinds, the small jokers alone are left to ``+小王``, the
    rarest of these leads). Offered as the hand ends, from :data:`LEAD_TAPS_RANKS` plain ranks
    left: in 60 seeded games the normal AI led 2s or jokers alone 35 times, always with at
    most one plain rank left; earlier, ``+2个2`` … then 出 still lead them."""
    legal = match.choices(seat)
    if not legal.any_lead:
        return []
    hand = parse(match.view(seat).hand or "")
    if sum(1 for r in range(TWO) if hand[r]) > LEAD_TAPS_RANKS:
        return []
    out: list[Play] = []
    alone = (TWO, BIG) if all(hand[x] for x in EXTRAS) else EXTRAS
    for kinds in (*((x,) for x in alone), EXTRAS):
        counts = tuple(hand[r] if r in kinds else 0 for r in range(NRANKS))
        p = as_play(counts)
        if p is None or p in out:
            continue
        try:
            match.check(Action(seat, Do.PLAY, str(p)))
        except IllegalAction:
            continue
        out.append(p)
    return out


def one_taps(legal: Legal, sit: Situation) -> list[Play]:
    """The ▶ buttons, in order (their callback's index): one-tap answers, or a lead's plays of
    2s or jokers alone."""
    if legal.any_lead:
        return [p for p in (Play.parse(x) for x in sit.leads) if p is not None]
    return quick_answers(legal)


# -- a second tap for what one tap should not spend --------------------------------------------
def caution(hand: Counts, cards: str) -> tuple[str, str]:
    """What playing ``cards`` from ``hand`` gives away that a slip of the finger must not: the
    2s and jokers it spends, and the 够级 of the hand it splits (§4: a rank held at its
    threshold, played short of it and leaving less than it), each as a notation ("" none)."""
    c = parse(cards)
    spends = fmt(tuple(c[r] if r in EXTRAS else 0 for r in range(NRANKS)))
    breaks = ""
    for r, need in GOUJI_THRESHOLD.items():
        if r != TWO and hand[r] >= need and 0 < c[r] < need and hand[r] - c[r] < need:
            breaks = RANK_CHARS[r] * hand[r]
    return spends, breaks


def caution_text(hand: Counts, cards: str, lang: str) -> str:
    """Why a ▶ play asks for a second tap ("要花掉 2个2，会拆开手里的够级 5个10"), or ""."""
    spends, breaks = caution(hand, cards)
    why = []
    if spends:
        why.append(t(lang, "taps.sure.spend", cards=button_cards(spends, lang)))
    if breaks:
        why.append(t(lang, "taps.sure.break", cards=button_cards(breaks, lang)))
    return t(lang, "taps.sure.sep").join(why)


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
    quick = quick_answers(legal)
    out.extend(
        (HandOp.RANK, RANK_CHARS[g])
        for g, plays in groups.items()
        if len(plays) > 1 or plays[0] not in quick
    )
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
    """A ▶ play's label (a burn named as §7 names it, ⚠️ one that will fail), or 出's: "出 …"
    always, never the same words as the ▶ of the same cards above it."""
    shown = button_cards(cards, lang)
    if not quick:
        return t(lang, "bot.btn.play_cards", cards=shown)
    if sit.burn:
        kind = "risky" if cards in sit.risky else "play"
        return t(lang, f"taps.{sit.burn}.{kind}", cards=shown)
    return t(lang, "taps.quick", cards=shown)


def move_label(move: Move, legal: Legal, hand: Counts, selection: Counts, lang: str) -> str:
    op, arg = move
    if op == HandOp.COUNT:
        n = int(arg)
        label = t(lang, "taps.count", n=n)
        return "✅" + label if selection[body_of(selection)] == n else label
    if op == HandOp.EXTRA:
        x, n = RANK_CHARS.index(arg[0]), int(arg[1:])
        label = "+" + button_cards(RANK_CHARS[x] * n, lang)
        return "✅" + label if selection[x] == n else label
    rank = RANK_CHARS.index(arg)
    name = t(lang, f"taps.card.{arg}")
    if legal.any_lead:
        return f"✅{name}" if selection[rank] else held_label(arg, hand[rank], lang)
    chosen = as_play(selection)
    if chosen is not None and chosen in legal.plays and body_of(selection) == rank:
        group = answer_groups(legal.plays)[rank]
        return ("🔄" if len(group) > 1 else "✅") + name
    return name


def _room(move: Move, label: str, legal: Legal, hand: Counts, lang: str) -> int:
    """The width a building button is laid out by, chosen or not (a ✅ or 🔄 coming and going
    does not move the buttons): a lead's rank button as it reads unchosen (``K·5张``, wider
    than ``✅K``), any other with room for the mark."""
    if legal.any_lead and move[0] == HandOp.RANK:
        return width(held_label(move[1], hand[RANK_CHARS.index(move[1])], lang))
    return width(label.removeprefix("✅").removeprefix("🔄")) + 2


def confirm_label(sit: Situation, lang: str) -> str:
    """The button that plays a pending play: ``⚠️ 确认出 3个K+2个2``, named as the burn is
    (``⚠️ 确认烧 …``), with the 诈烧 it will be judged (§7) when the burn cannot meet its duty."""
    cards = button_cards(sit.pending, lang)
    if sit.pending in sit.risky:
        return t(lang, f"taps.{sit.burn}.confirm_risky", cards=cards)
    if sit.burn:
        return t(lang, f"taps.{sit.burn}.confirm", cards=cards)
    return t(lang, "taps.sure.play", cards=cards)


# -- the keyboard -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Button:
    text: str
    data: str | None = None  # callback data
    url: str | None = None  # a link (deep link to the bot's DM)


Keyboard = list[list[Button]]


def hand_button(text: str, table: int, version: int, op: HandOp, arg: str | int = "") -> Button:
    return Button(text, Callback(Kind.HAND, table, version, op, str(arg)).encode())


def pack(buttons: Sequence[Button], most: int, sizes: Sequence[int] = ()) -> Keyboard:
    """Buttons in rows of at most ``most``, each row as wide as a phone shows it whole (every
    button gets an equal share of :data:`ROW_UNITS`, with room for its padding). ``sizes``: the
    widths to lay them out by (the widest a button's label takes, so a ✅ does not move the
    buttons around), else their labels' widths."""
    rows: Keyboard = []
    row: list[Button] = []
    widths = list(sizes) or [width(b.text) for b in buttons]
    start = 0
    for i, b in enumerate(buttons):
        grown = [*row, b]
        widest = max(widths[start : i + 1])
        if row and (len(grown) > most or (widest + 1) * len(grown) > ROW_UNITS):
            rows.append(row)
            grown = [b]
            start = i
        row = grown
    if row:
        rows.append(row)
    return rows


# 托管 and its confirmation count at any version (bot.play UNTIMED): their buttons carry this
# one, so a waiting hand message's keyboard stays the same while the match moves on and the
# message is not edited for nothing (the sender skips an edit identical to what is shown)
ANY_VERSION = 0


def auto_row(table: int, auto: bool, asked: bool, lang: str) -> list[Button]:
    """托管, alone in its row: on only after 确认托管 (a mis-tap is cancelled), off at once."""
    v = ANY_VERSION
    if auto:
        return [hand_button(t(lang, "bot.btn.auto_off"), table, v, HandOp.AUTO)]
    if asked:
        return [
            hand_button(t(lang, "taps.auto.yes"), table, v, HandOp.AUTO_YES),
            hand_button(t(lang, "taps.cancel"), table, v, HandOp.CANCEL),
        ]
    return [hand_button(t(lang, "bot.btn.auto"), table, v, HandOp.AUTO)]


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
    if sit.pending:  # a play tapped once, waiting for its confirmation
        rows.append([b(t(lang, "taps.cancel"), table, version, HandOp.CANCEL)])  # under the finger
        risky = sit.pending in sit.risky
        op = HandOp.CONFIRM if risky else HandOp.SURE
        rows.append([b(confirm_label(sit, lang), table, version, op)])
        rows.append(auto_row(table, auto, False, lang))
        return rows
    taps = [
        b(_play_label(str(p), sit, lang, quick=True), table, version, HandOp.QUICK, k)
        for k, p in enumerate(one_taps(legal, sit))
    ]
    rows.extend(pack(taps, 3))
    building = moves(legal, hand, selection)
    for op, most in ((HandOp.RANK, 6), (HandOp.COUNT, 6), (HandOp.EXTRA, 4)):
        these = [m for m in building if m[0] == op]
        row = [
            b(move_label(m, legal, hand, selection, lang), table, version, op, m[1]) for m in these
        ]
        sizes = [_room(m, x.text, legal, hand, lang) for m, x in zip(these, row, strict=True)]
        rows.extend(pack(row, most, sizes))
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
    rows.append(auto_row(table, auto, sit.auto_asked, lang))
    return rows

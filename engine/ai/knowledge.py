"""What one seat knows during play: its own hand, the public table, and card counting.

Everything here is built from the seat's :class:`~engine.view.SeatView` and the public log of
plays (``Game.log``: every play is seen by the whole table) — never from other seats' hands.
The hidden cards (``pool``) are the 216 of four decks minus the seat's own hand minus every card
played so far; per-seat card counts follow from each seat's starting count minus its plays.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from ..actions import Action
from ..cards import DECK_COUNTS, NRANKS, THREE, TWO, parse
from ..events import Event
from ..legal import can_beat
from ..plays import Play, as_play, beats
from ..rules import Rules
from ..seats import opposite, team
from ..view import SeatView
from ..vocab import Do, Status

START_COUNT = 36  # §1: cards dealt to each seat
Asked = tuple[int, Play, tuple[int, ...]]  # (seat, a top it was asked about, cards played since)


@dataclass
class Knowledge:
    """The deciding seat's picture of the play phase. Its lists belong to whoever built it;
    the AI's functions only read a Knowledge given to them (and build a new one, with
    :func:`dataclasses.replace`, where they need other facts)."""

    seat: int
    rules: Rules
    ask: str
    hand: list[int]  # own live hand, counts by rank
    top_seat: int | None
    top: Play | None
    top_gouji: bool
    top_burn: bool
    burning: int | None
    four_way: bool
    counts: list[int]  # live cards per seat (0 once a seat is out of play)
    active: list[bool]
    passed: frozenset[int]
    opened: list[bool]
    headless: list[bool]
    pool: list[int]  # hidden cards: other live hands and dead cards, counts by rank
    threes_played: list[bool]  # per seat: has played its 3s (so holds none)
    # Per seat: the lowest rank (3..A) it may still hold, read from its leads (see
    # :func:`lead_floors`); 0 where nothing is known. Only the hard level's deals read it.
    floors: list[int] | None = None
    # Per seat, a bit for each plain rank (4..A) it has played (see :func:`spent_ranks`): the
    # hard level's deals give it none of those ranks. None where nothing is known.
    spent: list[int] | None = None
    # Seats that passed on the current trick without choosing to (§6.3 auto passes: nothing
    # in hand beat the top then, so nothing beats the current, higher top now).
    cannot_beat: frozenset[int] = frozenset()
    # (seat, top) for each pass by choice on an opponent's top in this trick (see
    # :func:`declined`): the hard level's deals give such a seat no whole group beating it.
    declined: tuple[tuple[int, Play], ...] = ()
    # (seat, play) for each earlier trick a seat took no part in: it could not beat that
    # trick's last top then, nor can it now (see :func:`sat_out`).
    sat_out: tuple[tuple[int, Play], ...] = ()
    # Per seat and rank, a bit (``1 << n``) for each count ``n`` of that rank the seat's
    # answers and passes in the whole game say it does not hold (see :func:`group_evidence`).
    # None where not read: only the hard level's deals read it, and its search reads it into
    # its own copy of the knowledge (the normal level does not spend the pass over the log).
    not_held: list[list[int]] | None = None
    # (seat, top, cards it has played since) for each time a seat was asked about a top in
    # the whole game (see :func:`could_beat`): its hand then beat it. None where not read:
    # only the hard level's deals read it, and its search reads it into its own copy.
    beat_then: tuple[Asked, ...] | None = None
    # Every card of the four decks was dealt (a real game, not a position set up with fewer):
    # the unseen cards no live hand holds are then dead hands — a revolutionary's, a smothered
    # player's, a failed burner's — and hold no joker (§5.4 §7 §8). Set by the hard level's
    # search in its own copy.
    all_dealt: bool = False

    @property
    def bound(self) -> bool:
        """§8: this seat is bound by 憋3 (holds a 3)."""
        return self.rules.bie3 and self.hand[THREE] > 0

    def with_hand(self, hand: list[int], pool: list[int], counts: list[int]) -> Knowledge:
        """A new Knowledge, this one with ``hand``, ``pool`` and ``counts`` instead: what
        :func:`dataclasses.replace` makes, at a quarter of its cost (the hard level's checks
        make one for each hand they try, :func:`~engine.ai.inference.agrees`)."""
        new = object.__new__(Knowledge)
        new.__dict__.update(self.__dict__)
        new.hand, new.pool, new.counts = hand, pool, counts
        return new


def start_counts(events: Iterable[Event] = ()) -> list[int]:
    """Cards each seat holds when play starts: 36, moved by the public tribute exchange (§11;
    ``tribute_paid`` and ``tribute_returned`` events of the deal) and by 要3 (``given_three``);
    买3 swaps one card for one."""
    counts = [START_COUNT] * 6
    for e in events:
        if e.type == "dealt":
            counts = [START_COUNT] * 6  # a re-deal (§5.4 流局, §5.3) starts the exchange again
        elif e.type in ("tribute_paid", "tribute_returned") and e.seat is not None:
            n = len(e.cards or "")
            dst = e.to
            if dst is not None:
                counts[e.seat] -= n
                counts[dst] += n
        elif e.type == "given_three" and e.seat is not None:
            src = e.source  # 要3: a teammate gives a 3 for free (§5.3)
            if src is not None:
                counts[src] -= 1
                counts[e.seat] += 1
    return counts


def played_cards(log: Sequence[Action]) -> tuple[list[int], list[list[int]]]:
    """All cards played so far, and per seat (from the public log of actions)."""
    total = [0] * NRANKS
    per_seat = [[0] * NRANKS for _ in range(6)]
    for act in log:
        if act.do == Do.PLAY:
            c = parse(act.cards)
            mine = per_seat[act.seat]
            for r in range(NRANKS):
                if c[r]:
                    total[r] += c[r]
                    mine[r] += c[r]
    return total, per_seat


def _is_lead(
    prev: Action | None, prev_play: Play | None, act: Action, p: Play, rules: Rules
) -> bool:
    """Is ``act`` (its play ``p``) a lead, after the play ``prev`` (None: the first)? It is
    when it follows the same seat's play or cannot beat the play before it (§3)."""
    return (
        prev is None
        or prev_play is None
        or prev.seat == act.seat
        or not beats(p, prev_play, rules.kill_big_joker)
    )


def lead_floors(log: Sequence[Action], rules: Rules) -> list[int]:
    """Per seat, the lowest rank it may still hold among 3..A (4..A under 憋3, whose 3s go
    last, §8), read from the public log: players lead their lowest group, whole (§6 — the
    normal level always does, and so do most people), so a seat that led a plain group of
    rank r holds nothing of that rank or lower, and hands only shrink. A play is taken for a
    lead when it follows the same seat's play or cannot beat the play before it (§3); 开点
    leads (§9), which may skip lower groups, and plays with 2s or jokers say nothing."""
    floors = [0] * 6
    prev: Action | None = None
    prev_play: Play | None = None
    for act in log:
        if act.do != Do.PLAY:
            continue
        p = as_play(parse(act.cards))
        if p is None:
            continue
        lead = _is_lead(prev, prev_play, act, p, rules)
        prev, prev_play = act, p
        base = p.shape.base
        if not lead or base < 0 or base >= TWO or p.has_money_or_flower or p.kaidian:
            continue
        # a group is led whole, so its own rank is gone too
        floors[act.seat] = max(floors[act.seat], base + 1)
    return floors


def spent_ranks(per_seat: Sequence[Sequence[int]]) -> list[int]:
    """Per seat, a bit (``1 << rank``) for each plain rank from 4 to A that it has played
    (``per_seat``: the cards each seat played, by rank, as :func:`played_cards` counts them),
    in a lead or an answer: players play a group whole (§6 — the normal level always prefers
    to, breaking one costs it), so a seat that played some of a rank seldom holds more of it
    (docs/ai.md), where deals from the unseen cards alone would give most of them back,
    scattering each hidden hand over more groups than real hands have. 3s (held to the end
    under 憋3), 2s and jokers (carried as control cards) say nothing."""
    return [sum(1 << r for r in range(THREE + 1, TWO) if played[r]) for played in per_seat]


def trick_start(log: Sequence[Action], rules: Rules) -> int:
    """Index in ``log`` of the current trick's lead, as :func:`lead_floors` recognizes leads
    (an answer is never taken for a lead; a lead may be taken for an answer, which only makes
    the trick look longer)."""
    start = 0
    prev: Action | None = None
    prev_play: Play | None = None
    for i, act in enumerate(log):
        if act.do != Do.PLAY:
            continue
        p = as_play(parse(act.cards))
        if p is None:
            continue
        if _is_lead(prev, prev_play, act, p, rules):
            start = i
        prev, prev_play = act, p
    return start


def auto_passed(log: Sequence[Action], passed: Iterable[int], rules: Rules) -> frozenset[int]:
    """The seats of ``passed`` (this trick) that did not pass by choice: no ``pass`` of theirs
    in the log since the trick's lead, so the game passed for them (§6.3): they could not
    beat the top then, and a later top of the trick is higher (§3). Empty under
    ``kill_big_joker`` (§13), whose 二杀一 changes a play's size."""
    if rules.kill_big_joker:
        return frozenset()
    start = trick_start(log, rules)
    chose = {a.seat for a in log[start:] if a.do == Do.PASS}
    return frozenset(s for s in passed if s not in chose)


def declined(log: Sequence[Action], rules: Rules) -> tuple[tuple[int, Play], ...]:
    """Passes by choice in the current trick, each with the top it declined, where they were
    answers to an opponent (a pass on a 够级 top by a seat other than its owner's 对头 is a
    declined burn claim, §7, and says nothing). A player who holds a whole group that beats
    an opponent's top plays it (cheap: nothing is broken, §3, §6 — the normal level always
    does), so such a pass says the seat held none — unless it was bound by 憋3 and that group
    was all it held besides its 3s (§8: a penultimate play may be passed up to avoid 闷)."""
    start = trick_start(log, rules)
    out: list[tuple[int, Play]] = []
    top: Action | None = None
    for act in log[start:]:
        if act.do == Do.PLAY:
            top = act
        elif act.do == Do.PASS and top is not None and team(top.seat) != team(act.seat):
            p = as_play(parse(top.cards))
            if p is not None and (not p.gouji or act.seat == opposite(top.seat)):
                out.append((act.seat, p))
    return tuple(out)


def sat_out(log: Sequence[Action], rules: Rules) -> tuple[tuple[int, Play], ...]:
    """For each finished trick (as :func:`trick_start` finds leads), every seat that did
    nothing in it and took no part after it either — it was active throughout — with the
    trick's last top: every seat still in play is asked about each new top unless it has
    passed (§6.2, §7 with burning on: teammates and opponents are asked to burn), so a seat
    with no action was passed for by the game (§6.3): it could not beat the top then, nor the
    higher last top (§3), nor can its smaller hand now. Empty unless ``burn`` is on and
    ``kill_big_joker`` off (without burning, teammates are not asked about a 够级 top)."""
    if not rules.burn or rules.kill_big_joker:
        return ()
    plays = [i for i, a in enumerate(log) if a.do == Do.PLAY]
    starts: list[int] = []
    prev: Play | None = None
    prev_seat = -1
    for i in plays:
        p = as_play(parse(log[i].cards))
        if p is None:
            continue
        if prev is None or prev_seat == log[i].seat or not beats(p, prev, rules.kill_big_joker):
            starts.append(i)
        prev, prev_seat = p, log[i].seat
    last_act = {a.seat: i for i, a in enumerate(log)}
    out: list[tuple[int, Play]] = []
    for a, b in pairwise(starts):
        seg = log[a:b]
        top = next((x for x in reversed(seg) if x.do == Do.PLAY), None)
        p = as_play(parse(top.cards)) if top is not None else None
        if p is None:
            continue
        acted = {x.seat for x in seg}
        for s in range(6):
            # a seat that never acts again may have left play (ranked) during the trick
            if s not in acted and last_act.get(s, -1) > b:
                out.append((s, p))
    return tuple(out)


def group_evidence(log: Sequence[Action], rules: Rules) -> list[list[int]]:
    """Per seat and rank 4..A, a bit (``1 << n``) for each count ``n`` the seat cannot hold of
    that rank, read from its answers and passes to opponents in the whole public log: a
    player answers with the cheapest play that beats the top, and a whole group of the top's
    size is the cheapest there is (nothing broken, no 2s or jokers, §3 — the normal level
    always plays one, as most people do), lower ranks first. So a pass by choice says the
    seat held no group of exactly that many cards of a rank beating the top; an answer with
    a group of rank b says it held none of a rank between the top's and b (one with 2s or
    jokers, or a split group: none at all). Hands only shrink, and a rank the seat played
    since is spent (:func:`spent_ranks`), so this holds now. Passes and answers on a 够级 top
    by a seat other than its owner's 对头 are burn claims (§7) and say nothing; nor do tops
    with jokers (no plain group beats them), nor anything under ``kill_big_joker`` (§13).
    The one exception, a bound seat passing up its last group before the 3s (§8), is left to
    the deals (:func:`~engine.ai.deals.deal_hidden`)."""
    out = [[0] * NRANKS for _ in range(6)]
    if rules.kill_big_joker:
        return out
    last: tuple[Action, Play] | None = None  # the latest play and its cards
    for act in log:
        said: tuple[int, range] | None = None
        if act.do == Do.PLAY:
            p = as_play(parse(act.cards))
            if p is None:
                continue
            if last is not None and not _is_lead(*last, act, p, rules):
                said = _ruled_out(act.seat, *last, p)
            last = (act, p)
        elif act.do == Do.PASS and last is not None:
            said = _ruled_out(act.seat, *last, None)
        if said is not None:
            bit, ranks = said
            row = out[act.seat]
            for r in ranks:
                row[r] |= bit
    return out


def _ruled_out(
    seat: int, top: Action, top_play: Play, answer: Play | None
) -> tuple[int, range] | None:
    """What ``seat``'s answer (None: a pass) to ``top`` says about its groups: the bit of the
    count it held none of, and the ranks it held none of that count of; None when nothing."""
    if team(top.seat) == team(seat):
        return None  # a teammate's top: passed or taken over for other reasons
    sh = top_play.shape
    if sh.big or sh.small or sh.base < 0 or sh.base >= TWO:
        return None
    if top_play.gouji and seat != opposite(top.seat):
        return None  # a burn claim (§7)
    n = sh.body
    hi = TWO
    if answer is not None:
        a = answer.shape
        if not answer.has_money_or_flower and a.base < TWO and answer.counts[a.base] == n:
            hi = a.base  # the cheapest: no whole group of n between the top and this rank
    return 1 << n, range(max(sh.base + 1, THREE + 1), hi)


def from_view(
    view: SeatView, log: Sequence[Action], starts: Sequence[int] | None = None
) -> Knowledge:
    """The knowledge of ``view.seat`` from its view and the public log of the game."""
    seat = view.seat
    assert seat is not None and view.hand is not None
    hand = list(parse(view.hand))
    total, per_seat = played_cards(log)
    starts = list(starts) if starts is not None else [START_COUNT] * 6
    pool = [DECK_COUNTS[r] - hand[r] - total[r] for r in range(NRANKS)]
    active = [st == Status.ACTIVE for st in view.status]
    counts: list[int] = []
    for s in range(6):
        if not active[s]:
            counts.append(0)
        elif s == seat:
            counts.append(sum(hand))
        else:
            shown = view.counts[s]
            counts.append(shown if shown is not None else max(starts[s] - sum(per_seat[s]), 0))
    k = table_knowledge(view, seat, view.asked or "", hand, counts, [max(p, 0) for p in pool])
    k.threes_played = [per_seat[s][THREE] > 0 for s in range(6)]
    k.floors = lead_floors(log, view.rules)
    k.spent = spent_ranks(per_seat)
    if view.top:
        k.cannot_beat = auto_passed(log, view.passed, view.rules)
        k.declined = declined(log, view.rules)
    k.sat_out = sat_out(log, view.rules)
    return k


def table_knowledge(
    view: SeatView, seat: int, ask: str, hand: list[int], counts: list[int], pool: list[int]
) -> Knowledge:
    """``seat``'s knowledge of the table as ``view`` shows it (a seat's or the spectator's),
    with the given hand, counts and pool; no evidence read from the log (``threes_played``:
    none)."""
    top = view.top
    return Knowledge(
        seat=seat,
        rules=view.rules,
        ask=ask,
        hand=hand,
        top_seat=top.seat if top else None,
        top=Play.parse(top.cards) if top else None,
        top_gouji=top.gouji if top else False,
        top_burn=top.burn if top else False,
        burning=view.burning,
        four_way=view.phase == "four_way",
        counts=counts,
        active=[st == Status.ACTIVE for st in view.status],
        passed=frozenset(view.passed),
        opened=list(view.opened),
        headless=list(view.headless),
        pool=pool,
        threes_played=[False] * 6,
    )


def could_beat(log: Sequence[Action], rules: Rules) -> tuple[Asked, ...]:
    """Each time a seat was asked about a top and passed or yielded (§6.3: the game asks only
    a seat that can beat the top, and passes for the others), with that top and the cards the
    seat has played since: its hand then — its hand now and those cards — could beat the top.
    Asks that say nothing new are left out: the cards played since beat the top by
    themselves. A pass is the strongest evidence the public log holds of the strong cards a
    seat keeps (2s, jokers, big groups): it beat the top and chose not to. Empty under
    ``kill_big_joker`` (§13)."""
    if rules.kill_big_joker:
        return ()
    later = [[0] * NRANKS for _ in range(6)]
    out: list[Asked] = []
    seen: set[Asked] = set()
    top: Play | None = None
    # read backwards: the cards each seat played after each action are known by then
    tops: list[Play | None] = []
    cards: list[tuple[int, ...] | None] = []
    for act in log:
        c = parse(act.cards) if act.do == Do.PLAY else None
        if c is not None:
            top = as_play(c)
        tops.append(top)
        cards.append(c)
    for i in range(len(log) - 1, -1, -1):
        act = log[i]
        c = cards[i]
        if c is not None:
            mine = later[act.seat]
            for r, n in enumerate(c):
                mine[r] += n
            continue
        t = tops[i]
        if t is None or act.do not in (Do.PASS, Do.YIELD):
            continue
        since = tuple(later[act.seat])
        if can_beat(since, t):
            continue
        key = (act.seat, t, since)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return tuple(out)

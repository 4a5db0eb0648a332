"""The hard level's search: the unchecked speed path of its rollouts equals the checked one
(engine.ai.rollout), what leads, plays and auto passes say about hands (lead floors, spent
ranks, seats that cannot beat the top: engine.ai.knowledge), deals that respect them and look
like real hands (engine.ai.deals, engine.ai.mixing), and the speed paths under the search
(legal.can_beat, estimate.Pool, shared plays)."""

from __future__ import annotations

import copy
import random

from engine.actions import Action
from engine.ai import decide, mixing
from engine.ai.deals import MIX, _deal_by_evidence, deal_hidden
from engine.ai.estimate import Pool
from engine.ai.knowledge import (
    could_beat,
    declined,
    from_view,
    group_evidence,
    lead_floors,
    played_cards,
    sat_out,
    spent_ranks,
)
from engine.ai.rollout import MARGIN_SCALE, win_part
from engine.ai.search import search
from engine.cards import BIG, NRANKS, SMALL, THREE, TWO, parse, rank_of
from engine.game import Game
from engine.legal import _beating_shapes, can_beat
from engine.match import Match
from engine.playout import random_action
from engine.plays import Play, as_play
from engine.rules import Rules
from engine.vocab import Do


def _state(g: Game) -> tuple[object, ...]:
    return (
        g.hands,
        g.status,
        g.top,
        g.ask,
        list(g.queue),
        g.passed,
        g.ranks,
        g.burning,
        g.four_way,
        g.over,
        g.opened,
        g.men,
        g.shao,
    )


def test_carry_out_equals_apply() -> None:
    """Game.carry_out (rollouts: no checks, no log) makes exactly the moves Game.apply does."""
    for seed in range(12):
        match = Match(Rules(), seed=40 + seed)
        match.new_game()
        while match.game is None:  # the deal phase: the first option each time
            ask = match.asked()
            assert ask is not None
            match.apply(match.choices(ask[0]).options[0])
        a = match.game
        b = a.copy()
        rng = random.Random(seed)
        steps = 0
        while a.asked() is not None:
            act = random_action(a, rng)
            play = b.check(act)
            ev_a = a.apply(act)
            ev_b = b.carry_out(act.do, play)
            assert ev_a == ev_b
            assert _state(a) == _state(b)
            steps += 1
        assert b.over and b.score() == a.score() and steps > 20
        assert len(b.log) < len(a.log)  # carry_out leaves the log alone


def test_lead_floors_read_leads_not_answers() -> None:
    rules = Rules()  # 憋3 on: 3s are no floor
    hands = ["5566QQ3", "7788KK3", "99TT3", "JJAA3", "4444883", "6699TT3"]
    g = Game.from_position(rules, hands, leader=0)
    g.apply(Action(0, Do.PLAY, "55"))  # a lead: seat 0 holds nothing below 5 (but 3s)
    assert lead_floors(g.log, rules)[0] == rank_of("6")
    assert g.asked() is not None
    seat = g.asked()[0]  # type: ignore[index]
    beat = next(p for p in g.legal(seat).plays)
    g.apply(Action(seat, Do.PLAY, str(beat)))  # an answer says nothing about low cards
    floors = lead_floors(g.log, rules)
    assert floors[seat] == 0 and floors[0] == rank_of("6")


def test_lead_floors_mark_a_lead_that_cannot_beat_the_play_before() -> None:
    rules = Rules()
    log = [
        Action(0, Do.PLAY, "99"),
        Action(1, Do.PLAY, "KK"),  # beats 99: taken for an answer
        Action(2, Do.PLAY, "7"),  # cannot beat KK: a new trick's lead
        Action(2, Do.PLAY, "88"),  # the same seat again: a lead (it won its own trick)
        Action(3, Do.PLAY, "2"),  # a 2: says nothing
        Action(4, Do.PLAY, "TTTTT"),  # 开点牌 (§4, §9): may skip lower groups, says nothing
    ]
    floors = lead_floors(log, rules)
    assert floors == [rank_of("T"), 0, rank_of("9"), 0, 0, 0]


def test_deals_respect_lead_floors_and_counts() -> None:
    rules = Rules()
    hands = ["5566QQ3", "7788KK3", "99TT3", "JJAA3", "4444883", "6699TT3"]
    g = Game.from_position(rules, hands, leader=0)
    g.apply(Action(0, Do.PLAY, "55"))
    while g.asked() is not None and g.asked()[1] != "lead":  # type: ignore[index]
        g.apply(Action(g.asked()[0], Do.PASS))  # type: ignore[index]
    # seat 0 won the trick and leads again; seat 2 (its teammate) is the one to watch
    g.apply(Action(0, Do.PLAY, "66"))
    k = from_view(g.view(1), g.log)
    assert k.floors is not None and k.floors[0] == rank_of("7")
    partners = [None] * 6
    for i in range(200):
        dealt = deal_hidden(k, list(partners), random.Random(i))
        for s in range(6):
            assert sum(dealt[s]) == k.counts[s]
        low = [r for r in range(THREE + 1, k.floors[0]) if dealt[0][r]]
        assert not low, (i, dealt[0])
        assert dealt[0][THREE] >= 1  # bound by 憋3: still holds a 3
    assert all(x >= 0 for h in dealt for x in h) and len(dealt[0]) == NRANKS


def test_auto_passed_seats_cannot_beat_the_top_in_deals() -> None:
    """A seat the game passed for (§6.3) is dealt no hand beating the top; a seat that chose to
    pass may hold anything."""
    rules = Rules()
    hands = ["77QQ3", "88AA3", "44563", "TT3", "5553", "99JJ3"]
    g = Game.from_position(rules, hands, leader=0)
    g.apply(Action(0, Do.PLAY, "77"))
    g.apply(Action(1, Do.PLAY, "88"))  # seat 2's 44 cannot beat: the game passes for it
    assert g.asked() == (3, "answer")
    g.apply(Action(3, Do.PLAY, "TT"))
    assert g.asked() == (5, "answer")  # seat 4's 55 cannot beat TT: passed for it too
    k = from_view(g.view(5), g.log)
    assert k.cannot_beat == frozenset({2, 4})
    assert k.top is not None
    for i in range(100):
        dealt = deal_hidden(k, [None] * 6, random.Random(i))
        for s in k.cannot_beat:
            assert not can_beat(dealt[s], k.top), (i, s, dealt[s])
    g.apply(Action(5, Do.PASS))  # JJ could beat: a pass by choice says nothing for sure
    assert g.asked() == (0, "answer")
    assert from_view(g.view(0), g.log).cannot_beat == frozenset({2, 4})


def test_a_pass_by_choice_means_no_whole_group_beats() -> None:
    """§6: a seat that passes up an opponent's top holds no whole group beating it (it would
    have played it cheaply); the hard level's deals respect that."""
    rules = Rules()
    hands = ["99KK3", "7783", "QQ53", "4453", "JJ63", "5563"]
    g = Game.from_position(rules, hands, leader=1)
    g.apply(Action(1, Do.PLAY, "77"))
    g.apply(Action(2, Do.PASS))  # declines an opponent's 77 while holding QQ
    assert g.asked() == (4, "answer")  # seat 3's 44 cannot beat: passed for it
    k = from_view(g.view(4), g.log)
    assert [(s, str(p)) for s, p in k.declined] == [(2, "77")]
    assert k.top is not None
    for i in range(100):
        dealt = deal_hidden(k, [None] * 6, random.Random(i))
        pairs = [r for r in range(rank_of("8"), rank_of("2")) if dealt[2][r] == 2]
        # §8: unless the pair was all it held besides its 3s (passed up to avoid 闷)
        assert not pairs or sum(dealt[2]) - dealt[2][THREE] == 2, (i, dealt[2])
    g.apply(Action(4, Do.PASS))  # seat 5's 55 cannot beat: passed for it
    assert g.asked() == (0, "answer")
    assert [s for s, _ in from_view(g.view(0), g.log).declined] == [2, 4]


def test_a_seat_asked_about_a_top_could_beat_it() -> None:
    """§6.3: the game asks only a seat that can beat the top, so each pass or yield in the log
    says the seat's hand then (its hand now and the cards it has played since) beat that top;
    asks the later plays explain by themselves are left out, and the hard level's deals
    respect the rest."""
    rules = Rules()
    hands = ["99KK3", "7783", "2253", "4453", "JJ63", "5563"]
    g = Game.from_position(rules, hands, leader=1)
    g.apply(Action(1, Do.PLAY, "77"))
    g.apply(Action(2, Do.PASS))  # asked, so it could beat 77: with its 22 (no pair above 7)
    assert g.asked() == (4, "answer")  # seat 3's 44 cannot beat: passed for it, not asked
    zero = (0,) * NRANKS
    assert [(s, str(p), c) for s, p, c in could_beat(g.log, rules)] == [(2, "77", zero)]
    k = from_view(g.view(4), g.log)
    top = Play.parse("77")
    assert top is not None
    fits = []
    for evidence in (None, could_beat(g.log, rules)):
        k.beat_then = evidence
        fits.append(
            sum(can_beat(deal_hidden(k, [None] * 6, random.Random(i))[2], top) for i in range(200))
        )
    # (of a few mixes, the deal breaking the fewest facts is kept: nearly always all of them)
    assert fits[0] < 100 and fits[1] >= 180, fits
    # a later play that beats the top by itself makes the pass say nothing more
    log = [Action(1, Do.PLAY, "77"), Action(2, Do.PASS), Action(2, Do.PLAY, "QQ")]
    assert could_beat(log, rules) == ()
    log = [Action(1, Do.PLAY, "77"), Action(2, Do.PASS), Action(2, Do.PLAY, "5")]
    assert [(s, str(p), c[rank_of("5")]) for s, p, c in could_beat(log, rules)] == [(2, "77", 1)]


def test_what_asked_seats_could_beat_holds_for_the_real_hands() -> None:
    """In seeded games of the normal level, every (seat, top, cards since) that
    :func:`could_beat` reads from the log holds for that seat's real hand, at every step."""
    checked = 0
    for seed in range(3):
        match = Match(Rules(), seed=300 + seed)
        match.new_game()
        step = 0
        while (ask := match.asked()) is not None:
            match.apply(decide(match, ask[0], "normal", random.Random(step)).action)
            step += 1
            g = match.game
            if g is None or g.over or step % 7:
                continue
            for s, top, since in could_beat(g.log, g.rules):
                if not g.active(s):
                    continue
                then = [a + b for a, b in zip(g.hands[s], since, strict=True)]
                assert can_beat(then, top), (seed, step, s, str(top))
                checked += 1
    assert checked > 200, checked


def test_dead_cards_are_dealt_no_joker() -> None:
    """§5.4 §7 §8: a revolutionary holds no 2 or joker, a failed burner no joker and a smothered
    player only 3s, so in a game of all four decks (``all_dealt``, set by the search) the
    unseen jokers all go to the hidden seats still in play — before any lead (no evidence:
    the plain shuffle) and after (the deal by evidence). In a position set up with fewer
    cards the unseen ones are no one's, and may be jokers."""
    rules = Rules()
    hands = ["BS2443", "4455667788993", "S25553", "B26663", "SS27773", "B28883"]
    g = Game.from_position(rules, hands, leader=0, revolted=(1,))
    for step in range(2):
        k = from_view(g.view(0), g.log)
        jokers = k.pool[SMALL] + k.pool[BIG]
        assert jokers == 6 and sum(k.pool) > sum(k.counts[s] for s in (2, 3, 4, 5))
        held = []
        for full in (True, False):
            k.all_dealt = full
            for i in range(100):
                dealt = deal_hidden(k, [None] * 6, random.Random(i))
                held.append(sum(dealt[s][SMALL] + dealt[s][BIG] for s in (2, 3, 4, 5)))
        assert held[:100] == [jokers] * 100, step
        assert sum(held[100:]) < 100 * jokers, step
        if step == 0:
            g.apply(Action(0, Do.PLAY, "44"))  # a lead: floors, so the deal by evidence


def test_passes_that_say_nothing() -> None:
    """A pass on a teammate's top, or on a 够级 top by a seat other than its owner's 对头 (a
    declined burn claim, §7), is no evidence."""
    rules = Rules()
    log = [Action(1, Do.PLAY, "77"), Action(3, Do.PASS)]
    assert declined(log, rules) == ()
    log = [Action(1, Do.PLAY, "KK"), Action(2, Do.PASS), Action(4, Do.PASS)]
    assert [s for s, _ in declined(log, rules)] == [4]  # seat 4 is seat 1's 对头


def test_seats_that_sat_out_a_trick_could_not_beat_its_last_top() -> None:
    """§6.3: a seat still in play that did nothing in a finished trick was passed for by the
    game, so it cannot beat the trick's last top; the current trick and a seat that never
    acts again (it may have left play) say nothing."""
    rules = Rules()
    log = [
        Action(0, Do.PLAY, "77"),
        Action(1, Do.PLAY, "88"),
        Action(3, Do.PASS),
        Action(1, Do.PLAY, "55"),  # seat 1 won its trick and leads again
        Action(2, Do.PLAY, "66"),
        Action(4, Do.PASS),
        Action(5, Do.PASS),
    ]
    assert [(s, str(p)) for s, p in sat_out(log, rules)] == [(2, "88"), (4, "88"), (5, "88")]
    assert sat_out(log[:3], rules) == ()  # the trick is not over


def test_spent_ranks_mark_plain_ranks_played() -> None:
    """knowledge.spent_ranks: a bit per plain rank 4..A a seat has played, leads and answers
    alike; 3s, 2s and jokers say nothing."""
    log = [
        Action(0, Do.PLAY, "99"),
        Action(1, Do.PLAY, "2K"),  # an answer with a 2 attached: K is spent, the 2 is not
        Action(2, Do.PASS),
        Action(1, Do.PLAY, "B"),
        Action(3, Do.PLAY, "333"),
    ]
    spent = spent_ranks(played_cards(log)[1])
    assert spent[0] == 1 << rank_of("9")
    assert spent[1] == 1 << rank_of("K")
    assert spent[2] == spent[3] == spent[4] == spent[5] == 0


def _spent_position() -> tuple[Game, int]:
    """Seat 1 has led its 8s and its Js: it is taken to hold no more of either."""
    rules = Rules()
    hands = [
        "444455667QQQQ3",
        "8888JJJ99TTKKAA3",
        "5566777TTQQ3",
        "44556677993",
        "9TTJJKKAA3",
        "56789TJQKA3",
    ]
    g = Game.from_position(rules, hands, leader=1)
    for lead in ("8888", "JJJ"):
        g.apply(Action(1, Do.PLAY, lead))
        while g.asked() is not None and g.asked()[1] != "lead":  # type: ignore[index]
            g.apply(Action(g.asked()[0], Do.PASS))  # type: ignore[index]
        assert g.asked() == (1, "lead")
    return g, 0


def test_deals_keep_spent_ranks_out() -> None:
    g, me = _spent_position()
    k = from_view(g.view(me), g.log)
    assert k.spent is not None and k.spent[1] == (1 << rank_of("8")) | (1 << rank_of("J"))
    for i in range(200):
        dealt = deal_hidden(k, [None] * 6, random.Random(i))
        for s in range(6):
            assert sum(dealt[s]) == k.counts[s]
        assert dealt[1][rank_of("8")] == 0 and dealt[1][rank_of("J")] == 0, (i, dealt[1])
        assert all(dealt[s][THREE] >= 1 for s in range(6))  # 憋3: every seat keeps a 3


def test_mixing_keeps_counts_supply_and_evidence() -> None:
    """mixing.mix swaps plain cards only between holders allowed them: every seat's count and
    every rank's supply stay, no card goes where the floors or spent ranks forbid, no banned count
    appears, the 2s, jokers and a bound seat's kept 3 stay put."""
    rng = random.Random(5)
    four, nine, ace = rank_of("4"), rank_of("9"), rank_of("A")
    for trial in range(200):
        pool = [0] * NRANKS
        hands = [[0] * NRANKS for _ in range(6)]
        unknown = [1, 3, 5]
        for s in unknown:
            hands[s][THREE] = 1
            hands[s][TWO] = rng.randint(0, 1)
            for _ in range(rng.randint(2, 8)):
                hands[s][rng.randint(four, ace)] += 1
        for r in range(NRANKS):
            pool[r] = sum(hands[s][r] for s in unknown) + rng.randint(0, 2)  # some dead
        allow = [(1 << TWO) - 1] * 7
        allow[1] &= ~(1 << nine)  # seat 1 has spent its 9s…
        hands[3][nine] += hands[1][nine]  # …so they go to seat 3 to start with
        hands[1][four] += hands[1][nine]
        pool[four] += hands[1][nine]
        hands[1][nine] = 0
        bans = [[0] * NRANKS for _ in range(6)]
        bans[5][ace] = 1 << 2  # seat 5 holds no AA
        if hands[5][ace] == 2:
            hands[5][ace] = 1
            pool[ace] -= 1
        before = hands
        hands = mixing.mix(before, unknown, pool, allow, [0, 1, 0, 1, 0, 1], 30.0, rng.random, bans)
        assert before[3][nine] >= before[1][nine] == 0  # the hands given are left as they were
        for s in unknown:
            assert sum(hands[s]) == sum(before[s])
            assert hands[s][TWO] == before[s][TWO] and hands[s][THREE] >= 1
        for r in range(NRANKS):
            assert sum(hands[s][r] for s in unknown) <= pool[r]
        assert sum(sum(h[:TWO]) for h in hands) == sum(sum(h[:TWO]) for h in before)
        assert hands[1][nine] == 0 and hands[5][ace] != 2, trial


def test_mixing_makes_the_deal_uniform() -> None:
    """Two seats needing one card each, an A and a 4 between them, always dealt the same way
    at first: mixed, each seat holds the A about half the time."""
    four, ace = rank_of("4"), rank_of("A")
    pool = [0] * NRANKS
    pool[four] = pool[ace] = 1
    allow = [(1 << TWO) - 1] * 7
    aces = 0
    rng = random.Random(9)
    for _ in range(2000):
        hands = [[0] * NRANKS for _ in range(6)]
        hands[1][ace] = 1
        hands[2][four] = 1
        hands = mixing.mix(hands, [1, 2], pool, allow, [0] * 6, MIX, rng.random)
        assert hands[1][ace] + hands[2][ace] == 1 and sum(hands[1]) == sum(hands[2]) == 1
        aces += hands[1][ace]
    assert 900 < aces < 1100


def test_deals_leave_out_the_counts_answers_rule_out() -> None:
    """Seat 1 answered 77 with JJ, so it held no pair of 8s, 9s or Ts (the cheaper answers):
    with the evidence the search fills in, the deals give it none."""
    hands = ["7744KKQ53", "JJAA6654Q3", "5566QQ993", "44889TTK3", "99TTKK853", "668899AQ3"]
    g = Game.from_position(Rules(), hands, leader=0)
    g.apply(Action(0, Do.PLAY, "77"))
    g.apply(Action(1, Do.PLAY, "JJ"))
    k = from_view(g.view(0), g.log)
    pairs = [rank_of(x) for x in "89T"]

    def pairs_dealt() -> int:
        n = 0
        for i in range(300):
            dealt = deal_hidden(k, [None] * 6, random.Random(i))
            n += sum(dealt[1][r] == 2 for r in pairs)
        return n

    assert k.not_held is None  # the normal level does not read the evidence
    assert pairs_dealt() > 30
    k.not_held = group_evidence(g.log, k.rules)
    assert pairs_dealt() == 0


def test_answers_say_which_counts_a_seat_lacks() -> None:
    """group_evidence: a pass by choice on an opponent's top of n cards says no rank above it
    held exactly n; an answer with a group of rank b, none between the top and b; an answer
    with a 2, none at all; teammates' tops and 够级 tops passed by other than the 对头 (burn
    claims, §7) say nothing."""
    rules = Rules()
    r = rank_of
    log = [
        Action(0, Do.PLAY, "77"),
        Action(1, Do.PLAY, "JJ"),  # no 88 99 TT
        Action(2, Do.PASS),  # no 2-groups above J
        Action(3, Do.PASS),  # seat 1 is its teammate: nothing
        Action(4, Do.PLAY, "2Q"),  # a 2 in it: no pair above J at all
        Action(5, Do.PLAY, "AA"),  # no KK (the top is a pair of Qs with a 2)
    ]
    ev = group_evidence(log, rules)
    pair = 1 << 2
    assert [ev[1][x] & pair > 0 for x in (r("8"), r("9"), r("T"), r("J"))] == [1, 1, 1, 0]
    assert all(ev[2][x] & pair for x in range(r("Q"), r("2")))
    assert not any(ev[2][: r("Q")]) and not any(ev[3])
    assert all(ev[4][x] & pair for x in range(r("Q"), r("2")))
    # seat 5's AA over seat 4's 2Q: rank Q's pair top, so no KK
    assert ev[5][r("K")] & pair and not ev[5][r("A")] & pair
    # a 够级 top (KK, §4) passed by a seat other than its owner's 对头: a burn claim
    log2 = [Action(0, Do.PLAY, "55"), Action(1, Do.PLAY, "KK"), Action(2, Do.PASS)]
    assert not any(group_evidence(log2, rules)[2])
    log3 = [Action(1, Do.PLAY, "KK"), Action(4, Do.PASS)]  # seat 4 is seat 1's 对头
    assert group_evidence(log3, rules)[4][r("A")] & pair
    assert not any(group_evidence(log3, Rules(kill_big_joker=True))[4])


def test_unkeepable_spent_ranks_are_given_anyway() -> None:
    """When every seat that may take a card has spent its rank (someone broke a group) and no
    dead cards can take it, the card still goes to a seat the floors allow: the deal does not
    fail on spent ranks alone — only on floors."""
    nine = rank_of("9")
    pool = [0] * NRANKS
    pool[nine] = 4
    empty = [[0] * NRANKS for _ in range(6)]
    for i in range(20):
        dealt = _deal_by_evidence(
            empty, [1, 2], {1: 2, 2: 2}, [0] * 6, [1 << nine] * 6, pool, True, random.Random(i)
        )
        assert dealt is not None and dealt[1][nine] == dealt[2][nine] == 2
    floors = [rank_of("T")] * 6  # no seat may hold a 9 at all: that fails
    assert (
        _deal_by_evidence(
            empty, [1, 2], {1: 2, 2: 2}, floors, [0] * 6, pool, True, random.Random(0)
        )
        is None
    )
    assert empty == [[0] * NRANKS for _ in range(6)]  # the hands given are left as they were


def test_draw_is_a_hand_from_the_cards() -> None:
    rng = random.Random(3)
    cards = Pool([3] * NRANKS)
    seen = [0] * NRANKS
    for _ in range(3000):
        hand = cards.draw(5, rng)
        assert sum(hand) == 5 and all(0 <= n <= 3 for n in hand)
        for r in range(NRANKS):
            seen[r] += hand[r]
    assert sorted(cards.cards) == [r for r in range(NRANKS) for _ in range(3)]  # reordered only
    assert min(seen) > 0.85 * 1000 and max(seen) < 1.15 * 1000  # every rank about 1/15


def test_fast_can_beat_equals_generation() -> None:
    """legal.can_beat's check without generating plays agrees with the generator (§3)."""
    rng = random.Random(11)
    checked = 0
    for _ in range(20000):
        hand = [0] * NRANKS
        for _ in range(rng.randint(0, 18)):
            hand[rng.randrange(NRANKS)] += 1
        c = [0] * NRANKS
        c[rng.randrange(NRANKS)] = rng.randint(1, 5)
        for j in (TWO, SMALL, BIG):
            if rng.random() < 0.3:
                c[j] += rng.randint(1, 3)
        top = as_play(tuple(c))
        if top is None:
            continue
        generated = next(_beating_shapes(hand, top.shape), None) is not None
        assert can_beat(hand, top) == generated, (hand, str(top))
        checked += 1
    assert checked > 10000


def test_plays_are_shared_and_results_split_into_the_win() -> None:
    p = as_play(parse("22KK"))
    assert p is not None and p is as_play(parse("KK22")) and str(p) == "22KK"
    assert as_play(parse("KQ")) is None
    for diff in range(-12, 13):
        win = 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
        assert win_part(win + diff / MARGIN_SCALE) == win


def test_the_search_leaves_the_knowledge_it_is_given_alone() -> None:
    """search() reads the evidence only its deals need into its own copy of the knowledge:
    the caller's Knowledge is unchanged, and searching twice from it finds the same."""
    searched = 0
    for seed in range(3):
        match = Match(Rules(), seed=500 + seed)
        match.new_game()
        step = 0
        while (ask := match.asked()) is not None:
            g = match.game
            if g is not None and step % 5 == 0:
                seat = ask[0]
                view = g.view(seat)
                k = from_view(view, g.log)
                before = copy.deepcopy(k)
                legal = g.legal(seat)
                normal = decide(g, seat, "normal", random.Random(step)).action
                found = [
                    search(g, view, k, legal, normal, random.Random(step), 0.0, samples=6)
                    for _ in range(2)
                ]
                assert k == before and found[0] == found[1], (seed, step)
                searched += found[0] is not None
            match.apply(decide(match, ask[0], "normal", random.Random(step)).action)
            step += 1
    assert searched > 3, searched

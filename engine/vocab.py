"""The engine's vocabulary: every word it speaks in records, views and events, as ``StrEnum``s.

Each member's value is the exact string of RECORDS.md (or of the deal phase, which records never
contain), so JSON output is unchanged and a member compares equal to its string.
"""

from __future__ import annotations

from enum import StrEnum


class Do(StrEnum):
    """What an action does (RECORDS.md ``do``; the deal-phase ones of §5 and §11 after it)."""

    PLAY = "play"
    PASS = "pass"
    YIELD = "yield"  # 让牌 (§6.4)
    REVOLT = "revolt"  # 革命 (§5.4)
    NO_REVOLT = "no_revolt"
    YAOTOU = "yaotou"  # 要头 (§5.4)
    WUTOU = "wutou"  # 无头
    DECLARE = "declare"  # 宣点 (§5.5)
    NO_DECLARE = "no_declare"
    RETURN = "return"  # 还贡 with cards (§11)
    DEAL = "deal"  # a match record's start of the next game (its seat is null)


PLAY_DOS = (Do.PLAY, Do.PASS, Do.YIELD)
DEAL_DOS = (Do.REVOLT, Do.NO_REVOLT, Do.YAOTOU, Do.WUTOU, Do.DECLARE, Do.NO_DECLARE, Do.RETURN)


class Ask(StrEnum):
    """What the asked seat is asked for."""

    LEAD = "lead"  # must lead (发牌)
    ANSWER = "answer"  # may beat the top or pass
    BURN = "burn"  # may burn the 够级 top (烧牌) or decline
    LAST = "last"  # asked once more after 让牌 (§6.4): beat or pass
    REVOLT = "revolt"  # may declare 革命 (§5.4)
    YAOTOU = "yaotou"  # 对头 of a revolutionary: 要头 or 无头 (§5.4)
    DECLARE = "declare"  # may declare 宣点 (§5.5)
    RETURN = "return"  # must choose cards for 还贡 (§11)


PLAY_ASKS = (Ask.LEAD, Ask.ANSWER, Ask.BURN, Ask.LAST)


class Code(StrEnum):
    """Why an action is refused: RECORDS.md's codes in its precedence order, then the deal's."""

    NOT_YOUR_TURN = "not_your_turn"
    NOT_IN_HAND = "not_in_hand"
    NOT_A_PLAY = "not_a_play"
    THREES = "threes"
    CANNOT_BEAT = "cannot_beat"
    MUST_LEAD = "must_lead"
    CANNOT_YIELD = "cannot_yield"
    BURN_DUTY = "burn_duty"
    NOT_ASKED = "not_asked"  # this kind of action is not what the seat is asked for
    BAD_RETURN = "bad_return"  # 还贡 cards of the wrong number or rank


class Status(StrEnum):
    """A seat's standing in the current game."""

    ACTIVE = "active"
    FINISHED = "finished"
    REVOLTED = "revolted"
    SMOTHERED = "smothered"  # 闷 (§8)
    FAILED = "failed"  # 诈烧 (§7)


class Phase(StrEnum):
    """Where a match stands (RECORDS.md ``state.phase`` for the last three)."""

    IDLE = "idle"  # no game dealt yet
    SETUP = "setup"  # the deal phase (§5)
    PLAY = "play"
    FOUR_WAY = "four_way"  # 四户乱缠 (§12)
    OVER = "over"


class TributeKind(StrEnum):
    """Kinds of tribute (RECORDS.md ``tributes``, §11)."""

    MEN = "men"  # 闷贡
    SHAO = "shao"  # 烧贡
    DIAN = "dian"  # 点贡
    LUO = "luo"  # 落贡
    CHUAN = "chuan"  # 串三户


class LeaderReason(StrEnum):
    """Why a seat leads the first trick (§5.6)."""

    FOURS = "fours"
    THREES = "threes"
    RANDOM = "random"
    DALUO = "daluo"  # the previous game's 大落


class EventType(StrEnum):
    """Events: RECORDS.md's table in its order, then the deal phase's (never in a game record)."""

    PLAY = "play"
    PASS = "pass"
    AUTO_PASS = "auto_pass"
    YIELD = "yield"
    BURN = "burn"
    BURN_BREAK = "burn_break"
    COUNTER_BURN = "counter_burn"
    BURN_SUCCESS = "burn_success"
    BURN_FAIL = "burn_fail"
    SMOTHERED = "smothered"
    TRICK_WON = "trick_won"
    OPENED = "opened"
    FINISHED = "finished"
    WIND = "wind"
    FOUR_WAY = "four_way"
    GAME_OVER = "game_over"
    DEALT = "dealt"  # a new deal (seat None); game: its number in the match
    TRIBUTE_PAID = "tribute_paid"  # seat pays `to`: kind, cards (may be "")
    TRIBUTE_RETURNED = "tribute_returned"  # seat (the receiver) returns cards to `to` (还贡)
    BOUGHT_THREE = "bought_three"  # 买3: seat buys a 3 from `source`, paying `paid`
    GIVEN_THREE = "given_three"  # 要3: seat receives a free 3 from `source`
    REVOLUTION = "revolution"  # 革命; forced when §5.3 leaves no choice
    VOID_DEAL = "void_deal"  # 流局 (seat None); a re-deal follows
    NO_THREE = "no_three"  # a 3 cannot be had: re-deal (seat None)
    YAOTOU = "yaotou"  # the revolutionary's 对头 chose: choice
    DECLARED = "declared"  # 宣点
    LEADER = "leader"  # the first leader of the game: reason


PLAY_EVENTS = tuple(EventType)[: list(EventType).index(EventType.GAME_OVER) + 1]
DEAL_EVENTS = tuple(e for e in EventType if e not in PLAY_EVENTS)

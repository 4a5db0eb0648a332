"""Actions a seat can take, and the typed refusal of an illegal one (RECORDS.md codes)."""

from __future__ import annotations

from dataclasses import dataclass

# Play phase (RECORDS.md "do").
PLAY, PASS, YIELD = "play", "pass", "yield"
# Deal phase (§5): 革命 or not, 要头 or 无头, 宣点 or not, 还贡 with cards.
REVOLT, NO_REVOLT = "revolt", "no_revolt"
YAOTOU, WUTOU = "yaotou", "wutou"
DECLARE, NO_DECLARE = "declare", "no_declare"
RETURN = "return"
DOS = (PLAY, PASS, YIELD, REVOLT, NO_REVOLT, YAOTOU, WUTOU, DECLARE, NO_DECLARE, RETURN)

# What the asked seat is asked for (Game.asked()).
ASK_LEAD = "lead"  # must lead (发牌)
ASK_ANSWER = "answer"  # may beat the top or pass
ASK_BURN = "burn"  # may burn the 够级 top (烧牌) or decline
ASK_LAST = "last"  # asked once more after 让牌 (§6.4): beat or pass
ASK_REVOLT = "revolt"  # may declare 革命 (§5.4)
ASK_YAOTOU = "yaotou"  # 对头 of a revolutionary: 要头 or 无头 (§5.4)
ASK_DECLARE = "declare"  # may declare 宣点 (§5.5)
ASK_RETURN = "return"  # must choose cards for 还贡 (§11)

# Refusal codes, in the precedence order of RECORDS.md.
NOT_YOUR_TURN = "not_your_turn"
NOT_IN_HAND = "not_in_hand"
NOT_A_PLAY = "not_a_play"
THREES = "threes"
BURN_DUTY = "burn_duty"
CANNOT_BEAT = "cannot_beat"
MUST_LEAD = "must_lead"
CANNOT_YIELD = "cannot_yield"
# Deal-phase refusals (not in records).
NOT_ASKED = "not_asked"  # this kind of action is not what the seat is asked for
BAD_RETURN = "bad_return"  # 还贡 cards of the wrong number or rank
CODES = (
    NOT_YOUR_TURN,
    NOT_IN_HAND,
    NOT_A_PLAY,
    THREES,
    CANNOT_BEAT,
    MUST_LEAD,
    CANNOT_YIELD,
    BURN_DUTY,
    NOT_ASKED,
    BAD_RETURN,
)


@dataclass(frozen=True, slots=True)
class Action:
    seat: int
    do: str
    cards: str = ""

    def __str__(self) -> str:
        return f"{self.seat}:{self.do}" + (f":{self.cards}" if self.cards else "")

    @staticmethod
    def parse(text: str) -> Action:
        """The compact form ``seat:do[:cards]`` used in logs and button payloads."""
        parts = text.split(":")
        if len(parts) not in (2, 3) or not parts[0].isdigit() or parts[1] not in DOS:
            raise ValueError(f"not an action: {text!r}")
        return Action(int(parts[0]), parts[1], parts[2] if len(parts) == 3 else "")


class IllegalAction(ValueError):
    """A refused action: ``code`` is a RECORDS.md reason code, ``message`` a player's sentence
    (English; the bot shows its catalog's sentence for ``code`` with ``params``)."""

    def __init__(self, code: str, message: str, **params: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params

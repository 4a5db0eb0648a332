"""Actions a seat can take, and the typed refusal of an illegal one (RECORDS.md codes)."""

from __future__ import annotations

from dataclasses import dataclass

from .vocab import Ask, Code, Do

__all__ = ["Action", "Ask", "Code", "Do", "IllegalAction"]


@dataclass(frozen=True, slots=True)
class Action:
    """``seat`` does ``do``; ``cards`` (notation, docs/rules.md §2) for a play or a 还贡."""

    seat: int
    do: Do
    cards: str = ""

    def __str__(self) -> str:
        return f"{self.seat}:{self.do}" + (f":{self.cards}" if self.cards else "")

    @staticmethod
    def parse(text: str) -> Action:
        """The compact form ``seat:do[:cards]`` used in logs, storage and button payloads."""
        parts = text.split(":")
        if (
            len(parts) not in (2, 3)
            or parts[0] not in ("0", "1", "2", "3", "4", "5")
            or parts[1] not in _DOS
            or parts[1] == Do.DEAL
        ):
            raise ValueError(f"not an action: {text!r}")
        return Action(int(parts[0]), Do(parts[1]), parts[2] if len(parts) == 3 else "")

    def to_json(self) -> dict[str, object]:
        """The record form: ``{"seat", "do"[, "cards"]}``."""
        out: dict[str, object] = {"seat": self.seat, "do": str(self.do)}
        if self.do in (Do.PLAY, Do.RETURN):
            out["cards"] = self.cards
        return out


_DOS = frozenset(d.value for d in Do)


class IllegalAction(ValueError):
    """A refused action: ``code`` is a RECORDS.md reason code, ``message`` a player's sentence
    (English; the bot shows its catalog's sentence for ``code`` with ``params``). The state is
    unchanged."""

    def __init__(self, code: Code, message: str, **params: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params

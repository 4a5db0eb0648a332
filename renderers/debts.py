"""The tributes owed for the next game (docs/rules.md §11), as players read them: two 对头 who owe
each other 点贡 (§9: "neither opened" and the other two-way cells) make one line — both are
paid, each gives the other their own cards (§11: never returned) — instead of two lines in
opposite directions that read like a mistake::

    周五 ⇄ 老李头：互进点贡，各 1张
    小美 ⇄ 阿强：互进点贡，小美 1张、阿强 2张
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.ranking import Debt

from .i18n import t
from .terms import seat_name, tribute_name


@dataclass(frozen=True)
class DebtLine:
    """One line of tributes: ``src`` gives ``dst`` ``cards`` of ``kind``; with ``back`` > 0,
    ``dst`` also gives ``src`` ``back`` of the same kind (a two-way 点贡)."""

    kind: str
    src: int
    dst: int
    cards: int
    back: int = 0

    @property
    def mutual(self) -> bool:
        return self.back > 0


def debt_lines(debts: Sequence[Debt]) -> list[DebtLine]:
    """``debts`` in their order, each pair of debts of one kind between the same two players in
    opposite directions folded into one two-way line (at the first one's place)."""
    out: list[DebtLine] = []
    used: set[int] = set()
    for i, d in enumerate(debts):
        if i in used:
            continue
        j = next(
            (
                j
                for j in range(i + 1, len(debts))
                if j not in used
                and debts[j].kind == d.kind
                and (debts[j].src, debts[j].dst) == (d.dst, d.src)
            ),
            None,
        )
        if j is None:
            out.append(DebtLine(str(d.kind), d.src, d.dst, d.cards))
        else:
            used.add(j)
            out.append(DebtLine(str(d.kind), d.src, d.dst, d.cards, debts[j].cards))
    return out


def debt_text(line: DebtLine, names: Sequence[str], lang: str = "zh") -> str:
    """A line of the tributes for the group (HTML): ``• A → B：点贡×1`` or a two-way one."""
    src, dst = seat_name(line.src, names, lang), seat_name(line.dst, names, lang)
    kind = tribute_name(line.kind, lang)
    if not line.mutual:
        return t(lang, "over.debt", src=src, dst=dst, kind=kind, cards=line.cards)
    if line.cards == line.back:
        return t(lang, "over.debt.mutual", a=src, b=dst, kind=kind, n=line.cards)
    return t(lang, "over.debt.mutual2", a=src, b=dst, kind=kind, n=line.cards, m=line.back)


def debts_text(debts: Sequence[Debt], names: Sequence[str], lang: str = "zh") -> list[str]:
    return [debt_text(line, names, lang) for line in debt_lines(debts)]

"""Callback data: one compact, versioned codec for every button the bot shows.

``<kind><table>.<version>.<op>``: kind one letter (``l`` lobby, ``h`` hand, ``o`` game over,
``s`` settings, ``v`` a vote about an absent player's seat, whose "version" is the seat), the
table id and version in base 36, the op an ASCII word such as ``r8`` (tap the 8s) or ``q2``
(the third one-tap answer). Always ≤ 64 bytes (Telegram's limit); anything that does not
decode is refused with :class:`BadCallback`, never an exception elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = frozenset("lhosv")
MAX_BYTES = 64
_RE = re.compile(r"([lhosv])([0-9a-z]{1,10})\.([0-9a-z]{1,8})\.([A-Za-z][A-Za-z0-9_]{0,31})")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


class BadCallback(ValueError):
    """Callback data the bot did not make (forged, truncated, or from an older bot)."""


def b36(n: int) -> str:
    if n < 0:
        raise ValueError("negative")
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _DIGITS[r] + out
        if n == 0:
            return out


@dataclass(frozen=True)
class Callback:
    kind: str  # l | h | o | s | v
    table: int
    version: int
    op: str

    def encode(self) -> str:
        data = f"{self.kind}{b36(self.table)}.{b36(self.version)}.{self.op}"
        if len(data.encode()) > MAX_BYTES or not _RE.fullmatch(data):
            raise ValueError(f"callback data out of bounds: {data!r}")
        return data

    @staticmethod
    def decode(data: str | None) -> Callback:
        if not isinstance(data, str) or len(data) > MAX_BYTES:
            raise BadCallback("not our button")
        m = _RE.fullmatch(data)
        if m is None:
            raise BadCallback("not our button")
        kind, table, version, op = m.groups()
        return Callback(kind, int(table, 36), int(version, 36), op)

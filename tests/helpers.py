"""Test helpers: records written in notation strings, replayed through the engine."""

from __future__ import annotations

from typing import Any

from engine.record import parse_record, replay


def acts(text: str) -> list[dict[str, Any]]:
    """``"0 play QQQ, 3 pass, 4 yield"`` → RECORDS.md actions."""
    out: list[dict[str, Any]] = []
    for part in text.split(","):
        words = part.split()
        if not words:
            continue
        a: dict[str, Any] = {"seat": int(words[0]), "do": words[1]}
        if words[1] == "play":
            a["cards"] = words[2]
        out.append(a)
    return out


def run(
    hands: list[str],
    actions: str = "",
    leader: int = 0,
    rules: Any = "standard",
    **extra: Any,
) -> dict[str, Any]:
    record = {"rules": rules, "hands": hands, "leader": leader, "actions": acts(actions), **extra}
    out, _status = replay(parse_record(record))
    return out


def ev(out: dict[str, Any]) -> list[str]:
    """Events as compact strings: ``"play 0 QQQ"``, ``"burn 1 victim=2"``, ``"four_way"``."""
    res = []
    for e in out["events"]:
        parts = [e["type"]]
        if e["seat"] is not None:
            parts.append(str(e["seat"]))
        for k, v in e.items():
            if k in ("type", "seat", "gouji"):
                continue
            parts.append(str(v) if k == "cards" else f"{k}={v}")
        res.append(" ".join(parts))
    return res


def error_code(out: dict[str, Any]) -> str | None:
    err = out.get("error")
    return err["code"] if err else None

"""Every read of an engine ``Event`` by the renderers goes through these few functions, so a change
of the event type (typed fields, enums) is adapted here once (RECORDS.md "events")."""

from __future__ import annotations

from engine.events import Event


def kind(event: Event) -> str:
    """The event's type as its RECORDS.md string (``"play"``, ``"trick_won"``…)."""
    return str(event.type)


def seat(event: Event) -> int | None:
    """The seat the event is about, or None (``dealt``, ``four_way``, ``game_over``…)."""
    return event.seat


def num(event: Event, key: str) -> int | None:
    """An integer field (``rank``, ``victim``, ``burner``, ``by``, ``to``…), or None."""
    value = event.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def text(event: Event, key: str) -> str:
    """A string field (``cards``, ``kind``, ``reason``, ``choice``…), or ``""``."""
    value = event.get(key)
    return value if isinstance(value, str) else ""


def flag(event: Event, key: str) -> bool:
    """A boolean field (``gouji``, the internal ``claim``): True only when set to True."""
    return event.get(key) is True


def declined_burn(event: Event) -> bool:
    """A ``pass`` that declines a burn claim (§7): never shown to the group or other players."""
    return kind(event) == "pass" and flag(event, "claim")

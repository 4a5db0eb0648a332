"""What a player reads in their DM: the turn prompt, refusals of illegal actions, button labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.seats import opposite
from engine.view import SeatView
from engine.vocab import Ask, Do

from .i18n import Catalog, lang_or_default, placeholders
from .terms import card_text, failed_rank, hand_text, seat_name

# Button labels: the keys of the ``btn.*`` messages (engine.actions "do" values plus UI-only ones).
BUTTONS = (
    "play",
    "pass",
    "yield",
    "burn",
    "no_burn",
    "clear",
    "hint",
    "revolt",
    "no_revolt",
    "yaotou",
    "wutou",
    "declare",
    "no_declare",
    "return",
)


def button_text(button: str, lang: str = "zh") -> str:
    """The label of a button (one of :data:`BUTTONS`): plain text, no HTML."""
    return Catalog.load(lang).text(f"btn.{button}")


def refusal_text(code: str, lang: str = "zh", **params: object) -> str:
    """The sentence for a refusal code (engine.actions.CODES). With ``cards`` (and ``top`` for
    ``cannot_beat``) in notation, the sentence names them."""
    cat = Catalog.load(lang)
    key = f"refuse.{code}" if f"refuse.{code}" in cat else "refuse.unknown"
    detail = f"{key}.detail"
    if detail in cat and placeholders(cat.template(detail)) <= params.keys():
        shown = {
            k: card_text(str(v), cat.lang) if k in ("cards", "top") else v
            for k, v in params.items()
        }
        return cat.text(detail, **shown)
    return cat.text(key)


def prompt_text(
    view: SeatView, lang: str = "zh", names: Sequence[str] = (), *, brief: bool = False
) -> str:
    """What the asked player is asked, for their DM (HTML). ``view`` is that player's view; with
    ``names`` the prompt names other players, else it says ``N号位``. ``brief``: beside the
    table lines of :func:`renderers.dm.table_lines` and the hand's picture, neither who is
    burning nor the hand in words."""
    lang = lang_or_default(lang)
    cat = Catalog.load(lang)
    seen: set[str] = set()

    def line(key: str, **params: object) -> str:
        return cat.text(key, seen, **params)

    def name(seat: int | None) -> str:
        return seat_name(seat, names, lang)

    if view.phase == "over":
        return line("ask.over")
    me = view.seat
    if me is None or view.to_act != me:
        if view.asked == Ask.BURN:  # §7: who is asked to burn holds a beater; do not say who
            return line("ask.wait.anyone")
        return line("ask.wait", name=name(view.to_act))

    lines: list[str] = []
    top = view.top
    owner = name(top.seat) if top is not None else "?"
    cards = card_text(top.cards, lang) if top is not None else ""
    asked = view.asked
    if asked == Ask.LEAD or (asked in (Ask.ANSWER, Ask.LAST) and top is None):
        lines.append(line("ask.lead.burning" if view.burning == me else "ask.lead"))
    elif asked == Ask.ANSWER:
        key = "ask.answer"
        if top is not None and top.burn and view.burning is not None:
            # §7: the burner's 对头 (or a 无头 player, §12) breaks the burn; others counter-burn
            breaks = opposite(view.burning) == me or (me < len(view.headless) and view.headless[me])
            key = "ask.answer.burn.break" if breaks else "ask.answer.burn.counter"
        elif top is not None and top.gouji and view.phase != "four_way":  # §12: no 够级
            key = "ask.answer.gouji"
        lines.append(line(key, owner=owner, cards=cards))
    elif asked == Ask.BURN:
        # §7: a claim on a burn play is 反烧 (the burner's 对头 answers it as 解烧 instead)
        key = "ask.burn.counter" if top is not None and top.burn else "ask.burn"
        if key == "ask.burn.counter" and view.rules.tribute != "all":
            key += ".free"  # §11: only 进贡 "all" collects 烧贡
        bottom = failed_rank(view.status, lang)
        lines.append(line(key, owner=owner, cards=cards, bottom=bottom))
    elif asked == Ask.LAST:
        lines.append(line("ask.last", cards=cards))
    elif asked == Ask.REVOLT:
        lines.append(line("ask.revolt"))
    elif asked == Ask.YAOTOU:
        key = "ask.yaotou" if view.rules.open_point else "ask.yaotou.noopen"  # §9: 开点 off
        lines.append(line(key, rev=name(opposite(me))))
    elif asked == Ask.DECLARE:
        paid = view.rules.open_point and view.rules.tribute == "all"  # §11: 点贡 collected
        key = "ask.declare" if paid else "ask.declare.free"
        lines.append(line(key, target=name(opposite(me))))
    elif asked == Ask.RETURN:
        if view.returning is not None:
            payer, count = view.returning
            lines.append(line("ask.return.to", to=seat_name(payer, names, lang), n=count))
        else:
            lines.append(line("ask.return"))
    else:
        lines.append(line("ask.lead"))

    if view.phase == "four_way":
        lines.append(line("prompt.four_way"))
    elif me < len(view.headless) and view.headless[me] and view.phase == "play":
        lines.append(line("prompt.headless"))
    if view.burning is not None and view.burning != me and not brief:
        lines.append(line("prompt.burning_other", name=name(view.burning)))
    if view.hand is not None and not brief:
        lines.append(line("prompt.hand", n=len(view.hand), cards=hand_text(view.hand, lang)))
    return "\n".join(lines)


def hint_text(
    do: str,
    cards: str,
    reason: str,
    params: Mapping[str, object] | None = None,
    lang: str = "zh",
    claim: bool = False,
) -> str:
    """The hint button's answer (HTML): the suggested action — ``do`` and ``cards`` of an
    engine Action; ``claim`` when a pass declines a burn — and why, from an AI reason code
    (engine.ai.REASONS) and its params."""
    cat = Catalog.load(lang)
    seen: set[str] = set()
    action_key = "hint.do.claim" if claim and do == Do.PASS else f"hint.do.{do}"
    if action_key not in cat:
        action_key = "hint.do.pass"
    action = cat.text(action_key, seen, cards=card_text(cards, cat.lang))
    lines = [cat.text("hint.title", seen, action=action)]
    key = f"hint.{reason}"
    values = dict(params or {})
    if key in cat and placeholders(cat.template(key)) <= values.keys():
        lines.append(cat.text(key, seen, **values))
    return "\n".join(lines)

"""Pure presentation: engine views and events in, ``str`` (Telegram HTML) or PNG ``bytes`` out.

No Telegram imports and no I/O beyond reading the project's own ``data/`` (catalogs, the font),
each read once and cached.
"""

from .announce import game_over_caption
from .guide import help_text, rules_text, switch_value
from .hand_image import render_hand
from .i18n import DEFAULT_LANG, LANGS, Catalog, t
from .png import render_game_over, render_table
from .prompts import BUTTONS, button_text, hint_text, prompt_text, refusal_text
from .terms import (
    card_text,
    clean_name,
    hand_text,
    person,
    rank_name,
    seat_name,
    team_names,
    tribute_name,
)
from .transcript import Transcript

__all__ = [
    "BUTTONS",
    "DEFAULT_LANG",
    "LANGS",
    "Catalog",
    "Transcript",
    "button_text",
    "card_text",
    "clean_name",
    "game_over_caption",
    "hand_text",
    "help_text",
    "hint_text",
    "person",
    "prompt_text",
    "rank_name",
    "refusal_text",
    "render_game_over",
    "render_hand",
    "render_table",
    "rules_text",
    "seat_name",
    "switch_value",
    "t",
    "team_names",
    "tribute_name",
]

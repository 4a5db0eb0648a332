"""The message catalog: one JSON object per language in ``data/i18n/<lang>.json``, plus the
bot's own words in ``data/i18n/bot.<lang>.json`` (merged; a key may be defined once).

Each value is a ``str.format`` template with named placeholders (``{name}``) and Telegram HTML
(``<b>``). English templates mark a player's term with brackets, ``burns [烧]``: the first time a
term appears in one message it is shown as ``burns (烧)``, later in the same message just
``burns`` (docs/rules.md keeps the Chinese terms; English readers learn them in passing).

Parameters are inserted as given: callers escape user text (player names) with :func:`html.escape`
before passing it, and the term markers are expanded in the template before formatting, so text
inside a parameter is never touched.
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from pathlib import Path

from .fit import MAX_MESSAGE

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
CATALOG_DIR = DATA_DIR / "i18n"
LANGS = ("zh", "en")
DEFAULT_LANG = "zh"

_TERM = re.compile(r"( ?)\[([^\[\]]+)\]")


def lang_or_default(lang: str) -> str:
    """``lang`` when the catalog has it, else the default (simplified Chinese)."""
    return lang if lang in LANGS else DEFAULT_LANG


def expand_terms(template: str, seen: set[str] | None = None) -> str:
    """Replace ``[术语]`` markers: `` (术语)`` the first time (noted in ``seen``), then nothing."""
    if seen is None:
        seen = set()

    def one(m: re.Match[str]) -> str:
        term = m.group(2)
        if term in seen:
            return ""
        seen.add(term)
        return f"{m.group(1)}({term})"

    return _TERM.sub(one, template)


def placeholders(template: str) -> frozenset[str]:
    """The named fields of a ``str.format`` template."""
    return frozenset(
        field for _, field, _, _ in string.Formatter().parse(template) if field is not None
    )


class Catalog:
    """The messages of one language, read once from ``data/i18n/<lang>.json``."""

    def __init__(self, lang: str, messages: dict[str, str]) -> None:
        self.lang = lang
        self.messages = messages

    @staticmethod
    @cache
    def load(lang: str) -> Catalog:
        lang = lang_or_default(lang)
        messages: dict[str, str] = {}
        # <lang>.json (the game's words), then each <part>.<lang>.json (e.g. the bot's own)
        for path in [CATALOG_DIR / f"{lang}.json", *sorted(CATALOG_DIR.glob(f"*.{lang}.json"))]:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in data.items()
            ):
                raise ValueError(f"{path}: a catalog is a JSON object of strings")
            clash = set(data) & set(messages)
            if clash:
                raise ValueError(f"{path}: {sorted(clash)[0]!r} is defined twice")
            messages.update(data)
        return Catalog(lang, messages)

    def __contains__(self, key: str) -> bool:
        return key in self.messages

    def template(self, key: str) -> str:
        try:
            return self.messages[key]
        except KeyError:
            raise KeyError(f"no message {key!r} in the {self.lang} catalog") from None

    def text(self, key: str, seen: set[str] | None = None, /, **params: object) -> str:
        """The message ``key`` with ``params`` filled in; ``seen`` shares term markers across
        the lines of one message (see the module doc)."""
        return expand_terms(self.template(key), seen).format_map(params)


def t(lang: str, key: str, **params: object) -> str:
    """One message of the catalog of ``lang`` (simplified Chinese when ``lang`` is unknown)."""
    return Catalog.load(lang).text(key, **params)


def fit_message(lines: list[str], lang: str, limit: int = MAX_MESSAGE) -> str:
    """Join ``lines``; when the result is too long for one Telegram message, keep the latest
    lines that fit after a note saying how many earlier ones were left out."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        if len(line) > limit - 100:
            line = line[: limit - 101] + "…"
        if size + len(line) + 1 > limit - 100:
            break
        kept.append(line)
        size += len(line) + 1
    kept.reverse()
    note = t(lang, "ev.more", n=len(lines) - len(kept))
    return "\n".join([note, *kept])

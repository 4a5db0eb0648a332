"""The whole rulebook inside Telegram: ``/rules`` in pages, in the chat's language, with the
table's own §13 switches marked.

``docs/rules.md`` is the players' rulebook (both languages); the container does not ship
``docs/``, so its pages are built ahead of time into ``data/rulebook.json``
(``python -m renderers rulebook``; tests/test_rulebook.py checks that the file is a fresh build)
and read from there at run time. A page is Telegram HTML well within the 4096-character limit;
each §13 switch entry carries a marker that :func:`rulebook_page` replaces with this table's
setting (✅/❌, or the value in words).

The pages are for players: what ``docs/rules.md`` says for developers — the code names of the
switches (`` `bie3` ``), the record notation, where the other language is — is left out
(:data:`FOR_DEVELOPERS`). ``/rules`` opens with this table's switches (:func:`book_page` 1),
the rulebook after it.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from engine.rules import Rules

from .fit import visible_length
from .guide import rules_text, switch_value
from .i18n import DATA_DIR, Catalog, lang_or_default

BOOK_FILE = DATA_DIR / "rulebook.json"
PAGE_LIMIT = 2800  # visible characters of a page before its marks and header (≤ 4096)
HALVES = {"zh": "# 够级规则（中文）", "en": "# Gouji rules (English)"}
MARK = re.compile(r"⟦([a-z_0-9]+)⟧")  # a §13 switch's place for this table's setting
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`]+)`")
# What docs/rules.md says for developers only: whole lines (the record notation, the pointer to
# the other half) and phrases (code names in parentheses, the sentence introducing them).
FOR_DEVELOPERS = (
    re.compile(
        r"^- (English: the second half|牌局记录里一张牌记一个字符|Game records write one).*$"
    ),
    re.compile(r"再写代码名（牌局记录里用的名字），"),
    re.compile(r", then by its code name \(used in game\s+records\)"),
)
_NAME = r"`[a-z_0-9]+`"
_CODE_NAMES = (
    (re.compile(r"（" + _NAME + "(，|、)"), "（"),  # （`kill_big_joker`，§13） → （§13）
    (re.compile(r"（" + _NAME + "）"), ""),  # **标准打法**（`standard`） → **标准打法**
    (re.compile(r" \(" + _NAME + r"(, |; )"), " ("),  # (`kill_big_joker`, §13) → (§13)
    (re.compile(r"\s?\(" + _NAME + r"\)"), ""),  # **all** (`all`) → **all**
    (re.compile(r",? the standard is " + _NAME), ""),
    (re.compile(r" " + _NAME), ""),  # **憋3** `bie3`：, 开关：烧牌 `burn`。
)


def for_players(markdown: str) -> str:
    """``markdown`` without what is said for developers only (:data:`FOR_DEVELOPERS`) and without
    the code names of switches; a §13 switch's item keeps its mark ``⟦name⟧``."""
    lines = [line for line in markdown.splitlines() if not FOR_DEVELOPERS[0].match(line)]
    text = "\n".join(lines) + "\n"
    for phrase in FOR_DEVELOPERS[1:]:
        text = phrase.sub("", text)
    text = _SWITCH_MD.sub(lambda m: f"- **{m.group(1)}** ⟦{m.group(2)}⟧", text)
    for pattern, repl in _CODE_NAMES:
        text = pattern.sub(repl, text)
    return text


_SWITCH_MD = re.compile(r"^- \*\*([^*]+)\*\* `([a-z_0-9]+)`", re.MULTILINE)


def halves(markdown: str) -> dict[str, str]:
    """The rulebook's two halves by language (each from its ``#`` title on)."""
    zh_at, en_at = markdown.find(HALVES["zh"] + "\n"), markdown.find(HALVES["en"] + "\n")
    if zh_at < 0 or en_at < zh_at:
        raise ValueError("the rulebook has a Chinese half, then an English half")
    return {"zh": markdown[zh_at:en_at], "en": markdown[en_at:]}


def _inline(text: str) -> str:
    """Markdown's bold and code spans as Telegram HTML (the rest escaped)."""
    out = html.escape(text, quote=False)
    out = _BOLD.sub(r"<b>\1</b>", out)
    return _CODE.sub(r"<code>\1</code>", out)


def _joined(a: str, b: str) -> str:
    """Two lines of one paragraph: no space between Chinese text, one between words."""
    if a and b and (ord(a[-1]) > 0x2E80 or ord(b[0]) > 0x2E80):
        return a + b
    return f"{a} {b}"


def blocks(half: str) -> list[str]:
    """One half of the rulebook as blocks of Telegram HTML: a heading, a paragraph, a list item
    (with its indented lines); a §13 switch's item carries its mark after the button name."""
    out: list[str] = []
    para: list[str] = []  # raw lines of the block in progress

    def flush() -> None:
        if para:
            out.append(_block(para))
            para.clear()

    for line in half.splitlines():
        if not line.strip():
            flush()
        elif line.startswith("#"):
            flush()
            out.append("<b>" + _inline(line.lstrip("#").strip()) + "</b>")
        elif line.startswith("- "):
            flush()
            para.append(line)
        else:
            para.append(line)
    flush()
    return out


def _block(lines: list[str]) -> str:
    """A paragraph or a list item (its sub-items and indented lines each on a line)."""
    rows: list[str] = []
    for raw in lines:
        stripped = raw.strip()
        if raw.startswith("- "):
            rows.append("• " + _inline(raw[2:]))  # a §13 switch's item keeps its ⟦mark⟧
        elif stripped.startswith("- "):
            rows.append("　◦ " + _inline(stripped[2:]))
        elif raw.startswith(" ") and rows:
            rows.append("　" + _inline(stripped))
        elif rows:
            rows[-1] = _joined(rows[-1], _inline(stripped))
        else:
            rows.append(_inline(stripped))
    return "\n".join(rows)


def paginate(parts: list[str], limit: int = PAGE_LIMIT) -> list[str]:
    """Blocks packed into pages of at most ``limit`` visible characters, in order; a heading
    never ends a page, and a ``##`` section starts a new page when the page is half full."""
    pages: list[list[str]] = [[]]
    size = 0
    for i, part in enumerate(parts):
        n = visible_length(part) + 2
        heading = part.startswith("<b>") and part.endswith("</b>") and "\n" not in part
        follow = visible_length(parts[i + 1]) + 2 if heading and i + 1 < len(parts) else 0
        section = heading and ("§" in part) and "." not in part.split()[0]
        full = size + n + follow > limit or (section and size > limit // 2)
        if pages[-1] and full:
            pages.append([])
            size = 0
        pages[-1].append(part)
        size += n
    return ["\n\n".join(page) for page in pages if page]


def build(markdown: str) -> dict[str, list[str]]:
    """The rulebook's pages by language, from the text of ``docs/rules.md``."""
    return {lang: paginate(blocks(for_players(half))) for lang, half in halves(markdown).items()}


def write_book(markdown_path: Path, out: Path = BOOK_FILE) -> dict[str, list[str]]:
    """``data/rulebook.json`` built anew from ``markdown_path`` (``docs/rules.md``)."""
    book = build(markdown_path.read_text(encoding="utf-8"))
    out.write_text(json.dumps(book, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return book


@cache
def _book() -> dict[str, list[str]]:
    data = json.loads(BOOK_FILE.read_text(encoding="utf-8"))
    return {str(k): [str(p) for p in v] for k, v in data.items()}


def rulebook_pages(lang: str = "zh") -> int:
    """How many pages the rulebook has in ``lang``."""
    return len(_book()[lang_or_default(lang)])


def rulebook_page(page: int, switches: Mapping[str, object], lang: str = "zh") -> str:
    """Page ``page`` (0-based, clamped) of the rulebook in ``lang`` with its number, each §13
    switch marked with this table's setting from ``switches`` (``Rules.switches()``)."""
    lang = lang_or_default(lang)
    pages = _book()[lang]
    page = min(max(page, 0), len(pages) - 1)
    cat = Catalog.load(lang)

    def mark(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in switches:
            return ""
        value = switches[name]
        shown = switch_value(name, value, lang)
        return shown if isinstance(value, bool) else cat.text("book.this_table", v=shown)

    head = cat.text("book.page", n=page + 1, total=len(pages))
    return head + "\n\n" + MARK.sub(mark, pages[page])


def book_pages(lang: str = "zh") -> int:
    """How many pages ``/rules`` has: this table's switches, then the rulebook."""
    return rulebook_pages(lang) + 1


def book_page(page: int, rules: Rules, lang: str = "zh") -> str:
    """Page ``page`` (0-based, clamped) of ``/rules``: page 0 is this table's switches in words
    (:func:`renderers.guide.rules_text`), the rulebook's pages follow with the switches marked."""
    lang = lang_or_default(lang)
    total = book_pages(lang)
    page = min(max(page, 0), total - 1)
    cat = Catalog.load(lang)
    head = cat.text("book.page", n=page + 1, total=total)
    if page == 0:
        return f"{head}\n\n{rules_text(rules, lang)}\n\n{cat.text('book.then')}"
    body = rulebook_page(page - 1, rules.switches(), lang)
    return head + body[body.index("\n\n") :]

"""Telegram's HTML parse mode, as its parser reads a message (tdlib's ``parse_html``), made
stricter where Telegram's documentation forbids what its parser lets through:

* tags: ``b strong i em u ins s strike del tg-spoiler code pre blockquote``, ``span`` only
  with ``class="tg-spoiler"``, ``a`` only with ``href``, ``tg-emoji`` only with a numeric
  ``emoji-id``, ``code class="language-…"`` (inside ``pre``), ``blockquote expandable``;
* entities: only ``&lt; &gt; &amp; &quot;`` and numeric ones (``&#NN;``, ``&#xHH;``), each with
  its ``;`` — Telegram shows any other ``&`` as it is, its documentation says it "must be
  replaced with &amp;": here it is refused;
* nesting: ``code`` and ``pre`` hold nothing but text (``pre`` a ``code``) and are not inside
  ``a``; no ``a`` in an ``a``, no ``blockquote`` in a ``blockquote`` (the documentation says
  these "can't contain each other"; Telegram would drop such an entity).

:func:`parse_html` gives the text a user sees; errors carry Telegram's wording, after "can't
parse entities: " (byte offsets into the UTF-8 text, as Telegram counts them).
"""

from __future__ import annotations

import re

TAGS = frozenset(
    {"a", "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "tg-spoiler", "tg-emoji",
     "span", "pre", "code", "blockquote"}
)  # fmt: skip
NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_SPACE = " \t\n\r\f\v"
_ENTITY = re.compile(r"&(?:#x([0-9a-fA-F]*)|#([0-9]*)|([a-zA-Z]*))(;?)")
_NAME_TOKEN = re.compile(r"[A-Za-z0-9.-]*")
_TEXT_ONLY = frozenset({"code", "pre"})  # entities that can't contain others


class HtmlError(ValueError):
    """Text Telegram's HTML parser refuses; ``str()`` is its description."""


def _offset(text: str, index: int) -> int:
    return len(text[:index].encode())


def _entity(text: str, pos: int, *, strict: bool) -> tuple[str, int] | None:
    """The character an entity at ``text[pos] == "&"`` stands for and where it ends; None for
    an ``&`` that is no entity (refused with ``strict``)."""
    m = _ENTITY.match(text, pos)
    assert m is not None
    hex_digits, digits, name, semicolon = m.groups()
    code = 0
    if hex_digits is not None or digits is not None:
        number = hex_digits if hex_digits is not None else digits
        code = int(number, 16 if hex_digits is not None else 10) if number else 0
        good = 0 < code < 0x10FFFF and m.end() - pos - (1 if semicolon else 0) < 10
        char = chr(code) if good else None
    else:
        char = NAMED.get(name)
    if char is not None and (semicolon or not strict):
        if 0xD800 <= ord(char) <= 0xDFFF:
            raise HtmlError(
                "Text contains invalid Unicode characters after decoding HTML entities, check "
                "for unmatched surrogate code units"
            )
        return char, m.end()
    if strict:
        shown = m.group(0) if m.end() > pos + 1 else "&"
        raise HtmlError(
            f'Unsupported HTML entity "{shown}" at byte offset {_offset(text, pos)}: only &lt; '
            "&gt; &amp; &quot; and numeric entities, each ending with ;"
        )
    return None


class _Open:
    def __init__(self, name: str, at: int, argument: str) -> None:
        self.name, self.at, self.argument = name, at, argument


def parse_html(text: str) -> str:
    """The visible text of an HTML-formatted message, or :class:`HtmlError`."""
    out: list[str] = []
    stack: list[_Open] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "&":
            decoded = _entity(text, i, strict=True)
            assert decoded is not None
            out.append(decoded[0])
            i = decoded[1]
            continue
        if c != "<":
            out.append(c)
            i += 1
            continue
        begin = i
        i += 1
        if i < n and text[i] == "/":
            i = _end_tag(text, begin, stack)
            continue
        while i < n and text[i] not in _SPACE and text[i] != ">":
            i += 1
        if i >= n:
            raise HtmlError(f"Unclosed start tag at byte offset {_offset(text, begin)}")
        name = text[begin + 1 : i].lower()
        if name not in TAGS:
            raise HtmlError(f'Unsupported start tag "{name}" at byte offset {_offset(text, begin)}')
        attributes, i = _attributes(text, i, name, begin)
        stack.append(_Open(name, begin, _check_start(text, name, attributes, begin, stack)))
    if stack:
        raise HtmlError(f"Can't find end tag corresponding to start tag {stack[-1].name}")
    return "".join(out)


def _attributes(text: str, i: int, tag: str, begin: int) -> tuple[dict[str, str], int]:
    """The attributes of a start tag from ``text[i]`` to its ``>``; returns them and the index
    after the ``>``."""
    n, at = len(text), _offset(text, begin)
    attributes: dict[str, str] = {}
    while True:
        while i < n and text[i] in _SPACE:
            i += 1
        if i >= n:
            raise HtmlError(f'Unclosed start tag "{tag}" at byte offset {at}')
        if text[i] == ">":
            return attributes, i + 1
        start = i
        while i < n and text[i] not in _SPACE and text[i] not in "=>":
            i += 1
        name = text[start:i]
        if not name:
            raise HtmlError(f'Empty attribute name in the tag "{tag}" at byte offset {at}')
        while i < n and text[i] in _SPACE:
            i += 1
        if tag == "blockquote" and name == "expandable" and (i >= n or text[i] != "="):
            attributes[name] = ""
            continue
        if i >= n or text[i] != "=":
            raise HtmlError(
                f'Expected equal sign in declaration of an attribute of the tag "{tag}" at byte '
                f"offset {at}"
            )
        i += 1
        while i < n and text[i] in _SPACE:
            i += 1
        if i >= n:
            raise HtmlError(f'Unclosed start tag "{tag}" at byte offset {at}')
        if text[i] not in "'\"":
            token = _NAME_TOKEN.match(text, i)
            assert token is not None
            value, i = token.group(0).lower(), token.end()
            if i < n and text[i] not in _SPACE and text[i] != ">":
                raise HtmlError(f"Unexpected end of name token at byte offset {_offset(text, i)}")
        else:
            quote, i = text[i], i + 1
            chars: list[str] = []
            while i < n and text[i] != quote:
                if text[i] == "&":
                    decoded = _entity(text, i, strict=True)
                    assert decoded is not None
                    chars.append(decoded[0])
                    i = decoded[1]
                    continue
                chars.append(text[i])
                i += 1
            if i >= n:
                raise HtmlError(f"Unclosed start tag at byte offset {at}")
            value, i = "".join(chars), i + 1
        attributes[name] = value


def _check_start(
    text: str, name: str, attributes: dict[str, str], begin: int, stack: list[_Open]
) -> str:
    """What a start tag needs (and may not be inside); returns its argument."""
    at = _offset(text, begin)
    argument = ""
    if name == "span":
        if attributes.get("class") != "tg-spoiler":
            raise HtmlError(f'Tag "span" must have class "tg-spoiler" at byte offset {at}')
    elif name == "a":
        argument = attributes.get("href", "")
        if not argument:
            raise HtmlError(f'Tag "a" must have a non-empty attribute "href" at byte offset {at}')
    elif name == "tg-emoji":
        emoji_id = attributes.get("emoji-id", "")
        if not emoji_id.isdigit() or int(emoji_id) == 0:
            raise HtmlError("Invalid custom emoji identifier specified")
    elif name == "code":
        language = attributes.get("class", "")
        argument = language.removeprefix("language-") if language.startswith("language-") else ""
    outer = stack[-1].name if stack else None
    inside = [o.name for o in stack]
    if name == "code" and outer == "pre" and inside.count("pre") == 1 and "code" not in inside:
        conflict = None  # <pre><code class="language-…">: a code block
    elif any(o in _TEXT_ONLY for o in inside):
        conflict = next(o for o in reversed(inside) if o in _TEXT_ONLY)
    elif name in ("a", "blockquote") and name in inside:
        conflict = name
    elif name in _TEXT_ONLY and "a" in inside:
        conflict = "a"
    else:
        conflict = None
    if conflict is not None:
        raise HtmlError(f'Tag "{name}" can\'t be inside "{conflict}" at byte offset {at}')
    return argument


def _end_tag(text: str, begin: int, stack: list[_Open]) -> int:
    """Close the innermost open tag at the end tag ``text[begin:]``; the index after it."""
    n, at = len(text), _offset(text, begin)
    if not stack:
        raise HtmlError(f"Unexpected end tag at byte offset {at}")
    i = begin + 2
    while i < n and text[i] not in _SPACE and text[i] != ">":
        i += 1
    name = text[begin + 2 : i].lower()
    while i < n and text[i] in _SPACE:
        i += 1
    if i >= n or text[i] != ">":
        raise HtmlError(f"Unclosed end tag at byte offset {at}")
    expected = stack[-1].name
    if name and name != expected:
        raise HtmlError(
            f'Unmatched end tag at byte offset {at}, expected "</{expected}>", found "</{name}>"'
        )
    stack.pop()
    return i + 1


def visible_text(text: str) -> str:
    """:func:`parse_html`'s text, or (for text it refuses) the tags dropped and the entities
    Telegram knows decoded."""
    try:
        return parse_html(text)
    except HtmlError:
        out, i = [], 0
        plain = re.sub(r"<[^<>]*>", "", text)
        while i < len(plain):
            decoded = _entity(plain, i, strict=False) if plain[i] == "&" else None
            if decoded is None:
                out.append(plain[i])
                i += 1
            else:
                out.append(decoded[0])
                i = decoded[1]
        return "".join(out)

"""A text the bot said and stored (an audit outcome) in the current locale, when the catalogs
know it.

The audit log keeps each outcome as it was said to the person who asked, in their language. To
show it to a reader of another language, the text is matched against every catalog's sentences
(the English ids and each translation), its ``{placeholders}`` read back from the match, and the
same sentence is said again in the current locale with those values. A text no sentence matches
(older wording, an error from elsewhere) comes back unchanged.
"""

from __future__ import annotations

__all__ = ["retranslate"]

import functools
import re
import string
from dataclasses import dataclass

from babel.messages.pofile import read_po

from bot.i18n import DOMAIN, _, available_locales, catalog_dir, current_locale

_FIELDS = string.Formatter()
MIN_LETTERS = 3
MAX_DEPTH = 2  # a value that is itself a sentence ("{error}") is said again too, once


@dataclass(frozen=True, slots=True)
class _Pattern:
    msgid: str
    prefix: str  # the literal text before the first placeholder: a cheap first test
    regex: re.Pattern[str]
    literal: int  # how much of it is literal text: the closest match wins


def _pattern(msgid: str, said: str) -> _Pattern | None:
    parts: list[str] = []
    seen: set[str] = set()
    literal = 0
    try:
        pieces = list(_FIELDS.parse(said))
    except ValueError:
        return None
    for text, name, _spec, _conv in pieces:
        parts.append(re.escape(text))
        literal += len(text)
        if name is None:
            continue
        if not name.isidentifier():
            return None
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
    # a sentence of placeholders and little else ("{server}: {text}") would match anything
    if not seen or sum(ch.isalpha() for ch in "".join(p[0] for p in pieces)) < MIN_LETTERS:
        return None
    prefix = pieces[0][0] if pieces else ""
    return _Pattern(msgid, prefix, re.compile("".join(parts), re.DOTALL), literal)


@functools.cache
def _sentences() -> tuple[dict[str, str], tuple[_Pattern, ...]]:
    """Every plain sentence (id or translation -> id) and every sentence with placeholders."""
    plain: dict[str, str] = {}
    patterns: list[_Pattern] = []
    ids: set[str] = set()
    for locale in available_locales()[1:]:
        po = catalog_dir() / locale / "LC_MESSAGES" / f"{DOMAIN}.po"
        with po.open("rb") as f:
            catalog = read_po(f, locale=locale, domain=DOMAIN)
        for message in catalog:
            if not message.id or message.context or not isinstance(message.id, str):
                continue
            said = [message.id]
            if isinstance(message.string, str) and message.string and not message.fuzzy:
                said.append(message.string)
            for text in said:
                if "{" not in text:
                    plain.setdefault(text, message.id)
                elif (text, message.id) not in ids and (found := _pattern(message.id, text)):
                    ids.add((text, message.id))  # type: ignore[arg-type]
                    patterns.append(found)
    patterns.sort(key=lambda p: -p.literal)
    return plain, tuple(patterns)


def _again(text: str, depth: int) -> str:
    plain, patterns = _sentences()
    if text in plain:
        return _(plain[text])
    if depth >= MAX_DEPTH:
        return text
    for pattern in patterns:
        if not text.startswith(pattern.prefix):
            continue
        found = pattern.regex.fullmatch(text)
        if found is not None:
            values = {k: _again(v, depth + 1) for k, v in found.groupdict().items()}
            return _(pattern.msgid, **values)
    return text


@functools.lru_cache(maxsize=4096)
def _cached(text: str, locale: str) -> str:
    whole = _again(text, 0)
    if whole != text or "\n" not in text:
        return whole
    # a summary of several sentences, one a line (the setup's)
    return "\n".join(_again(line, 0) for line in text.split("\n"))


def retranslate(text: str) -> str:
    """``text`` (said in any language the catalogs have) in the current locale."""
    return _cached(text, current_locale())

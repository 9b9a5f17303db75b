r"""A small, fast reader of the SNBT vanilla prints in `data get` replies, to Python values.

Why not mecha's parser (which mcsim uses): it costs about 2 ms for one task compound, and
listing 10,000 tasks would spend 20 s on it. Vanilla's printer is regular (`{a: 1, b: "x"}`,
`[1, 2]`, `[I; 1, 2]`, suffixes b s L f d, keys quoted only when needed), so a hand-written
recursive reader over a compiled token pattern is enough and about 40 times faster.

Values: compounds -> dict, lists and arrays -> list, strings -> str, integers (any suffix but
f/d) -> int, floats -> float. Escapes of both printers are understood: `\\` and the quote
(1.21.0-1.21.4) plus `\n \t \r \b \f \s \xHH \uHHHH \UHHHHHHHH` (1.21.5+).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["SnbtSyntaxError", "parse_printed_snbt"]

_NUMBER: Final = re.compile(
    r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?([bBsSlLfFdD]?)(?=[\s,\]}:]|$)"
)
_WORD: Final = re.compile(r"[A-Za-z0-9._+\-]+")
_SPACE: Final = re.compile(r"\s*")
_ESCAPES: Final = {
    "\\": "\\",
    '"': '"',
    "'": "'",
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "s": " ",
}
_HEX_ESCAPES: Final = {"x": 2, "u": 4, "U": 8}


class SnbtSyntaxError(ValueError):
    """The text is not SNBT as vanilla prints it."""


class _Reader:
    __slots__ = ("pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> SnbtSyntaxError:
        near = self.text[self.pos : self.pos + 20]
        return SnbtSyntaxError(f"{what} at position {self.pos} (near {near!r})")

    def skip(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        self.skip()
        if self.peek() != ch:
            raise self.fail(f"expected {ch!r}")
        self.pos += 1

    def value(self) -> object:
        self.skip()
        ch = self.peek()
        if ch == "{":
            return self.compound()
        if ch == "[":
            return self.list()
        if ch in "\"'":
            return self.string()
        m = _NUMBER.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            return _number(m.group(0), m.group(1))
        m = _WORD.match(self.text, self.pos)
        if m:  # unquoted strings and booleans (`true`/`false` are bytes)
            self.pos = m.end()
            word = m.group(0)
            return {"true": 1, "false": 0}.get(word, word)
        raise self.fail("expected a value")

    def compound(self) -> dict[str, object]:
        self.pos += 1
        out: dict[str, object] = {}
        self.skip()
        if self.peek() == "}":
            self.pos += 1
            return out
        while True:
            self.skip()
            if self.peek() in "\"'":
                key = self.string()
            else:
                m = _WORD.match(self.text, self.pos)
                if not m:
                    raise self.fail("expected a key")
                key = m.group(0)
                self.pos = m.end()
            self.expect(":")
            out[key] = self.value()
            self.skip()
            ch = self.peek()
            self.pos += 1
            if ch == "}":
                return out
            if ch != ",":
                self.pos -= 1
                raise self.fail("expected ',' or '}'")

    def list(self) -> list[object]:
        self.pos += 1
        self.skip()
        text = self.text
        if text[self.pos : self.pos + 2] in ("B;", "I;", "L;"):
            self.pos += 2
        items: list[object] = []
        self.skip()
        if self.peek() == "]":
            self.pos += 1
            return items
        while True:
            items.append(self.value())
            self.skip()
            ch = self.peek()
            self.pos += 1
            if ch == "]":
                return items
            if ch != ",":
                self.pos -= 1
                raise self.fail("expected ',' or ']'")

    def string(self) -> str:
        text = self.text
        quote = text[self.pos]
        start = self.pos + 1
        end = text.find(quote, start)
        # the fast path: no escapes before the closing quote
        if end >= 0 and "\\" not in text[start:end]:
            self.pos = end + 1
            return text[start:end]
        out: list[str] = []
        i = start
        while i < len(text):
            ch = text[i]
            if ch == quote:
                self.pos = i + 1
                return "".join(out)
            if ch != "\\":
                out.append(ch)
                i += 1
                continue
            nxt = text[i + 1 : i + 2]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
            elif nxt in _HEX_ESCAPES:
                digits = text[i + 2 : i + 2 + _HEX_ESCAPES[nxt]]
                try:
                    out.append(chr(int(digits, 16)))
                except ValueError:
                    self.pos = i
                    raise self.fail("bad escape") from None
                i += 2 + len(digits)
            else:
                self.pos = i
                raise self.fail("bad escape")
        self.pos = start - 1
        raise self.fail("unterminated string")


def _number(text: str, suffix: str) -> int | float:
    body = text[: len(text) - len(suffix)] if suffix else text
    if suffix in ("f", "F", "d", "D") or any(c in body for c in ".eE"):
        return float(body)
    return int(body)


def parse_printed_snbt(text: str) -> object:
    """Python value of one SNBT value (a whole `data get` payload)."""
    reader = _Reader(text)
    value = reader.value()
    reader.skip()
    if reader.pos != len(text):
        raise reader.fail("unexpected text after the value")
    return value

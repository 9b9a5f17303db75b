"""SNBT in and out: vanilla 1.21's two printers, and parsing through mecha's NBT grammar.

`format_snbt` is NbtTextFormatter (what `data get` shows: `{a: 1, b: "x"}`, HashMap key order);
`format_snbt_compact` is StringNbtWriter (`NbtElement.toString()`: `{a:1,b:"x"}`, sorted keys),
which vanilla uses inside error texts ("Expected a list: got [1,2]") and for macro arguments.
"""

from __future__ import annotations

import logging
import math
import re
from decimal import ROUND_HALF_EVEN, Context, Decimal
from functools import lru_cache
from typing import Any

from nbtlib.tag import (
    Byte,
    ByteArray,
    Compound,
    Double,
    Float,
    Int,
    IntArray,
    Long,
    LongArray,
    Short,
    String,
)

from mcsim.errors import CommandSyntaxError
from mcsim.nbt.values import NbtList, Tag, f32, hashmap_order

__all__ = [
    "escape_string",
    "format_snbt",
    "format_snbt_compact",
    "from_mecha",
    "java_double_str",
    "java_float_str",
    "macro_text",
    "parse_snbt",
]

log = logging.getLogger(__name__)

_SIMPLE_NAME = re.compile(r"[A-Za-z0-9._+-]+")
_UNQUOTED_KEY = re.compile(r"[A-Za-z._][A-Za-z0-9._+-]*")
_SPECIAL = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", "\\": "\\\\"}
_PLAIN_STRING = re.compile(r"[^\x00-\x1f\\\"']*")
_MAX_DEPTH = 64
_MAX_ARRAY = 128
_ELLIPSIS = "<...>"


def escape_string(value: str) -> str:
    """NbtString.escape: quote with `"` unless the first quote inside is `"`, then use `'`."""
    if _PLAIN_STRING.fullmatch(value):
        return f'"{value}"'
    quote = ""
    parts: list[str] = []
    for ch in value:
        if ch == '"' or ch == "'":
            if not quote:
                quote = "'" if ch == '"' else '"'
            parts.append("\\" + ch if ch == quote else ch)
        elif ch in _SPECIAL:
            parts.append(_SPECIAL[ch])
        elif ch < " ":
            parts.append(f"\\x{ord(ch):02X}")
        else:
            parts.append(ch)
    quote = quote or '"'
    return quote + "".join(parts) + quote


def _java_fp(digits: str, exp: int, negative: bool) -> str:
    """Format shortest digits d1d2... x 10^exp (value = 0.d1d2... * 10^(exp+len)) like Java."""
    sci = exp + len(digits) - 1  # value = d1.d2d3... * 10^sci
    digits = digits.rstrip("0") or "0"
    sign = "-" if negative else ""
    if -3 <= sci < 7:
        if sci >= 0:
            whole = digits[: sci + 1].ljust(sci + 1, "0")
            frac = digits[sci + 1 :] or "0"
        else:
            whole = "0"
            frac = "0" * (-sci - 1) + digits
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{sci}"


def _special(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return None


def _digits_of(text: str) -> tuple[str, int, bool]:
    sign, digit_tuple, exponent = Decimal(text).as_tuple()
    assert isinstance(exponent, int)
    return "".join(map(str, digit_tuple)), exponent, bool(sign)


def java_double_str(value: float) -> str:
    """Double.toString (JDK 19+ shortest form): `1.0`, `0.001`, `1.0E7`, `1.0E-4`."""
    # Specials first: the cache below cannot tell 0.0 from -0.0 (they hash equal).
    return _special(value) or _double_digits(value)


@lru_cache(maxsize=4096)
def _double_digits(value: float) -> str:
    text = repr(float(value))
    digits = _digits_of(text)
    if len(digits[0].rstrip("0")) <= 1:
        # Java picks the closest 2-digit decimal when one digit would do (4.9E-324).
        digits = _digits_of(f"{value:.1e}")
    return _java_fp(*digits)


def java_float_str(value: float) -> str:
    """Float.toString: the shortest digits that read back as the same float32."""
    value = f32(value)
    return _special(value) or _float_digits(value)


@lru_cache(maxsize=4096)
def _float_digits(value: float) -> str:
    for precision in range(2, 10):  # Java never picks fewer than 2 digits (1.4E-45)
        text = f"{value:.{precision - 1}e}"
        if f32(float(text)) == value:
            break
    return _java_fp(*_digits_of(text))


def _number_pretty(tag: Tag) -> str | None:
    kind = type(tag)
    if kind is Int:
        return str(int(tag))
    if kind is Byte:
        return f"{int(tag)}b"
    if kind is Short:
        return f"{int(tag)}s"
    if kind is Long:
        return f"{int(tag)}L"
    if kind is Float:
        return java_float_str(float(tag)) + "f"
    if kind is Double:
        return java_double_str(float(tag)) + "d"
    return None


def _pretty(tag: Tag, depth: int, out: list[str]) -> None:
    if isinstance(tag, String):
        out.append(escape_string(tag))
        return
    number = _number_pretty(tag)
    if number is not None:
        out.append(number)
        return
    if isinstance(tag, Compound):
        if not tag:
            out.append("{}")
        elif depth >= _MAX_DEPTH:
            out.append("{" + _ELLIPSIS + "}")
        else:
            out.append("{")
            first = True
            for key in hashmap_order(tag.keys()):
                if not first:
                    out.append(", ")
                first = False
                out.append(key if _SIMPLE_NAME.fullmatch(key) else escape_string(key))
                out.append(": ")
                _pretty(tag[key], depth + 1, out)
            out.append("}")
        return
    if isinstance(tag, list):
        if not tag:
            out.append("[]")
        elif depth >= _MAX_DEPTH:
            out.append("[" + _ELLIPSIS + "]")
        else:
            out.append("[")
            for i, element in enumerate(tag):
                if i:
                    out.append(", ")
                _pretty(element, depth + 1, out)
            out.append("]")
        return
    if isinstance(tag, ByteArray | IntArray | LongArray):
        prefix, suffix = (
            ("[B;", "B")
            if isinstance(tag, ByteArray)
            else ("[I;", "")
            if isinstance(tag, IntArray)
            else ("[L;", "L")
        )
        out.append(prefix)
        n = len(tag)
        for i in range(min(n, _MAX_ARRAY)):
            out.append(f" {int(tag[i])}{suffix}")
            if i != n - 1:
                out.append(",")
        if n > _MAX_ARRAY:
            out.append(_ELLIPSIS)
        out.append("]")
        return
    raise TypeError(f"not an NBT tag: {tag!r}")


def format_snbt(tag: Tag) -> str:
    """What `data get` prints (NbtTextFormatter with no indent), e.g. `{a: 1, b: "x"}`."""
    if isinstance(tag, String):
        return escape_string(tag)
    out: list[str] = []
    _pretty(tag, 0, out)
    return "".join(out)


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _compact_key(key: str) -> str:
    if _UNQUOTED_KEY.fullmatch(key) and key.lower() not in ("true", "false"):
        return key
    return escape_string(key)


def _compact(tag: Tag, out: list[str]) -> None:
    if isinstance(tag, String):
        out.append(escape_string(tag))
        return
    number = _number_pretty(tag)
    if number is not None:
        out.append(number)
        return
    if isinstance(tag, Compound):
        out.append("{")
        for i, key in enumerate(sorted(tag.keys(), key=_utf16_key)):
            if i:
                out.append(",")
            out.append(_compact_key(key))
            out.append(":")
            _compact(tag[key], out)
        out.append("}")
        return
    if isinstance(tag, list):
        out.append("[")
        for i, element in enumerate(tag):
            if i:
                out.append(",")
            _compact(element, out)
        out.append("]")
        return
    if isinstance(tag, ByteArray):
        out.append("[B;" + ",".join(f"{int(v)}B" for v in tag) + "]")
        return
    if isinstance(tag, IntArray):
        out.append("[I;" + ",".join(str(int(v)) for v in tag) + "]")
        return
    if isinstance(tag, LongArray):
        out.append("[L;" + ",".join(f"{int(v)}L" for v in tag) + "]")
        return
    raise TypeError(f"not an NBT tag: {tag!r}")


def format_snbt_compact(tag: Tag) -> str:
    """NbtElement.toString() (StringNbtWriter): `{a:1,b:"x"}`, keys sorted."""
    out: list[str] = []
    _compact(tag, out)
    return "".join(out)


_DECIMAL_STEP = Decimal("1e-15")
_WIDE = Context(prec=400)


def _decimal_format(value: float) -> str:
    # DecimalFormat("#") with at most 15 fraction digits, HALF_EVEN, from the shortest digits.
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "\u221e" if value > 0 else "-\u221e"
    rounded = Decimal(repr(value)).quantize(_DECIMAL_STEP, rounding=ROUND_HALF_EVEN, context=_WIDE)
    text = format(rounded, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def macro_text(tag: Tag) -> str:
    """How a macro argument is inserted into a `$` line (Macro.toString)."""
    kind = type(tag)
    if kind is String:
        return str(tag)
    if kind is Float:
        return _decimal_format(f32(float(tag)))
    if kind is Double:
        return _decimal_format(float(tag))
    if kind is Byte or kind is Short or kind is Long or kind is Int:
        return str(int(tag))
    return format_snbt_compact(tag)


def _int_elements(node: Any) -> list[int]:
    return [int(from_mecha(element)) for element in node.elements]


def from_mecha(node: Any) -> Tag:
    """Convert one of mecha's AstNbt nodes into a fresh tag."""
    from mecha import ast

    if isinstance(node, ast.AstNbtValue | ast.AstNbtBool):
        value = node.value
        if isinstance(value, Float):
            return Float(f32(float(value)))
        return value
    if isinstance(node, ast.AstNbtCompound):
        return Compound({entry.key.value: from_mecha(entry.value) for entry in node.entries})
    if isinstance(node, ast.AstNbtList):
        return NbtList(from_mecha(element) for element in node.elements)
    if isinstance(node, ast.AstNbtByteArray):
        return ByteArray(_int_elements(node))
    if isinstance(node, ast.AstNbtIntArray):
        return IntArray(_int_elements(node))
    if isinstance(node, ast.AstNbtLongArray):
        return LongArray(_int_elements(node))
    raise TypeError(f"not an NBT node: {type(node).__name__}")


@lru_cache(maxsize=1)
def _mecha() -> Any:
    from mecha import Mecha

    return Mecha(version="1.21")


@lru_cache(maxsize=1024)
def _parse_ast(text: str) -> Any:
    return _mecha().parse(text, using="nbt")


def parse_snbt(text: str) -> Tag:
    """Parse SNBT with the same grammar the command parser uses (mecha's, 1.21)."""
    try:
        node = _parse_ast(text)
    except Exception as exc:  # mecha reports a DiagnosticError with its own text
        raise CommandSyntaxError(f"Invalid SNBT: {text!r}") from exc
    return from_mecha(node)

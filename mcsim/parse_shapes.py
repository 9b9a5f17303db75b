"""Lines that differ only in a list index or a score range's minimum, parsed once per shape.

Macro lines expand to a new line for every argument value (`queue[$(i)]`, `matches $(due)..`),
and mecha takes ~2 ms a line, so a pack walking a 10,000-task queue spent most of its time
parsing. Those two numbers never change how the rest of the line parses (an NBT path index takes
any integer, a score range with only a minimum has nothing to compare it with), so a line is
parsed once with the numbers replaced by placeholders of the same length (every location in the
AST stays the same) and each line of that shape is the placeholder's AST with its numbers put in.
A shape whose placeholders the AST does not hold exactly there (inside a quoted string, a
selector, a refused line) is remembered as such, and its lines are parsed whole.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable
from typing import Any

from mecha.ast import AstChildren, AstCommand, AstNbtPathSubscript, AstNode, AstNumber, AstRange

from mcsim.errors import CommandSyntaxError

__all__ = ["parse_by_shape"]

# `[12]` (an NBT path index) and `matches 12..` (followed by the end or a space): no sign, no
# leading zero (mecha reads `007` as 7, which the same-length placeholder would not keep), at most
# 9 digits (an int).
_NUMBER = re.compile(r"(?<=\[)([1-9]\d{0,8}|0)(?=\])|(?<=matches )([1-9]\d{0,8}|0)(?=\.\.(?:\s|$))")
_LIMIT = 10_000  # shapes kept; past it the table starts afresh (as the line caches do)

Parsed = tuple[AstCommand, tuple[Any, ...]]


@dataclasses.dataclass(frozen=True, slots=True)
class _Shape:
    """The placeholder line's AST and gates, and for each number (in order) the node that holds
    it: an AstNumber (an index) or an AstRange (its `min`)."""

    ast: AstCommand
    gates: tuple[Any, ...]
    holders: tuple[AstNumber | AstRange, ...]


_UNPATCHABLE = object()
_shapes: dict[str, object] = {}
_lock = threading.Lock()


def parse_by_shape(text: str, parse: Callable[[str], Parsed]) -> Parsed | None:
    """`text`'s AST and gates from its shape's parse (made with `parse` on first sight), or None
    when the line has no such numbers or its shape cannot be patched (then parse it whole)."""
    matches = list(_NUMBER.finditer(text))
    if not matches or len(matches) > 9:
        return None
    key_parts: list[str] = []
    placeholder_parts: list[str] = []
    last = 0
    for j, m in enumerate(matches):
        digits = m.group()
        key_parts.append(text[last : m.start()] + f"\0{len(digits)}")
        placeholder_parts.append(text[last : m.start()] + _placeholder(j, len(digits)))
        last = m.end()
    key = "".join(key_parts) + text[last:]
    with _lock:
        shape = _shapes.get(key)
    if shape is None:
        shape = _make_shape("".join(placeholder_parts) + text[last:], matches, parse)
        with _lock:
            if len(_shapes) >= _LIMIT:
                _shapes.clear()
            _shapes[key] = shape
    if not isinstance(shape, _Shape):
        return None
    values = [int(m.group()) for m in matches]
    changed: dict[int, AstNode] = {}
    for holder, value in zip(shape.holders, values, strict=True):
        if isinstance(holder, AstRange):
            changed[id(holder)] = dataclasses.replace(holder, min=value)
        else:
            changed[id(holder)] = dataclasses.replace(holder, value=value)
    return _rebuild(shape.ast, changed), shape.gates


def _placeholder(j: int, length: int) -> str:
    """The j-th number's stand-in: `length` digits, distinct for each j (at most 9 numbers)."""
    return str(j + 1) if length == 1 else str(10 ** (length - 1) + j)


def _make_shape(
    placeholder_text: str, matches: list[re.Match[str]], parse: Callable[[str], Parsed]
) -> object:
    try:
        ast, gates = parse(placeholder_text)
    except CommandSyntaxError:  # refused with the placeholders: parse each line whole
        return _UNPATCHABLE
    at: dict[int, AstNumber | AstRange] = {}
    for node in ast.walk():
        if isinstance(node, AstNbtPathSubscript) and isinstance(node.index, AstNumber):
            if type(node.index.value) is int:
                at[node.index.location.pos] = node.index
        elif isinstance(node, AstRange) and type(node.min) is int and node.max is None:
            at[node.location.pos] = node
    holders: list[AstNumber | AstRange] = []
    for j, m in enumerate(matches):
        holder = at.get(m.start())
        expected = int(_placeholder(j, len(m.group())))
        if (
            holder is None
            or (holder.min if isinstance(holder, AstRange) else holder.value) != expected
        ):
            return _UNPATCHABLE
        holders.append(holder)
    return _Shape(ast, tuple(gates), tuple(holders))


def _rebuild(node: Any, changed: dict[int, AstNode]) -> Any:
    """`node` with the nodes in `changed` (by identity) replaced, sharing every unchanged part."""
    swapped = changed.get(id(node))
    if swapped is not None:
        return swapped
    updates: dict[str, Any] = {}
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, AstNode):
            new = _rebuild(value, changed)
            if new is not value:
                updates[f.name] = new
        elif isinstance(value, AstChildren):
            items = [_rebuild(c, changed) if isinstance(c, AstNode) else c for c in value]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                updates[f.name] = AstChildren(items)
    return dataclasses.replace(node, **updates) if updates else node

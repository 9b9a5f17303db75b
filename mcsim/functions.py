"""Function bodies as vanilla builds them: line splitting, macro lines and their expansion.

A function is a list of compiled lines. A macro function keeps its `$` lines as templates; calling
it substitutes the arguments (as raw text, per Macro.toString), parses the result and keeps the
last 8 distinct expansions, as vanilla's Macro does.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nbtlib.tag import Compound

from mcsim.errors import CommandError

__all__ = [
    "Function",
    "FunctionLoadError",
    "MacroLine",
    "build_function",
    "macro_value_text",
    "parse_macro_line",
    "split_function_lines",
]

MACRO_CACHE_SIZE = 8
_VARIABLE = re.compile(r"\$\(([^)]*)\)")
_VALID_NAME = re.compile(r"[A-Za-z0-9_]+")


class FunctionLoadError(Exception):
    """A function file that vanilla would refuse to load (the function is then missing)."""


@dataclass(frozen=True, slots=True)
class MacroLine:
    """One `$` line: alternating literal parts and variable names (parts has one more item)."""

    parts: tuple[str, ...]
    variables: tuple[str, ...]
    line_no: int

    def substitute(self, values: dict[str, str]) -> str:
        out = [self.parts[0]]
        for name, part in zip(self.variables, self.parts[1:], strict=True):
            out.append(values[name])
            out.append(part)
        return "".join(out)


@dataclass(eq=False)
class Function:
    id: str
    # Compiled command objects (executor.Compiled) or MacroLine templates, in file order.
    lines: list[Any]
    variables: tuple[str, ...] = ()
    _cache: OrderedDict[tuple[str, ...], list[Any]] = field(default_factory=OrderedDict)

    @property
    def is_macro(self) -> bool:
        return bool(self.variables)

    def instantiate(
        self, arguments: Compound | None, compile_line: Callable[[str], Any]
    ) -> list[Any]:
        """The compiled lines for these macro arguments; raises CommandError with vanilla's text
        (unwrapped: the `function` command wraps it in "Failed to instantiate function")."""
        if not self.variables:
            return self.lines
        if arguments is None:
            raise CommandError(f"Missing arguments to function {self.id}")
        values: list[str] = []
        for name in self.variables:
            tag = arguments.get(name)
            if tag is None:
                raise CommandError(f"Missing argument {name} to function {self.id}")
            values.append(macro_value_text(tag))
        key = tuple(values)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        by_name = dict(zip(self.variables, values, strict=True))
        expanded: list[Any] = []
        for line in self.lines:
            if isinstance(line, MacroLine):
                text = line.substitute(by_name)
                try:
                    expanded.append(compile_line(text))
                except CommandError as e:
                    raise CommandError(
                        f"While instantiating macro {self.id}: Command '{text}' caused error: "
                        f"{getattr(e, 'brigadier', e.message)}"
                    ) from e
            else:
                expanded.append(line)
        if len(self._cache) >= MACRO_CACHE_SIZE:
            self._cache.popitem(last=False)
        self._cache[key] = expanded
        return expanded


def macro_value_text(tag: Any) -> str:
    """A macro argument as raw text: strings unquoted, numbers without suffix, the rest SNBT."""
    from mcsim.nbt import macro_text

    return str(macro_text(tag))


def split_function_lines(text: str) -> list[tuple[int, str]]:
    """(line number, command text) pairs: trimmed, comments and blanks dropped, `\\` joined."""
    raw = text.splitlines()
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(raw):
        line_no = i + 1
        line = raw[i].strip()
        while line.endswith("\\"):
            i += 1
            if i == len(raw):
                raise FunctionLoadError("Line continuation at end of file")
            line = line[:-1] + raw[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith("/"):
            if line.startswith("//"):
                raise FunctionLoadError(
                    f"Unknown or invalid command '{line}' on line {line_no} "
                    "(if you intended to make a comment, use '#' not '//')"
                )
            name = re.match(r"/([0-9A-Za-z_\-.+]*)", line)
            raise FunctionLoadError(
                f"Unknown or invalid command '{line}' on line {line_no} (did you mean "
                f"'{name.group(1) if name else ''}'? Do not use a preceding forwards slash.)"
            )
        out.append((line_no, line))
    return out


def parse_macro_line(body: str, line_no: int) -> MacroLine:
    """A `$` line without its `$`; vanilla refuses bad names and lines without variables."""
    parts: list[str] = []
    names: list[str] = []
    pos = 0
    for m in _VARIABLE.finditer(body):
        name = m.group(1)
        if not _VALID_NAME.fullmatch(name):
            raise FunctionLoadError(f"Invalid macro variable name '{name}' on line {line_no}")
        parts.append(body[pos : m.start()])
        names.append(name)
        pos = m.end()
    parts.append(body[pos:])
    if not names:
        raise FunctionLoadError(f"No variables in macro on line {line_no}")
    return MacroLine(tuple(parts), tuple(names), line_no)


def build_function(id: str, text: str, compile_line: Callable[[str], Any]) -> Function:
    """Parse a function file; raises FunctionLoadError with vanilla's message on any bad line."""
    lines: list[Any] = []
    variables: dict[str, None] = {}
    for line_no, line in split_function_lines(text):
        if line.startswith("$"):
            macro = parse_macro_line(line[1:], line_no)
            for name in macro.variables:
                variables[name] = None
            lines.append(macro)
            continue
        try:
            lines.append(compile_line(line))
        except CommandError as e:
            raise FunctionLoadError(
                f"Whilst parsing command on line {line_no}: {getattr(e, 'brigadier', e.message)}"
            ) from e
    return Function(id, lines, tuple(variables))

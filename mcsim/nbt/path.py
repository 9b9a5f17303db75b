"""NBT paths (NbtPathArgumentType): parse once, then get/count/set/remove/insert on live tags.

This module parses (path text, or mecha's AstNbtPath) into a tuple of nodes and walks them;
what each node does to a tag is in mcsim/nbt/path_ops.py.
"""

from __future__ import annotations

import logging
from typing import Any

from nbtlib.tag import Array

from mcsim.errors import CommandError, CommandSyntaxError
from mcsim.nbt.path_ops import (
    ALL,
    INVALID_NODE,
    TOO_DEEP,
    CopySupplier,
    FilteredList,
    FilteredNamed,
    FilteredRoot,
    Index,
    Named,
    Node,
    Slot,
    Supplier,
    list_add,
    nbt_matches,
    too_deep,
)
from mcsim.nbt.snbt import escape_string, format_snbt_compact, from_mecha
from mcsim.nbt.values import NbtList, Tag, copy_tag

__all__ = ["NbtPath", "nbt_matches"]

log = logging.getLogger(__name__)

_NAME_BREAKERS = frozenset(" \"'[].{}")


def _key_text(name: str) -> str:
    if name and not any(ch in _NAME_BREAKERS for ch in name):
        return name
    return escape_string(name)


_CACHE_LIMIT = 16384
_FROM_MECHA_CACHE: dict[tuple[int, str | None], tuple[Any, NbtPath]] = {}
_PARSE_CACHE: dict[str, NbtPath] = {}


class NbtPath:
    """An immutable, pre-parsed NBT path; `str(path)` is its text as written."""

    __slots__ = ("_ends", "_nodes", "_text")

    def __init__(self, text: str, nodes: tuple[Node, ...], ends: tuple[int, ...]) -> None:
        if not nodes:
            raise CommandSyntaxError(INVALID_NODE)
        # Vanilla keys its node->end map by node; the one `[]` node is a singleton, so every
        # `[]` reports the end of the last `[]` in the path.
        last_all = max((e for n, e in zip(nodes, ends, strict=True) if n is ALL), default=0)
        self._text = text
        self._nodes = nodes
        self._ends = tuple(last_all if n is ALL else e for n, e in zip(nodes, ends, strict=True))

    # -- construction -------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> NbtPath:
        """Parse path text (through mecha, so it accepts what commands accept); cached."""
        cached = _PARSE_CACHE.get(text)
        if cached is None:
            cached = cls._parse_text(text)
            if len(_PARSE_CACHE) >= _CACHE_LIMIT:
                _PARSE_CACHE.pop(next(iter(_PARSE_CACHE)))
            _PARSE_CACHE[text] = cached
        return cached

    @classmethod
    def _parse_text(cls, text: str) -> NbtPath:
        from mcsim.nbt.snbt import _mecha

        prefix = "data get storage mcsim:path "
        try:
            root = _mecha().parse(prefix + text)
        except Exception as exc:
            raise CommandSyntaxError(f"{INVALID_NODE}: {text!r}") from exc
        node = root.commands[0].arguments[1]
        return cls.from_mecha(node, source=prefix + text)

    @classmethod
    def from_mecha(cls, node: Any, source: str | None = None) -> NbtPath:
        """Build from mecha's AstNbtPath. With `source` (the text mecha parsed, for node
        positions) `str(path)` is the path exactly as written; without it, a normalised text.

        Results are cached per node object (AST nodes are frozen), so calling this on every
        execution of a parsed command costs one dict lookup."""
        key = (id(node), source)
        cached = _FROM_MECHA_CACHE.get(key)
        if cached is not None and cached[0] is node:
            return cached[1]
        path = cls._build(node, source)
        if len(_FROM_MECHA_CACHE) >= _CACHE_LIMIT:
            _FROM_MECHA_CACHE.pop(next(iter(_FROM_MECHA_CACHE)))
        # The cache holds the node itself, so its id cannot be reused while the entry lives.
        _FROM_MECHA_CACHE[key] = (node, path)
        return path

    @classmethod
    def _build(cls, node: Any, source: str | None) -> NbtPath:
        from mecha import ast

        components = list(node.components)
        nodes: list[Node] = []
        ends: list[int] = []
        pieces: list[str] = []
        start = node.location.pos
        i = 0
        while i < len(components):
            comp = components[i]
            last = comp
            if isinstance(comp, ast.AstNbtPathKey):
                if not comp.value:
                    raise CommandSyntaxError(INVALID_NODE)
                if nodes:
                    pieces.append(".")
                pieces.append(_key_text(comp.value))
                following = components[i + 1] if i + 1 < len(components) else None
                if isinstance(following, ast.AstNbtCompound):
                    flt = from_mecha(following)
                    nodes.append(FilteredNamed(comp.value, flt))
                    pieces.append(format_snbt_compact(flt))
                    last = following
                    i += 1
                else:
                    nodes.append(Named(comp.value))
            elif isinstance(comp, ast.AstNbtCompound):
                if nodes:
                    raise CommandSyntaxError(INVALID_NODE)
                flt = from_mecha(comp)
                nodes.append(FilteredRoot(flt))
                pieces.append(format_snbt_compact(flt))
            elif isinstance(comp, ast.AstNbtPathSubscript):
                index = comp.index
                if index is None:
                    nodes.append(ALL)
                    pieces.append("[]")
                elif isinstance(index, ast.AstNbtCompound):
                    flt = from_mecha(index)
                    nodes.append(FilteredList(flt))
                    pieces.append(f"[{format_snbt_compact(flt)}]")
                else:
                    nodes.append(Index(int(index.value)))
                    pieces.append(f"[{int(index.value)}]")
            else:
                raise CommandSyntaxError(INVALID_NODE)
            if source is not None:
                ends.append(last.end_location.pos - start)
            else:
                ends.append(sum(len(p) for p in pieces))
            i += 1
        text = source[start : node.end_location.pos] if source is not None else "".join(pieces)
        return cls(text, tuple(nodes), tuple(ends))

    # -- dunder -------------------------------------------------------------------------
    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"NbtPath({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NbtPath) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)

    @property
    def depth(self) -> int:
        return len(self._nodes)

    def _nothing_found(self, position: int) -> CommandError:
        return CommandError(f"Found no elements matching {self._text[: self._ends[position]]}")

    # -- reading ------------------------------------------------------------------------
    def get(self, root: Tag) -> list[Tag]:
        """Every match, in order; none: "Found no elements matching <path so far>"."""
        current: list[Tag] = [root]
        for position, node in enumerate(self._nodes):
            found: list[Tag] = []
            for element in current:
                node.get(element, found)
            if not found:
                raise self._nothing_found(position)
            current = found
        return current

    def count(self, root: Tag) -> int:
        """Number of matches (what `execute if data` counts); never raises."""
        current: list[Tag] = [root]
        for node in self._nodes:
            found: list[Tag] = []
            for element in current:
                node.get(element, found)
            if not found:
                return 0
            current = found
        return len(current)

    # -- writing ------------------------------------------------------------------------
    def _terminals(self, root: Tag) -> list[Slot]:
        current: list[Slot] = [(root, None, None)]
        nodes = self._nodes
        for position in range(len(nodes) - 1):
            node = nodes[position]
            supplier = nodes[position + 1].init
            found: list[Slot] = []
            for slot in current:
                node.walk(slot, supplier, found)
            if not found:
                raise self._nothing_found(position)
            current = found
        return current

    def get_or_create_slots(self, root: Tag, default_factory: Supplier) -> list[Slot]:
        """getOrInit, with each result's (value, container, key) slot."""
        last = self._nodes[-1]
        found: list[Slot] = []
        for slot in self._terminals(root):
            last.walk(slot, default_factory, found)
        return found

    def get_or_create(self, root: Tag, default_factory: Supplier) -> list[Tag]:
        """getOrInit: create missing parents, and the last node from `default_factory`."""
        return [slot[0] for slot in self.get_or_create_slots(root, default_factory)]

    def set(self, root: Tag, value: Tag) -> int:
        """NbtPath.put: write a copy of `value` at every match; returns how many changed."""
        if too_deep(value, len(self._nodes)):
            raise CommandError(TOO_DEEP)
        supplier = CopySupplier(copy_tag(value))
        last = self._nodes[-1]
        return sum(last.set(slot, supplier) for slot in self._terminals(root))

    def remove(self, root: Tag) -> int:
        """Remove every match, creating nothing; returns how many were removed."""
        current: list[Slot] = [(root, None, None)]
        for node in self._nodes[:-1]:
            found: list[Slot] = []
            for slot in current:
                node.walk(slot, None, found)
            current = found
        last = self._nodes[-1]
        return sum(last.clear(slot) for slot in current)

    def insert(self, root: Tag, index: int, values: list[Tag]) -> int:
        """NbtPath.insert: put copies of all `values` at `index` (negative: from the end, -1
        appends) of every matched list; returns the number of lists changed."""
        copies = [copy_tag(value) for value in values]
        for value in copies:
            if too_deep(value, len(self._nodes)):
                raise CommandError(TOO_DEEP)
        changed = 0
        copy_again = False
        for target, con, key in self.get_or_create_slots(root, NbtList):
            if not isinstance(target, list | Array):
                raise CommandError(f"Expected a list: got {format_snbt_compact(target)}")
            position = len(target) + index + 1 if index < 0 else index
            added_any = False
            for value in copies:
                item = copy_tag(value) if copy_again else value
                try:
                    added, target = list_add(target, con, key, position, item)
                except IndexError:
                    raise CommandError(f"Invalid list index: {position}") from None
                if added:
                    position += 1
                    added_any = True
            copy_again = True
            changed += added_any
        return changed

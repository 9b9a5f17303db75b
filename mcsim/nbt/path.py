"""NBT paths (NbtPathArgumentType): parse once, then get/count/set/remove/insert on live tags.

Every node kind behaves as in the 1.21.11 decompile: class-exact filters, `set` creating missing
parents, `remove` creating nothing, `[i]` never creating, `[{f}]`/`name{f}` creating a copy of f.
Mutating walks carry each element's (container, key) slot, because numpy-backed arrays cannot
grow or shrink in place: a resized array replaces the old one in its parent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from nbtlib.tag import Array, Byte, ByteArray, Compound, Int, IntArray, Long, LongArray

from mcsim.errors import CommandError, CommandSyntaxError
from mcsim.nbt.snbt import escape_string, format_snbt_compact, from_mecha
from mcsim.nbt.values import (
    NUMBER_TYPES,
    NbtList,
    Tag,
    copy_tag,
    java_d2i,
    java_d2l,
    nbt_equal,
    tag_kind,
)

__all__ = ["NbtPath", "nbt_matches"]

log = logging.getLogger(__name__)

Supplier = Callable[[], Tag]
# (value, container holding it or None for the root, key/index in that container)
Slot = tuple[Tag, Any, Any]

_INVALID_NODE = "Invalid NBT path element"
_TOO_DEEP = "Resulting NBT too deeply nested"
_ELEMENT_OF: dict[type, type] = {ByteArray: Byte, IntArray: Int, LongArray: Long}
_NAME_BREAKERS = frozenset(" \"'[].{}")


def nbt_matches(standard: Tag | None, subject: Tag | None) -> bool:
    """NbtHelper.matches(filter, subject, ignoreListOrder=true)."""
    if standard is subject or standard is None:
        return True
    if subject is None:
        return False
    kind = type(standard)
    if kind is not type(subject):
        kind = tag_kind(standard)
        if kind is not tag_kind(subject):
            return False
    if kind is Compound:
        if len(subject) < len(standard):
            return False
        return all(nbt_matches(value, subject.get(key)) for key, value in standard.items())
    if isinstance(standard, list):
        if not standard:
            return not subject
        if len(subject) < len(standard):
            return False
        return all(any(nbt_matches(want, have) for have in subject) for want in standard)
    return nbt_equal(standard, subject)


def _array_get(array: Any, index: int) -> Tag:
    return _ELEMENT_OF[type(array)](int(array[index]))


def _array_cast(array: Any, value: Tag) -> int:
    # AbstractNbtNumber.byteValue()/intValue()/longValue() of the inserted number.
    if isinstance(value, float):
        number = java_d2l(value) if isinstance(array, LongArray) else java_d2i(value)
    else:
        number = int(value)
    bits = 8 if isinstance(array, ByteArray) else 32 if isinstance(array, IntArray) else 64
    number &= (1 << bits) - 1
    return number - (1 << bits) if number >> (bits - 1) else number


def _array_with(array: Any, values: list[int]) -> Tag:
    return type(array)(values)


def _replace(container: Any, key: Any, new: Tag) -> None:
    if container is None:
        raise CommandError(_INVALID_NODE)
    container[key] = new


def _list_add(lst: Any, con: Any, key: Any, index: int, value: Tag) -> tuple[bool, Any]:
    """AbstractNbtList.addElement; returns (added, the list now in the slot)."""
    if isinstance(lst, list):
        if not 0 <= index <= len(lst):
            raise IndexError(index)
        lst.insert(index, value)
        return True, lst
    if not isinstance(value, NUMBER_TYPES):
        return False, lst
    if not 0 <= index <= len(lst):
        raise IndexError(index)
    values = [int(v) for v in lst]
    values.insert(index, _array_cast(lst, value))
    new = _array_with(lst, values)
    _replace(con, key, new)
    return True, new


class _Node:
    __slots__ = ()

    def get(self, cur: Tag, out: list[Tag]) -> None:
        raise NotImplementedError

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        """get (supplier None) or getOrInit, keeping each result's slot."""
        raise NotImplementedError

    def init(self) -> Tag:
        raise NotImplementedError

    def set(self, slot: Slot, supplier: Supplier) -> int:
        raise NotImplementedError

    def clear(self, slot: Slot) -> int:
        raise NotImplementedError


class _Named(_Node):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def get(self, cur: Tag, out: list[Tag]) -> None:
        if isinstance(cur, dict):
            value = cur.get(self.name)
            if value is not None:
                out.append(value)

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        cur = slot[0]
        if isinstance(cur, dict):
            value = cur.get(self.name)
            if value is None:
                if supplier is None:
                    return
                value = supplier()
                cur[self.name] = value
            out.append((value, cur, self.name))

    def init(self) -> Tag:
        return Compound()

    def set(self, slot: Slot, supplier: Supplier) -> int:
        cur = slot[0]
        if isinstance(cur, dict):
            value = supplier()
            old = cur.get(self.name)
            cur[self.name] = value
            return 0 if old is not None and nbt_equal(value, old) else 1
        return 0

    def clear(self, slot: Slot) -> int:
        cur = slot[0]
        if isinstance(cur, dict) and self.name in cur:
            del cur[self.name]
            return 1
        return 0


class _FilteredNamed(_Node):
    __slots__ = ("filter", "name")

    def __init__(self, name: str, filter: Compound) -> None:
        self.name = name
        self.filter = filter

    def get(self, cur: Tag, out: list[Tag]) -> None:
        if isinstance(cur, dict):
            value = cur.get(self.name)
            if nbt_matches(self.filter, value):
                out.append(value)

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        cur = slot[0]
        if isinstance(cur, dict):
            value = cur.get(self.name)
            if value is None:
                if supplier is None:
                    return
                value = copy_tag(self.filter)
                cur[self.name] = value
                out.append((value, cur, self.name))
            elif nbt_matches(self.filter, value):
                out.append((value, cur, self.name))

    def init(self) -> Tag:
        return Compound()

    def set(self, slot: Slot, supplier: Supplier) -> int:
        cur = slot[0]
        if isinstance(cur, dict):
            old = cur.get(self.name)
            if nbt_matches(self.filter, old):
                value = supplier()
                if not nbt_equal(value, old):
                    cur[self.name] = value
                    return 1
        return 0

    def clear(self, slot: Slot) -> int:
        cur = slot[0]
        if isinstance(cur, dict) and nbt_matches(self.filter, cur.get(self.name)):
            del cur[self.name]
            return 1
        return 0


class _FilteredRoot(_Node):
    __slots__ = ("filter",)

    def __init__(self, filter: Compound) -> None:
        self.filter = filter

    def get(self, cur: Tag, out: list[Tag]) -> None:
        if isinstance(cur, dict) and nbt_matches(self.filter, cur):
            out.append(cur)

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        if isinstance(slot[0], dict) and nbt_matches(self.filter, slot[0]):
            out.append(slot)

    def init(self) -> Tag:
        return Compound()

    def set(self, slot: Slot, supplier: Supplier) -> int:
        return 0

    def clear(self, slot: Slot) -> int:
        return 0


class _Index(_Node):
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def _resolve(self, size: int) -> int:
        return size + self.index if self.index < 0 else self.index

    def get(self, cur: Tag, out: list[Tag]) -> None:
        if isinstance(cur, list):
            j = self._resolve(len(cur))
            if 0 <= j < len(cur):
                out.append(cur[j])
        elif isinstance(cur, Array):
            j = self._resolve(len(cur))
            if 0 <= j < len(cur):
                out.append(_array_get(cur, j))

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        cur = slot[0]
        if isinstance(cur, list):
            j = self._resolve(len(cur))
            if 0 <= j < len(cur):
                out.append((cur[j], cur, j))
        elif isinstance(cur, Array):
            j = self._resolve(len(cur))
            if 0 <= j < len(cur):
                out.append((_array_get(cur, j), cur, j))

    def init(self) -> Tag:
        return NbtList()

    def set(self, slot: Slot, supplier: Supplier) -> int:
        cur = slot[0]
        if isinstance(cur, list | Array):
            j = self._resolve(len(cur))
            if 0 <= j < len(cur):
                old = cur[j] if isinstance(cur, list) else _array_get(cur, j)
                value = supplier()
                if nbt_equal(value, old):
                    return 0
                if isinstance(cur, list):
                    cur[j] = value
                    return 1
                if isinstance(value, NUMBER_TYPES):
                    cur[j] = _array_cast(cur, value)
                    return 1
        return 0

    def clear(self, slot: Slot) -> int:
        cur, con, key = slot
        if isinstance(cur, list | Array):
            j = self._resolve(len(cur))
            if 0 <= j < len(cur):
                if isinstance(cur, list):
                    del cur[j]
                else:
                    values = [int(v) for v in cur]
                    del values[j]
                    _replace(con, key, _array_with(cur, values))
                return 1
        return 0


class _All(_Node):
    __slots__ = ()

    def get(self, cur: Tag, out: list[Tag]) -> None:
        if isinstance(cur, list):
            out.extend(cur)
        elif isinstance(cur, Array):
            out.extend(_array_get(cur, j) for j in range(len(cur)))

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        cur, con, key = slot
        if not isinstance(cur, list | Array):
            return
        if len(cur) == 0 and supplier is not None:
            value = supplier()
            added, cur = _list_add(cur, con, key, 0, value)
            if added:
                out.append((value if isinstance(cur, list) else _array_get(cur, 0), cur, 0))
        elif isinstance(cur, list):
            out.extend((value, cur, j) for j, value in enumerate(cur))
        else:
            out.extend((_array_get(cur, j), cur, j) for j in range(len(cur)))

    def init(self) -> Tag:
        return NbtList()

    def set(self, slot: Slot, supplier: Supplier) -> int:
        cur, con, key = slot
        if not isinstance(cur, list | Array):
            return 0
        size = len(cur)
        if size == 0:
            _list_add(cur, con, key, 0, supplier())
            return 1
        value = supplier()
        if isinstance(cur, list):
            changed = size - sum(1 for old in cur if nbt_equal(value, old))
            if changed == 0:
                return 0
            cur.clear()
            cur.append(value)
            cur.extend(supplier() for _ in range(1, size))
            return changed
        changed = size - sum(1 for j in range(size) if nbt_equal(value, _array_get(cur, j)))
        if changed == 0:
            return 0
        if not isinstance(value, NUMBER_TYPES):
            # Vanilla clears the array first, then fails to add the value: it stays empty.
            _replace(con, key, _array_with(cur, []))
            return 0
        cur[:] = _array_cast(cur, value)
        return changed

    def clear(self, slot: Slot) -> int:
        cur, con, key = slot
        size = len(cur) if isinstance(cur, list | Array) else 0
        if size == 0:
            return 0
        if isinstance(cur, list):
            cur.clear()
        else:
            _replace(con, key, _array_with(cur, []))
        return size


class _FilteredList(_Node):
    __slots__ = ("filter",)

    def __init__(self, filter: Compound) -> None:
        self.filter = filter

    def get(self, cur: Tag, out: list[Tag]) -> None:
        if isinstance(cur, list):
            out.extend(value for value in cur if nbt_matches(self.filter, value))

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        cur = slot[0]
        if not isinstance(cur, list):
            return
        found = False
        for j, value in enumerate(cur):
            if nbt_matches(self.filter, value):
                out.append((value, cur, j))
                found = True
        if not found and supplier is not None:
            created = copy_tag(self.filter)
            cur.append(created)
            out.append((created, cur, len(cur) - 1))

    def init(self) -> Tag:
        return NbtList()

    def set(self, slot: Slot, supplier: Supplier) -> int:
        cur = slot[0]
        if not isinstance(cur, list):
            return 0
        if not cur:
            cur.append(supplier())
            return 1
        changed = 0
        for j, old in enumerate(cur):
            if nbt_matches(self.filter, old):
                value = supplier()
                if not nbt_equal(value, old):
                    cur[j] = value
                    changed += 1
        return changed

    def clear(self, slot: Slot) -> int:
        cur = slot[0]
        if not isinstance(cur, list):
            return 0
        removed = 0
        for j in range(len(cur) - 1, -1, -1):
            if nbt_matches(self.filter, cur[j]):
                del cur[j]
                removed += 1
        return removed


_ALL = _All()


class _CopySupplier:
    """The value itself on the first call, a copy on every later one (as NbtPath.put does)."""

    __slots__ = ("given", "value")

    def __init__(self, value: Tag) -> None:
        self.value = value
        self.given = False

    def __call__(self) -> Tag:
        if self.given:
            return copy_tag(self.value)
        self.given = True
        return self.value


def _too_deep(tag: Tag, depth: int) -> bool:
    if depth >= 512:
        return True
    if isinstance(tag, dict):
        return any(_too_deep(value, depth + 1) for value in tag.values())
    if isinstance(tag, list):
        return any(_too_deep(value, depth + 1) for value in tag)
    return False


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

    def __init__(self, text: str, nodes: tuple[_Node, ...], ends: tuple[int, ...]) -> None:
        if not nodes:
            raise CommandSyntaxError(_INVALID_NODE)
        # Vanilla keys its node->end map by node; the one `[]` node is a singleton, so every
        # `[]` reports the end of the last `[]` in the path.
        last_all = max((e for n, e in zip(nodes, ends, strict=True) if n is _ALL), default=0)
        self._text = text
        self._nodes = nodes
        self._ends = tuple(last_all if n is _ALL else e for n, e in zip(nodes, ends, strict=True))

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
            raise CommandSyntaxError(f"{_INVALID_NODE}: {text!r}") from exc
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
        nodes: list[_Node] = []
        ends: list[int] = []
        pieces: list[str] = []
        start = node.location.pos
        i = 0
        while i < len(components):
            comp = components[i]
            last = comp
            if isinstance(comp, ast.AstNbtPathKey):
                if not comp.value:
                    raise CommandSyntaxError(_INVALID_NODE)
                if nodes:
                    pieces.append(".")
                pieces.append(_key_text(comp.value))
                following = components[i + 1] if i + 1 < len(components) else None
                if isinstance(following, ast.AstNbtCompound):
                    flt = from_mecha(following)
                    nodes.append(_FilteredNamed(comp.value, flt))
                    pieces.append(format_snbt_compact(flt))
                    last = following
                    i += 1
                else:
                    nodes.append(_Named(comp.value))
            elif isinstance(comp, ast.AstNbtCompound):
                if nodes:
                    raise CommandSyntaxError(_INVALID_NODE)
                flt = from_mecha(comp)
                nodes.append(_FilteredRoot(flt))
                pieces.append(format_snbt_compact(flt))
            elif isinstance(comp, ast.AstNbtPathSubscript):
                index = comp.index
                if index is None:
                    nodes.append(_ALL)
                    pieces.append("[]")
                elif isinstance(index, ast.AstNbtCompound):
                    flt = from_mecha(index)
                    nodes.append(_FilteredList(flt))
                    pieces.append(f"[{format_snbt_compact(flt)}]")
                else:
                    nodes.append(_Index(int(index.value)))
                    pieces.append(f"[{int(index.value)}]")
            else:
                raise CommandSyntaxError(_INVALID_NODE)
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
        if _too_deep(value, len(self._nodes)):
            raise CommandError(_TOO_DEEP)
        supplier = _CopySupplier(copy_tag(value))
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
            if _too_deep(value, len(self._nodes)):
                raise CommandError(_TOO_DEEP)
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
                    added, target = _list_add(target, con, key, position, item)
                except IndexError:
                    raise CommandError(f"Invalid list index: {position}") from None
                if added:
                    position += 1
                    added_any = True
            copy_again = True
            changed += added_any
        return changed

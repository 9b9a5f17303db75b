"""What each NBT path element does to live tags: get, walk (creating parents), set, clear.

Every node kind behaves as in the 1.21.11 decompile (NbtPathArgumentType's node classes):
class-exact filters, `set` creating missing parents, `remove` creating nothing, `[i]` never
creating, `[{f}]`/`name{f}` creating a copy of f. Mutating walks carry each element's
(container, key) slot, because numpy-backed arrays cannot grow or shrink in place: a resized
array replaces the old one in its parent. mcsim/nbt/path.py parses paths into these nodes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from nbtlib.tag import Array, Byte, ByteArray, Compound, Int, IntArray, Long, LongArray

from mcsim.errors import CommandError
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

# Compounds are read with dict.get: nbtlib's Compound.get first tries the key as an nbtlib Path
# (a str raises AttributeError inside it), ~20x slower, and this is every `data` command's path.

__all__ = [
    "ALL",
    "INVALID_NODE",
    "TOO_DEEP",
    "AllElements",
    "CopySupplier",
    "FilteredList",
    "FilteredNamed",
    "FilteredRoot",
    "Index",
    "Named",
    "Node",
    "Slot",
    "Supplier",
    "list_add",
    "nbt_matches",
    "too_deep",
]

log = logging.getLogger(__name__)

Supplier = Callable[[], Tag]
# (value, container holding it or None for the root, key/index in that container)
Slot = tuple[Tag, Any, Any]

INVALID_NODE = "Invalid NBT path element"
TOO_DEEP = "Resulting NBT too deeply nested"
_ELEMENT_OF: dict[type, type] = {ByteArray: Byte, IntArray: Int, LongArray: Long}


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
        return all(nbt_matches(value, dict.get(subject, key)) for key, value in standard.items())
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
        raise CommandError(INVALID_NODE)
    container[key] = new


def list_add(lst: Any, con: Any, key: Any, index: int, value: Tag) -> tuple[bool, Any]:
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


class Node:
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


class Named(Node):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def get(self, cur: Tag, out: list[Tag]) -> None:
        if isinstance(cur, dict):
            value = dict.get(cur, self.name)
            if value is not None:
                out.append(value)

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        cur = slot[0]
        if isinstance(cur, dict):
            value = dict.get(cur, self.name)
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
            old = dict.get(cur, self.name)
            cur[self.name] = value
            return 0 if old is not None and nbt_equal(value, old) else 1
        return 0

    def clear(self, slot: Slot) -> int:
        cur = slot[0]
        if isinstance(cur, dict) and self.name in cur:
            del cur[self.name]
            return 1
        return 0


class FilteredNamed(Node):
    __slots__ = ("filter", "name")

    def __init__(self, name: str, filter: Compound) -> None:
        self.name = name
        self.filter = filter

    def get(self, cur: Tag, out: list[Tag]) -> None:
        if isinstance(cur, dict):
            value = dict.get(cur, self.name)
            if nbt_matches(self.filter, value):
                out.append(value)

    def walk(self, slot: Slot, supplier: Supplier | None, out: list[Slot]) -> None:
        cur = slot[0]
        if isinstance(cur, dict):
            value = dict.get(cur, self.name)
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
            old = dict.get(cur, self.name)
            if nbt_matches(self.filter, old):
                value = supplier()
                if not nbt_equal(value, old):
                    cur[self.name] = value
                    return 1
        return 0

    def clear(self, slot: Slot) -> int:
        cur = slot[0]
        if isinstance(cur, dict) and nbt_matches(self.filter, dict.get(cur, self.name)):
            del cur[self.name]
            return 1
        return 0


class FilteredRoot(Node):
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


class Index(Node):
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


class AllElements(Node):
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
            added, cur = list_add(cur, con, key, 0, value)
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
            list_add(cur, con, key, 0, supplier())
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


class FilteredList(Node):
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


ALL = AllElements()


class CopySupplier:
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


def too_deep(tag: Tag, depth: int) -> bool:
    if depth >= 512:
        return True
    if isinstance(tag, dict):
        return any(too_deep(value, depth + 1) for value in tag.values())
    if isinstance(tag, list):
        return any(too_deep(value, depth + 1) for value in tag)
    return False

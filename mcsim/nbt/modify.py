"""`data modify` semantics (DataCommand): set/merge/append/prepend/insert and `string` sources."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from nbtlib.tag import Compound, String

from mcsim.errors import CommandError
from mcsim.nbt.path import NbtPath
from mcsim.nbt.path_ops import too_deep
from mcsim.nbt.snbt import format_snbt_compact
from mcsim.nbt.values import NUMBER_TYPES, Tag, copy_tag, nbt_equal

__all__ = ["MODES", "merge_compound", "modify", "string_source"]

log = logging.getLogger(__name__)

MODES = frozenset({"set", "merge", "append", "prepend", "insert"})


def merge_compound(target: Compound, source: Compound) -> bool:
    """NbtCompound.copyFrom: deep-merge copies of `source` into `target`; True if it changed."""
    changed = False
    for key, value in source.items():
        old = target.get(key)
        if isinstance(value, Compound) and isinstance(old, Compound):
            changed = merge_compound(old, value) or changed
        else:
            new = copy_tag(value)
            target[key] = new
            if old is None or not nbt_equal(old, new):
                changed = True
    return changed


def modify(
    root: Compound,
    path: NbtPath,
    mode: str,
    source_values: Sequence[Tag],
    index: int | None = None,
) -> int:
    """Apply `data modify <target> <path> <mode> ...` to `root`, in place.

    `source_values` are the source matches in order (`value <v>` gives one; `from <path>` gives
    `path.get(...)`). `set` uses the LAST of them, as vanilla does; merge/append/prepend/insert
    use all. Returns the number changed; 0 means the caller raises "Nothing changed...".
    Edits made before an error stay, as in vanilla.
    """
    if mode == "set":
        if not source_values:
            raise ValueError("set needs at least one source value")
        return path.set(root, source_values[-1])
    if mode == "merge":
        combined = Compound()
        for value in source_values:
            if too_deep(value, 0):
                raise CommandError("Resulting NBT too deeply nested")
            if not isinstance(value, Compound):
                raise CommandError(f"Expected an object: got {format_snbt_compact(value)}")
            merge_compound(combined, value)
        changed = 0
        for target in path.get_or_create(root, Compound):
            if not isinstance(target, Compound):
                raise CommandError(f"Expected an object: got {format_snbt_compact(target)}")
            changed += merge_compound(target, combined)
        return changed
    if mode == "append":
        return path.insert(root, -1, list(source_values))
    if mode == "prepend":
        return path.insert(root, 0, list(source_values))
    if mode == "insert":
        if index is None:
            raise ValueError("insert needs an index")
        return path.insert(root, index, list(source_values))
    raise ValueError(f"unknown data modify mode {mode!r}")


def _as_string(tag: Tag) -> str:
    if isinstance(tag, String):
        return str(tag)
    if isinstance(tag, NUMBER_TYPES):
        return format_snbt_compact(tag)
    raise CommandError(f"Expected a value: got {format_snbt_compact(tag)}")


def string_source(tag: Tag, start: int | None = None, end: int | None = None) -> String:
    """`data modify ... string <source> [path] [start] [end]` for one source match.

    Strings give their text, numbers their SNBT (`1b`, `5`, `2.5f`, `3L`, `1.0d`). Indices are
    UTF-16 units; negative counts from the end; the error names the resolved indices.
    """
    text = _as_string(tag)
    if start is None:
        return String(text)
    units = text.encode("utf-16-le", "surrogatepass")
    length = len(units) // 2
    begin = start if start >= 0 else length + start
    stop = length if end is None else (end if end >= 0 else length + end)
    if not (begin >= 0 and stop <= length and begin <= stop):
        raise CommandError(f"Invalid substring indices: {begin} to {stop}")
    if text.isascii():
        return String(text[begin:stop])
    return String(units[2 * begin : 2 * stop].decode("utf-16-le", "surrogatepass"))

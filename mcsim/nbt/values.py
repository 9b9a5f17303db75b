"""The NBT value model: nbtlib tags plus a list that may mix tag types (1.21.5+).

Vanilla compares tags by exact class (`1` is not `1b`), while nbtlib's numbers compare as Python
numbers and its arrays are numpy arrays; so equality, copying and the Java number casts live here.
"""

from __future__ import annotations

import logging
import math
import struct
from collections.abc import Iterable
from typing import Any, TypeAlias

from nbtlib.tag import (
    Array,
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

__all__ = [
    "NUMBER_TYPES",
    "NbtList",
    "Tag",
    "copy_tag",
    "data_get_value",
    "f32",
    "from_python",
    "hashmap_order",
    "is_list_like",
    "java_d2i",
    "java_d2l",
    "java_floor",
    "java_string_hash",
    "nbt_equal",
    "new_array",
    "store_value",
    "tag_kind",
    "tag_type_id",
    "to_python",
    "utf16_len",
]

log = logging.getLogger(__name__)

# nbtlib ships no type information; a tag is any nbtlib tag or an NbtList.
Tag: TypeAlias = Any

NUMBER_TYPES = (Byte, Short, Int, Long, Float, Double)
_INT_MIN = -(2**31)
_INT_MAX = 2**31 - 1
_LONG_MIN = -(2**63)
_LONG_MAX = 2**63 - 1
_FLT_MAX = 3.4028234663852886e38


class NbtList(list):
    """A list tag. Since 1.21.5 one list may hold any mix of tag types."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"NbtList({list.__repr__(self)})"


def is_list_like(tag: Tag) -> bool:
    """Lists and arrays: vanilla's AbstractNbtList (what `[i]` and `[]` accept)."""
    return isinstance(tag, list | Array)


def tag_kind(tag: Tag) -> type:
    """The class vanilla would see: every list flavour (ours, nbtlib's List[T]) is one class."""
    return NbtList if isinstance(tag, list) else type(tag)


_TYPE_IDS: dict[type, int] = {
    Byte: 1,
    Short: 2,
    Int: 3,
    Long: 4,
    Float: 5,
    Double: 6,
    ByteArray: 7,
    String: 8,
    NbtList: 9,
    Compound: 10,
    IntArray: 11,
    LongArray: 12,
}


def tag_type_id(tag: Tag) -> int:
    """The binary NBT type id of a tag."""
    kind = tag_kind(tag)
    try:
        return _TYPE_IDS[kind]
    except KeyError:
        for base, tid in _TYPE_IDS.items():
            if isinstance(tag, base):
                return tid
        raise TypeError(f"not an NBT tag: {tag!r}") from None


def nbt_equal(a: Tag, b: Tag) -> bool:
    """Vanilla's `equals`: same class and same value, recursively (`1` != `1b`)."""
    if a is b:
        return True
    ka = tag_kind(a)
    if ka is not tag_kind(b):
        return False
    if ka is Compound:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            other = b.get(key)
            if other is None or not nbt_equal(value, other):
                return False
        return True
    if ka is NbtList:
        return len(a) == len(b) and all(nbt_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Array):
        return len(a) == len(b) and a.tolist() == b.tolist()
    if ka is Float or ka is Double:
        # Java's Float/Double equality: NaN equals NaN, 0.0 differs from -0.0.
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return bool(a == b and math.copysign(1.0, a) == math.copysign(1.0, b))
    return bool(a == b)


def new_array(kind: type, values: Iterable[int]) -> Tag:
    """A fresh array tag of `kind` (ByteArray, IntArray or LongArray)."""
    return kind(list(values))


def copy_tag(tag: Tag) -> Tag:
    """A deep copy, as vanilla's `copy()`; numbers and strings are immutable and shared."""
    if isinstance(tag, Compound):
        return Compound({k: copy_tag(v) for k, v in tag.items()})
    if isinstance(tag, list):
        return NbtList([copy_tag(v) for v in tag])
    if isinstance(tag, Array):
        return type(tag)(tag.copy())
    return tag


def utf16_len(text: str) -> int:
    """Java's `String.length()`: UTF-16 code units (an emoji counts 2)."""
    n = len(text)
    if text.isascii():
        return n
    return n + sum(1 for ch in text if ord(ch) > 0xFFFF)


def f32(value: float) -> float:
    """Round a double to the nearest float32 (Java's `(float)` cast)."""
    try:
        return float(struct.unpack(">f", struct.pack(">f", value))[0])
    except OverflowError:
        # Past FLT_MAX: round-to-nearest still gives FLT_MAX up to half an ulp beyond it.
        if abs(value) < 2.0**128 - 2.0**103:
            return math.copysign(_FLT_MAX, value)
        return math.copysign(math.inf, value)


def java_d2i(value: float) -> int:
    """Java's `(int)` of a double: truncate toward 0, saturate, NaN -> 0."""
    if math.isnan(value):
        return 0
    if value >= _INT_MAX:
        return _INT_MAX
    if value <= _INT_MIN:
        return _INT_MIN
    return int(value)


def java_d2l(value: float) -> int:
    """Java's `(long)` of a double: truncate toward 0, saturate, NaN -> 0."""
    if math.isnan(value):
        return 0
    if value >= 2.0**63:
        return _LONG_MAX
    if value <= -(2.0**63):
        return _LONG_MIN
    return int(value)


def _wrap(value: int, bits: int) -> int:
    mask = (1 << bits) - 1
    value &= mask
    return value - (1 << bits) if value >> (bits - 1) else value


def java_floor(value: float) -> int:
    """MathHelper.floor(double): `(int)` then minus one below, wrapping as Java does."""
    i = java_d2i(value)
    return _wrap(i - 1, 32) if value < i else i


def data_get_value(tag: Tag, scale: float | None, *, path: object = "") -> int:
    """The result of `data get ... <path> [scale]` for the single matched tag.

    `path` is only used in the error text ("Can't get <path>; only numeric tags are allowed").
    """
    from mcsim.errors import CommandError

    if scale is not None:
        if not isinstance(tag, NUMBER_TYPES):
            raise CommandError(f"Can't get {path}; only numeric tags are allowed")
        return java_floor(float(tag) * scale)
    if isinstance(tag, NUMBER_TYPES):
        return java_floor(float(tag))
    if isinstance(tag, String):
        return utf16_len(tag)
    if isinstance(tag, Compound | list | Array):
        return len(tag)
    raise CommandError(f"Can't get {path}; tag doesn't exist")


def store_value(kind: str, value: float) -> Tag:
    """The tag `execute store result|success storage ... <kind> <scale>` writes (Java casts)."""
    if kind == "int":
        return Int(java_d2i(value))
    if kind == "byte":
        return Byte(_wrap(java_d2i(value), 8))
    if kind == "short":
        return Short(_wrap(java_d2i(value), 16))
    if kind == "long":
        return Long(java_d2l(value))
    if kind == "float":
        return Float(f32(value))
    if kind == "double":
        return Double(float(value))
    raise ValueError(f"unknown store type {kind!r}")


def to_python(tag: Tag) -> object:
    """Plain Python values: dict/list/int/float/str; arrays become lists of ints."""
    if isinstance(tag, Compound):
        return {k: to_python(v) for k, v in tag.items()}
    if isinstance(tag, list):
        return [to_python(v) for v in tag]
    if isinstance(tag, Array):
        # numpy's tolist gives Python ints at once; indexing wraps each element in a tag first
        # (~100x slower, and every task record holds a UUID array)
        return list(tag.tolist())
    if isinstance(tag, String):
        return str(tag)
    if isinstance(tag, Float | Double):
        return float(tag)
    if isinstance(tag, Byte | Short | Int | Long):
        return int(tag)
    raise TypeError(f"not an NBT tag: {tag!r}")


def from_python(obj: object) -> Tag:
    """bool -> Byte, int -> Int (Long beyond 32 bits), float -> Double, str -> String,
    dict -> Compound, list/tuple -> NbtList; tags pass through unchanged."""
    if isinstance(obj, (Compound, NbtList, Array, *NUMBER_TYPES, String)):
        return obj
    if isinstance(obj, bool):
        return Byte(1 if obj else 0)
    if isinstance(obj, int):
        return Int(obj) if _INT_MIN <= obj <= _INT_MAX else Long(obj)
    if isinstance(obj, float):
        return Double(obj)
    if isinstance(obj, str):
        return String(obj)
    if isinstance(obj, dict):
        return Compound({str(k): from_python(v) for k, v in obj.items()})
    if isinstance(obj, list | tuple):
        return NbtList(from_python(v) for v in obj)
    raise TypeError(f"cannot convert {type(obj).__name__} to NBT")


def java_string_hash(text: str) -> int:
    """Java's String.hashCode (over UTF-16 code units, 32-bit wrap)."""
    h = 0
    if text.isascii():
        for ch in text:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
        return h
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h


_BUCKET_CACHE: dict[str, int] = {}


def _spread(key: str) -> int:
    h = _BUCKET_CACHE.get(key)
    if h is None:
        raw = java_string_hash(key)
        h = raw ^ (raw >> 16)
        if len(_BUCKET_CACHE) < 65536:
            _BUCKET_CACHE[key] = h
    return h


def hashmap_order(keys: Iterable[str]) -> list[str]:
    """The iteration order of a java.util.HashMap filled with `keys` in this order.

    The table starts at 16 buckets and doubles whenever size > 0.75 * capacity; iteration walks
    the buckets in index order and each bucket in insertion order (resizes keep that order). A map
    that once held more keys keeps its larger table in Java; that history is not modelled.
    """
    ordered = list(keys)
    n = len(ordered)
    if n <= 1:
        return ordered
    cap = 16
    while n > cap * 0.75:
        cap *= 2
    mask = cap - 1
    # sorted() is stable, so insertion order is kept within a bucket.
    return sorted(ordered, key=lambda k: _spread(k) & mask)

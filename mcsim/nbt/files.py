"""Binary NBT files as vanilla writes them: gzipped, big-endian, root compound named "".

A list whose elements differ in type is saved the 1.21.5+ way: as a compound list, each element
wrapped as `{"": value}` (compounds that are not themselves such a wrapper stay as they are), and
unwrapped on reading. Strings use Java's modified UTF-8 (writeUTF/readUTF).
"""

from __future__ import annotations

import gzip
import io
import logging
import os
import struct
from pathlib import Path
from typing import Any, BinaryIO

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

from mcsim.nbt.values import NbtList, Tag, f32, hashmap_order, tag_type_id

__all__ = ["decode_nbt", "encode_nbt", "read_nbt_file", "write_nbt_file"]

log = logging.getLogger(__name__)

_COMPOUND = 10


def _encode_utf(text: str) -> bytes:
    if text.isascii() and "\x00" not in text:
        data = text.encode("ascii")
    else:
        out = bytearray()
        for unit_pair in range(0, len(raw := text.encode("utf-16-be", "surrogatepass")), 2):
            unit = (raw[unit_pair] << 8) | raw[unit_pair + 1]
            if 0 < unit < 0x80:
                out.append(unit)
            elif unit < 0x800:
                out += bytes((0xC0 | (unit >> 6), 0x80 | (unit & 0x3F)))
            else:
                out += bytes(
                    (0xE0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3F), 0x80 | (unit & 0x3F))
                )
        data = bytes(out)
    if len(data) > 0xFFFF:
        raise ValueError("string too long for NBT")
    return struct.pack(">H", len(data)) + data


def _decode_utf(data: bytes) -> str:
    try:
        return data.decode("ascii")
    except UnicodeDecodeError:
        pass
    units: list[int] = []
    i = 0
    while i < len(data):
        b = data[i]
        if b < 0x80:
            units.append(b)
            i += 1
        elif b >> 5 == 0b110:
            units.append(((b & 0x1F) << 6) | (data[i + 1] & 0x3F))
            i += 2
        else:
            units.append(((b & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F))
            i += 3
    raw = b"".join(struct.pack(">H", u) for u in units)
    return raw.decode("utf-16-be", "surrogatepass")


def _list_type(items: list[Any]) -> int:
    kind = 0
    for item in items:
        tid = tag_type_id(item)
        if kind == 0:
            kind = tid
        elif kind != tid:
            return _COMPOUND
    return kind


def _is_wrapper(tag: Tag) -> bool:
    return isinstance(tag, Compound) and len(tag) == 1 and "" in tag


def _write_payload(tag: Tag, out: io.BytesIO) -> None:
    if isinstance(tag, Compound):
        for key in hashmap_order(tag.keys()):
            value = tag[key]
            out.write(bytes((tag_type_id(value),)))
            out.write(_encode_utf(key))
            _write_payload(value, out)
        out.write(b"\x00")
    elif isinstance(tag, list):
        kind = _list_type(tag)
        out.write(struct.pack(">bi", kind, len(tag)))
        for item in tag:
            if kind == _COMPOUND and (not isinstance(item, Compound) or _is_wrapper(item)):
                item = Compound({"": item})
            _write_payload(item, out)
    elif isinstance(tag, String):
        out.write(_encode_utf(str(tag)))
    elif isinstance(tag, Byte):
        out.write(struct.pack(">b", int(tag)))
    elif isinstance(tag, Short):
        out.write(struct.pack(">h", int(tag)))
    elif isinstance(tag, Int):
        out.write(struct.pack(">i", int(tag)))
    elif isinstance(tag, Long):
        out.write(struct.pack(">q", int(tag)))
    elif isinstance(tag, Float):
        out.write(struct.pack(">f", f32(float(tag))))
    elif isinstance(tag, Double):
        out.write(struct.pack(">d", float(tag)))
    elif isinstance(tag, Array):
        code = {ByteArray: ">b", IntArray: ">i", LongArray: ">q"}[type(tag)]
        values = [int(v) for v in tag]
        out.write(struct.pack(">i", len(values)))
        out.write(struct.pack(">" + code[1] * len(values), *values))
    else:
        raise TypeError(f"not an NBT tag: {tag!r}")


def encode_nbt(root: Compound, name: str = "") -> bytes:
    """Uncompressed big-endian bytes of a named root compound."""
    out = io.BytesIO()
    out.write(bytes((_COMPOUND,)))
    out.write(_encode_utf(name))
    _write_payload(root, out)
    return out.getvalue()


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("truncated NBT data")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, self.take(size))[0]

    def utf(self) -> str:
        return _decode_utf(self.take(self.unpack(">H")))

    def payload(self, tid: int) -> Tag:
        if tid == 1:
            return Byte(self.unpack(">b"))
        if tid == 2:
            return Short(self.unpack(">h"))
        if tid == 3:
            return Int(self.unpack(">i"))
        if tid == 4:
            return Long(self.unpack(">q"))
        if tid == 5:
            return Float(self.unpack(">f"))
        if tid == 6:
            return Double(self.unpack(">d"))
        if tid == 8:
            return String(self.utf())
        if tid in (7, 11, 12):
            count = self.unpack(">i")
            code = {7: "b", 11: "i", 12: "q"}[tid]
            values = struct.unpack(">" + code * count, self.take(struct.calcsize(code) * count))
            return {7: ByteArray, 11: IntArray, 12: LongArray}[tid](list(values))
        if tid == 9:
            kind = self.unpack(">b")
            count = self.unpack(">i")
            if count < 0:
                raise ValueError(f"ListTag length cannot be negative: {count}")
            if kind == 0 and count > 0:
                raise ValueError("Missing type on ListTag")
            items = NbtList()
            for _ in range(count):
                item = self.payload(kind)
                if kind == _COMPOUND and _is_wrapper(item):
                    item = item[""]
                items.append(item)
            return items
        if tid == _COMPOUND:
            compound = Compound()
            while (child := self.unpack(">b")) != 0:
                key = self.utf()
                compound[key] = self.payload(child)
            return compound
        raise ValueError(f"unknown NBT tag type {tid}")


def decode_nbt(data: bytes) -> Compound:
    """Read an uncompressed named root compound."""
    reader = _Reader(data)
    if reader.unpack(">b") != _COMPOUND:
        raise ValueError("root tag must be a compound")
    reader.utf()
    root = reader.payload(_COMPOUND)
    assert isinstance(root, Compound)
    return root


def read_nbt_file(path: Path | str) -> Compound:
    """Read a gzipped (or, failing that, plain) big-endian NBT file."""
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return decode_nbt(raw)


def write_nbt_file(path: Path | str, compound: Compound) -> None:
    """Write gzipped NBT atomically (temp file then rename), as vanilla's NbtIo does."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = gzip.compress(encode_nbt(compound), mtime=0)
    tmp = target.with_name(target.name + ".tmp")
    with open(tmp, "wb") as handle:
        _write_all(handle, data)
    os.replace(tmp, target)


def _write_all(handle: BinaryIO, data: bytes) -> None:
    handle.write(data)
    handle.flush()

"""NBT files: gzipped big-endian round trips, 1.21.5+ mixed-list wrapping, modified UTF-8."""

from __future__ import annotations

import gzip
from pathlib import Path

import nbtlib
from nbtlib.tag import Compound, Int, String

from mcsim.nbt import (
    NbtList,
    decode_nbt,
    encode_nbt,
    nbt_equal,
    parse_snbt,
    read_nbt_file,
    write_nbt_file,
)


def test_round_trip_keeps_every_tag_type(tmp_path: Path) -> None:
    data = parse_snbt(
        '{b: 1b, s: 2s, i: 3, l: 4L, f: 1.5f, d: 2.5, str: "x", ba: [B; 1b, -2b],'
        " ia: [I; 1, -2], la: [L; 9L], list: [1, 2], nested: {deep: {x: []}}, empty: {}}"
    )
    target = tmp_path / "data" / "command_storage_test.dat"
    write_nbt_file(target, data)
    assert target.read_bytes()[:2] == b"\x1f\x8b"  # gzipped
    assert nbt_equal(read_nbt_file(target), data)


def test_mixed_lists_are_wrapped_on_disk_and_unwrapped_on_read(tmp_path: Path) -> None:
    data = Compound({"m": parse_snbt('[1, "a", {k: 1}, {"": 5}]')})
    target = tmp_path / "mixed.dat"
    write_nbt_file(target, data)
    # What an ordinary NBT reader sees: a compound list, each odd element under key "".
    raw = nbtlib.load(target).root
    on_disk = raw["m"]
    assert [dict(e) for e in on_disk][:2] == [{"": Int(1)}, {"": String("a")}]
    assert dict(on_disk[2]) == {"k": Int(1)}  # a plain compound stays unwrapped
    assert list(on_disk[3].keys()) == [""] and dict(on_disk[3][""]) == {"": Int(5)}
    back = read_nbt_file(target)
    assert isinstance(back["m"], NbtList)
    assert nbt_equal(back, data)


def test_homogeneous_lists_keep_their_element_type() -> None:
    raw = encode_nbt(Compound({"l": parse_snbt('["a", "b"]')}))
    # root: 0x0a, name length 0; entry: type 9, name "l", element type 8 (string), length 2
    assert raw[:3] == b"\x0a\x00\x00"
    assert raw[3:12] == b"\x09\x00\x01l\x08\x00\x00\x00\x02"
    assert nbt_equal(decode_nbt(raw), Compound({"l": parse_snbt('["a", "b"]')}))


def test_strings_use_modified_utf8() -> None:
    text = "nul\x00 \u00e9 \U0001f600"
    raw = encode_nbt(Compound({"t": String(text)}))
    assert b"\xc0\x80" in raw  # NUL as two bytes
    assert b"\xed\xa0\xbd\xed\xb8\x80" in raw  # the emoji as a surrogate pair
    assert decode_nbt(raw)["t"] == text


def test_written_files_are_readable_by_nbtlib_and_back(tmp_path: Path) -> None:
    target = tmp_path / "plain.dat"
    write_nbt_file(target, parse_snbt('{a: {b: [I; 1, 2]}, c: "x"}'))
    loaded = nbtlib.load(target).root
    assert int(loaded["a"]["b"][1]) == 2
    # And a file nbtlib writes reads back through ours.
    other = tmp_path / "nbtlib.dat"
    nbtlib.File({"": Compound({"x": Int(7)})}, gzipped=True).save(other)
    assert read_nbt_file(other) == {"x": Int(7)}
    assert gzip.decompress(other.read_bytes())[:1] == b"\x0a"

"""`data modify`/`data get`/`execute store` value rules, read from DataCommand and friends."""

from __future__ import annotations

import pytest
from nbtlib.tag import Byte, Compound, Double, Float, Int, Long, Short, String

from mcsim.errors import CommandError
from mcsim.nbt import (
    NbtList,
    NbtPath,
    data_get_value,
    format_snbt,
    from_python,
    merge_compound,
    modify,
    parse_snbt,
    store_value,
    string_source,
    to_python,
)


def P(text: str) -> NbtPath:
    return NbtPath.parse(text)


def test_set_from_several_source_matches_takes_the_last() -> None:
    root = Compound()
    sources = P("l[]").get(parse_snbt("{l: [1, 2, 3]}"))
    assert modify(root, P("v"), "set", sources) == 1
    assert root["v"] == Int(3)


def test_append_prepend_insert_take_every_source_in_order() -> None:
    root = parse_snbt("{l: [0, 9]}")
    sources = [Int(1), Int(2)]
    assert modify(root, P("l"), "append", sources) == 1
    assert format_snbt(root) == "{l: [0, 9, 1, 2]}"
    assert modify(root, P("l"), "prepend", [String("a"), String("b")]) == 1
    assert format_snbt(root) == '{l: ["a", "b", 0, 9, 1, 2]}'
    assert modify(root, P("l"), "insert", [Int(5)], index=-2) == 1
    assert format_snbt(root) == '{l: ["a", "b", 0, 9, 1, 5, 2]}'
    assert modify(root, P("l"), "insert", [Int(7)], index=7) == 1
    assert root["l"][-1] == Int(7)


def test_insert_errors_use_vanilla_texts() -> None:
    root = parse_snbt("{l: [1], c: {a: 1}}")
    with pytest.raises(CommandError, match=r"^Invalid list index: 5$"):
        modify(root, P("l"), "insert", [Int(1)], index=5)
    with pytest.raises(CommandError, match=r"^Invalid list index: -1$"):
        modify(root, P("l"), "insert", [Int(1)], index=-3)
    with pytest.raises(CommandError, match=r"^Expected a list: got \{a:1\}$"):
        modify(root, P("c"), "append", [Int(1)])


def test_append_creates_a_missing_list_and_several_targets_each_get_copies() -> None:
    root = Compound()
    assert modify(root, P("q.new"), "append", [Int(1)]) == 1
    assert format_snbt(root) == "{q: {new: [1]}}"
    root = parse_snbt("{ls: [[], [0], {}]}")
    with pytest.raises(CommandError, match=r"^Expected a list: got \{\}$"):
        modify(root, P("ls[]"), "append", [parse_snbt("{x: 1}")])
    # The lists before the failing target were already changed (edits are live).
    assert format_snbt(root) == "{ls: [[{x: 1}], [0, {x: 1}], {}]}"
    root["ls"][0][0]["x"] = Int(5)
    assert root["ls"][1][1]["x"] == Int(1)
    root = parse_snbt("{ls: [[], [0]]}")
    assert modify(root, P("ls[]"), "prepend", [Int(8), Int(9)]) == 2
    assert format_snbt(root) == "{ls: [[8, 9], [8, 9, 0]]}"


def test_set_to_several_targets_returns_the_sum_of_changes() -> None:
    root = parse_snbt("{l: [{v: 1}, {v: 2}, {v: 3}]}")
    assert modify(root, P("l[].v"), "set", [Int(2)]) == 2
    assert modify(root, P("l[].v"), "set", [Int(2)]) == 0


def test_merge_combines_sources_then_merges_into_each_target() -> None:
    root = parse_snbt("{t: [{a: 1}, {a: 1, b: 2, c: 3}]}")
    sources = [parse_snbt("{b: 2}"), parse_snbt("{c: 3, d: {e: 1}}")]
    assert modify(root, P("t[]"), "merge", sources) == 2
    assert modify(root, P("t[]"), "merge", sources) == 0
    assert to_python(root["t"][0]) == {"a": 1, "b": 2, "c": 3, "d": {"e": 1}}
    fresh = Compound()
    assert modify(fresh, P("x.y"), "merge", [parse_snbt("{k: 1}")]) == 1
    assert format_snbt(fresh) == "{x: {y: {k: 1}}}"


def test_merge_errors_name_the_offending_value() -> None:
    root = parse_snbt("{n: 5}")
    with pytest.raises(CommandError, match=r"^Expected an object: got 1b$"):
        modify(root, P("x"), "merge", [Byte(1)])
    with pytest.raises(CommandError, match=r"^Expected an object: got 5$"):
        modify(root, P("n"), "merge", [Compound()])


def test_merge_compound_is_deep_and_reports_change() -> None:
    target = parse_snbt("{a: {b: 1, c: 2}, l: [1]}")
    assert merge_compound(target, parse_snbt("{a: {b: 1}}")) is False
    assert merge_compound(target, parse_snbt("{a: {b: 5}, l: [2]}")) is True
    assert to_python(target) == {"a": {"b": 5, "c": 2}, "l": [2]}


def test_string_source_numbers_and_negative_indices() -> None:
    assert string_source(Byte(1)) == "1b"
    assert string_source(Int(5)) == "5"
    assert string_source(Float(2.5)) == "2.5f"
    assert string_source(Long(3)) == "3L"
    assert string_source(Double(1.0)) == "1.0d"
    assert string_source(String("hello"), 1) == "ello"
    assert string_source(String("hello"), -3) == "llo"
    assert string_source(String("hello"), 1, -1) == "ell"
    assert string_source(String("hello"), 5) == ""


def test_string_source_counts_utf16_units() -> None:
    emoji = "a\U0001f600b"
    assert string_source(String(emoji), 1, 3) == "\U0001f600"
    assert string_source(String(emoji), -1) == "b"
    assert string_source(String(emoji), 3) == "b"


def test_string_source_errors_name_resolved_indices() -> None:
    with pytest.raises(CommandError, match=r"^Invalid substring indices: 3 to 1$"):
        string_source(String("hello"), 3, 1)
    with pytest.raises(CommandError, match=r"^Invalid substring indices: -1 to 5$"):
        string_source(String("hello"), -6)
    with pytest.raises(CommandError, match=r"^Invalid substring indices: 0 to 6$"):
        string_source(String("hello"), 0, 6)
    with pytest.raises(CommandError, match=r"^Expected a value: got \[1,2\]$"):
        string_source(parse_snbt("[1, 2]"))


def test_data_get_value_rules() -> None:
    assert data_get_value(Double(-1.5), None) == -2
    assert data_get_value(Double(1e12), None) == 2**31 - 1
    # MathHelper.floor is `(int) v` then `v < i ? i - 1 : i`: below -2^31 that wraps to MAX.
    assert data_get_value(Long(-(2**40)), None) == 2**31 - 1
    assert data_get_value(Double(-(2.0**31)), None) == -(2**31)
    assert data_get_value(String("a\U0001f600"), None) == 3
    assert data_get_value(parse_snbt("[1, 2]"), None) == 2
    assert data_get_value(parse_snbt("[I; 1, 2, 3]"), None) == 3
    assert data_get_value(parse_snbt("{a: 1, b: 2}"), None) == 2
    assert data_get_value(Int(7), 1.5) == 10
    assert data_get_value(Float(0.5), -3) == -2
    with pytest.raises(CommandError, match=r"^Can't get s; only numeric tags are allowed$"):
        data_get_value(String("x"), 2.0, path=P("s"))


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("int", 3.9, Int(3)),
        ("int", -3.9, Int(-3)),
        ("int", 1e20, Int(2**31 - 1)),
        ("byte", 200.0, Byte(-56)),
        ("byte", 256.7, Byte(0)),
        ("short", 40000.0, Short(-25536)),
        ("long", -2.5, Long(-2)),
        ("float", 0.1, Float(0.10000000149011612)),
        ("double", 0.1, Double(0.1)),
    ],
)
def test_store_value_uses_java_casts(kind: str, value: float, expected: object) -> None:
    stored = store_value(kind, value)
    assert type(stored) is type(expected)
    assert stored == expected


def test_python_conversions() -> None:
    tag = from_python({"a": [1, "x", True], "b": 2.5, "c": {"d": 2**40}})
    assert type(tag["a"]) is NbtList
    assert [type(v) for v in tag["a"]] == [Int, String, Byte]
    assert type(tag["b"]) is Double and type(tag["c"]["d"]) is Long
    assert to_python(parse_snbt('{a: [1, "x"], u: [I; 1, 2], f: 1.5f}')) == {
        "a": [1, "x"],
        "u": [1, 2],
        "f": 1.5,
    }


def test_unknown_mode_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        modify(Compound(), P("a"), "replace", [Int(1)])

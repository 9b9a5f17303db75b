"""SNBT printing (vanilla's two printers), parsing, and the Java number/HashMap emulation."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbtlib.tag import (
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

from mcsim.errors import CommandSyntaxError
from mcsim.nbt import (
    NbtList,
    escape_string,
    format_snbt,
    format_snbt_compact,
    hashmap_order,
    java_double_str,
    java_float_str,
    macro_text,
    nbt_equal,
    parse_snbt,
)
from mcsim.nbt.values import java_string_hash


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("1", "1"),
        ("1b", "1b"),
        ("-3s", "-3s"),
        ("5L", "5L"),
        ("2.5f", "2.5f"),
        ("3.0", "3.0d"),
        ("1.0E7", "1.0E7d"),
        ("0.001", "0.001d"),
        ("0.0001", "1.0E-4d"),
        ("123456.5", "123456.5d"),
        ("true", "1b"),
        ('"x"', '"x"'),
        ("[1, 2]", "[1, 2]"),
        ("[]", "[]"),
        ('[1, "a", {z: 1b}]', '[1, "a", {z: 1b}]'),
        ("[I; 1, 2]", "[I; 1, 2]"),
        ("[B; 1b, 2b]", "[B; 1B, 2B]"),
        ("[L; 7L]", "[L; 7L]"),
        ("[I;]", "[I;]"),
        ("{}", "{}"),
        ('{a: 1, b: "x"}', '{a: 1, b: "x"}'),
        ('{"q y": 1}', '{"q y": 1}'),
        ('{"1+x.-_": 1}', "{1+x.-_: 1}"),
        ('{"": 1}', '{"": 1}'),
    ],
)
def test_format_snbt_matches_data_get_output(text: str, printed: str) -> None:
    assert format_snbt(parse_snbt(text)) == printed


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        ("plain", '"plain"'),
        ('say "hi"', "'say \"hi\"'"),  # first quote is " -> wrap in '
        ("it's", '"it\'s"'),
        ('it\'s "x"', '"it\'s \\"x\\""'),  # first quote is ' -> wrap in ", escape "
        ("a\\b", '"a\\\\b"'),
        ("tab\tnl\n", '"tab\\tnl\\n"'),
        ("\x01", '"\\x01"'),
        ("\u00e9\U0001f600", '"\u00e9\U0001f600"'),
    ],
)
def test_string_quote_choice_and_escapes(value: str, printed: str) -> None:
    assert escape_string(value) == printed
    assert format_snbt(String(value)) == printed


def test_long_arrays_are_cut_after_128_elements() -> None:
    printed = format_snbt(IntArray(list(range(130))))
    assert printed.startswith("[I; 0, 1, 2,")
    assert printed.endswith(" 126, 127,<...>]")


def test_deep_nesting_is_elided_at_depth_64() -> None:
    tag: Compound = Compound({"end": Int(1)})
    for _ in range(70):
        tag = Compound({"a": tag})
    printed = format_snbt(tag)
    assert printed.count("{a: ") == 64
    assert "{<...>}" in printed
    assert "end" not in printed


def test_compact_printer_sorts_keys_and_quotes_like_string_nbt_writer() -> None:
    tag = parse_snbt('{b: 1, a: [1b, 2s], "q y": {}, true: 1, "9x": 2L, d: 1.5}')
    assert format_snbt_compact(tag) == '{"9x":2L,a:[1b,2s],b:1,d:1.5d,"q y":{},"true":1}'
    assert format_snbt_compact(parse_snbt("[B; 1b, 2b]")) == "[B;1B,2B]"
    assert format_snbt_compact(parse_snbt("[L; 1L]")) == "[L;1L]"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (0.1, "0.1"),
        (1e7, "1.0E7"),
        (9999999.0, "9999999.0"),
        (0.001, "0.001"),
        (0.00099, "9.9E-4"),
        (-0.0, "-0.0"),
        (1.5e300, "1.5E300"),
        (5e-324, "4.9E-324"),
        (math.inf, "Infinity"),
        (math.nan, "NaN"),
    ],
)
def test_java_double_to_string(value: float, text: str) -> None:
    assert java_double_str(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.1, "0.1"),
        (16777217.0, "1.6777216E7"),
        (1.4e-45, "1.4E-45"),
        (3.4028235e38, "3.4028235E38"),
        (123456.789, "123456.79"),
        (100.0, "100.0"),
    ],
)
def test_java_float_to_string(value: float, text: str) -> None:
    assert java_float_str(value) == text


def test_macro_arguments_are_inserted_as_vanilla_does() -> None:
    assert macro_text(String('a "b"')) == 'a "b"'
    assert macro_text(Byte(1)) == "1"
    assert macro_text(Short(-2)) == "-2"
    assert macro_text(Long(3)) == "3"
    assert macro_text(Double(2.5)) == "2.5"
    assert macro_text(Double(1e20)) == "100000000000000000000"
    # A float widens to double first, then 15 fraction digits at most.
    assert macro_text(Float(0.1)) == "0.100000001490116"
    assert macro_text(parse_snbt('{b: 1, a: "x"}')) == '{a:"x",b:1}'


def test_java_string_hash_matches_known_values() -> None:
    # Values of "".hashCode(), "a".hashCode(), "hello".hashCode() in Java.
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    # "Aa" and "BB" are the classic colliding pair (2112); an emoji hashes its surrogates.
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("\U0001f600") == (0xD83D * 31 + 0xDE00)


def test_hashmap_order_buckets_then_insertion_order() -> None:
    # a=97 -> bucket 1, b=98 -> 2, c=99 -> 3: bucket order, not insertion order.
    assert hashmap_order(["c", "b", "a"]) == ["a", "b", "c"]
    # "id" hashes to 3355 (bucket 11), "v" to 118 (bucket 6).
    assert hashmap_order(["id", "v"]) == ["v", "id"]
    # Colliding keys keep insertion order within their bucket.
    assert hashmap_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert hashmap_order(["Aa", "BB"]) == ["Aa", "BB"]


def test_hashmap_order_follows_table_growth() -> None:
    # 12 keys fit a 16-bucket table: "p" (112) lands in bucket 0, before "a" (bucket 1).
    twelve = [chr(c) for c in range(ord("a"), ord("k") + 1)] + ["p"]
    assert len(twelve) == 12
    assert hashmap_order(twelve)[0] == "p"
    # A 13th key grows the table to 32 buckets: "p" moves to bucket 16, after "l" (12).
    thirteen = [chr(c) for c in range(ord("a"), ord("l") + 1)] + ["p"]
    assert hashmap_order(thirteen)[-1] == "p"
    # The spread step (h ^ h >>> 16) matters for long keys: "hello" = 99162322.
    h = 99162322
    assert hashmap_order(["hello", "a"]) == sorted(
        ["hello", "a"], key=lambda k: {"hello": (h ^ (h >> 16)) & 15, "a": 1}[k]
    )


def test_format_snbt_uses_hashmap_order_for_keys() -> None:
    tag = Compound()
    tag["id"] = Int(1)
    tag["v"] = Int(2)
    assert format_snbt(tag) == "{v: 2, id: 1}"


def test_number_like_keys_print_unquoted_as_vanilla_does() -> None:
    assert format_snbt(Compound({"0.": Byte(0), "-1": Int(1)})) == "{-1: 1, 0.: 0b}"


def test_parse_snbt_keeps_mixed_lists_and_rejects_garbage() -> None:
    value = parse_snbt('[1, "a", 2b]')
    assert isinstance(value, NbtList)
    assert [type(v) for v in value] == [Int, String, Byte]
    with pytest.raises(CommandSyntaxError):
        parse_snbt("{a:")


# -- property: what data get prints reads back as the same value --------------------------------

_SIMPLE_KEY = re.compile(r"[A-Za-z0-9._+-]+")
# Vanilla prints keys like `0.` or `-1` unquoted although its own parser reads them as numbers;
# the round trip only holds for keys that start like a name or that get quoted.
_keys = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF, exclude_characters="\x7f"),
    max_size=6,
).filter(lambda k: not _SIMPLE_KEY.fullmatch(k) or k[0].isalpha() or k[0] == "_")
_strings = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF, exclude_characters="\x7f"),
    max_size=12,
)
_finite = st.floats(allow_nan=False, allow_infinity=False)
_leaves = st.one_of(
    st.integers(-128, 127).map(Byte),
    st.integers(-(2**15), 2**15 - 1).map(Short),
    st.integers(-(2**31), 2**31 - 1).map(Int),
    st.integers(-(2**63), 2**63 - 1).map(Long),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(Float),
    _finite.map(Double),
    _strings.map(String),
    st.lists(st.integers(-128, 127), max_size=4).map(ByteArray),
    st.lists(st.integers(-(2**31), 2**31 - 1), max_size=4).map(IntArray),
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=4).map(LongArray),
)
_tags = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(NbtList),
        st.dictionaries(_keys, children, max_size=4).map(Compound),
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tags)
def test_format_then_parse_round_trips(tag: object) -> None:
    assert nbt_equal(parse_snbt(format_snbt(tag)), tag)

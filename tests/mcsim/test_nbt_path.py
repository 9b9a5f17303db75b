"""NBT paths: every node kind, creation rules, class-exact filters and vanilla's error texts."""

from __future__ import annotations

import pytest
from mecha import Mecha
from nbtlib.tag import Byte, Compound, Int, IntArray, String

from mcsim.errors import CommandError, CommandSyntaxError
from mcsim.nbt import NbtList, NbtPath, format_snbt, nbt_equal, nbt_matches, parse_snbt


def P(text: str) -> NbtPath:
    return NbtPath.parse(text)


def snbt(tag: object) -> str:
    return format_snbt(tag)


def test_path_text_is_kept_as_written() -> None:
    text = 'a."q y"[0][-1][][{id: 1b}].z{k: [1, 2]}'
    assert str(P(text)) == text


def test_from_mecha_with_source_keeps_text_and_without_normalises() -> None:
    line = "data get storage a:b x.'k'{f:1B}"
    node = Mecha(version="1.21").parse(line).commands[0].arguments[1]
    assert str(NbtPath.from_mecha(node, source=line)) == "x.'k'{f:1B}"
    assert str(NbtPath.from_mecha(node)) == "x.k{f:1b}"


def test_get_follows_names_indices_and_all() -> None:
    root = parse_snbt('{a: {b: [10, 20, 30]}, s: "x"}')
    assert P("a.b[0]").get(root) == [Int(10)]
    assert P("a.b[-1]").get(root) == [Int(30)]
    assert P("a.b[]").get(root) == [Int(10), Int(20), Int(30)]
    assert P("s").get(root) == [String("x")]


def test_get_reports_path_up_to_the_failing_node() -> None:
    root = parse_snbt("{a: {b: [1]}}")
    with pytest.raises(CommandError, match=r"^Found no elements matching a\.c$"):
        P("a.c.d").get(root)
    with pytest.raises(CommandError, match=r"^Found no elements matching a\.b\[5\]$"):
        P("a.b[5].x").get(root)
    with pytest.raises(CommandError, match=r"^Found no elements matching a\.b\[-2\]$"):
        P("a.b[-2]").get(root)


def test_every_all_elements_node_reports_the_last_one() -> None:
    # Vanilla keys node ends by node and `[]` is a singleton: the last `[]` end wins.
    with pytest.raises(CommandError, match=r"^Found no elements matching a\[\]\.b\[\]$"):
        P("a[].b[].c").get(parse_snbt("{a: []}"))


def test_indices_and_all_work_on_arrays() -> None:
    root = parse_snbt("{u: [I; 1, 2, 3]}")
    assert P("u[-1]").get(root) == [Int(3)]
    assert type(P("u[0]").get(root)[0]) is Int
    assert P("u[]").count(root) == 3


def test_count_never_raises() -> None:
    root = parse_snbt("{a: [1, 2]}")
    assert P("a[]").count(root) == 2
    assert P("b.c").count(root) == 0
    assert P("a[7]").count(root) == 0


def test_filters_match_by_exact_tag_class() -> None:
    root = parse_snbt("{l: [{id: 1}, {id: 1b}, {id: 1, x: 2}]}")
    assert P("l[{id: 1}]").count(root) == 2
    assert P("l[{id: 1b}]").count(root) == 1
    assert P("l[{id: 1L}]").count(root) == 0
    assert P("{l: [{id: 1b}]}").count(root) == 1
    assert P("{nope: 1}").count(root) == 0


def test_named_filter_is_a_compound_subset() -> None:
    root = parse_snbt('{p: {name: "x", age: 3}}')
    assert P('p{name: "x"}.age').get(root) == [Int(3)]
    assert P('p{name: "y"}').count(root) == 0
    assert P("p{}").count(root) == 1


def test_list_filters_need_each_element_somewhere_and_empty_means_empty() -> None:
    assert nbt_matches(parse_snbt("{t: [2, 1]}"), parse_snbt("{t: [1, 2, 3]}"))
    assert not nbt_matches(parse_snbt("{t: [4]}"), parse_snbt("{t: [1, 2, 3]}"))
    assert not nbt_matches(parse_snbt("{t: []}"), parse_snbt("{t: [1]}"))
    assert nbt_matches(parse_snbt("{t: []}"), parse_snbt("{t: []}"))
    assert nbt_matches(parse_snbt("{t: [{a: 1}]}"), parse_snbt("{t: [{a: 1, b: 2}]}"))
    assert not nbt_matches(parse_snbt("{t: [1, 1]}"), parse_snbt("{t: [1]}"))  # size check


def test_set_creates_missing_parents() -> None:
    root = Compound()
    assert P("a.b.c").set(root, Int(1)) == 1
    assert snbt(root) == "{a: {b: {c: 1}}}"
    root = Compound()
    assert P("l[].x").set(root, Int(1)) == 1
    assert snbt(root) == "{l: [{x: 1}]}"
    root = Compound()
    assert P("l[{id: 7}].v").set(root, Int(1)) == 1
    assert snbt(root) == "{l: [{v: 1, id: 7}]}"
    root = Compound()
    assert P("m{k: 1b}.v").set(root, Int(2)) == 1
    assert snbt(root) == "{m: {v: 2, k: 1b}}"


def test_set_with_index_never_creates() -> None:
    root = Compound()
    with pytest.raises(CommandError, match=r"^Found no elements matching l\[0\]$"):
        P("l[0].x").set(root, Int(1))
    # The parent list was created before the failure, as in vanilla (edits are live).
    assert snbt(root) == "{l: []}"
    assert P("l[0]").set(root, Int(1)) == 0


def test_set_counts_changes_class_exactly() -> None:
    root = parse_snbt("{a: 1}")
    assert P("a").set(root, Int(1)) == 0
    assert P("a").set(root, Byte(1)) == 1
    assert snbt(root) == "{a: 1b}"


def test_set_negative_index_and_all() -> None:
    root = parse_snbt("{l: [1, 2, 3]}")
    assert P("l[-1]").set(root, Int(9)) == 1
    assert snbt(root) == "{l: [1, 2, 9]}"
    # `[]` set replaces every element; the count is how many differed.
    assert P("l[]").set(root, Int(2)) == 2
    assert snbt(root) == "{l: [2, 2, 2]}"
    assert P("l[]").set(root, Int(2)) == 0
    empty = parse_snbt("{l: []}")
    assert P("l[]").set(empty, String("x")) == 1
    assert snbt(empty) == '{l: ["x"]}'


def test_set_writes_copies_to_several_targets() -> None:
    root = parse_snbt("{l: [{v: 1}, {v: 2}, {v: 1, w: 0}]}")
    assert P("l[{v: 1}].v").set(root, parse_snbt("{deep: 1}")) == 2
    first, _, third = root["l"]
    first["v"]["deep"] = Int(5)
    assert third["v"]["deep"] == 1  # distinct copies


def test_set_into_int_array_casts_and_keeps_the_array() -> None:
    root = parse_snbt("{u: [I; 1, 2]}")
    assert P("u[0]").set(root, Byte(7)) == 1
    assert snbt(root) == "{u: [I; 7, 2]}"
    assert P("u[1]").set(root, String("x")) == 0


def test_remove_creates_nothing_and_counts() -> None:
    root = parse_snbt("{a: {b: 1}, l: [{k: 1}, {k: 2}, {k: 1}], e: [I; 1, 2, 3]}")
    assert P("x.y").remove(root) == 0
    assert "x" not in root
    assert P("l[{k: 1}]").remove(root) == 2
    assert P("l[]").remove(root) == 1
    assert P("e[-1]").remove(root) == 1
    assert snbt(root) == "{a: {b: 1}, e: [I; 1, 2], l: []}"
    assert P("a.b").remove(root) == 1
    assert P("a.b").remove(root) == 0
    assert P("e[]").remove(root) == 2
    assert isinstance(root["e"], IntArray) and len(root["e"]) == 0


def test_get_or_create_builds_defaults() -> None:
    root = Compound()
    made = P("q.list").get_or_create(root, NbtList)
    assert made == [NbtList()] and made[0] is root["q"]["list"]


def test_insert_into_array_grows_it_in_place_of_the_old() -> None:
    root = parse_snbt("{u: [I; 1, 2]}")
    assert P("u").insert(root, -1, [Int(3), Byte(4)]) == 1
    assert snbt(root) == "{u: [I; 1, 2, 3, 4]}"
    assert P("u").insert(root, 0, [String("no")]) == 0


@pytest.mark.parametrize("text", ['""', 'a.""', "a.", "a[0]{b: 1}"])
def test_invalid_paths_do_not_parse(text: str) -> None:
    with pytest.raises(CommandSyntaxError):
        P(text)


def test_paths_are_values() -> None:
    assert P("a.b") == P("a.b")
    assert hash(P("a[0]")) == hash(P("a[0]"))
    assert nbt_equal(parse_snbt("[1, 2]"), NbtList([Int(1), Int(2)]))

"""`data get|merge|modify|remove` on storage and entities, with vanilla's texts and results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcsim.server import Server
from tests.mcsim.conftest import WritePack

NOTHING = "Nothing changed. The specified properties already have these values"


@pytest.fixture
def srv(server: Server) -> Server:
    server.run('data merge storage t:s {n: 2.7d, s: "héllo", l: [1, 2, 3], c: {a: 1, b: 2}}')
    return server


def test_data_get_results(srv: Server) -> None:
    assert srv.run("data get storage t:s").result == 1
    assert srv.run("data get storage t:s n").result == 2  # floor
    assert srv.run("data get storage t:s s").result == 5  # string length
    assert srv.run("data get storage t:s l").result == 3
    assert srv.run("data get storage t:s c").result == 2
    scaled = srv.run("data get storage t:s n 10")
    assert (scaled.result, scaled.feedback) == (
        27,
        ["n in storage t:s after scale factor of 10.0 is 27"],
    )
    bad_scale = srv.run("data get storage t:s s 2")
    assert bad_scale.feedback == ["Can't get s; only numeric tags are allowed"]
    missing = srv.run("data get storage t:s nope")
    assert missing.feedback == ["Found no elements matching nope"]
    many = srv.run("data get storage t:s l[]")
    assert many.feedback == ["This argument accepts a single NBT value"]
    assert srv.run("data get storage t:s c").feedback == [
        "Storage t:s has the following contents: {a: 1, b: 2}"
    ]


def test_data_modify_modes(srv: Server) -> None:
    out = srv.run("data modify storage t:s l append value 4")
    assert (out.result, out.feedback) == (1, ["Modified storage t:s"])
    srv.run("data modify storage t:s l prepend value 0")
    srv.run("data modify storage t:s l insert -1 value 9")  # i < 0: size + i + 1
    srv.run("data modify storage t:s l insert -2 value 8")
    assert srv.storage("t:s")["l"] == [0, 1, 2, 3, 4, 8, 9]
    srv.run("data modify storage t:s c merge value {b: 3, d: 4}")
    assert srv.storage("t:s")["c"] == {"a": 1, "b": 3, "d": 4}
    assert srv.run("data modify storage t:s c.a set value 1").feedback == [NOTHING]
    bad = srv.run("data modify storage t:s l insert 99 value 1")
    assert bad.feedback == ["Invalid list index: 99"]
    notlist = srv.run("data modify storage t:s c append value 1")
    assert notlist.feedback[0].startswith("Expected a list: got ")


def test_data_modify_from_uses_last_match_for_set_and_all_for_append(srv: Server) -> None:
    srv.run("data modify storage t:s last set from storage t:s l[]")
    assert srv.storage("t:s")["last"] == 3
    srv.run("data modify storage t:s copy set value []")
    out = srv.run("data modify storage t:s copy append from storage t:s l[]")
    assert out.result == 1
    assert srv.storage("t:s")["copy"] == [1, 2, 3]
    srv.run("data modify storage t:s whole set from storage t:s")
    whole = srv.storage("t:s")["whole"]
    assert isinstance(whole, dict) and whole["n"] == 2.7


def test_data_modify_string(srv: Server) -> None:
    srv.run("data modify storage t:s sub set string storage t:s s 1 3")
    srv.run("data modify storage t:s neg set string storage t:s s -2")
    srv.run("data modify storage t:s num set string storage t:s n")
    assert srv.storage("t:s")["sub"] == "él"
    assert srv.storage("t:s")["neg"] == "lo"
    assert srv.storage("t:s")["num"] == "2.7d"
    bad = srv.run("data modify storage t:s x set string storage t:s s 4 2")
    assert bad.feedback == ["Invalid substring indices: 4 to 2"]


def test_data_modify_creates_missing_parents(server: Server) -> None:
    # parents are created even when the last node ([i] never creates) matches nothing
    out = server.run("data modify storage t:new a.b[0] set value 1")
    assert out.feedback == [NOTHING]
    assert server.storage("t:new") == {"a": {"b": []}}
    server.run("data modify storage t:new a.b set value 1")
    assert server.storage("t:new")["a"] == {"b": 1}
    server.run("data modify storage t:new q append value 1")
    assert server.storage("t:new")["q"] == [1]


def test_data_remove(srv: Server) -> None:
    out = srv.run("data remove storage t:s l[]")
    assert (out.result, out.feedback) == (3, ["Modified storage t:s"])
    assert srv.storage("t:s")["l"] == []
    assert srv.run("data remove storage t:s nope.x").feedback == [NOTHING]
    assert srv.run("data remove storage t:s c.a").result == 1
    assert srv.storage("t:s")["c"] == {"b": 2}


def test_data_merge_nothing_changed(srv: Server) -> None:
    assert srv.run("data merge storage t:s {n: 2.7d}").feedback == [NOTHING]


def test_entity_data(server: Server) -> None:
    server.run("summon minecraft:marker 1 2 3 {Tags: [t1]}")
    out = server.run("data get entity @e[type=minecraft:marker,limit=1] Pos")
    assert out.feedback == ["Marker has the following entity data: [1.5d, 2.0d, 3.5d]"]
    server.run("data merge entity @e[type=minecraft:marker,limit=1] {data: {k: 5}}")
    assert server.run("data get entity @e[type=minecraft:marker,limit=1] data.k").result == 5
    server.run("data modify entity @e[type=minecraft:marker,limit=1] data.k set value 6")
    assert server.run("data get entity @e[type=minecraft:marker,limit=1] data.k").result == 6
    server.join("Alex")
    refused = server.run("data merge entity Alex {foo: 1}")
    assert refused.feedback == ["Unable to modify player data"]


def test_storage_survives_reload(server: Server) -> None:
    server.run("data merge storage t:keep {v: 1}")
    server.run("reload")
    assert server.storage("t:keep") == {"v": 1}


def test_data_get_in_a_function_formats_nothing_and_returns_the_same(
    make_server: Callable[..., Server], pack: WritePack, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Functions run silent: vanilla's sendFeedback takes a Supplier that is never called then.
    import mcsim.commands.data as data_module

    calls: list[object] = []
    real = data_module.format_snbt

    def counting(tag: Any) -> str:
        calls.append(tag)
        return real(tag)

    monkeypatch.setattr(data_module, "format_snbt", counting)
    pack({"t:get": "return run data get storage t:s list", "t:all": "data get storage t:s"})
    srv = make_server()
    srv.run("data modify storage t:s list set value [{a: 1}, {a: 2}, {a: 3}]")
    assert srv.run("function t:get").feedback == [
        "Running function t:get",
        "Function t:get returned 3",
    ]
    assert srv.run("execute store result storage t:o n int 1 run function t:get").success
    srv.run("function t:all")
    assert calls == []
    assert srv.storage("t:o") == {"n": 3}
    direct = srv.run("data get storage t:s list")
    assert direct.result == 3 and len(calls) == 1
    assert direct.feedback == ["Storage t:s has the following contents: [{a: 1}, {a: 2}, {a: 3}]"]

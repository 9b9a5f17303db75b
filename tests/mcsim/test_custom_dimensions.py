"""Custom dimensions from data packs: loaded at start-up only, accepted where vanilla's are."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from mcsim.server import Server
from tests.mcsim.conftest import write_pack

_DIM = {
    "type": "minecraft:overworld",
    "generator": {"type": "minecraft:flat", "settings": {"layers": [], "biome": "plains"}},
}


def _dimension_pack(
    world: Path, name: str = "dims", *, extra: dict[str, object] | None = None
) -> None:
    root = write_pack(world, {"d:noop": "say loaded"}, name=name)
    files: dict[str, object] = {"d/dimension/mining.json": _DIM}
    files.update(extra or {})
    for rel, body in files.items():
        f = root / "data" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(body), encoding="utf-8")


def test_pack_dimension_is_accepted_by_execute_in_and_if_dimension(
    world: Path, make_server: Callable[..., Server]
) -> None:
    _dimension_pack(world)
    srv = make_server()
    r = srv.run("execute in d:mining if dimension d:mining")
    assert (r.success, r.feedback) == (True, ["Test passed"])
    assert srv.run("execute if dimension d:mining").feedback == ["Test failed"]
    r = srv.run("execute in d:mining run summon marker 1 2 3 {Tags: [m]}")
    assert r.success
    assert srv.run("execute in d:mining positioned 1 2 3 if entity @e[tag=m, distance=..1]").success
    assert not srv.run(
        "execute in minecraft:overworld positioned 1 2 3 if entity @e[tag=m, distance=..1]"
    ).success


def test_unknown_dimension_is_an_error_everywhere(server: Server) -> None:
    r = server.run("execute in d:nowhere run say x")
    assert (r.success, r.feedback) == (False, ["Unknown dimension 'd:nowhere'"])
    r = server.run("execute if dimension d:nowhere")
    assert (r.success, r.feedback) == (False, ["Unknown dimension 'd:nowhere'"])
    r = server.run("player Bot spawn at 0 64 0 facing 0 0 in d:nowhere")
    assert (r.success, r.feedback) == (False, ["Unknown dimension 'd:nowhere'"])
    with pytest.raises(ValueError, match="unknown dimension"):
        server.join("Alex", dimension="d:nowhere")


def test_players_tp_and_carpet_spawn_into_a_pack_dimension(
    world: Path, make_server: Callable[..., Server]
) -> None:
    _dimension_pack(world)
    srv = make_server()
    srv.join("Alex")
    assert srv.run("execute in d:mining run tp Alex 5 70 5").success
    r = srv.run("data get entity Alex Dimension")
    assert r.feedback == ['Alex has the following entity data: "d:mining"']
    assert srv.run("execute as Alex at @s if dimension d:mining").success
    assert srv.run("player Bot spawn at 1 2 3 facing 0 0 in d:mining").success
    assert srv.run("data get entity Bot Dimension").feedback == [
        'Bot has the following entity data: "d:mining"'
    ]
    srv.join("Steve", dimension="d:mining")
    assert srv.run("execute as Steve at @s if dimension d:mining").success


def test_execute_in_uses_the_dimension_types_coordinate_scale(
    world: Path, make_server: Callable[..., Server]
) -> None:
    inline = {"type": {"coordinate_scale": 4.0, "height": 256}, "generator": {}}
    typed = {"type": "d:quarter", "generator": {}}
    _dimension_pack(
        world,
        extra={
            "d/dimension/inline.json": inline,
            "d/dimension/typed.json": typed,
            "d/dimension_type/quarter.json": {"coordinate_scale": 0.25},
        },
    )
    srv = make_server()
    srv.run("execute positioned 8.0 0 8.0 in d:inline run summon marker ~ ~ ~ {Tags: [a]}")
    assert srv.run("data get entity @e[tag=a, limit=1] Pos").feedback == [
        "Marker has the following entity data: [2.0d, 0.0d, 2.0d]"
    ]
    srv.run("execute positioned 1.0 0 1.0 in d:typed run summon marker ~ ~ ~ {Tags: [b]}")
    assert srv.run("data get entity @e[tag=b, limit=1] Pos").feedback == [
        "Marker has the following entity data: [4.0d, 0.0d, 4.0d]"
    ]


def test_new_dimensions_need_a_restart_and_save_lines_name_them(world: Path) -> None:
    srv = Server(world, frozen=True)
    srv.start()
    _dimension_pack(world)
    srv.run("reload")
    assert srv.run("function d:noop").success  # the pack's functions are in
    r = srv.run("execute in d:mining run say x")
    assert r.feedback == ["Unknown dimension 'd:mining'"]
    srv.join("Alex")
    srv.stop()
    srv = Server(world, frozen=True)
    srv.start()
    try:
        assert srv.run("execute in d:mining run tp Alex 0 0 0").success is False  # offline
        srv.join("Alex")
        assert srv.run("execute in d:mining run tp Alex 0 0 0").success
        srv.run("save-all flush")
        lines = srv.log_path.read_text(encoding="utf-8")
        assert "ThreadedAnvilChunkStorage (mining): All chunks are saved" in lines
    finally:
        srv.stop()
    log_text = srv.log_path.read_text(encoding="utf-8")
    assert "Saving chunks for level 'ServerLevel[world]'/d:mining" in log_text


def test_a_player_saved_in_a_removed_dimension_rejoins_in_the_overworld(
    world: Path, make_server: Callable[..., Server]
) -> None:
    import shutil

    _dimension_pack(world)
    srv = make_server()
    srv.join("Alex", dimension="d:mining")
    srv.leave("Alex")
    srv.stop()
    shutil.rmtree(world / "datapacks" / "dims")
    srv = make_server()
    srv.join("Alex")
    assert srv.run("data get entity Alex Dimension").feedback == [
        'Alex has the following entity data: "minecraft:overworld"'
    ]
    assert "Unknown respawn dimension" in srv.log_path.read_text(encoding="utf-8")

"""Custom dimensions (from a data pack's data/<ns>/dimension/*.json) and the function tag
#doom.schedule:known_dimensions: a caller that is no player is placed in a listed custom dimension
by the tag, and one in an unlisted dimension is recorded as the overworld (datapack/README.md,
Other dimensions)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.datapack.dpharness import PACK_DIR, Pack

from mcsim.server import Server

__all__: list[str] = []

DIMENSION = {
    "type": "minecraft:overworld",
    "generator": {"type": "minecraft:flat", "settings": {"layers": [], "biome": "plains"}},
}
# dimtest:where {id} records the run's id and the custom dimension it ran in ("" for others).
SET_DIM = "run data modify storage dimtest:log runs[-1].dim set value"
WHERE = "\n".join(
    [
        "# Macro {id}: records where this run happened.",
        '$data modify storage dimtest:log runs append value {id:"$(id)",dim:""}',
        f'execute if dimension dimtest:listed {SET_DIM} "listed"',
        f'execute if dimension dimtest:unlisted {SET_DIM} "unlisted"',
        f'execute if dimension minecraft:overworld {SET_DIM} "overworld"',
        "",
    ]
)
KNOWN = (
    "# #doom.schedule:known_dimensions entry for dimtest:listed, as the README says.\n"
    "execute if dimension dimtest:listed run data modify storage doom.schedule:ctx dimension "
    'set value "dimtest:listed"\n'
)


def dimension_pack(world: Path) -> None:
    """A pack adding two dimensions and listing one of them in #doom.schedule:known_dimensions."""
    root = world / "datapacks" / "dimtest"
    files: dict[str, str] = {
        "pack.mcmeta": (PACK_DIR / "pack.mcmeta").read_text(encoding="utf-8"),
        "data/dimtest/dimension/listed.json": json.dumps(DIMENSION),
        "data/dimtest/dimension/unlisted.json": json.dumps(DIMENSION),
        "data/dimtest/function/where.mcfunction": WHERE,
        "data/dimtest/function/known.mcfunction": KNOWN,
        "data/doom.schedule/tags/function/known_dimensions.json": json.dumps(
            {"values": ["dimtest:known"]}
        ),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def dims(world: Path) -> Iterator[Pack]:
    dimension_pack(world)
    server = Server(world, frozen=True)
    server.start()
    try:
        yield Pack(server)
    finally:
        server.stop()


def where(task_id: str) -> str:
    return f'function dimtest:where {{id:"{task_id}"}}'


def console_call(task_id: str) -> str:
    run = where(task_id).replace('"', '\\"')
    return f'function doom.schedule:schedule {{run:"{run}",time:1,unit:"t",id:"{task_id}"}}'


def runs(pack: Pack) -> list[tuple[str, str]]:
    raw = pack.server.storage("dimtest:log").get("runs", [])
    return [(r["id"], r["dim"]) for r in raw]  # type: ignore[attr-defined]


def by_marker_in(pack: Pack, dimension: str, task_id: str) -> dict[str, object]:
    tag = f"m_{task_id}"
    summon = f'summon minecraft:marker 3 70 -2 {{Tags:["{tag}"]}}'
    assert pack.run(f"execute in {dimension} run {summon}").success
    out = pack.submit(run=where(task_id), time=2, id=task_id, as_=f"@e[tag={tag},limit=1]")
    assert out["ok"] == 1, out
    task = next(t for t in pack.queue() if t["id"] == task_id)
    assert task["player"] == 0 and len(str(task["executor"])) == 36
    return task


def test_an_entity_in_a_listed_dimension_is_recorded_there_and_runs_there(dims: Pack) -> None:
    task = by_marker_in(dims, "dimtest:listed", "listed")
    assert task["dimension"] == "dimtest:listed"
    dims.step(2)
    assert runs(dims) == [("listed", "listed")]
    assert dims.events() == []


def test_an_entity_in_an_unlisted_dimension_is_recorded_as_the_overworld(dims: Pack) -> None:
    task = by_marker_in(dims, "dimtest:unlisted", "unlisted")
    assert task["dimension"] == "minecraft:overworld"
    dims.step(2)
    # an entity's task runs at the entity, wherever it is: the record does not move it
    assert runs(dims) == [("unlisted", "unlisted")]


def test_a_no_entity_call_in_a_listed_dimension_runs_there(dims: Pack) -> None:
    call = console_call("c")
    assert dims.run(f"execute in dimtest:listed positioned 5 70 5 run {call}").success
    task = dims.queue()[0]
    assert "executor" not in task and task["dimension"] == "dimtest:listed"
    assert str(task["at"]).startswith("in dimtest:listed ")
    dims.step(1)
    assert runs(dims) == [("c", "listed")]


def test_a_no_entity_call_in_an_unlisted_dimension_runs_in_the_overworld(dims: Pack) -> None:
    call = console_call("o")
    assert dims.run(f"execute in dimtest:unlisted positioned 5 70 5 run {call}").success
    task = dims.queue()[0]
    assert task["dimension"] == "minecraft:overworld"
    dims.step(1)
    assert runs(dims) == [("o", "overworld")]

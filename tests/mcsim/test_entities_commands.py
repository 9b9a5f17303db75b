"""list, kill, summon, tp through the executor's real mecha parse path."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import mcsim.commands.chat
import mcsim.commands.entity  # noqa: F401  (registers the handlers)
from mcsim.context import FeedbackSink, Source, server_source
from mcsim.entities import Entities
from mcsim.executor import Executor
from mcsim.log import ServerLog
from mcsim.playerdata import join_player
from mcsim.scoreboard import Scoreboard
from mcsim.state import SimState


class World:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sim = SimState(
            entities=Entities(),
            scoreboard=Scoreboard(),
            log=ServerLog(root / "logs"),
            properties={"max-players": "20"},
            rng=random.Random(1),
        )
        self.sim.world = root
        self.executor = Executor(self.sim)

    def run(self, line: str, source: Source | None = None) -> tuple[bool, int, list[str]]:
        sink = FeedbackSink()
        out = self.executor.run_top(line, (source or server_source()).with_(sink=sink))
        return out.success, out.result, sink.lines

    def join(self, name: str, **kw: object) -> None:
        join_player(self.sim, self.root, name, **kw)  # type: ignore[arg-type]


@pytest.fixture
def w(tmp_path: Path) -> World:
    return World(tmp_path)


def test_list_names_and_uuids(w: World) -> None:
    assert w.run("list") == (True, 0, ["There are 0 of a max of 20 players online: "])
    w.join("Steve")
    w.join("Alex")
    assert w.run("list") == (True, 2, ["There are 2 of a max of 20 players online: Steve, Alex"])
    steve = w.sim.entities.player("Steve")
    assert steve is not None
    assert f"Steve ({steve.uuid})" in w.run("list uuids")[2][0]


def test_summon_marker_and_zombie_with_nbt(w: World) -> None:
    assert w.run('summon minecraft:marker 1 2 3 {Tags:["a","b"]}') == (
        True,
        1,
        ["Summoned new Marker"],
    )
    assert w.run('summon zombie ~ ~ ~ {CustomName:"Bob"}')[2] == ["Summoned new Bob"]
    marker, zombie = w.sim.entities.all()
    assert marker.pos == (1.5, 2.0, 3.5)  # integer x/z are block-centred, as Vec3 args are
    assert marker.tags == {"a", "b"}
    assert zombie.type == "minecraft:zombie" and zombie.pos == (0.0, 0.0, 0.0)


def test_summon_in_a_dimension_and_unmodelled_types(w: World) -> None:
    w.run("summon marker 0 0 0", server_source().with_(dimension="minecraft:the_nether"))
    assert w.sim.entities.all()[0].dimension == "minecraft:the_nether"
    assert "Dimension" not in w.sim.entities.all()[0].to_nbt()
    ok, _, lines = w.run("summon minecraft:creeper")
    assert not ok and "does not model" in lines[0]
    assert w.run("summon minecraft:player")[0] is False


def test_kill_feedback_and_result(w: World) -> None:
    for _ in range(3):
        w.run("summon marker")
    assert w.run("kill @e[type=marker,limit=1]") == (True, 1, ["Killed Marker"])
    assert w.run("kill @e[type=marker]") == (True, 2, ["Killed 2 entities"])
    assert w.run("kill @e[type=marker]") == (False, 0, ["No entity was found"])
    assert w.run("kill") == (False, 0, ["An entity is required to run this command here"])


def test_killing_a_player_logs_the_death_message(w: World) -> None:
    w.join("Steve")
    assert w.run("kill Steve") == (True, 1, ["Killed Steve"])
    w.sim.log.close()
    assert w.sim.log.path.read_text().splitlines()[-1].endswith("]: Steve was killed")
    assert w.sim.entities.player("Steve") is not None  # a real client stays on


def test_tp_to_position_entity_and_dimension(w: World) -> None:
    w.join("Steve")
    w.join("Alex", pos=(5.0, 70.0, 5.0), dimension="minecraft:the_nether")
    assert w.run("tp Steve 10 64 -3") == (
        True,
        1,
        ["Teleported Steve to 10.500000, 64.000000, -2.500000"],
    )
    steve = w.sim.entities.player("Steve")
    assert steve is not None
    assert w.run("tp Steve Alex") == (True, 1, ["Teleported Steve to Alex"])
    assert steve.dimension == "minecraft:the_nether" and steve.pos == (5.0, 70.0, 5.0)
    # `execute in minecraft:the_end` hands tp a source in that dimension
    w.run("tp Steve 0.0 100 0.0 90 0", server_source().with_(dimension="minecraft:the_end"))
    assert steve.dimension == "minecraft:the_end"
    assert steve.pos == (0.0, 100.0, 0.0) and steve.rot == (90.0, 0.0)
    assert str(steve.to_nbt()["Dimension"]) == "minecraft:the_end"


def test_tp_relative_and_several_targets(w: World) -> None:
    w.run("summon marker 0.0 0 0.0")
    w.run("summon marker 0.0 0 0.0")
    as_source = server_source().with_(pos=(1.0, 2.0, 3.0))
    assert w.run("tp @e ~1 ~ ~-1", as_source)[2] == [
        "Teleported 2 entities to 2.000000, 2.000000, 2.000000"
    ]
    assert all(e.pos == (2.0, 2.0, 2.0) for e in w.sim.entities.all())


def test_tp_self_needs_an_entity(w: World) -> None:
    assert w.run("tp 0 0 0")[2] == ["An entity is required to run this command here"]

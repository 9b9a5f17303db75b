"""say, me, tellraw (text components), through the executor's real mecha parse path."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from nbtlib.tag import Compound, Int, String

import mcsim.commands.chat
import mcsim.commands.entity  # noqa: F401  (registers the handlers)
from mcsim.context import FeedbackSink, Source, server_source
from mcsim.entities import Entities
from mcsim.executor import Executor
from mcsim.log import ServerLog
from mcsim.nbt import NbtList
from mcsim.playerdata import join_player
from mcsim.scoreboard import Scoreboard
from mcsim.state import SimState

Run = Callable[..., tuple[bool, int, list[str]]]


@pytest.fixture
def sim(tmp_path: Path) -> SimState:
    state = SimState(
        entities=Entities(),
        scoreboard=Scoreboard(),
        log=ServerLog(tmp_path / "logs"),
        properties={},
        rng=random.Random(1),
    )
    state.world = tmp_path
    return state


def join(sim: SimState, name: str) -> None:
    assert sim.world is not None
    join_player(sim, sim.world, name)


@pytest.fixture
def run(sim: SimState) -> Run:
    executor = Executor(sim)

    def run(line: str, source: Source | None = None) -> tuple[bool, int, list[str]]:
        sink = FeedbackSink()
        src = (source or server_source("Rcon")).with_(sink=sink)
        out = executor.run_top(line, src)
        return out.success, out.result, sink.lines

    return run


def log_messages(sim: SimState) -> list[str]:
    sim.log.close()
    return [line.split("]: ", 1)[1] for line in sim.log.path.read_text().splitlines()]


def test_say_is_logged_even_with_nobody_online_and_sends_no_feedback(
    sim: SimState, run: Run
) -> None:
    assert run("say hello world") == (True, 1, [])
    assert log_messages(sim) == ["[Not Secure] [Rcon] hello world"]


def test_say_resolves_selectors_and_reaches_every_player(sim: SimState, run: Run) -> None:
    join(sim, "Steve")
    join(sim, "Alex")
    run("say hi @a and @e[type=minecraft:zombie]!", server_source("Server"))
    expected = "[Server] hi Steve, Alex and !"
    assert sim.chat["Steve"][-1] == expected
    assert sim.chat["Alex"][-1] == expected
    assert log_messages(sim)[-1] == "[Not Secure] " + expected


def test_say_as_an_entity_uses_its_name(sim: SimState, run: Run) -> None:
    run('summon minecraft:marker 0 0 0 {CustomName:"Clock"}')
    clock = sim.entities.all()[0]
    # what `execute as` hands the command: the entity and its name as the source
    run("say tick", server_source().with_(entity=clock, name=clock.name))
    assert log_messages(sim)[-1] == "[Not Secure] [Clock] tick"


def test_say_longer_than_256_characters_fails(sim: SimState, run: Run) -> None:
    ok, result, lines = run("say " + "x" * 257)
    assert (ok, result) == (False, 0)
    assert lines == ["Chat message was too long (257 > maximum 256 characters)"]
    assert run("say " + "x" * 256)[0] is True


def test_me_is_an_emote(sim: SimState, run: Run) -> None:
    join(sim, "Steve")
    run("me waves", server_source("Server"))
    assert sim.chat["Steve"][-1] == "* Server waves"
    assert log_messages(sim)[-1] == "[Not Secure] * Server waves"


def test_tellraw_reaches_targets_only_and_is_never_logged(sim: SimState, run: Run) -> None:
    join(sim, "Steve")
    join(sim, "Alex")
    assert run('tellraw Alex {"text":"psst","extra":[" ",{"text":"!"}]}')[:2] == (True, 1)
    assert sim.chat["Alex"][-1] == "psst !"
    assert "psst !" not in sim.chat["Steve"]
    assert not any("psst" in m for m in log_messages(sim))


def test_tellraw_with_nobody_online_fails(run: Run) -> None:
    assert run('tellraw @a "x"') == (False, 0, ["No player was found"])


def test_tellraw_score_selector_and_translate_components(sim: SimState, run: Run) -> None:
    join(sim, "Steve")
    join(sim, "Alex")
    sim.scoreboard.add_objective("pts")
    sim.scoreboard.set("Steve", "pts", 7)
    sim.scoreboard.set("#total", "pts", 12)
    run(
        'tellraw @a [{"score":{"name":"*","objective":"pts"}},"|",'
        '{"score":{"name":"#total","objective":"pts"}},"|",{"selector":"@a","separator":"+"},'
        '"|",{"translate":"multiplayer.player.joined","with":["Bob"]},"|",'
        '{"translate":"no.such.key","fallback":"fb %s","with":[1]}]'
    )
    # `*` is the receiving player; Alex has no score, so it renders empty.
    assert sim.chat["Steve"][-1] == "7|12|Steve+Alex|Bob joined the game|fb 1"
    assert sim.chat["Alex"][-1] == "|12|Steve+Alex|Bob joined the game|fb 1"


def test_tellraw_nbt_components_from_storage_and_entity(sim: SimState, run: Run) -> None:
    join(sim, "Steve")
    sim.storage["doom.schedule:out"] = Compound(
        {"msg": String("hi"), "n": Int(3), "l": NbtList([Int(1), Int(2)])}
    )
    run(
        'tellraw @a [{"nbt":"msg","storage":"doom.schedule:out"}," ",'
        '{"nbt":"n","storage":"doom.schedule:out"}," ",'
        '{"nbt":"l[]","storage":"doom.schedule:out","separator":";"}," ",'
        '{"nbt":"l","storage":"doom.schedule:out"}," [",'
        '{"nbt":"missing","storage":"doom.schedule:out"},"] ",'
        '{"nbt":"Dimension","entity":"@s"}]',
        server_source().with_(entity=sim.entities.player("Steve")),
    )
    assert sim.chat["Steve"][-1] == "hi 3 1;2 [1, 2] [] minecraft:overworld"


def test_tellraw_score_selector_matching_several_fails(sim: SimState, run: Run) -> None:
    join(sim, "Steve")
    join(sim, "Alex")
    ok, _, lines = run('tellraw @a {"score":{"name":"@a","objective":"o"}}')
    assert not ok
    assert lines == ["Only one entity is allowed, but the provided selector allows more than one"]

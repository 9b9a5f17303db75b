"""Permission levels: functions parse at function-permission-level, console/RCON at 4.

Vanilla (1.21.11 FunctionLoader, Macro.VariableLine, brigadier's parseNodes): a node the
parsing source's level cannot use is invisible, so the line fails to parse at that node; the
function does not load, a macro line fails to instantiate. `execute as` keeps the level.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pytest
from mecha import Mecha

from mcsim.permissions import ROOT_LEVELS, command_gates
from mcsim.server import Server
from tests.mcsim.conftest import WritePack
from tests.rawrcon import RawRcon

MakeServer = Callable[..., Server]
Gates = tuple[tuple[int, int], ...]

ADMIN_BODIES = {
    "t:stop": "scoreboard players set #before o 1\nstop",
    "t:op": "op Alex",
    "t:save": "save-all",
    "t:nested": "execute as @a run save-all flush",
    "t:tick": "tick freeze",
    "t:plain": "scoreboard players set #plain o 1",
}


def _with_level(world: Path, level: int | None) -> None:
    world.mkdir(parents=True, exist_ok=True)
    if level is not None:
        (world / "server.properties").write_text(f"function-permission-level={level}\n")


def _loaded(srv: Server) -> set[str]:
    assert srv.sim is not None and srv.sim.functions is not None
    return set(srv.sim.functions.functions)


def test_functions_with_owner_or_admin_commands_do_not_load_at_level_2(
    make_server: MakeServer, pack: WritePack, world: Path
) -> None:
    _with_level(world, None)
    pack(ADMIN_BODIES)
    srv = make_server()
    assert _loaded(srv) == {"t:plain"}
    assert srv.run("function t:stop").feedback == ["Unknown function t:stop"]
    assert srv.score("#before", "o") is None  # no line of it ran
    log = srv.log_path.read_text()
    assert "[Worker-Main-1/ERROR]: Failed to load function t:save" in log
    # brigadier stops where the invisible node begins: nothing parsed yet -> unknown command
    assert (
        "Whilst parsing command on line 2: Unknown or incomplete command. See below for error "
        "at position 0: <--[HERE]" in log
    )
    # after `execute as @a run ` the node is an unknown argument, at its start (position 18)
    assert (
        "Whilst parsing command on line 1: Incorrect argument for command at position 18: "
        "...as @a run <--[HERE]" in log
    )
    assert srv.running  # `stop` never ran


def test_the_same_functions_load_at_level_4(
    make_server: MakeServer, pack: WritePack, world: Path
) -> None:
    _with_level(world, 4)
    pack(ADMIN_BODIES)
    srv = make_server()
    assert _loaded(srv) == set(ADMIN_BODIES)
    srv.run("data modify storage t:s a set value 1")
    storage_file = world / "data" / "command_storage_t.dat"
    assert not storage_file.exists()
    assert srv.run("function t:save").success
    assert storage_file.exists()  # the body's save-all ran (silently)


def test_level_3_loads_admin_commands_but_not_owner_commands(
    make_server: MakeServer, pack: WritePack, world: Path
) -> None:
    _with_level(world, 3)
    pack(ADMIN_BODIES)
    srv = make_server()
    assert _loaded(srv) == {"t:op", "t:tick", "t:plain"}


def test_a_macro_line_expanding_to_ban_fails_to_instantiate(
    make_server: MakeServer, pack: WritePack, world: Path
) -> None:
    _with_level(world, None)
    pack({"t:m": "$$(cmd) $(who)\nscoreboard players set #ran o 1"})
    srv = make_server()
    srv.run("scoreboard objectives add o dummy")
    out = srv.run("execute store success score #ok o run function t:m {cmd: ban, who: Alex}")
    assert out.feedback[-1] == (
        "Failed to instantiate function t:m: While instantiating macro t:m: Command 'ban Alex' "
        "caused error: Unknown or incomplete command. See below for error at position 0: "
        "<--[HERE]"
    )
    assert srv.score("#ok", "o") == 0
    assert srv.score("#ran", "o") is None
    # the same macro with a level-2 command instantiates and runs
    ok = srv.run("function t:m {cmd: 'scoreboard players reset', who: '#x o'}")
    assert ok.success and srv.score("#ran", "o") == 1


def test_console_and_rcon_run_owner_commands_at_level_4(
    make_server: MakeServer, world: Path
) -> None:
    srv = make_server(rcon_port=0, rcon_password="pw")
    assert srv.run("save-all").feedback[0] == "Saving the game (this may take a moment!)"
    assert srv.rcon_port is not None
    reply = _rcon(srv.rcon_port, "pw", "save-all")
    assert reply.startswith("Saving the game (this may take a moment!)")
    # execute as a player does not lower the console's level
    srv.join("Alex")
    out = srv.run("execute as Alex run save-all")
    assert out.success and out.feedback[-1] == "Saved the game"


def test_macro_instantiation_uses_the_function_level_not_the_callers(
    make_server: MakeServer, pack: WritePack, world: Path
) -> None:
    # RCON/console call at level 4, but the macro line is parsed by the loader's source
    _with_level(world, 2)
    pack({"t:m": "$$(cmd)"})
    srv = make_server()
    assert not srv.run("function t:m {cmd: 'save-all'}").success
    assert srv.run("function t:m {cmd: 'say hi'}").success


@pytest.mark.parametrize(
    ("line", "gates"),
    [
        ("stop", ((4, 0),)),
        ("say hi", ((2, 0),)),
        ("execute as @a run op x", ((2, 0), (2, 8), (2, 14), (3, 18))),
        ("return run save-all flush", ((2, 0), (4, 11))),
        ("random value 1..6", ((0, 0),)),
        ("random value 1..6 t:seq", ((0, 0), (2, 18))),
        ("random reset *", ((0, 0), (2, 7))),
        ("tick query", ((3, 0),)),
    ],
)
def test_gates_follow_the_decompiled_requires(line: str, gates: Gates) -> None:
    node = _mecha().parse(line, multiline=True).commands[0]
    assert command_gates(node) == gates


def test_level_table_lists_only_non_default_roots() -> None:
    assert ROOT_LEVELS["save-all"] == ROOT_LEVELS["stop"] == 4
    assert ROOT_LEVELS["op"] == ROOT_LEVELS["ban"] == ROOT_LEVELS["tick"] == 3
    assert ROOT_LEVELS["me"] == ROOT_LEVELS["trigger"] == 0
    assert "function" not in ROOT_LEVELS and "execute" not in ROOT_LEVELS


@functools.cache
def _mecha() -> Mecha:
    return Mecha(version="1.21")


def _rcon(port: int, password: str, command: str) -> str:
    client = RawRcon(port)
    try:
        assert client.login(password)[0] != -1
        return client.command(command)
    finally:
        client.close()

"""Smaller vanilla facts from the notes that the other files do not cover."""

from __future__ import annotations

from pathlib import Path

from mcsim.nbt import read_nbt_file
from mcsim.server import Server
from tests.mcsim.conftest import WritePack


def test_load_runs_on_start(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack(
        {"t:load": "scoreboard objectives add o dummy\nscoreboard players add #starts o 1"},
        tags={"minecraft:load": ["t:load"]},
    )
    srv: Server = make_server()
    assert srv.score("#starts", "o") == 1
    srv.stop()
    srv.start()
    assert srv.score("#starts", "o") == 2


def test_if_entity_mid_chain_passes_context_once(server: Server) -> None:
    server.run("scoreboard objectives add o dummy")
    server.join("A")
    server.join("B")
    server.run("execute if entity @a run scoreboard players add #once o 1")
    assert server.score("#once", "o") == 1


def test_return_run_without_context_fails_the_function(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack({"t:f": "return run execute as @e[type=minecraft:zombie] run say hi"})
    srv: Server = make_server()
    srv.run("scoreboard objectives add o dummy")
    srv.run("execute store success score #s o store result score #r o run function t:f")
    assert (srv.score("#s", "o"), srv.score("#r", "o")) == (0, 0)


def test_save_all_writes_while_running(server: Server, world: Path) -> None:
    server.run("data merge storage live:s {v: 3}")
    server.step(7)
    out = server.run("save-all")
    assert out.feedback == ["Saving the game (this may take a moment!)", "Saved the game"]
    assert int(read_nbt_file(world / "level.dat")["Data"]["Time"]) == 7
    saved = read_nbt_file(world / "data" / "command_storage_live.dat")
    assert int(saved["data"]["contents"]["s"]["v"]) == 3


def test_called_function_finishes_before_callers_next_line(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack(
        {
            "t:outer": "function t:inner\ndata modify storage t:s order append value outer",
            "t:inner": "data modify storage t:s order append value inner",
        }
    )
    srv: Server = make_server()
    srv.run("execute as @s run function t:outer")  # no entity: nothing runs
    assert srv.storage("t:s") == {}
    srv.run("function t:outer")
    assert srv.storage("t:s")["order"] == ["inner", "outer"]


def test_function_bodies_are_silent(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack({"t:f": "scoreboard objectives add o dummy\nscoreboard players set #x o 1\nreturn 1"})
    srv: Server = make_server()
    out = srv.run("function t:f")
    assert out.feedback == ["Running function t:f", "Function t:f returned 1"]


def test_tag_command(server: Server) -> None:
    server.run('summon minecraft:marker 0 64 0 {Tags: ["a"]}')
    out = server.run("tag @e[tag=a,limit=1] add b")
    assert (out.result, out.feedback) == (1, ["Added tag 'b' to Marker"])
    assert server.run("execute if entity @e[tag=b]").result == 1
    again = server.run("tag @e[tag=a] add b")
    assert again.feedback == ["Target either already has the tag or has too many tags"]
    assert server.run("tag @e[tag=a] list").feedback == ["Marker has 2 tags: a, b"]
    assert server.run("tag @e[tag=a] remove b").feedback == ["Removed tag 'b' from Marker"]
    assert server.run("tag @e[tag=a] remove b").feedback == ["Target does not have this tag"]
    assert server.run("tag @e[tag=zzz] add b").feedback == ["No entity was found"]


def test_rcon_without_password_runs_on_without_rcon(world: Path) -> None:
    with Server(world, rcon_port=0, frozen=True) as srv:
        assert srv.rcon_port is None
        assert "No rcon password set" in srv.log_path.read_text()
        assert srv.run("time query gametime").success


def test_macro_with_entity_and_as_player(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack({"t:m": "$data modify storage t:s got set value $(k)"})
    srv: Server = make_server()
    srv.run("summon minecraft:marker 0 64 0 {Tags: [src], data: {k: 42}}")
    srv.run("function t:m with entity @e[tag=src,limit=1] data")
    assert srv.storage("t:s")["got"] == 42
    srv.join("Alex")
    srv.run("op Alex")  # execute needs level 2: a player's commands run at their op level
    out = srv.run("execute store result storage t:s who int 1 run list", as_player="Alex")
    assert out.success
    assert srv.storage("t:s")["who"] == 1

"""The Python API: start/stop, run, step, join/leave, storage, counters, persistence."""

from __future__ import annotations

from pathlib import Path

from mcsim.nbt import read_nbt_file
from mcsim.server import Server
from tests.mcsim.conftest import WritePack


def test_missing_world_is_created_with_vanilla_layout(tmp_path: Path) -> None:
    world = tmp_path / "new"
    with Server(world, frozen=True) as srv:
        srv.run("data merge storage demo:s {a: 1}")
        srv.run("scoreboard objectives add o dummy")
    assert (world / "server.properties").read_text().count("enable-rcon=false") == 1
    assert (world / "datapacks").is_dir()
    assert (world / "logs" / "latest.log").is_file()
    level = read_nbt_file(world / "level.dat")
    assert "Time" in level["Data"]
    storage = read_nbt_file(world / "data" / "command_storage_demo.dat")
    assert int(storage["data"]["contents"]["s"]["a"]) == 1
    board = read_nbt_file(world / "data" / "scoreboard.dat")
    assert str(board["data"]["Objectives"][0]["Name"]) == "o"


def test_restart_keeps_game_time_storage_and_scores(world: Path) -> None:
    with Server(world, frozen=True) as srv:
        srv.step(42)
        srv.run("data modify storage demo:s list set value [1, 2, 3]")
        srv.run("scoreboard objectives add o dummy")
        srv.run("scoreboard players set #x o 17")
    with Server(world, frozen=True) as again:
        assert again.game_time == 42
        assert again.storage("demo:s") == {"list": [1, 2, 3]}
        assert again.score("#x", "o") == 17
        assert again.run("time query gametime").result == 42


def test_stop_command_saves_and_stops(world: Path) -> None:
    srv = Server(world, frozen=True)
    srv.start()
    srv.step(5)
    out = srv.run("stop")
    assert out.feedback == ["Stopping the server"]
    assert srv.wait_stopped(5)
    assert not srv.running
    with Server(world, frozen=True) as again:
        assert again.game_time == 5


def test_game_time_advances_only_while_ticking(server: Server) -> None:
    start = server.game_time
    server.run("scoreboard objectives add o dummy")
    assert server.game_time == start
    server.step(3)
    assert server.game_time == start + 3


def test_run_reports_success_result_and_feedback(server: Server) -> None:
    server.run("scoreboard objectives add o dummy")
    ok = server.run("/scoreboard players set #a o 9")
    assert (ok.success, ok.result, ok.feedback) == (True, 9, ["Set [o] for #a to 9"])
    bad = server.run("scoreboard players get #nobody o")
    assert (bad.success, bad.result) == (False, 0)
    assert bad.feedback == ["Can't get value of o for #nobody; none is set"]


def test_console_feedback_is_logged(server: Server) -> None:
    server.run("scoreboard objectives add logged dummy")
    assert "[Server thread/INFO]: Created new objective [logged]" in server.log_path.read_text()


def test_unsupported_command_fails_loudly(server: Server) -> None:
    out = server.run("weather clear")
    assert not out.success
    assert "mcsim does not model this command yet" in out.feedback[0]


def test_noop_commands_opt_in(make_server) -> None:  # type: ignore[no-untyped-def]
    srv = make_server(noop_commands=["weather"])
    assert srv.run("weather clear").success


def test_syntax_error_has_vanilla_shape(server: Server) -> None:
    out = server.run("foo bar")
    assert out.feedback == [
        "Unknown or incomplete command. See below for error",
        "foo bar<--[HERE]",
    ]
    long = server.run("scoreboard players set")
    assert long.feedback[1] == "...layers set<--[HERE]"
    word = server.run("scoreboard foo")
    assert word.feedback == ["Incorrect argument for command", "...coreboard foo<--[HERE]"]


def test_counters_count_commands_per_call_and_tick(server: Server, pack: WritePack) -> None:
    pack(
        {"t:three": "say a\nsay b\nsay c", "t:tick": "scoreboard players add #n o 1"},
        tags={"minecraft:tick": ["t:tick"]},
    )
    server.run("reload")
    server.run("scoreboard objectives add o dummy")
    server.run("function t:three")
    # function entry (1) + three commands; `function` itself costs nothing
    assert server.counters.last_call == 4
    server.step(1)
    assert server.counters.last_tick == 2
    assert server.counters.total >= 6


def test_join_leave_and_chat(server: Server) -> None:
    uuid = server.join("Alex")
    assert len(uuid) == 36
    server.run("say hello")
    assert server.chat("Alex")[-1] == "[Server] hello"
    server.leave("Alex")
    assert server.run("list").feedback[0].startswith("There are 0")


def test_rotate_log(server: Server) -> None:
    server.run("say before")
    server.rotate_log()
    server.run("say after")
    text = server.log_path.read_text()
    assert "after" in text and "before" not in text
    assert list((server.log_path.parent).glob("*.log.gz"))

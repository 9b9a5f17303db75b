"""`time`, `tick`, `gamerule`, `schedule` and the tick order."""

from __future__ import annotations

import time

from mcsim.server import Server
from tests.mcsim.conftest import WritePack


def test_time_query(server: Server) -> None:
    server.step(30)
    assert server.run("time query gametime").feedback == ["The time is 30"]
    server.run("time set 23990")
    server.step(20)
    assert server.run("time query daytime").result == 10
    assert server.run("time query day").result == 1
    assert server.run("time add 1d").feedback == ["Set the time to 10"]


def test_tick_freeze_unfreeze_texts_and_results(server: Server) -> None:
    unfreeze = server.run("tick unfreeze")
    assert (unfreeze.result, unfreeze.feedback) == (0, ["The game is running normally"])
    freeze = server.run("tick freeze")
    assert (freeze.result, freeze.feedback) == (1, ["The game is frozen"])


def test_tick_step_needs_frozen_game(make_server) -> None:  # type: ignore[no-untyped-def]
    srv: Server = make_server(frozen=False)
    out = srv.run("tick step 5")
    assert (out.success, out.result) == (True, 1)
    assert out.feedback == ["Unable to step the game - the game must be frozen first"]
    assert srv.game_time == 0


def test_tick_step_runs_full_ticks(server: Server, pack: WritePack) -> None:
    pack(
        {"t:load": "scoreboard objectives add o dummy", "t:tick": "scoreboard players add #t o 1"},
        tags={"minecraft:load": ["t:load"], "minecraft:tick": ["t:tick"]},
    )
    server.run("reload")
    out = server.run("tick step 1s")
    assert out.feedback == ["Stepping 20 tick(s)"]
    assert server.game_time == 20
    assert server.score("#t", "o") == 20


def test_tick_query_and_rate(server: Server) -> None:
    out = server.run("tick query")
    assert out.feedback[0] == "The game is frozen"
    assert out.feedback[1].startswith("Target tick rate: 20.0 per second.\nAverage time per tick: ")
    assert out.result == 20
    assert server.run("tick rate 40").feedback == ["Set the target tick rate to 40.0 per second"]


def test_frozen_realtime_server_does_not_advance(make_server) -> None:  # type: ignore[no-untyped-def]
    srv: Server = make_server(frozen=True)
    srv.stop()
    srv.start(realtime=True)
    deadline = time.monotonic() + 0.3
    while time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.game_time == 0
    srv.run("tick step 3")
    deadline = time.monotonic() + 5
    while srv.game_time < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.game_time == 3


def test_realtime_server_ticks(make_server) -> None:  # type: ignore[no-untyped-def]
    srv: Server = make_server(frozen=False)
    srv.stop()
    srv.start(realtime=True)
    deadline = time.monotonic() + 5
    while srv.game_time < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.game_time >= 3


def test_tick_order_load_then_tick_then_time(server: Server, pack: WritePack) -> None:
    pack(
        {
            "t:load": "scoreboard objectives add o dummy",
            "t:tick": "execute store result score #seen o run time query gametime",
        },
        tags={"minecraft:load": ["t:load"], "minecraft:tick": ["t:tick"]},
    )
    server.run("reload")
    server.step(1)
    assert server.score("#seen", "o") == 0  # #tick runs before the game time advances
    assert server.game_time == 1


def test_gamerule_both_names(server: Server) -> None:
    assert server.run("gamerule max_command_sequence_length").feedback == [
        "Gamerule max_command_sequence_length is currently set to: 65536"
    ]
    out = server.run("gamerule maxCommandChainLength 500")
    assert out.feedback == ["Gamerule maxCommandChainLength is now set to: 500"]
    assert server.run("gamerule max_command_sequence_length").result == 500
    server.run("gamerule log_admin_commands false")
    assert server.run("gamerule logAdminCommands").feedback == [
        "Gamerule logAdminCommands is currently set to: false"
    ]


def test_gamerules_persist(make_server) -> None:  # type: ignore[no-untyped-def]
    srv: Server = make_server()
    srv.run("gamerule max_command_sequence_length 1234")
    srv.stop()
    srv.start()
    assert srv.run("gamerule max_command_sequence_length").result == 1234


def test_schedule(server: Server, pack: WritePack) -> None:
    pack(
        {
            "t:load": "scoreboard objectives add o dummy",
            "t:later": "scoreboard players add #ran o 1\n"
            "execute store result score #at o run time query gametime",
            "t:m": "$say $(x)",
        },
        tags={"minecraft:load": ["t:load"]},
    )
    server.run("reload")
    out = server.run("schedule function t:later 5t")
    assert out.feedback == ["Scheduled function 't:later' in 5 tick(s) at gametime 5"]
    assert out.result == 5
    server.run("schedule function t:later 3t")  # replace (default): only the new one stays
    server.step(10)
    assert server.score("#ran", "o") == 1
    assert server.score("#at", "o") == 3
    server.run("schedule function t:later 2t append")
    server.run("schedule function t:later 4t append")
    assert server.run("schedule clear t:later").feedback == [
        "Removed 2 schedule(s) with id t:later"
    ]
    assert server.run("schedule clear t:later").feedback == ["No schedules with id t:later"]
    assert server.run("schedule function t:m 1t").feedback == ["Can't schedule a macro"]
    assert server.run("schedule function t:later 0t").feedback == [
        "Can't schedule for current tick"
    ]


def test_schedule_persists_and_freezes(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack(
        {"t:load": "scoreboard objectives add o dummy", "t:later": "scoreboard players add #r o 1"},
        tags={"minecraft:load": ["t:load"]},
    )
    srv: Server = make_server()
    srv.run("schedule function t:later 5t")
    srv.stop()
    srv.start()
    srv.step(4)
    assert srv.score("#r", "o") is None
    srv.step(1)
    assert srv.score("#r", "o") == 1

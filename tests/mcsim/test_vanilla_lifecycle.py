"""Start-up, save and shutdown as the 1.21.11 dedicated server does them.

Sources (duollectis/minecraft-decompiled-1.21.11): server/Main.java (level.dat written before the
server thread starts), MinecraftDedicatedServer.setupServer (start-up lines), MinecraftServer.save
and .shutdown (save/stop lines), SaveAllCommand, world/level/LevelProperties (level.dat layout).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from nbtlib.tag import Byte, Int, IntArray

from mcsim.nbt import read_nbt_file, write_nbt_file
from mcsim.server import Server
from tests.mcsim.conftest import WritePack


def _messages(server_or_path: Server | Path) -> list[str]:
    path = server_or_path if isinstance(server_or_path, Path) else server_or_path.log_path
    return [line.split("]: ", 1)[1] for line in path.read_text().splitlines() if "]: " in line]


def test_level_dat_exists_as_soon_as_a_new_world_starts(world: Path) -> None:
    srv = Server(world, frozen=True)
    srv.start()
    try:
        assert (world / "level.dat").is_file()  # before any save: Main.backupLevelDataFile
        data = read_nbt_file(world / "level.dat")["Data"]
        assert str(data["Version"]["Name"]) == "1.21.11"
        assert int(data["DataVersion"]) == int(data["Version"]["Id"]) > 0
        assert str(data["LevelName"]) == "world"
        # Written before createWorlds chose a spawn: SpawnPoint.DEFAULT, not initialized.
        assert int(data["initialized"]) == 0
        assert list(data["spawn"]["pos"]) == [0, 0, 0]
    finally:
        srv.stop()
    data = read_nbt_file(world / "level.dat")["Data"]
    assert int(data["initialized"]) == 1
    assert str(data["spawn"]["dimension"]) == "minecraft:overworld"
    assert [int(v) for v in data["spawn"]["pos"]] == [0, 64, 0]


def test_level_dat_uses_1_21_11_keys(world: Path) -> None:
    with Server(world, frozen=True) as srv:
        srv.run("gamerule max_command_sequence_length 1000")
        srv.run("gamerule advance_time false")
    data = read_nbt_file(world / "level.dat")["Data"]
    rules = data["game_rules"]
    assert rules["minecraft:max_command_sequence_length"] == Int(1000)
    assert rules["minecraft:advance_time"] == Byte(0)
    assert rules["minecraft:show_advancement_messages"] == Byte(1)
    assert "GameRules" not in data and "SpawnX" not in data
    assert isinstance(data["spawn"]["pos"], IntArray)
    assert int(data["GameType"]) == 0
    with Server(world, frozen=True) as again:
        assert again.run("gamerule max_command_sequence_length").result == 1000
        assert again.run("gamerule advance_time").result == 0


def test_old_level_dat_spawn_and_rules_are_read(world: Path) -> None:
    from nbtlib.tag import Compound, Long, String

    world.mkdir(parents=True)
    data = Compound(
        {
            "SpawnX": Int(5),
            "SpawnY": Int(70),
            "SpawnZ": Int(-3),
            "Time": Long(9),
            "GameRules": Compound({"maxCommandChainLength": String("123")}),
        }
    )
    write_nbt_file(world / "level.dat", Compound({"Data": data}))
    with Server(world, frozen=True) as srv:
        assert srv.game_time == 9
        assert srv.run("gamerule max_command_sequence_length").result == 123
        srv.run("summon marker ~ ~ ~ {Tags: [m]}")
        assert srv.run("data get entity @e[tag=m, limit=1] Pos[1]").result == 70
    spawn = read_nbt_file(world / "level.dat")["Data"]["spawn"]
    assert [int(v) for v in spawn["pos"]] == [5, 70, -3]


def test_start_up_lines_in_vanilla_order(world: Path) -> None:
    with Server(world, frozen=True, rcon_port=0, rcon_password="pw") as srv:
        lines = _messages(srv)
        port = srv.rcon_port
    expected = [
        "No existing world data, creating new world",
        "Starting minecraft server version 1.21.11",
        "Loading properties",
        "Default game type: SURVIVAL",
        "Generating keypair",
        "Starting Minecraft server on *:25565",
        'Preparing level "world"',
    ]
    assert lines[: len(expected)] == expected
    done = lines[len(expected)]
    assert re.fullmatch(r'Done \(\d+\.\d{3}s\)! For help, type "help"', done)
    rest = lines[len(expected) + 1 :]
    assert rest[:3] == [
        "Starting remote control listener",
        "Thread RCON Listener started",
        f"RCON running on 127.0.0.1:{port}",
    ]
    raw = (world / "logs" / "latest.log").read_text()
    assert "[ServerMain/INFO]: No existing world data" in raw
    assert "[Server thread/INFO]: Starting minecraft server version 1.21.11" in raw


def test_existing_world_and_properties_shape_the_start_up_lines(world: Path) -> None:
    with Server(world, frozen=True):
        pass
    props = (world / "server.properties").read_text()
    props = props.replace("gamemode=survival", "gamemode=creative")
    (world / "server.properties").write_text(props + "server-port=25570\nonline-mode=false\n")
    (world / "logs" / "latest.log").unlink()
    with Server(world, frozen=True) as srv:
        lines = _messages(srv)
    assert "No existing world data, creating new world" not in lines
    assert "Default game type: CREATIVE" in lines
    assert "Starting Minecraft server on *:25570" in lines
    assert "**** SERVER IS RUNNING IN OFFLINE/INSECURE MODE!" in lines
    assert int(read_nbt_file(world / "level.dat")["Data"]["GameType"]) == 1


def test_shutdown_lines_and_rcon_stops_after_the_save(world: Path) -> None:
    srv = Server(world, frozen=True, rcon_port=0, rcon_password="pw")
    srv.start()
    srv.stop()
    lines = _messages(srv.log_path)
    start = lines.index("Stopping server")
    assert lines[start:] == [
        "Stopping server",
        "Saving players",
        "Saving worlds",
        "Saving chunks for level 'ServerLevel[world]'/minecraft:overworld",
        "Saving chunks for level 'ServerLevel[world]'/minecraft:the_nether",
        "Saving chunks for level 'ServerLevel[world]'/minecraft:the_end",
        "ThreadedAnvilChunkStorage (world): All chunks are saved",
        "ThreadedAnvilChunkStorage (DIM-1): All chunks are saved",
        "ThreadedAnvilChunkStorage (DIM1): All chunks are saved",
        "ThreadedAnvilChunkStorage: All dimensions are saved",
        "Thread RCON Listener stopped",
    ]


def test_save_all_lines(server: Server) -> None:
    r = server.run("save-all")
    assert r.feedback == ["Saving the game (this may take a moment!)", "Saved the game"]
    before = len(_messages(server))
    server.run("save-all flush")
    new = _messages(server)[before:]
    assert new == [
        "Saving the game (this may take a moment!)",
        "ThreadedAnvilChunkStorage (world): All chunks are saved",
        "ThreadedAnvilChunkStorage (DIM-1): All chunks are saved",
        "ThreadedAnvilChunkStorage (DIM1): All chunks are saved",
        "ThreadedAnvilChunkStorage: All dimensions are saved",
        "Saved the game",
    ]


def _pos(srv: Server, tag: str) -> list[float]:
    out = srv.run(f"data get entity @e[tag={tag}, limit=1] Pos").feedback[0]
    return [float(v.rstrip("d")) for v in out.split(": ", 1)[1].strip("[]").split(", ")]


def test_console_rcon_and_function_sources_stand_at_the_world_spawn(
    world: Path, pack: WritePack
) -> None:
    from nbtlib.tag import Compound, Float, String

    world.mkdir(parents=True)
    spawn = Compound(
        {
            "dimension": String("minecraft:overworld"),
            "pos": IntArray([12, 70, -5]),
            "yaw": Float(90.0),
            "pitch": Float(0.0),
        }
    )
    write_nbt_file(world / "level.dat", Compound({"Data": Compound({"spawn": spawn})}))
    pack(
        {
            "t:load": "summon marker ~ ~ ~ {Tags: [load]}\nsummon marker ^ ^ ^1 {Tags: [look]}",
            "t:later": "summon marker ~ ~ ~ {Tags: [sched]}",
        },
        tags={"minecraft:load": ["t:load"]},
    )
    with Server(world, frozen=True, rcon_port=0, rcon_password="pw") as srv:
        srv.run("summon marker ~ ~ ~ {Tags: [console]}")
        srv.run("schedule function t:later 1t")
        srv.step(1)
        assert _pos(srv, "console") == [12.0, 70.0, -5.0]  # Vec3d.of(block pos): no centring
        assert _pos(srv, "load") == [12.0, 70.0, -5.0]
        assert _pos(srv, "sched") == [12.0, 70.0, -5.0]
        # Rotation is Vec2f.ZERO whatever the spawn's yaw: ^ ^ ^1 points to +z.
        x, y, z = _pos(srv, "look")
        assert abs(x - 12.0) < 1e-9 and (y, z) == (70.0, -4.0)
        assert srv.run("execute if entity @e[tag=console, distance=..0.01]").result == 1
        assert srv.run("execute if dimension minecraft:overworld").success

    import asyncio

    import aiomcrcon

    async def over_rcon(port: int) -> None:
        client = aiomcrcon.Client("127.0.0.1", port, "pw")
        await client.connect()
        try:
            await client.send_cmd("summon marker ~ ~ ~ {Tags: [rcon]}")
        finally:
            await client.close()

    with Server(world, frozen=True, rcon_port=0, rcon_password="pw") as srv:
        assert srv.rcon_port is not None
        asyncio.run(asyncio.wait_for(over_rcon(srv.rcon_port), 10))
        assert _pos(srv, "rcon") == [12.0, 70.0, -5.0]


def test_realtime_loop_waits_on_the_command_queue_not_a_poll(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # MinecraftServer.runTasksTillTickEnd parks until the next tick and is unparked by each new
    # task, so an RCON command never waits for a polling interval. The structural check (no
    # sleep on the server thread) stands in for a timing test; bench/bot_rcon.py has the figures.
    import mcsim.server as server_module

    slept: list[float] = []
    real_sleep = time.sleep

    def recording_sleep(seconds: float) -> None:
        if threading.current_thread().name == "mcsim Server thread":
            slept.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(server_module.time, "sleep", recording_sleep)
    srv = Server(world)
    srv.start(realtime=True)
    try:
        answers = [srv._submit("time query gametime").result(timeout=5) for _ in range(20)]
        srv.step(0)
    finally:
        srv.stop()
    assert all(a.startswith("The time is ") for a in answers)
    assert slept == []


def test_autosave_every_6000_ticks_writes_storage_and_level_dat(server: Server) -> None:
    # MinecraftServer.tick: ticksUntilAutosave starts at 6000 (300 s at 20 TPS); runAutosave
    # is saveAll(true, false, false): files written, nothing logged.
    storage = server.world / "data" / "command_storage_auto.dat"
    server.run("data merge storage auto:s {v: 1}")
    lines = len(_messages(server))
    server.step(5999)
    assert not storage.exists()
    server.step(1)
    assert storage.exists()
    assert int(read_nbt_file(server.world / "level.dat")["Data"]["Time"]) == 6000
    assert len(_messages(server)) == lines
    server.run("data merge storage auto:s {v: 2}")
    server.step(6000)
    assert int(read_nbt_file(storage)["data"]["contents"]["s"]["v"]) == 2


def _wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def test_empty_server_pauses_after_pause_when_empty_seconds(world: Path) -> None:
    # MinecraftServer.tick: with nobody online for pause-when-empty-seconds (default 60), the
    # server stops ticking worlds (game time, #tick, schedules) until someone joins.
    world.mkdir(parents=True)
    (world / "server.properties").write_text("pause-when-empty-seconds=1\n")
    srv = Server(world)
    srv.start(realtime=True)
    try:
        srv.run("tick rate 1000")
        assert _wait_for(lambda: "Server empty for 1 seconds, pausing" in _messages(srv))
        assert srv.game_time == 19  # idle ticks 1..19 ran; the 20th paused
        assert (world / "level.dat").is_file()
        srv.join("Alex")
        assert _wait_for(lambda: srv.game_time > 19)
    finally:
        srv.stop()

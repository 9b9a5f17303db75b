"""The full mcsim server stopped and started again while our
RCON client has a command in flight. The in-flight command either got its reply before the server
went down or fails with a clear ServerUnavailable; the next command, after the restart on the same
port, gets its own reply (never a stale one) over a fresh connection, and the world was saved."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from bot.errors import ServerUnavailable
from bot.minecraft.rcon import RconClient
from mcsim.server import Server

__all__: list[str] = []

PASSWORD = "restart-mid-command-pw"
WAIT = 30.0  # every wait here gives up after this long


def write_loop_pack(world: Path) -> None:
    root = world / "datapacks" / "loop"
    fn = root / "data" / "t" / "function"
    fn.mkdir(parents=True)
    (root / "pack.mcmeta").write_text(
        '{"pack":{"description":"t","pack_format":48,"supported_formats":[48,94],'
        '"min_format":48,"max_format":94}}'
    )
    # `say` first, so the test sees in latest.log that the long call holds the game loop
    (fn / "busy.mcfunction").write_text("say busy\nfunction t:loop\n")
    (fn / "loop.mcfunction").write_text("scoreboard players add #n o 1\nfunction t:loop\n")


@pytest.mark.slow
async def test_stop_and_restart_with_a_command_in_flight(tmp_path: Path) -> None:
    world = tmp_path / "world"
    write_loop_pack(world)
    server = Server(world, rcon_port=0, rcon_password=PASSWORD)
    server.start()
    port = server.rcon_port
    assert port is not None
    server.run("scoreboard objectives add o dummy")
    server.run("gamerule max_command_sequence_length 131072")
    server.run("data modify storage t:s v set value 41")
    client = RconClient("127.0.0.1", port, PASSWORD, timeout=WAIT, name="sim")
    busy = threading.Thread(target=server.run, args=("function t:busy",))
    try:
        assert await client.command("data get storage t:s v") == (
            "Storage t:s has the following contents: 41"
        )
        busy.start()  # a long console call: the game loop is taken until it ends
        for _ in range(int(WAIT / 0.005)):
            if "[Not Secure] [Server] busy" in server.log_path.read_text(encoding="utf-8"):
                break
            await asyncio.sleep(0.005)
        in_flight = asyncio.create_task(client.command("data modify storage t:s v set value 42"))
        stopper = asyncio.create_task(asyncio.to_thread(server.stop))
        try:
            reply = await asyncio.wait_for(in_flight, WAIT)
            assert reply == "Modified storage t:s"
            ran = True
        except ServerUnavailable as e:
            assert "may or may not have run" in str(e) or "unavailable" in str(e).lower(), e
            ran = False
        await asyncio.wait_for(stopper, WAIT)
        busy.join(WAIT)
        assert not busy.is_alive()

        server = Server(world, rcon_port=port, rcon_password=PASSWORD)
        await asyncio.to_thread(server.start)
        reply = await client.command("data get storage t:s v")
        assert reply == f"Storage t:s has the following contents: {42 if ran else 41}"
        # the long call ran to its budget before the save: t:busy's entry and `say` cost 2,
        # then 65,535 rounds of 2
        assert await client.command("scoreboard players get #n o") == "#n has 65535 [o]"
        assert client.reconnects == 1
    finally:
        await client.close()
        await asyncio.to_thread(server.stop)

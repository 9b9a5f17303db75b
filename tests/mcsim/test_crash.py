"""A crash (Server.crash, and SIGKILL of `python -m mcsim`) leaves the world of the last save:
storage, scoreboard and game time roll back, as vanilla's do (the notes, "Time and persistence")."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from mcsim.server import Server

ROOT = Path(__file__).resolve().parents[2]


def _setup(server: Server) -> None:
    server.run("scoreboard objectives add o dummy")
    server.run("scoreboard players set #a o 1")
    server.run("data modify storage t:s v set value 1")


def test_crash_keeps_only_what_the_last_save_wrote(tmp_path: Path) -> None:
    world = tmp_path / "world"
    server = Server(world)
    server.start()
    _setup(server)
    server.step(50)
    server.run("save-all")
    server.run("scoreboard players set #a o 2")
    server.run("data modify storage t:s v set value 2")
    server.step(30)
    assert server.game_time == 80
    server.crash()
    assert not server.running
    log = (world / "logs" / "latest.log").read_text()
    assert "Stopping server" not in log  # a crash writes no shutdown lines

    again = Server(world)
    again.start()
    try:
        assert again.game_time == 50
        assert again.score("#a", "o") == 1
        assert again.storage("t:s") == {"v": 1}
    finally:
        again.stop()
    # a normal stop saves: nothing is lost
    third = Server(world)
    third.start()
    try:
        assert third.game_time == 50
    finally:
        third.stop()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_sigkill_of_the_process_loses_what_came_after_the_last_save(tmp_path: Path) -> None:
    world = tmp_path / "world"
    seed = Server(world)
    seed.start()
    _setup(seed)
    seed.stop()  # saved: #a = 1, v = 1
    (world / "server.properties").write_text(
        (world / "server.properties").read_text() + "\npause-when-empty-seconds=0\n"
    )
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcsim",
            "--world",
            str(world),
            "--rcon-port",
            str(port),
            "--rcon-password",
            "pw",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        import asyncio

        from bot.minecraft.rcon import RconClient

        async def drive() -> None:
            client = RconClient("127.0.0.1", port, "pw", timeout=20)
            try:
                await client.command("scoreboard players set #a o 5")
                await client.command("save-all")
                await client.command("scoreboard players set #a o 9")
                await client.command("data modify storage t:s v set value 9")
                assert await client.command("scoreboard players get #a o") == "#a has 9 [o]"
            finally:
                await client.close()

        deadline = time.monotonic() + 60
        while True:  # the process is up once its RCON answers
            try:
                asyncio.run(drive())
                break
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    again = Server(world)
    again.start()
    try:
        assert again.score("#a", "o") == 5  # saved by save-all; 9 came after and is gone
        assert again.storage("t:s") == {"v": 1}
    finally:
        again.stop()

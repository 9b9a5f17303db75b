"""The bot's path: a task submitted over real RCON through the storage input has no executor, runs
as the server at the saved place, and the outcome record answers the request."""

from __future__ import annotations

from pathlib import Path

from tests.datapack.dpharness import Pack, snbt

from mcsim.server import Server
from tests.rawrcon import RawRcon


def test_a_task_submitted_over_rcon_runs_as_the_server(world: Path) -> None:
    server = Server(world, frozen=True, rcon_port=0, rcon_password="pw")
    server.start()
    try:
        pack = Pack(server)
        assert server.rcon_port
        rcon = RawRcon(server.rcon_port)
        assert rcon.login("pw")[0] != -1
        try:
            task = {"req": 77, "run": 'function dstest:where {id:"r"}', "time": 3, "id": "r"}
            rcon.command(f"data modify storage doom.schedule:in task set value {snbt(task)}")
            reply = rcon.command("function doom.schedule:submit")
            assert reply.endswith("Function doom.schedule:submit returned 1"), reply
            out = rcon.command("data get storage doom.schedule:out")
            assert "req: 77" in out and 'code: "ok"' in out and "due: 3" in out, out
        finally:
            rcon.close()
        queued = pack.queue()[0]
        assert "executor" not in queued and queued["player"] == 0
        pack.step(3)
        assert [(r.id, r.tick, r.player) for r in pack.runs()] == [("r", 3, False)]
    finally:
        server.stop()

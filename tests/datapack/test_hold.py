"""The hold after a load (datapack/README.md, Holding after a load): with cfg.hold set, every
#load (a start, a /reload) holds the due tasks, says so in the log, and runs nothing due until
doom.schedule:release, or until cfg.hold ticks have passed (said too); with cfg.hold 0 (the
default) nothing is held. A task's caller key (request `key`) is kept as `k` and said in its
events, and each run of a keyed task says `event=ran`."""

from __future__ import annotations

from pathlib import Path

from mcsim.server import Server

HOLDING = "[doom.schedule] holding due tasks for up to 40 ticks until released"
ENDED = "[doom.schedule] hold ended: nobody released it in time; due tasks run now"


def _server(world: Path) -> Server:
    server = Server(world)
    server.start()
    server.run("scoreboard objectives add ht dummy")
    return server


def _task(server: Server, task_id: str, ticks: int = 5) -> None:
    server.run(
        f'function doom.schedule:schedule {{run:"scoreboard players add #{task_id} ht 1",'
        f'time:{ticks},unit:"t",id:"{task_id}"}}'
    )


def _log(server: Server) -> str:
    return server.log_path.read_text(encoding="utf-8")


def test_a_reload_holds_due_tasks_until_released(world: Path) -> None:
    server = _server(world)
    try:
        server.run("data modify storage doom.schedule:data cfg.hold set value 40")
        server.run("reload")
        assert HOLDING in _log(server)
        _task(server, "a")
        server.step(20)  # due after 5: held
        assert server.score("#a", "ht") is None
        assert server.run("function doom.schedule:release").result == 1
        server.step(1)
        assert server.score("#a", "ht") == 1
        assert server.run("function doom.schedule:release").result == 0
        assert ENDED not in _log(server)
    finally:
        server.stop()


def test_an_unreleased_hold_ends_by_itself_after_cfg_hold_ticks(world: Path) -> None:
    server = _server(world)
    try:
        server.run("data modify storage doom.schedule:data cfg.hold set value 40")
        server.run("reload")
        start = server.game_time
        _task(server, "b")
        while server.score("#b", "ht") is None:
            server.step(1)
            assert server.game_time < start + 100
        # the tick that reaches game time start + 40 runs it, 35 ticks late
        assert server.game_time == start + 41
        assert ENDED in _log(server)
    finally:
        server.stop()


def test_no_hold_by_default(world: Path) -> None:
    server = _server(world)
    try:
        server.run("reload")
        _task(server, "c")
        server.step(5)
        assert server.score("#c", "ht") == 1
        assert "holding due tasks" not in _log(server)
    finally:
        server.stop()


def test_a_keyed_task_keeps_its_key_and_says_each_run(world: Path) -> None:
    server = _server(world)
    try:
        server.run(
            'data modify storage doom.schedule:in task set value {run:"function nope:gone",'
            'id:"kt",time:2,key:"bot-key_1",retry:1}'
        )
        server.run("function doom.schedule:submit")
        queue = server.storage("doom.schedule:data")["queue"]
        assert [t["k"] for t in queue] == ["bot-key_1"]
        server.step(10)
        said = [line.split("[doom.schedule] ", 1)[1] for line in _log(server).splitlines()
                if "[doom.schedule] event=" in line]
        kinds = [(s.split()[0], s.rsplit(" ", 1)[1]) for s in said]
        assert kinds == [("event=ran", "k=bot-key_1"), ("event=retry", "k=bot-key_1"),
                         ("event=ran", "k=bot-key_1"),
                         ("event=retry_exhausted", "k=bot-key_1")]
        server.run('data modify storage doom.schedule:in task set value {run:"say x",id:"bad",'
                   'time:2,key:"no spaces"}')
        assert not server.run("function doom.schedule:submit").success
        assert server.storage("doom.schedule:out")["code"] == "bad_key"
    finally:
        server.stop()

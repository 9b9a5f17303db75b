"""Running due tasks: each triage row and event type (in storage and in latest.log), execution
context (player, nether, console), isolation, the per-tick cap and the events ring buffer."""

from __future__ import annotations

from tests.datapack.dpharness import Pack, mark, snbt


def kinds(pack: Pack) -> list[tuple[str, str]]:
    return [(e["type"], e["id"]) for e in pack.events()]


def assert_logged_like_storage(pack: Pack) -> None:
    """Every stored event was said once by the server, with the same fields."""
    logged = pack.log_events()
    stored = pack.events()
    assert [int(e["seq"]) for e in logged] == [e["seq"] for e in stored]
    for line, entry in zip(logged, stored, strict=True):
        assert line["event"] == entry["type"]
        assert line["id"] == entry["id"]
        assert int(line["t"]) == entry["t"]
        assert line.get("by") == entry.get("by")
        if "retry" in entry:
            assert int(line["retry"]) == entry["retry"]
        assert line.get("late") == (str(entry["late"]) if "late" in entry else None)


def test_retries_run_retry_plus_one_times_then_exhaust(pack: Pack) -> None:
    args = {"run": "function dstest:fail", "time": 2, "unit": "t", "id": "r", "retry": 3}
    assert pack.call("schedule_with_retry", {**args, "retry_delay": 4}).success
    pack.step(2)
    assert kinds(pack) == [("retry", "r")]
    assert pack.queue()[0]["due"] == 6 and pack.queue()[0]["retry_left"] == 2
    pack.step(12)
    assert [e["type"] for e in pack.events()] == ["retry"] * 3 + ["retry_exhausted"]
    assert [e["retry"] for e in pack.events()] == [2, 1, 0, 0]
    assert [e["t"] for e in pack.events()] == [1, 5, 9, 13]
    assert pack.queue() == []
    assert_logged_like_storage(pack)


def test_retry_delay_zero_means_one(pack: Pack) -> None:
    pack.submit(run="function dstest:fail", time=1, id="z", retry=1, retry_delay=0)
    pack.step(1)
    assert pack.queue()[0]["due"] == pack.time + 1


def test_a_success_after_a_retry_ends_the_task(pack: Pack) -> None:
    # fails while no zombie exists, then succeeds
    pack.submit(run="execute if entity @e[type=minecraft:zombie]", time=1, id="z", retry=5)
    pack.step(2)
    pack.run("summon minecraft:zombie 0 64 0")
    pack.step(1)
    assert [e["type"] for e in pack.events()] == ["retry", "retry"]
    assert pack.queue() == []


def test_a_function_without_return_succeeded(pack: Pack) -> None:
    pack.submit(run=mark("noreturn"), time=1, id="f", retry=2)
    pack.step(3)
    assert pack.ran() == ["noreturn"]
    assert pack.events() == []


def test_an_unparsable_command_is_removed_after_one_invalid_event(pack: Pack) -> None:
    pack.submit(run="definitely not a command", time=1, id="bad", retry=5)
    pack.submit(run="scoreboard players add", time=1, id="bad2", retry=5)
    pack.step(10)
    assert kinds(pack) == [("invalid", "bad"), ("invalid", "bad2")]
    assert pack.queue() == [] and pack.offline() == []
    assert_logged_like_storage(pack)


def test_an_unknown_function_is_a_failure_retried_not_invalid(pack: Pack) -> None:
    """Vanilla resolves a function id when the command runs, not when the line is parsed, so a
    misspelt function parses, fails each time and is retried until retry_exhausted."""
    pack.submit(run="function dstest:no_such_function", time=1, id="typo", retry=2)
    pack.submit(run="function #dstest:no_such_tag", time=1, id="tag", retry=0)
    pack.step(5)
    assert kinds(pack) == [
        ("retry", "typo"),
        ("retry_exhausted", "tag"),
        ("retry", "typo"),
        ("retry_exhausted", "typo"),
    ]
    assert pack.queue() == []
    assert_logged_like_storage(pack)


def test_a_failing_task_does_not_stop_the_others(pack: Pack) -> None:
    pack.submit(run="function dstest:fail", time=1, id="a")
    pack.submit(run="definitely not a command", time=1, id="b")
    pack.submit(run="data get storage nothing:here x", time=1, id="c")
    pack.submit(run=mark("d"), time=1, id="d")
    pack.step(1)
    assert pack.ran() == ["d"]
    assert [e["type"] for e in pack.events()] == ["retry_exhausted", "invalid", "retry_exhausted"]


def test_a_gone_entity_drops_its_task(pack: Pack) -> None:
    pack.run('summon minecraft:marker 1 64 1 {Tags:["exec"]}')
    assert pack.schedule(mark("m"), 3, "t", "m", as_="@e[tag=exec,limit=1]").success
    task = pack.queue()[0]
    assert task["player"] == 0 and len(task["executor"]) == 36
    pack.run("kill @e[tag=exec]")
    pack.step(3)
    assert pack.ran() == []
    assert kinds(pack) == [("dropped", "m")]
    assert pack.events()[0]["by"] == task["executor"]
    assert_logged_like_storage(pack)


def test_an_entity_task_runs_as_the_entity_where_it_is_now(pack: Pack) -> None:
    pack.run('summon minecraft:marker 1 64 1 {Tags:["exec"]}')
    run = 'execute if entity @s[tag=exec] run summon minecraft:marker ~ ~ ~ {Tags:["spot"]}'
    pack.schedule(run, 2, "t", "m", as_="@e[tag=exec,limit=1]")
    pack.run("tp @e[tag=exec] 10.0 70.0 -4.0")
    pack.step(2)
    assert pack.events() == []
    spot = pack.run("data get entity @e[tag=spot,limit=1] Pos")
    assert spot.feedback == ["Marker has the following entity data: [10.0d, 70.0d, -4.0d]"]


def test_offline_player_tasks_park_and_come_back_when_they_join(pack: Pack) -> None:
    pack.run("player Bot spawn")
    assert pack.run("execute as Bot run function doom.schedule:get_time").success
    pack.submit(run='function dstest:where {id:"bot"}', time=5, id="botjob", as_="Bot")
    executor = pack.queue()[0]["executor"]
    assert pack.queue()[0]["player"] == 1
    pack.run("player Bot kill")
    pack.step(5)
    assert kinds(pack) == [("offline", "botjob")]
    assert [t["id"] for t in pack.offline()] == ["botjob"] and pack.queue() == []
    pack.step(40)  # nobody joins: stays parked
    assert pack.ran() == [] and len(pack.offline()) == 1
    pack.run("player Bot spawn")
    joined = pack.time
    pack.step(1)  # the tick after the join restores (the issue allows up to 20)
    assert kinds(pack) == [("offline", "botjob"), ("restored", "botjob")]
    pack.step(20)
    assert [e.get("by") for e in pack.events()] == [executor, executor]
    assert pack.offline() == []
    runs = pack.runs()
    assert [r.id for r in runs] == ["bot"] and runs[0].player
    assert runs[0].tick <= joined + 21
    assert_logged_like_storage(pack)


def test_tasks_of_a_player_last_seen_before_a_restart_come_back(pack: Pack) -> None:
    pack.server.join("Alex")
    pack.submit(run=mark("alex"), time=30, id="alex", as_="Alex")
    pack.step(25)  # the restore check has seen Alex in this session
    server = pack.server
    server.stop()  # Alex was online: leave_game is not counted
    from mcsim.server import Server

    again = Server(server.world, frozen=True)
    again.start()
    try:
        p2 = Pack(again)
        p2.step(10)
        assert [t["id"] for t in p2.offline()] == ["alex"]
        again.join("Alex")
        p2.step(1)
        assert [e["type"] for e in p2.events()] == ["offline", "restored"]
        p2.step(1)
        assert p2.ran() == ["alex"]
        assert [e["type"] for e in p2.events()] == ["offline", "restored"]
    finally:
        again.stop()
        pack.server = again


def test_a_player_task_runs_in_the_nether(pack: Pack) -> None:
    pack.server.join("Nia", pos=(8, 70, 8), dimension="minecraft:the_nether")
    pack.submit(run='function dstest:where {id:"n"}', time=3, id="n", as_="Nia")
    task = pack.queue()[0]
    assert task["dimension"] == "minecraft:the_nether" and task["player"] == 1
    assert task["pos"] == [8.0, 70.0, 8.0]
    pack.step(3)
    runs = pack.runs()
    assert [(r.id, r.dim, r.player) for r in runs] == [("n", "nether", True)]


def test_a_console_task_runs_as_the_server_at_the_saved_place(pack: Pack) -> None:
    pack.submit(run='function dstest:where {id:"c"}', time=2, id="c")
    pack.submit(run="say from the console", time=2, id="s")
    task = pack.queue()[0]
    assert "executor" not in task and task["player"] == 0
    assert task["dimension"] == "minecraft:overworld"
    pack.run("execute in minecraft:the_nether run function doom.schedule:submit")  # nothing queued
    task_snbt = snbt({"run": 'function dstest:where {id:"cn"}', "time": 2, "id": "cn"})
    pack.run(f"data modify storage doom.schedule:in task set value {task_snbt}")
    pack.run(
        "execute in minecraft:the_nether positioned 5.0 6.0 7.0 run function doom.schedule:submit"
    )
    nether = pack.queue()[-1]
    assert nether["dimension"] == "minecraft:the_nether" and nether["pos"] == [5.0, 6.0, 7.0]
    pack.step(2)
    assert [(r.id, r.dim, r.player) for r in pack.runs()] == [
        ("c", None, False),
        ("cn", "nether", False),
    ]
    assert "[Not Secure] [Server] from the console" in pack.server.log_path.read_text()


def test_the_cap_defers_due_tasks_to_the_next_ticks_in_order(pack: Pack) -> None:
    pack.run("data modify storage doom.schedule:data cfg.cap set value 4")
    for i in range(10):
        pack.submit(run=mark(f"c{i}"), time=1, id=f"c{i}")
    pack.step(1)
    assert pack.ran() == [f"c{i}" for i in range(4)]
    pack.step(2)
    runs = pack.runs()
    assert [r.id for r in runs] == [f"c{i}" for i in range(10)]
    assert [r.tick for r in runs] == [1] * 4 + [2] * 4 + [3] * 2
    stats = pack.data()["stats"]
    assert stats["deferred"] == 2 and stats["late"] == 1


def test_run_events_say_how_late_the_run_was(pack: Pack) -> None:
    pack.run("data modify storage doom.schedule:data cfg.cap set value 1")
    pack.submit(run="function dstest:fail", time=3, id="first")
    pack.submit(run="function dstest:fail", time=3, id="second")
    pack.submit(run="definitely not a command", time=3, id="third")
    pack.step(5)
    assert kinds(pack) == [
        ("retry_exhausted", "first"),
        ("retry_exhausted", "second"),
        ("invalid", "third"),
    ]
    assert [e.get("late") for e in pack.events()] == [None, 1, 2]  # on time: no late
    assert_logged_like_storage(pack)
    pack.server.join("Steve")
    pack.submit(run="function dstest:fail", time=1, id="parked", as_="Steve")
    pack.server.leave("Steve")
    pack.run('datapack disable "file/doom.schedule"')
    pack.step(40)
    pack.run('datapack enable "file/doom.schedule"')
    pack.step(1)
    assert pack.events()[-1]["type"] == "offline" and pack.events()[-1]["late"] == 40
    assert_logged_like_storage(pack)


def test_the_event_ring_keeps_the_newest_entries_with_monotonic_seq(pack: Pack) -> None:
    pack.run("data modify storage doom.schedule:data cfg.events_max set value 3")
    for i in range(5):
        pack.submit(run="nonsense", time=1, id=f"e{i}")
    pack.step(1)
    entries = pack.events()
    assert [e["seq"] for e in entries] == [3, 4, 5]
    assert [e["id"] for e in entries] == ["e2", "e3", "e4"]
    assert pack.server.storage("doom.schedule:events")["seq"] == 5
    assert [int(e["seq"]) for e in pack.log_events()] == [1, 2, 3, 4, 5]


def test_the_log_setting_silences_say_but_not_the_ring(pack: Pack) -> None:
    pack.run("data modify storage doom.schedule:data cfg.log set value 0b")
    pack.submit(run="nonsense", time=1, id="quiet")
    pack.step(1)
    assert kinds(pack) == [("invalid", "quiet")]
    assert pack.log_events() == []

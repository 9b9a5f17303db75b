"""Players tagged doom.schedule.admin are told, by tellraw, about every event and about refusals of
calls that have no player to tell; untagged players are not, nothing of it reaches latest.log,
and the pack's cfg.admins setting turns it off."""

from __future__ import annotations

from tests.datapack.dpharness import Pack, mark

__all__: list[str] = []

PREFIX = "[doom.schedule] "


def told(pack: Pack, player: str) -> list[str]:
    """The pack's tellraw lines a player received (`say` lines start with `[Server]`)."""
    return [line for line in pack.server.chat(player) if line.startswith(PREFIX)]


def admin_and_bystander(pack: Pack) -> None:
    pack.server.join("Ada", pos=(0, 64, 0))
    pack.server.join("Bob", pos=(4, 64, 0))
    assert pack.run("tag Ada add doom.schedule.admin").success


def assert_not_logged(pack: Pack, lines: list[str]) -> None:
    log = pack.server.log_path.read_text(encoding="utf-8")
    for line in lines:
        assert line not in log


def test_admins_are_told_each_event_type_and_others_are_not(pack: Pack) -> None:
    admin_and_bystander(pack)
    pack.submit(run="function dstest:fail", time=1, id="ex", retry=1)
    pack.submit(run="definitely not a command", time=1, id="inv")
    pack.run('summon minecraft:marker 1 64 1 {Tags:["exec"]}')
    assert pack.schedule(mark("m"), 1, "t", "drop", as_="@e[tag=exec,limit=1]").success
    pack.run("kill @e[tag=exec]")
    pack.run("player Bot spawn")
    pack.submit(run=mark("bot"), time=1, id="park", as_="Bot")
    pack.run("player Bot kill")
    pack.step(3)
    pack.run("player Bot spawn")
    pack.step(1)
    events = [(e["type"], e["id"], e["seq"], e["t"]) for e in pack.events()]
    assert sorted(t for t, *_ in events) == sorted(
        ["retry", "retry_exhausted", "invalid", "dropped", "offline", "restored"]
    )
    lines = told(pack, "Ada")
    assert len(lines) == len(events)
    for line, (kind, task_id, seq, t) in zip(lines, events, strict=True):
        assert f"task {task_id} " in line, line
        assert line.endswith(f"(event {kind}, seq {seq}, t {t})"), line
    retry = next(line for line in lines if "event retry," in line)
    assert "0 attempt(s) left" in retry
    assert told(pack, "Bob") == []
    assert_not_logged(pack, lines)
    # the events themselves are still said and stored
    assert [e["event"] for e in pack.log_events()] == [kind for kind, *_ in events]


def test_the_admins_setting_turns_the_messages_off(pack: Pack) -> None:
    admin_and_bystander(pack)
    assert pack.data()["cfg"]["admins"] == 1
    pack.run("data modify storage doom.schedule:data cfg.admins set value 0b")
    pack.submit(run="function dstest:fail", time=1, id="quiet")
    pack.run('summon minecraft:marker 1 64 1 {Tags:["blockish"]}')
    bad_unit = {"run": "say x", "time": 1, "unit": "lightyear", "id": "q"}
    assert not pack.call("schedule", bad_unit, as_="@e[tag=blockish,limit=1]").success
    pack.step(1)
    assert [e["type"] for e in pack.events()] == ["retry_exhausted"]
    assert told(pack, "Ada") == []
    pack.run("reload")  # the setting is kept across reloads
    pack.step(1)
    assert pack.data()["cfg"]["admins"] == 0


def test_a_refusal_without_a_player_to_tell_goes_to_admins(pack: Pack) -> None:
    admin_and_bystander(pack)
    pack.run('summon minecraft:marker 1 64 1 {Tags:["blockish"]}')
    bad_unit = {"run": "say x", "time": 1, "unit": "lightyear", "id": "u"}
    assert not pack.call("schedule", bad_unit, as_="@e[tag=blockish,limit=1]").success
    assert not pack.call("schedule", {**bad_unit, "id": "v"}).success  # console, no req
    lines = told(pack, "Ada")
    assert len(lines) == 2
    assert all("refused a call" in line and "(code bad_unit)" in line for line in lines)
    assert "unknown unit" in lines[0]
    assert told(pack, "Bob") == []
    assert_not_logged(pack, lines)


def test_refusals_someone_else_hears_are_not_repeated_to_admins(pack: Pack) -> None:
    admin_and_bystander(pack)
    # a player caller is told itself
    pack.call("schedule", {"run": "say x", "time": 1, "unit": "lightyear", "id": "p"}, as_="Bob")
    assert any("unknown unit" in line for line in told(pack, "Bob"))
    # a caller giving req reads the outcome from doom.schedule:out (the bot does)
    out = pack.submit(req=5, run="say x", time=-1, id="r")
    assert out["code"] == "bad_time"
    # cancelling what is not there is routine, even from a function
    result, out = pack.op("cancel_one", "nothing-here")
    assert not result.success and out["code"] == "not_found"
    pack.run('data modify storage doom.schedule:in op set value {op:"cancel_all",id:"gone"}')
    assert not pack.call("call").success
    assert pack.out()["code"] == "not_found"
    assert told(pack, "Ada") == []


def test_an_admin_online_costs_nothing_on_idle_ticks(pack: Pack) -> None:
    assert pack.submit(run="say later", time=10_000, id="far")["ok"] == 1
    pack.server.join("Bob")
    pack.step(2)
    without = [cost_of_a_tick(pack) for _ in range(10)]
    pack.server.join("Ada")
    assert pack.run("tag Ada add doom.schedule.admin").success
    pack.step(2)  # Ada's join is handled (restore check)
    with_admin = [cost_of_a_tick(pack) for _ in range(10)]
    assert with_admin == without and max(without) <= 5


def cost_of_a_tick(pack: Pack) -> int:
    pack.step(1)
    return pack.server.counters.last_tick

"""Server groups: `server:<group>` (and `all`) on every command that changes or reads a
server's tasks runs the one-server operation on each server of the group, says each server's
outcome, and a server that is down is named and stops none of the others. Three mcsims over
TCP RCON (stepped: a task runs when the test ticks its server), a wall-clock scheduler on a
manual clock."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path

import pydantic
import pytest

from bot.config import Settings
from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import ADMIN, MOD, NOBODY, Harness, make_settings
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.fixtures import said_in_logs, server_config

PASSWORD = "groups-Pw"
NAMES = ("main", "creative", "lobby")
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _queue(server: Server) -> list[str]:
    data = server.storage("doom.schedule:data")
    return [str(t["id"]) for t in data.get("queue", [])]  # type: ignore[union-attr]


def _paused(server: Server) -> list[str]:
    data = server.storage("doom.schedule:data")
    return [str(t["id"]) for t in data.get("paused", [])]  # type: ignore[union-attr]


@pytest.fixture
async def grouped(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[tuple[Harness, dict[str, Server]]]:
    sims = {n: mcsim(password=PASSWORD, name=n) for n in NAMES}
    configs = [server_config(s, PASSWORD, name=n) for n, s in sims.items()]
    settings = make_settings(
        tmp_path, configs, server_groups={"build": ["main", "creative"]}, rcon_timeout=2.0
    )
    services = await build_services(settings)
    # wall-clock rows on a manual clock: a run is due when the test moves it
    services.scheduler = Scheduler(
        ScheduleStore(services.db),
        services.servers,
        clock=ManualClock(START),
        max_late=60,
        backoff=(1.0,),
    )
    harness = await Harness(settings, services).start()
    try:
        yield harness, sims
    finally:
        await harness.close()


async def test_a_group_gets_one_task_per_server_and_a_line_each(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    reply = await harness.run(
        "schedule", MOD, run="say build", time=900, unit="tick", id="b1", server="build"
    )
    assert reply.ephemeral
    assert "build: done on 2 of 2 servers." in reply.text, reply.text
    assert "**main**: Scheduled `b1` on main." in reply.text, reply.text
    assert "**creative**: Scheduled `b1` on creative." in reply.text, reply.text
    assert (_queue(sims["main"]), _queue(sims["creative"]), _queue(sims["lobby"])) == (
        ["b1"],
        ["b1"],
        [],
    )
    every = await harness.run(
        "schedule", MOD, run="say all", time=900, unit="tick", id="a1", server="all"
    )
    assert "all: done on 3 of 3 servers." in every.text, every.text
    assert all("a1" in _queue(s) for s in sims.values())
    refused = await harness.run(
        "schedule", MOD, run="stop", time=5, unit="tick", id="x", server="all"
    )
    assert "done on 0 of 3 servers" in refused.text and "deny-list" in refused.text, refused.text
    nobody = await harness.run(
        "schedule", NOBODY, run="say no", time=5, unit="tick", id="n", server="all"
    )
    assert "moderator" in nobody.text and all("n" not in _queue(s) for s in sims.values())
    names = {
        c["value"]
        for c in await harness.autocomplete("schedule", "server", MOD, run="say x", server="")
    }
    assert {"main", "creative", "lobby", "build", "all"} <= names, names


@pytest.mark.slow
async def test_a_server_that_is_down_stops_none_of_the_others(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    sims["creative"].stop()
    reply = await harness.run(
        "schedule", MOD, run="say up", time=900, unit="tick", id="u1", server="all"
    )
    assert "all: done on 2 of 3 servers." in reply.text, reply.text
    assert "**creative**: not done:" in reply.text, reply.text
    assert _queue(sims["main"]) == ["u1"] and _queue(sims["lobby"]) == ["u1"]
    planned = await harness.run(
        "schedule", MOD, run="say later", id="p1", server="build", when="in 2h"
    )
    # a planned row waits in the bot's database: a server that is down gets it too
    assert "build: done on 2 of 2 servers." in planned.text, planned.text


def test_a_group_names_configured_servers_only(tmp_path: Path) -> None:
    configs = [{"name": "main", "rcon_password": "x", "world_dir": str(tmp_path)}]
    for groups, said in (
        ({"build": ["main", "nope"]}, "unknown: nope"),
        ({"all": ["main"]}, "name is taken"),
        ({"main": ["main"]}, "name is taken"),
        ({"empty": []}, "it is empty"),
        ({"lobby/2": ["main"]}, "a name is 1-32 characters"),
        ({"two words": ["main"]}, "a name is 1-32 characters"),
    ):
        with pytest.raises(pydantic.ValidationError, match=said):
            Settings(_env_file=None, servers=configs, server_groups=groups)  # type: ignore[call-arg]
    ok = Settings(_env_file=None, servers=configs, server_groups={"b": ["main"]})  # type: ignore[call-arg]
    assert ok.server_groups == {"b": ["main"]}
    assert json.loads(json.dumps(ok.server_groups)) == {"b": ["main"]}


async def _press(harness: Harness, asked: object, user: object = MOD) -> str:
    """Confirm on the question a command asked."""
    message_id = asked.messages[-1].message_id  # type: ignore[attr-defined]
    assert message_id is not None
    return (await harness.press(message_id, "Confirm", user)).text  # type: ignore[arg-type]


async def test_a_group_cancel_pause_and_resume_act_on_each_server(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    made = await harness.run(
        "schedule", MOD, run="say t", time=900, unit="tick", id="t", server="all"
    )
    assert "all: done on 3 of 3 servers." in made.text, made.text
    paused = await harness.run("pause", MOD, id="t", server="build")
    assert paused.ephemeral and "build: done on 2 of 2 servers." in paused.text, paused.text
    assert "**main**: Paused `t`." in paused.text and "**creative**: Paused `t`." in paused.text
    assert [_paused(sims[n]) for n in NAMES] == [["t"], ["t"], []]
    assert _queue(sims["lobby"]) == ["t"]  # not in the group: left as it is
    resumed = await harness.run("resume", MOD, id="t", server="build")
    assert "build: done on 2 of 2 servers." in resumed.text, resumed.text
    assert [_queue(sims[n]) for n in NAMES] == [["t"], ["t"], ["t"]]
    cancelled = await harness.run("cancel", MOD, id="t", server="all")
    assert "all: done on 3 of 3 servers." in cancelled.text, cancelled.text
    assert [_queue(sims[n]) + _paused(sims[n]) for n in NAMES] == [[], [], []]
    again = await harness.run("cancel", MOD, id="t", server="all")
    assert "all: done on 0 of 3 servers." in again.text, again.text
    assert "**lobby**: No task `t` on lobby." in again.text, again.text
    # a planned row of that id on each server: found first, as on one server
    await harness.run("schedule", MOD, run="say p", id="p", when="in 2h", server="build")
    scheduler = harness.services.scheduler
    assert scheduler is not None
    await harness.run("pause", MOD, id="p", server="build")
    rows = [await scheduler.find(n, "p") for n in ("main", "creative")]
    assert [r.state if r else None for r in rows] == ["paused", "paused"]
    gone = await harness.run("cancel", MOD, id="p", server="build")
    assert "Cancelled the planned schedule `p` on creative." in gone.text, gone.text
    assert [await scheduler.find(n, "p") for n in ("main", "creative")] == [None, None]
    # the group's own audit entry: each server's outcome in one place
    [entry] = await harness.services.audit.mutations(action="cancel", server="", limit=1)
    assert entry.request == {"id": "p", "group": "build"}, entry.request
    assert "**main**: Cancelled the planned schedule `p` on main." in entry.outcome, entry.outcome
    offered = {
        c["value"] for c in await harness.autocomplete("pause", "server", MOD, id="t", server="")
    }
    assert {"build", "all", "main"} <= offered, offered
    nobody = await harness.run("pause", NOBODY, id="t", server="all")
    assert "moderator" in nobody.text and "done on" not in nobody.text, nobody.text


@pytest.mark.slow
async def test_with_one_server_stopped_the_others_act_and_it_is_named(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    await harness.run("schedule", MOD, run="say a", time=900, unit="tick", id="a", server="all")
    sims["creative"].stop()
    for verb in ("pause", "resume", "cancel"):
        reply = await harness.run(verb, MOD, id="a", server="all")
        assert "all: done on 2 of 3 servers." in reply.text, (verb, reply.text)
        assert "**creative**: not done: " in reply.text, (verb, reply.text)
        assert "creative" in reply.text.split("**creative**: not done: ")[1], reply.text
    assert _queue(sims["main"]) == _queue(sims["lobby"]) == []
    again = await harness.run(
        "schedule", MOD, run="say b", time=900, unit="tick", id="b", server="all"
    )
    assert "all: done on 2 of 3 servers." in again.text, again.text
    ran = await harness.run("run_now", MOD, id="b", server="all")
    assert "all: done on 2 of 3 servers." in ran.text, ran.text
    assert "**main**: " in ran.text and "**creative**: not done: " in ran.text, ran.text
    asked = await harness.run("cancel_all", MOD, id="b", server="all")
    assert "Cancel every task `b` on all?" in asked.text, asked.text
    assert "**main**: 1 task(s)" in asked.text and "**creative**: unavailable: " in asked.text
    done = await _press(harness, asked)
    assert "all: done on 2 of 3 servers." in done, done
    assert _queue(sims["main"]) == _queue(sims["lobby"]) == []
    await harness.run("schedule", MOD, run="say c", time=900, unit="tick", id="c", server="all")
    asked = await harness.run("clear", ADMIN, server="all")
    assert "Remove every scheduled task on main, creative, lobby?" in asked.text, asked.text
    cleared = await _press(harness, asked, ADMIN)
    assert "all: done on 2 of 3 servers." in cleared and "**creative**: not done: " in cleared
    assert _queue(sims["main"]) == _queue(sims["lobby"]) == []
    dynamic = await harness.run(
        "schedule_dynamic", MOD, run="say d", time=900, unit="tick", server="all"
    )
    assert "all: done on 2 of 3 servers." in dynamic.text, dynamic.text
    # the reads: a section a server that answered, the one that did not named
    time = await harness.run("time", MOD, server="all")
    assert "all: read on 2 of 3 servers." in time.text, time.text
    assert [e["title"] for e in time.embeds] == ["Time on main", "Time on lobby"], time.embeds
    assert "**creative**: unavailable: " in time.text, time.text
    listed = await harness.run("list", MOD, server="all")
    assert [e["title"] for e in listed.embeds] == [
        "queue on main: 1 task(s)",
        "queue on lobby: 1 task(s)",
    ]
    shown = await harness.run("show", MOD, id="a", server="all")
    assert "**main**: No task `a` on main." in shown.text, shown.text
    status = await harness.run("status", ADMIN, server="all")
    titles = [e["title"] for e in status.embeds]
    assert titles == ["Status of main", "Status of creative", "Status of lobby"], titles
    assert "unavailable" in json.dumps(status.embeds[1]), status.embeds[1]


@pytest.mark.slow
async def test_a_group_schedule_runs_once_on_each_server_and_the_stopped_one_is_reported(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    reply = await harness.run(
        "schedule", MOD, run="say run-g", time=10, unit="tick", id="g", server="all"
    )
    assert "all: done on 3 of 3 servers." in reply.text, reply.text
    for sim in sims.values():
        sim.step(20)
    assert [said_in_logs(s.world, "run-g") for s in sims.values()] == [1, 1, 1]
    sims["creative"].stop()
    reply = await harness.run(
        "schedule", MOD, run="say run-h", time=10, unit="tick", id="h", server="all"
    )
    assert "all: done on 2 of 3 servers." in reply.text, reply.text
    assert "**creative**: not done: " in reply.text, reply.text
    for name in ("main", "lobby"):
        sims[name].step(20)
    assert [said_in_logs(s.world, "run-h") for s in sims.values()] == [1, 0, 1]
    # a wall-clock row on each: the two that are up run it, the stopped one misses it, and
    # the group's history says so server by server
    planned = await harness.run(
        "schedule", MOD, run="say run-w", id="w", when="in 1h", server="all"
    )
    assert "all: done on 3 of 3 servers." in planned.text, planned.text
    scheduler = harness.services.scheduler
    assert scheduler is not None
    clock = scheduler.clock
    assert isinstance(clock, ManualClock)
    clock.advance(3600)
    await scheduler.settled()
    assert [said_in_logs(s.world, "run-w") for s in sims.values()] == [1, 0, 1]
    clock.advance(120)  # past max_late: the stopped server's run is missed
    await scheduler.settled()
    history = await harness.run("history", MOD, id="w", server="all")
    assert "all: read on 3 of 3 servers." in history.text, history.text
    said = {e["title"]: e.get("description", "") for e in history.embeds}
    assert " · ran" in said["History of `w` on main"], said
    assert " · ran" in said["History of `w` on lobby"], said
    assert " · missed" in said["History of `w` on creative"], said

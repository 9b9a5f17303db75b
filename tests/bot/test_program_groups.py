"""A program started on a group of servers, now or on a repeat: one run per member, every member
checked first (one that refuses a step's command starts none), each run in the answer. Three
mcsims over TCP RCON, the wall-clock scheduler on a manual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot import errors
from bot.operations import registry
from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import MOD, Harness, make_settings
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.console.typed import typed, typed_by
from tests.fixtures import said_in_logs, server_config

PASSWORD = "program-groups-Pw"
NAMES = ("main", "creative", "lobby")
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
STEPS = "- run: say evening-{n}\n  at: 0\n"


@pytest.fixture
async def grouped(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[tuple[Harness, dict[str, Server]]]:
    sims = {n: mcsim(password=PASSWORD, name=n) for n in NAMES}
    configs = [server_config(s, PASSWORD, name=n) for n, s in sims.items()]
    # the lobby may not run `say` from a task: a program saying something is refused there
    configs[2] = configs[2].model_copy(update={"deny_commands": ["say"]})
    settings = make_settings(
        tmp_path, configs, server_groups={"build": ["main", "creative"]}, rcon_timeout=2.0
    )
    services = await build_services(settings)
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


async def _settled(harness: Harness) -> None:
    ops = harness.bot.ops
    scheduler = ops.scheduler()
    for _ in range(3):
        await ops.program_repeats().look()
        await ops.program_runner().look()
        await scheduler.settled()


async def test_a_group_start_makes_one_run_per_member(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    ops, caller = harness.bot.ops, typed_by(MOD)
    await registry.run(ops, caller(), "program save", {"name": "evening", "steps": STEPS})
    options = {"name": "evening", "server": "build", "when": "in 1h"}
    tried = await registry.run(ops, caller(), "program dryrun", options)
    assert tried.facts["group"] == "build"
    assert [r["server"] for r in tried.facts["runs"]] == ["main", "creative"]
    assert [s.author for s in tried.sections] == ["main", "creative"]
    assert (await registry.run(ops, caller(), "program list", {})).facts["runs"] == []
    started = await registry.run(ops, caller(), "program start", options)
    dues = [[s["due"] for s in r["steps"]] for r in tried.facts["runs"]]
    assert dues[0] == dues[1] and len(dues[0]) > 0
    runs = started.facts["runs"]
    assert started.facts["group"] == "build"
    assert [r["server"] for r in runs] == ["main", "creative"]
    for run in runs:
        assert f"started on {run['server']} as run #{run['run']}" in started.text, started.text
    clock = ops.scheduler().clock
    assert isinstance(clock, ManualClock)
    clock.advance(3600)
    await _settled(harness)
    assert [said_in_logs(s.world, "evening-{n}") for s in sims.values()] == [1, 1, 0]
    listed = await registry.run(ops, caller(), "program list", {})
    assert sorted(r["server"] for r in listed.facts["runs"]) == ["creative", "main"]


async def test_a_member_that_refuses_starts_none(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, _sims = grouped
    ops, caller = harness.bot.ops, typed_by(MOD)
    await registry.run(ops, caller(), "program save", {"name": "evening", "steps": STEPS})
    for operation, options in (
        ("program dryrun", {"name": "evening", "server": "all"}),
        ("program start", {"name": "evening", "server": "all"}),
        ("program repeat", {"name": "evening", "server": "all", "repeat": "1h"}),
    ):
        with pytest.raises(errors.ValidationError, match="On lobby: Step 1"):
            await registry.run(ops, caller(), operation, options)
    assert (await registry.run(ops, caller(), "program list", {})).facts["runs"] == []
    assert (await registry.run(ops, caller(), "program repeats", {})).facts["repeats"] == []


async def test_a_group_repeat_starts_each_member_once_per_occurrence_until_stopped(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    ops, caller = harness.bot.ops, typed_by(MOD)
    await registry.run(ops, caller(), "program save", {"name": "evening", "steps": STEPS})
    made = await registry.run(
        ops, caller(), "program repeat", {"name": "evening", "server": "build", "repeat": "1h"}
    )
    assert made.facts["servers"] == ["main", "creative"]
    assert made.facts["next"][0] == (START + timedelta(hours=1)).isoformat()
    listed = await registry.run(ops, caller(), "program repeats", {})
    assert [r["repeat"] for r in listed.facts["repeats"]] == [made.facts["repeat"]]
    clock = ops.scheduler().clock
    assert isinstance(clock, ManualClock)
    for hour in (1, 2):
        clock.set(START + timedelta(hours=hour))
        await _settled(harness)
        assert [said_in_logs(s.world, "evening-{n}") for s in sims.values()] == [hour, hour, 0]
    listed_typed = await typed(ops, "/program repeats", MOD)
    assert f"Repeat #{made.facts['repeat']}: evening every 1h on build" in listed_typed
    said = await typed(ops, f"/program stop-repeat repeat:{made.facts['repeat']}", MOD)
    assert f"Repeat #{made.facts['repeat']} stopped" in said, said
    stopped = await registry.run(ops, caller(), "program repeats", {})
    assert stopped.facts["repeats"] == []
    with pytest.raises(errors.ValidationError, match="stopped already"):
        await registry.run(ops, caller(), "program stop-repeat", {"repeat": made.facts["repeat"]})
    clock.set(START + timedelta(hours=3))
    await _settled(harness)
    assert [said_in_logs(s.world, "evening-{n}") for s in sims.values()] == [2, 2, 0]
    runs = (await registry.run(ops, caller(), "program list", {})).facts["runs"]
    assert len(runs) == 4

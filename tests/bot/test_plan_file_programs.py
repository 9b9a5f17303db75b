"""The plan file's `programs:`: every saved program's newest version, written as a moderator
writes its steps; an import saves a program whose steps differ as a new version, leaves an
identical one, refuses a wrong step as /program save does (the whole file, nothing changed) and
undoes its saves when a later write fails. Real stores, mcsim over TCP RCON (stepped, behind a
proxy that can cut the connection at a chosen request)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from bot import errors
from bot.config import ServerConfig
from bot.operations import Operations, plan, registry
from bot.services import build_services
from bot.store.programs import ProgramStore
from bot.testkit.harness import make_settings
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD, queued
from tests.fixtures import postgres_server
from tests.wallclock.wallclock_sim import TcpProxy

PASSWORD = "plan-programs-Pw"
# as a moderator writes it: each step's keys in the model's order, the defaults left out
PLAN = """\
version: 1
server: main
planned:
- id: raid
  run: say raid night
  repeat: 0 20 * * 5
  timezone: Europe/Berlin
programs:
- name: evening
  steps:
  - run: say The event starts in 10 minutes
    at: -10m
  - run: function event:start
  - run: function event:round_two
    at: +5m
    after: 2
    limit: 30m
    on_failure: skip
  - run: give @a minecraft:diamond
    at: +20m
  - run: function event:clean_up
    at: +30m
- name: waves
  steps:
  - run: 'scoreboard players add #wave game 1'
    at: 1h 30m
    require: players>=2
    if_not: wait
    max_wait: 10m
    as_player: Alex
  - run: say wave over
    at: +2h
    after: 1
    on_failure: stop
"""


class Bot:
    def __init__(self, ops: Operations, recorder: Recorder, server: Server, proxy: TcpProxy):
        self.ops, self.recorder, self.server, self.proxy = ops, recorder, server, proxy

    async def load(self, text: str, *, dry_run: bool = False) -> plan.Imported:
        req = plan.ImportRequest(document=text, dry_run=dry_run)
        return await plan.import_plan(self.ops, MOD, req)

    async def exported(self) -> str:
        return (await plan.export(self.ops, MOD, plan.ExportRequest())).text

    async def versions(self) -> list[tuple[str, int]]:
        store = ProgramStore(self.ops.services.db)
        return [(p.name, p.version) for p in await store.programs()]


@pytest.fixture
async def bots(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[Callable[..., Awaitable[Bot]]]:
    """Bots each on its own fresh database (the data dir's SQLite, or a PostgreSQL database
    ordering text by a language's rules, as a server set up in English does) and its own
    stepped mcsim behind a proxy."""
    async with AsyncExitStack() as stack:
        made = 0

        async def bot(engine: str = "sqlite") -> Bot:
            nonlocal made
            made += 1
            server = mcsim(password=PASSWORD, name=f"s{made}")
            assert server.rcon_port is not None
            proxy = TcpProxy(server.rcon_port)
            await proxy.start()
            stack.push_async_callback(proxy.close)
            config = ServerConfig(
                name="main",
                rcon_port=proxy.port,
                rcon_password=PASSWORD,  # type: ignore[arg-type]
                world_dir=server.world,
                log_path=server.log_path,
            )
            extra: dict[str, Any] = {}
            if engine == "postgresql":
                postgres = postgres_server()
                name = f"icu{made}_{uuid.uuid4().hex[:8]}"
                await asyncio.to_thread(
                    postgres.psql,
                    f"CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu "
                    "ICU_LOCALE 'en-US' LOCALE 'C'",
                )
                extra["database_url"] = postgres.url_of(name)
            settings = make_settings(tmp_path / f"bot{made}", [config], rcon_timeout=2.0, **extra)
            services = await build_services(settings)
            stack.push_async_callback(services.close)
            recorder = Recorder()
            return Bot(Operations(services, recorder), recorder, server, proxy)

        yield bot


async def test_a_round_trip_into_a_fresh_bot_is_byte_identical_and_changes_are_versions(
    bots: Callable[..., Awaitable[Bot]],
) -> None:
    first = await bots()
    dry = await first.load(PLAN, dry_run=True)
    assert "add: programs[1] (evening)\nadd: programs[2] (waves)" in dry.text, dry.text
    assert await first.versions() == []  # the dry run saved none
    done = await first.load(PLAN)
    assert done.done and ("add", "programs[2] (waves)") in done.steps
    assert await first.versions() == [("evening", 1), ("waves", 1)]
    exported = await first.exported()
    assert exported == PLAN  # the steps as a moderator writes them, key by key
    fresh = await bots()
    await fresh.load(exported)
    assert await fresh.exported() == exported  # the same bytes from a fresh database
    assert await fresh.versions() == [("evening", 1), ("waves", 1)]
    # one step changed: a new version, the old one kept; the identical program left alone
    changed = exported.replace("at: +20m", "at: +25m")
    shown = await fresh.load(changed, dry_run=True)
    assert (
        "change: programs[1] (evening) (its steps differ: it would be saved as version 2)"
        in shown.text
    ), shown.text
    assert "leave as it is: programs[2] (waves)" in shown.text, shown.text
    assert await fresh.versions() == [("evening", 1), ("waves", 1)]
    done = await fresh.load(changed)
    assert "change: programs[1] (evening) (its steps differ: saved as version 2)" in done.text
    assert await fresh.versions() == [("evening", 2), ("waves", 1)]
    store = ProgramStore(fresh.ops.services.db)
    kept = await store.version("evening", 1)
    assert kept is not None and '"+20m"' in kept.steps  # runs started before keep it
    assert await fresh.exported() == changed
    audited = [e for e in fresh.recorder.entries if e[2] == "plan import"]
    assert [e[4] for e in audited[-1:]] == [done.text], audited
    again = await fresh.load(changed)
    assert [v for v, _label in again.steps] == ["leave", "leave", "leave"], again.steps
    assert await fresh.versions() == [("evening", 2), ("waves", 1)]
    # a program saved with /program save is in the file as well
    steps = "- run: say hi\n  at: '0'\n  on_failure: continue\n"
    await registry.run(fresh.ops, MOD, "program save", {"name": "hello", "steps": steps})
    assert "- name: hello\n  steps:\n  - run: say hi\n" in await fresh.exported()


SCOREBOARD = "  - run: 'scoreboard players add #wave game 1'"
CUT_LINE = PLAN.splitlines().index(SCOREBOARD) + 1
# (what is written wrong, as what, what the refusal says)
WRONG = [
    ("    at: -10m\n", "    at: -10x\n", "programs[1] (evening) is refused: Step 1: `at`: The"),
    ("    after: 2\n", "    after: 4\n", "Step 3: `after: 4` must name an earlier step (1 to 2)"),
    ("    limit: 30m\n", "    limt: 30m\n", "Step 3: Unknown field `limt`: did you mean `limit`?"),
    (
        "  - run: say wave",
        "  - rn: say wave",
        "programs[2] (waves) is refused: Step 2: `run` is missing.",
    ),
    (
        SCOREBOARD,
        SCOREBOARD.replace("'", ""),
        f"programs[2] (waves) is refused: Step 1: Line {CUT_LINE}: YAML reads ` #` as the start",
    ),
    ("- name: waves", "- name: wa ves", "programs[2] (wa ves) is refused: The program name"),
    ("- name: waves", "- name: evening", "programs[2] (evening) is refused: programs[1] has the"),
]


async def test_a_wrong_program_refuses_the_whole_file_naming_its_step_and_key(
    bots: Callable[..., Awaitable[Bot]],
) -> None:
    bot = await bots()
    for old, new, said in WRONG:
        assert PLAN.count(old) == 1, old
        text = PLAN.replace(old, new)
        for dry_run in (True, False):
            with pytest.raises(errors.ValidationError) as refused:
                await bot.load(text, dry_run=dry_run)
            assert said in str(refused.value), (new, str(refused.value))
            assert str(refused.value).endswith("Nothing was changed."), str(refused.value)
    # nothing saved, not even the file's planned row; no write audited
    assert await bot.versions() == []
    assert await bot.exported() == "version: 1\nserver: main\n"
    assert bot.recorder.entries == []


async def test_a_write_cut_part_way_removes_the_versions_the_import_saved(
    bots: Callable[..., Awaitable[Bot]],
) -> None:
    bot = await bots()
    await bot.load(PLAN)
    before = await bot.exported()
    # evening changed, a program added, then the server's connection drops at the task
    after = (
        PLAN.replace("at: +20m", "at: +25m")
        + "- name: zeta\n  steps:\n  - run: say z\n"
        + "tasks:\n- id: cut\n  run: say cut\n  time: 1000\n"
    )
    bot.proxy.plan = [(b"say cut", False)]
    with pytest.raises(errors.ImportFailed) as failed:
        await bot.load(after)
    said = str(failed.value)
    assert bot.proxy.dropped == 1
    assert "tasks[1] (cut) could not be written" in said, said
    assert "undid the 2 change(s) it had made before: nothing was changed." in said, said
    assert await bot.versions() == [("evening", 1), ("waves", 1)]
    assert await bot.exported() == before
    done = await bot.load(after)  # the connection is fine again: the same file goes in whole
    assert done.done and queued(bot.server) == ["cut"]
    assert await bot.versions() == [("evening", 2), ("waves", 1), ("zeta", 1)]


async def test_a_started_programs_step_rows_are_its_run_not_planned_entries(
    bots: Callable[..., Awaitable[Bot]],
) -> None:
    bot = await bots()
    await bot.load(PLAN)
    started = await registry.run(
        bot.ops, MOD, "program start", {"name": "evening", "when": "in 2h"}
    )
    assert started.facts["run"] == 1
    scheduler = bot.ops.scheduler()
    row = await scheduler.find("main", "evening.1.1")
    assert row is not None and row.state == "active"  # the run's first step, planned
    # the file has the program, not the rows of its run: imported elsewhere they would be
    # rows of no run
    assert await bot.exported() == PLAN
    fresh = await bots()
    await fresh.load(await bot.exported())
    assert await fresh.ops.scheduler().find("main", "evening.1.1") is None
    # a planned entry cannot take a run's row
    taken = PLAN.replace("- id: raid", "- id: evening.1.1")
    with pytest.raises(errors.ValidationError) as refused:
        await bot.load(taken)
    said = str(refused.value)
    assert "planned[1] (evening.1.1) is refused" in said and "already exists" in said, said
    assert await bot.exported() == PLAN


async def test_programs_are_written_in_the_same_order_from_sqlite_and_postgresql(
    bots: Callable[..., Awaitable[Bot]],
) -> None:
    sqlite = await bots()
    # PostgreSQL in English orders these 10, 9, a_b, a-b, a.b, alpha, B, zeta, Zeta
    names = ["zeta", "Zeta", "a.b", "a-b", "a_b", "B", "alpha", "10", "9"]
    for name in names:
        steps = f"- run: say {name}\n"
        await registry.run(sqlite.ops, MOD, "program save", {"name": name, "steps": steps})
    exported = await sqlite.exported()
    listed = [line[len("- name: ") :] for line in exported.splitlines() if "- name: " in line]
    assert listed == [repr(n) if n.isdigit() else n for n in sorted(names)], listed
    postgresql = await bots("postgresql")
    await postgresql.load(exported)
    assert await postgresql.exported() == exported
    # and back: the same file read into SQLite leaves every program as it is
    again = await sqlite.load(exported)
    assert {v for v, _label in again.steps} == {"leave"}


async def test_a_saved_version_a_run_started_with_meanwhile_stays_and_is_named(
    bots: Callable[..., Awaitable[Bot]],
) -> None:
    bot = await bots()
    await bot.load(PLAN)
    after = (
        PLAN.replace("at: +20m", "at: +25m")
        + "- name: zeta\n  steps:\n  - run: say z\n"
        + "tasks:\n- id: cut\n  run: say cut\n  time: 1000\n"
    )
    # the task's write waits on its way to the server, the programs saved before it
    bot.proxy.hold = b"say cut"
    importing = asyncio.create_task(bot.load(after))
    async with asyncio.timeout(10):
        await bot.proxy.held.wait()
    assert await bot.versions() == [("evening", 2), ("waves", 1), ("zeta", 1)]
    started = await registry.run(
        bot.ops, MOD, "program start", {"name": "evening", "when": "in 2h"}
    )
    assert started.facts["version"] == 2
    bot.proxy.down()  # the server is gone: the task's write fails, the import is undone
    bot.proxy.release.set()
    with pytest.raises(errors.ImportFailed) as failed:
        async with asyncio.timeout(30):
            await importing
    said = str(failed.value)
    assert "tasks[1] (cut) could not be written" in said, said
    assert "The import undid 1 of its 2 change(s); these could not be undone: " in said, said
    assert "programs[1] (evening): a run has started with version 2 since: it stays." in said
    # zeta removed; evening's version 2 kept for its run
    assert await bot.versions() == [("evening", 2), ("waves", 1)]

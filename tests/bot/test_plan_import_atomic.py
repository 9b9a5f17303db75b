"""A plan file's import is all or nothing: every entry is checked before anything is written,
and a write that fails part-way undoes what the import had done and names the entry. mcsim
(stepped, so a task's remaining delay holds still) behind a real TCP proxy that cuts the RCON
connection at a chosen request, or takes the server away for good."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot import errors
from bot.config import ServerConfig
from bot.operations import Operations, plan
from bot.services import build_services
from bot.testkit.harness import make_settings
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD, queued
from tests.wallclock.wallclock_sim import TcpProxy

PASSWORD = "plan-atomic-Pw"
BEFORE = """\
version: 1
server: main
planned:
- id: raid
  run: say raid night
  repeat: 0 20 * * 5
  timezone: Europe/Berlin
tasks:
- id: first
  run: say first
  time: 1000
- id: second
  run: say second
  time: 2000
  require: players>=2
"""
# raid and first changed, reset and third added; the fourth entry's write is the one cut
AFTER = """\
version: 1
server: main
planned:
- id: raid
  run: say raid day
  repeat: 0 12 * * 6
  timezone: Europe/Berlin
- id: reset
  run: say reset
  when: 2030-01-05 18:00
tasks:
- id: first
  run: say first again
  time: 500
- id: second
  run: say second
  time: 2000
  require: players>=2
- id: third
  run: say third
  time: 3000
- id: fourth
  run: say fourth
  time: 4000
"""


@pytest.fixture
async def behind_proxy(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[tuple[Operations, Recorder, Server, TcpProxy]]:
    server = mcsim(password=PASSWORD)
    assert server.rcon_port is not None
    proxy = TcpProxy(server.rcon_port)
    await proxy.start()
    config = ServerConfig(
        name="main",
        rcon_port=proxy.port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=server.world,
        log_path=server.log_path,
    )
    services = await build_services(make_settings(tmp_path, [config], rcon_timeout=2.0))
    recorder = Recorder()
    try:
        yield Operations(services, recorder), recorder, server, proxy
    finally:
        await services.close()
        await proxy.close()


async def _import(ops: Operations, text: str, *, dry_run: bool = False) -> plan.Imported:
    return await plan.import_plan(ops, MOD, plan.ImportRequest(document=text, dry_run=dry_run))


async def _exported(ops: Operations) -> str:
    return (await plan.export(ops, MOD, plan.ExportRequest())).text


async def test_every_entry_is_checked_before_anything_is_written(
    behind_proxy: tuple[Operations, Recorder, Server, TcpProxy],
) -> None:
    ops, recorder, server, _proxy = behind_proxy
    server.step(40)  # the game time is past 0: a delay of the pack's last tick is too late
    good = "tasks:\n- id: fine\n  run: say fine\n  time: 100\n"
    cases = {
        "- id: away\n  run: say hi\n  time: 5\n  as_player: Alex\n": (
            "tasks[2] (away)",
            "Alex is not online",
        ),
        "- id: late\n  run: say late\n  time: 2147483647\n": ("tasks[2] (late)", "2147483647"),
        "- id: bad id\n  run: say x\n  time: 5\n": ("tasks[2] (bad id)", "task id"),
        "- id: wait\n  run: say x\n  time: 5\n  require: empty\n  if_not: wait\n": (
            "tasks[2] (wait)",
            "max_wait",
        ),
        "- id: half\n  run: say x\n  time: 5\n  max_wait: 10m\n": ("tasks[2] (half)", "require"),
    }
    for bad, (where, why) in cases.items():
        text = f"version: 1\nserver: main\n{good}{bad}"
        for dry_run in (True, False):
            with pytest.raises(errors.ValidationError) as refused:
                await _import(ops, text, dry_run=dry_run)
            said = str(refused.value)
            assert where in said and why in said and "Nothing was changed" in said, said
    # nothing was written and undone: no write was even audited
    assert recorder.entries == [] and queued(server) == []
    assert await _exported(ops) == "version: 1\nserver: main\n"
    server.join("Alex")  # the same task is made once its player is online
    done = await _import(ops, f"version: 1\nserver: main\n{good}{next(iter(cases))}")
    assert done.done and queued(server) == ["away", "fine"], queued(server)


async def test_a_write_cut_part_way_undoes_the_import_and_names_the_entry(
    behind_proxy: tuple[Operations, Recorder, Server, TcpProxy],
) -> None:
    ops, recorder, server, proxy = behind_proxy
    await _import(ops, BEFORE)
    before = await _exported(ops)
    assert queued(server) == ["first", "second"]
    recorder.entries.clear()
    # the connection drops before the server reads the fourth task: the import fails there
    proxy.plan = [(b"say fourth", False)]
    with pytest.raises(errors.ImportFailed) as failed:
        await _import(ops, AFTER)
    said = str(failed.value)
    assert proxy.dropped == 1
    assert "tasks[4] (fourth) could not be written" in said and "nothing changed" in said, said
    # reset and third made, raid and first cancelled and made anew: six writes undone
    assert "undid the 6 change(s) it had made before: nothing was changed." in said, said
    assert await _exported(ops) == before  # the plan as it was, the changed entries too
    assert queued(server) == ["first", "second"]
    audited = [(e[2], e[4]) for e in recorder.entries if e[2] == "plan import"]
    assert audited == [("plan import", said)], recorder.entries
    done = await _import(ops, AFTER)  # the server is fine: the same file goes in whole
    assert done.done and sorted(queued(server)) == ["first", "fourth", "second", "third"]


@pytest.mark.slow
async def test_a_server_gone_for_good_leaves_what_could_not_be_undone_named(
    behind_proxy: tuple[Operations, Recorder, Server, TcpProxy],
) -> None:
    ops, _recorder, server, proxy = behind_proxy
    fresh = AFTER.replace("- id: raid\n  run: say raid day", "- id: raid2\n  run: say raid day")
    # the server answers the third task's input, then is gone: its answer never arrives
    proxy.watch = (lambda data: b"say third" in data, proxy.down)
    with pytest.raises(errors.ImportFailed) as failed:
        await _import(ops, fresh)
    said = str(failed.value)
    assert "tasks[3] (third) could not be written" in said, said
    # the rows live in the bot's database: cancelled; the tasks on the server cannot be
    assert "The import undid 2 of its 4 change(s)" in said, said
    assert "tasks[1] (first):" in said and "tasks[2] (second):" in said, said
    scheduler = ops.scheduler()
    assert (await scheduler.planned("main"))[1] == 0
    assert queued(server) == ["first", "second"]  # left behind, and said so


async def test_only_the_tasks_the_bot_made_are_written(
    behind_proxy: tuple[Operations, Recorder, Server, TcpProxy],
) -> None:
    ops, _recorder, server, _proxy = behind_proxy
    server.join("Steve")
    ours = "tasks:\n- id: ours\n  run: say ours\n  time: 900\n  as_player: Steve\n"
    await _import(ops, f"version: 1\nserver: main\n{ours}")
    # made in game: by a player (the file cannot name who runs it) and by the console
    server.run(
        'execute as Steve at @s run function doom.schedule:schedule {run:"say mine",'
        'time:900,unit:"t",id:"mine"}'
    )
    server.run('function doom.schedule:schedule {run:"say cb",time:900,unit:"t",id:"cb"}')
    assert sorted(queued(server)) == ["cb", "mine", "ours"]
    assert await _exported(ops) == f"version: 1\nserver: main\n{ours}"


async def test_tasks_of_one_id_are_changed_together_a_paused_one_too(
    behind_proxy: tuple[Operations, Recorder, Server, TcpProxy],
) -> None:
    ops, _recorder, server, _proxy = behind_proxy
    head = "version: 1\nserver: main\ntasks:\n"
    await _import(ops, f"{head}- id: bell\n  run: say old\n  time: 100\n")
    two = (
        f"{head}- id: bell\n  run: say now\n  time: 200\n"
        "- id: bell\n  run: say later\n  time: 300\n  paused: true\n"
    )
    shown = await _import(ops, two, dry_run=True)
    assert shown.steps == [("change", "tasks[1] (bell)"), ("change", "tasks[2] (bell)")]
    await _import(ops, two)
    assert await _exported(ops) == two  # the old one gone, the paused one the one paused
    assert queued(server) == ["bell"]
    again = await _import(ops, two)
    assert [v for v, _label in again.steps] == ["leave", "leave"]

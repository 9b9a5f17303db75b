"""`on_doubt` in the plan file: read on a planned and a game-time entry, made as /schedule makes
it, written by an export when it is not the default (skip), so an export reads back as it was;
a value other than skip or run refuses the file, naming the entry and the values, and changes
nothing."""

from __future__ import annotations

import pytest
import yaml

from bot import errors
from bot.calendar.plan_file import load
from bot.operations import Operations, plan
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD, queued

PLAN = """\
version: 1
server: main
planned:
- id: backup
  run: say backup
  repeat: 0 4 * * *
  on_doubt: run
- id: hello
  run: say hello
  repeat: 0 5 * * *
tasks:
- id: border
  run: worldborder set 2000
  time: 90000
  on_doubt: run
- id: bell
  run: say bell
  time: 90000
"""


async def imported(ops: Operations, text: str, *, dry_run: bool = False) -> plan.Imported:
    return await plan.import_plan(ops, MOD, plan.ImportRequest(document=text, dry_run=dry_run))


async def test_the_policy_is_imported_and_exported_when_not_the_default(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, _server = ops
    await imported(operations, PLAN)
    exported = await plan.export(operations, MOD, plan.ExportRequest())
    data = yaml.safe_load(exported.text)
    assert {e["id"]: e.get("on_doubt") for e in data["planned"]} == {
        "backup": "run",
        "hello": None,  # the default is not written
    }
    assert {e["id"]: e.get("on_doubt") for e in data["tasks"]} == {"border": "run", "bell": None}
    scheduler = operations.scheduler()
    row = await scheduler.find("main", "backup")
    assert row is not None and row.on_doubt == "run"
    # the export read back is what the server has: its planned rows are left as they are
    again = await imported(operations, exported.text, dry_run=True)
    assert [v for v, label in again.steps if label.startswith("planned")] == ["leave", "leave"]
    # a policy changed in the file is a change
    changed = PLAN.replace("  on_doubt: run\n- id: hello", "  on_doubt: skip\n- id: hello")
    dry = await imported(operations, changed, dry_run=True)
    steps = {label: verdict for verdict, label in dry.steps}
    assert steps["planned[1] (backup)"] == "change" and steps["planned[2] (hello)"] == "leave"


@pytest.mark.parametrize("where", ["planned", "tasks"])
async def test_a_bad_policy_refuses_the_file_naming_the_entry_and_the_values(
    ops: tuple[Operations, Recorder, Server], where: str
) -> None:
    operations, recorder, server = ops
    bad = PLAN.replace("  on_doubt: run\n", "  on_doubt: twice\n")
    with pytest.raises(errors.ValidationError) as refused:
        load(bad)
    said = str(refused.value)
    entry = "planned[1] (backup)" if where == "planned" else "tasks[1] (border)"
    if where == "tasks":  # the first wrong entry is named: make the planned one right
        bad = bad.replace("  on_doubt: twice\n- id: hello", "  on_doubt: run\n- id: hello")
        with pytest.raises(errors.ValidationError) as refused:
            load(bad)
        said = str(refused.value)
    assert f"entry {entry}: `on_doubt` is one of skip, run, not 'twice'" in said, said
    with pytest.raises(errors.ValidationError):
        await imported(operations, bad)
    assert queued(server) == [] and recorder.entries == []
    assert await operations.scheduler().find("main", "backup") is None

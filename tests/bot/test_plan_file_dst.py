"""A repeating row's DST policy in the plan file: read on a planned entry, made as /schedule
makes it, written by an export only when it is not the default, so a file's round trip through
the server is byte-identical; a policy the file gives that is the default is the same row; a bad
value refuses the file, naming the entry and the values, and changes nothing."""

from __future__ import annotations

import pytest

from bot import errors
from bot.calendar.plan_file import load
from bot.operations import Operations, plan
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD

PLAN = """\
version: 1
server: main
planned:
- id: both
  run: say both
  repeat: 30 2 * * *
  timezone: Europe/Berlin
  dst_repeated: both
  dst_skipped: skip
- id: hourly
  run: say hourly
  repeat: 30 * * * *
  timezone: America/New_York
  dst_repeated: second
- id: plain
  run: say plain
  repeat: 0 3 * * *
  timezone: Europe/Berlin
"""


async def imported(ops: Operations, text: str, *, dry_run: bool = False) -> plan.Imported:
    return await plan.import_plan(ops, MOD, plan.ImportRequest(document=text, dry_run=dry_run))


async def test_the_policy_round_trips_byte_for_byte(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, _server = ops
    await imported(operations, PLAN)
    scheduler = operations.scheduler()
    rows = {n: await scheduler.find("main", n) for n in ("both", "hourly", "plain")}
    assert {n: (r.dst_repeated, r.dst_skipped) for n, r in rows.items() if r} == {
        "both": ("both", "skip"),
        "hourly": ("second", None),
        "plain": (None, None),
    }
    exported = await plan.export(operations, MOD, plan.ExportRequest())
    assert exported.text == PLAN
    again = await imported(operations, exported.text, dry_run=True)
    assert [v for v, label in again.steps if label.startswith("planned")] == ["leave"] * 3
    # saying what the row does anyway is the same row; a policy changed is a change
    said = PLAN.replace("  repeat: 0 3 * * *\n", "  repeat: 0 3 * * *\n  dst_repeated: first\n")
    dry = await imported(
        operations, said.replace("dst_repeated: second", "dst_repeated: first"), dry_run=True
    )
    steps = {label: verdict for verdict, label in dry.steps}
    assert steps["planned[3] (plain)"] == "leave" and steps["planned[2] (hourly)"] == "change"


async def test_a_bad_policy_refuses_the_file_naming_the_entry_and_the_values(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, _server = ops
    bad = PLAN.replace("dst_skipped: skip", "dst_skipped: later")
    with pytest.raises(errors.ValidationError) as refused:
        load(bad)
    said = str(refused.value)
    assert "entry planned[1] (both): `dst_skipped` is one of shift, skip, not 'later'" in said, said
    interval = PLAN.replace("repeat: 30 2 * * *", "repeat: 1d")
    with pytest.raises(errors.ValidationError) as refused:
        await imported(operations, interval)
    assert "planned[1] (both)" in str(refused.value)
    assert "an interval counts real time" in str(refused.value)
    assert recorder.entries == [] and await operations.scheduler().find("main", "hourly") is None

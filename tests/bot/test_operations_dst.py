"""A repeating row's DST policy (bot.times.dst) through /schedule's operation, against mcsim over
TCP RCON: stored with the row, said in the audit entry and the row's facts, previewed with the
clock changes of the next 12 months, and refused in the moderator's words when the row cannot
use it (nothing stored)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest

from bot import errors
from bot.operations import Operations, schedule
from bot.operations.facts import planned_row
from bot.operations.requests import validated
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import MOD

NIGHTLY = {"run": "say night", "repeat": "30 2 * * *", "timezone": "Europe/Berlin"}


def eu_changes(after: datetime, until: datetime) -> list[date]:
    """The EU's clock changes (01:00 UTC on the last Sundays of March and October) between."""
    found = []
    for year in (after.year, after.year + 1, after.year + 2):
        for month in (3, 10):
            last = max(
                d
                for d in (date(year, month, 1) + timedelta(days=i) for i in range(31))
                if d.month == month and d.weekday() == 6
            )
            if after < datetime.combine(last, time(1), UTC) <= until:
                found.append(last)
    return found


async def test_a_row_keeps_its_policy_and_every_face_s_facts_say_it(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, _server = ops
    request = schedule.ScheduleRequest(
        **NIGHTLY, id="nightly", dst_repeated="both", dst_skipped="skip"
    )
    made = await schedule.schedule(operations, MOD, request)
    assert made.planned is not None
    row = await operations.scheduler().get(made.planned.id)
    assert row is not None and (row.dst_repeated, row.dst_skipped) == ("both", "skip")
    audited = recorder.entries[-1][3]
    assert audited["dst_repeated"] == "both" and audited["dst_skipped"] == "skip"
    facts = dict((name, text) for name, text in planned_row(row)["facts"] if name != "clock change")
    assert facts["when the clock changes"] == (
        "a time in the hour the clock repeats runs in both passes; a time in the hour the clock "
        "skips does not run"
    )
    assert row.next_due is not None
    changes = [t for n, t in planned_row(row)["facts"] if n == "clock change"]
    want = eu_changes(row.next_due - timedelta(hours=3), row.next_due + timedelta(days=365))
    assert [c.split(":", 1)[0] for c in changes] == [d.isoformat() for d in want]
    for text in changes:
        if "forward" in text:
            assert text.endswith("02:30 does not run.")
        else:
            assert text.endswith("02:30 runs twice, at 02:30 CEST and 02:30 CET.")


async def test_a_preview_lists_the_next_twelve_months_of_clock_changes(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, _server = ops
    request = schedule.ScheduleRequest(**NIGHTLY, dst_repeated="second")
    shown = await schedule.preview(operations, MOD, request)
    first = shown.runs[0]
    said = dict(shown.dst[:1])
    assert said["when the clock changes"].startswith(
        "a time in the hour the clock repeats runs once, in the second pass; a time in the "
        "hour the clock skips runs once, when the clock jumps"
    )
    changes = [text for _name, text in shown.dst[1:]]
    want = eu_changes(first - timedelta(hours=3), first + timedelta(days=365))
    assert len(want) == 2 and [c[:10] for c in changes] == [d.isoformat() for d in want]
    for text in changes:
        if "forward" in text:
            assert text.endswith("02:30 runs once, at 03:00 CEST.")
        else:
            assert text.endswith("02:30 runs once, at 02:30 CET.")
    assert await operations.scheduler().planned(operations.server(None).name) == ([], 0)
    # a row with no DST in its zone and no policy has nothing to say
    utc = await schedule.preview(
        operations, MOD, schedule.ScheduleRequest(run="say hi", repeat="30 2 * * *", timezone="UTC")
    )
    assert utc.dst == ()


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"repeat": "30m", "dst_skipped": "skip"}, "dst_skipped", "an interval counts real time"),
        ({"when": "in 2h", "dst_repeated": "both"}, "dst_repeated", "give `repeat` too"),
        (
            {"repeat": "1d", "dst_repeated": "twice"},
            "dst_repeated",
            "`dst_repeated` is one of first, second, both, not 'twice'",
        ),
        (
            {"time": 5, "unit": "second", "dst_repeated": "both"},
            "dst_repeated",
            "a wall-clock time and `time` a game time",
        ),
    ],
)
async def test_a_policy_the_row_cannot_use_is_refused_and_nothing_is_stored(
    ops: tuple[Operations, Recorder, Server], fields: dict[str, object], field: str, words: str
) -> None:
    operations, recorder, _server = ops
    with pytest.raises(errors.ValidationError) as caught:
        request = validated(schedule.ScheduleRequest, {"run": "say hi", "id": "bad", **fields})
        await schedule.schedule(operations, MOD, request)
    assert caught.value.field == field and words in str(caught.value)
    assert await operations.scheduler().planned(operations.server(None).name) == ([], 0)
    assert recorder.entries == []

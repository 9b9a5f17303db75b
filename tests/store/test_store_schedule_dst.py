"""A repeating row's DST policy (bot.times.dst) in the store, on both engines: stored and read
back as given, NULL when it is the default, and the row's times under it."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from bot.store.db import Database
from bot.store.schedules import Creator, ScheduleStore
from bot.store.tables import schedules
from bot.times.when import build_spec, next_runs

NOW = datetime(2026, 10, 24, 20, 0, tzinfo=UTC)  # the evening before Berlin's clocks go back
MOD = Creator(412345678901234567, "mod")


async def test_a_row_keeps_its_policy_and_its_runs_follow_it(store_db: Database) -> None:
    store = ScheduleStore(store_db)
    spec = build_spec(
        None, "30 2 * * *", "Europe/Berlin", None, now=NOW, dst_repeated="both", dst_skipped="skip"
    )
    row = await store.insert(
        spec, server="main", command="say hi", task_id="n", created_by=MOD, now=NOW
    )
    read = await store.get(row.id)
    assert read == row
    assert (read.dst_repeated, read.dst_skipped) == ("both", "skip")
    assert read.spec.dst_policy == ("both", "skip")
    # 02:30 comes twice on the 25th: both passes run, then the next day's
    assert next_runs(read.spec, 3, read.next_due) == [
        datetime(2026, 10, 25, 0, 30, tzinfo=UTC),
        datetime(2026, 10, 25, 1, 30, tzinfo=UTC),
        datetime(2026, 10, 26, 1, 30, tzinfo=UTC),
    ]
    plain = await store.insert(
        build_spec(None, "30 2 * * *", "Europe/Berlin", None, now=NOW, dst_repeated="first"),
        server="main",
        command="say hi",
        task_id="p",
        created_by=MOD,
        now=NOW,
    )
    async with store_db.connect() as conn:
        stored = (
            await conn.execute(
                select(
                    schedules.c.task_id, schedules.c.dst_repeated, schedules.c.dst_skipped
                ).order_by(schedules.c.id)
            )
        ).all()
    # the default ("first" at a fixed time) is kept as NULL, as an older row has it
    assert [tuple(r) for r in stored] == [("n", "both", "skip"), ("p", None, None)]
    assert (plain.dst_repeated, plain.dst_skipped) == (None, None)
    assert plain.spec.dst_policy == ("first", "shift")

"""The scheduler hands a repeating row over at exactly the times its DST policy names, against
the stepped mcsim with the pack over TCP RCON, the clock moved a minute at a time through Berlin's
2026 autumn change (02:30 happens twice) and its 2027 spring change (02:30 never happens)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.services import ServerServices
from tests.wallclock.test_wallclock_scheduler import Wall
from tests.wallclock.wallclock_sim import MOD, PackSim


@pytest.fixture
async def wall(server: ServerServices, tmp_path: Path) -> AsyncIterator[Wall]:
    wall = Wall(tmp_path / "bot.sqlite3", server)
    try:
        yield wall
    finally:
        await wall.close()


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("start", "rows"),
    [
        (
            utc(2026, 10, 24, 23, 0),  # 01:00 CEST; the clock goes back at 01:00 UTC
            {
                # name: (repeat, options, the runs: 02:30 CEST is 00:30 UTC, 02:30 CET 01:30)
                "both": (
                    "30 2 * * *",
                    {"dst_repeated": "both"},
                    [utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30)],
                ),
                "second": ("30 2 * * *", {"dst_repeated": "second"}, [utc(2026, 10, 25, 1, 30)]),
                "plain": ("30 2 * * *", {}, [utc(2026, 10, 25, 0, 30)]),
                "half": (
                    "30 * * * *",
                    {"dst_repeated": "first"},
                    [utc(2026, 10, 24, 23, 30), utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 2, 30)],
                ),
            },
        ),
        (
            utc(2027, 3, 27, 23, 0),  # 00:00 CET; the clock goes forward at 01:00 UTC
            {
                "skip": ("30 2 * * *", {"dst_skipped": "skip"}, []),
                "shift": ("30 2 * * *", {}, [utc(2027, 3, 28, 1, 0)]),  # at 03:00 CEST
                "hourly": (
                    "30 * * * *",
                    {"dst_skipped": "shift"},
                    [
                        utc(2027, 3, 27, 23, 30),
                        utc(2027, 3, 28, 0, 30),
                        utc(2027, 3, 28, 1, 0),
                        utc(2027, 3, 28, 1, 30),
                        utc(2027, 3, 28, 2, 30),
                    ],
                ),
            },
        ),
    ],
    ids=["autumn-2026", "spring-2027"],
)
async def test_each_row_runs_where_its_policy_says(
    sim: PackSim,
    server: ServerServices,
    wall: Wall,
    start: datetime,
    rows: dict[str, tuple[str, dict[str, str], list[datetime]]],
) -> None:
    wall.clock.set(start)
    scheduler = await wall.start(server, grace=timedelta(seconds=90))
    made = {}
    for name, (repeat, options, _runs) in rows.items():
        sim.server.run(f"scoreboard players set #{name} wc 0")
        made[name] = await scheduler.create(
            server="sim",
            command=f"scoreboard players add #{name} wc 1",
            task_id=name,
            created_by=MOD,
            repeat=repeat,
            timezone="Europe/Berlin",
            **options,  # type: ignore[arg-type]
        )
    for _ in range(4 * 60 - 1):  # to 02:59 UTC: every minute of the changed hour passed
        wall.clock.advance(60)
        await scheduler.settled()
    for name, (_repeat, _options, expected) in rows.items():
        runs = await scheduler.runs(made[name].id, 10)
        assert sorted(r.due for r in runs) == expected, name
        assert all(r.outcome == "ran" for r in runs), name
        assert (sim.server.score(f"#{name}", "wc") or 0) == len(expected), name

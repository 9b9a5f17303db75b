"""`when`/`repeat`/`timezone`/`announce`: what is accepted, what DST does, and a table of bad
inputs, each refused with its sentence and nothing stored."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.config import DEFAULT_DENY, ServerConfig
from bot.errors import ValidationError
from bot.i18n import use_locale
from bot.minecraft.command_check import CommandChecker
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices
from bot.times.clock import ManualClock
from bot.times.when import build_spec, next_boundary, next_runs, parse_when, repeat_text
from bot.wallclock.scheduler import Scheduler
from tests.wallclock.wallclock_sim import MOD, make_scheduler

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday; 13:00 in Berlin


def at(text: str, now: datetime = NOW, tz: str = "Europe/Berlin") -> datetime:
    return parse_when(text, now, ZoneInfo(tz))


def berlin(year: int, month: int, day: int, hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=BERLIN).astimezone(UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20:00", berlin(2026, 12, 1, 20, 0)),
        ("12:30", berlin(2026, 12, 2, 12, 30)),  # passed today: tomorrow's
        ("2026-12-05 20:00", berlin(2026, 12, 5, 20, 0)),
        ("2026-12-05T20:00:30", berlin(2026, 12, 5, 20, 0, 30)),
        ("fri 20:00", berlin(2026, 12, 4, 20, 0)),
        ("Friday 20:00", berlin(2026, 12, 4, 20, 0)),
        ("tue 12:30", berlin(2026, 12, 8, 12, 30)),  # today's has passed: next week's
        ("tue 14:00", berlin(2026, 12, 1, 14, 0)),
        ("tomorrow 18:30", berlin(2026, 12, 2, 18, 30)),
        ("today 18:30", berlin(2026, 12, 1, 18, 30)),
        ("in 90m", NOW + timedelta(minutes=90)),
        ("in 2h 30m", NOW + timedelta(hours=2, minutes=30)),
        ("in 5s", NOW + timedelta(seconds=5)),
        ("in 1 day", NOW + timedelta(days=1)),
        ("<t:1797000000:F>", datetime.fromtimestamp(1797000000, UTC)),
        ("<t:1797000000>", datetime.fromtimestamp(1797000000, UTC)),
    ],
)
def test_when_forms(text: str, expected: datetime) -> None:
    assert at(text) == expected


def test_when_in_the_dst_gap_runs_at_the_next_valid_time() -> None:
    now = berlin(2026, 3, 28, 12, 0)
    # 02:30 does not exist on 2026-03-29 in Berlin (02:00 -> 03:00): it runs at 03:00 CEST
    assert at("2026-03-29 02:30", now) == berlin(2026, 3, 29, 3, 0)
    assert at("2026-03-29 02:30", now) == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)
    # 02:30 exists twice on 2026-10-25: the first (CEST, 00:30 UTC), once
    assert at("2026-10-25 02:30", now) == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)


def _runs(expr: str, start: datetime, end: datetime) -> list[datetime]:
    spec = build_spec(None, expr, "Europe/Berlin", None, now=start)
    found = [spec.first_due]
    while (nxt := next_boundary(spec, found[-1])) is not None and nxt <= end:
        found.append(nxt)
    return [f for f in found if f <= end]


def test_cron_across_berlin_dst_both_ways() -> None:
    spring = _runs("30 2 * * *", berlin(2026, 3, 27, 12, 0), berlin(2026, 3, 31, 12, 0))
    assert spring == [
        datetime(2026, 3, 28, 1, 30, tzinfo=UTC),  # 02:30 CET
        datetime(2026, 3, 29, 1, 0, tzinfo=UTC),  # no 02:30: once, at 03:00 CEST
        datetime(2026, 3, 30, 0, 30, tzinfo=UTC),  # 02:30 CEST
        datetime(2026, 3, 31, 0, 30, tzinfo=UTC),
    ]
    autumn = _runs("30 2 * * *", berlin(2026, 10, 23, 12, 0), berlin(2026, 10, 27, 12, 0))
    assert autumn == [
        datetime(2026, 10, 24, 0, 30, tzinfo=UTC),  # 02:30 CEST
        datetime(2026, 10, 25, 0, 30, tzinfo=UTC),  # 02:30 happens twice: once, the first
        datetime(2026, 10, 26, 1, 30, tzinfo=UTC),  # 02:30 CET
        datetime(2026, 10, 27, 1, 30, tzinfo=UTC),
    ]
    hourly = _runs("0 * * * *", berlin(2026, 10, 25, 0, 30), berlin(2026, 10, 25, 4, 30))
    # an hourly job runs every real hour, through the repeated 02:00-03:00 too (25 h day)
    assert [h.hour for h in hourly] == [23, 0, 1, 2, 3]


def test_every_is_anchored_and_skips_to_the_next_boundary() -> None:
    spec = build_spec("in 10m", "30m", None, None, now=NOW)
    assert spec.kind == "every" and spec.anchor == NOW + timedelta(minutes=10)
    # 2 h 7 min after the anchor: the next boundary is the anchor + 2 h 30 m, not now + 30 m
    later = NOW + timedelta(hours=2, minutes=17)
    assert next_boundary(spec, later) == NOW + timedelta(hours=2, minutes=40)
    # exactly on a boundary: strictly after, so the one after it
    on = NOW + timedelta(minutes=40)
    assert next_boundary(spec, on) == NOW + timedelta(minutes=70)
    plain = build_spec(None, "1d", None, None, now=NOW)
    assert plain.first_due == NOW + timedelta(days=1)


def test_next_runs_follow_the_zone_through_dst() -> None:
    """What a preview lists: the first runs from the first due, in the schedule's zone."""
    daily = build_spec(None, "0 9 * * *", "Europe/Berlin", None, now=berlin(2026, 10, 23, 12, 0))
    assert next_runs(daily, 5) == [berlin(2026, 10, d, 9, 0) for d in range(24, 29)]
    assert [t.hour for t in next_runs(daily, 3)] == [7, 8, 8]  # CEST, then CET from the 25th
    every = build_spec("in 10m", "90m", None, None, now=NOW)
    assert next_runs(every, 3) == [NOW + timedelta(minutes=m) for m in (10, 100, 190)]
    once = build_spec("fri 20:00", None, "Europe/Berlin", None, now=NOW)
    assert next_runs(once, 5) == [berlin(2026, 12, 4, 20, 0)]
    assert next_runs(daily, 0) == []


def test_how_a_spec_repeats_in_words_in_the_readers_language() -> None:
    every = build_spec("in 10m", "1d 2h30m", None, None, now=NOW)
    cron = build_spec(None, "0 20 * * fri", "Europe/Berlin", None, now=NOW)
    once = build_spec("in 10m", None, None, None, now=NOW)
    assert [repeat_text(s) for s in (every, cron, once)] == [
        "every 1d 2h 30m",
        "cron `0 20 * * fri` (Europe/Berlin)",
        "once",
    ]
    with use_locale("zh-CN"):
        assert repeat_text(every) == "每 1d 2h 30m" and repeat_text(once) == "一次"


# -- the bad inputs: each refused with its sentence, nothing stored ---------------------------

BAD: list[tuple[dict[str, str], str]] = [
    ({"when": "yesterday 10:00"}, "'yesterday' in 'yesterday 10:00' is not a day"),
    ({"when": "2025-01-01 10:00"}, "is in the past"),
    ({"when": "<t:1000000000:F>"}, "is in the past"),
    ({"when": "today 09:00"}, "is in the past"),
    ({"when": "2026-02-30 10:00"}, "2026-02-30 is not a date that exists"),
    ({"when": "2026-13-01 10:00"}, "2026-13-01 is not a date that exists"),
    ({"when": "25:00"}, "'25:00' is not a time of day"),
    ({"when": "12:61"}, "'12:61' is not a time of day"),
    ({"when": "noon"}, "'noon' is not a time I can read"),
    ({"when": "fri"}, "'fri' is not a time I can read"),
    ({"when": "fri 8pm"}, "'fri 8pm' is not a time I can read"),
    ({"when": "in"}, "The delay after `in` is empty"),
    ({"when": "in 5 parsecs"}, "has an unknown unit 'parsecs'"),
    ({"when": "in 0s"}, "is zero: it must be at least 1 second"),
    ({"when": "in 11 w 9000 d"}, "is longer than 10 years"),
    ({"when": "2040-01-01 10:00"}, "is more than 10 years away"),
    ({"when": "<t:99999999999999:F>"}, "is not a time I can read"),
    ({"when": "in 5m 5m"}, "gives the unit 'm' twice"),
    ({"when": "in five minutes"}, "is not a duration"),
    ({"repeat": "0 20 * * friday-ish"}, "is not a valid cron expression"),
    ({"repeat": "61 * * * *"}, "is not a valid cron expression (Bad minute)"),
    ({"repeat": "* * *"}, "'* * *' has 3 fields: a cron expression has five"),
    ({"repeat": "* * * * * *"}, "'* * * * * *' has 6 fields: a cron expression has five"),
    ({"repeat": "0 0 20 * * fri"}, "has 6 fields: a cron expression has five"),
    ({"repeat": "*/10 * * * * * 2026"}, "has 7 fields: a cron expression has five"),
    ({"repeat": "0 0 30 2 *"}, "is not a valid cron expression (Bad day-of-month)"),
    ({"repeat": "@daily"}, "write the five fields instead of a @ nickname"),
    ({"repeat": "sometimes"}, "is not a duration"),
    ({"repeat": "0m"}, "is zero"),
    ({"repeat": "20y"}, "has an unknown unit 'y'"),
    ({"when": "in 5m", "timezone": "Mars/Olympus_Mons"}, "'Mars/Olympus_Mons' is not a time zone"),
    ({"when": "in 5m", "timezone": "../etc/passwd"}, "is not a time zone I know"),
    ({"when": "in 5m", "timezone": "   "}, "The time zone is empty"),
    ({"when": "in 5m", "announce": "10m"}, "The announce offset 10m is longer than the delay"),
    ({"when": "in 5m", "announce": "1m,,10s"}, "has an empty item between commas"),
    ({"when": "in 5m", "announce": "1m,1m"}, "gives the same offset twice"),
    ({"when": "in 5m", "announce": "soon"}, "The announce offset 'soon' is not a duration"),
    ({"when": "in 5m", "announce": ","}, "`announce` is empty"),
    ({"repeat": "1m", "announce": "1m"}, "is not shorter than the interval"),
    ({"timezone": "Europe/Berlin"}, "Give `when` (a wall-clock time) or `repeat`"),
    ({"announce": "1m"}, "Give `when` (a wall-clock time) or `repeat`"),
]


def test_the_table_has_at_least_30_rows() -> None:
    assert len(BAD) >= 30


@pytest.fixture
async def scheduler(tmp_path: Path) -> AsyncIterator[Scheduler]:
    config = ServerConfig(name="sim", rcon_port=1, rcon_password="unused-password")  # type: ignore[arg-type]
    rcon = RconClient("127.0.0.1", 1, "unused-password", timeout=0.5)
    checker = CommandChecker(deny=DEFAULT_DENY)
    server = ServerServices(config, rcon, PackClient(rcon, config, checker), checker, None)
    sched = make_scheduler(tmp_path / "bot.sqlite3", server, ManualClock(NOW))
    await sched.start()
    try:
        yield sched
    finally:
        await sched.stop()
        await rcon.close()


def _stored(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM schedules").fetchone()[0])


@pytest.mark.parametrize(("options", "sentence"), BAD, ids=[repr(o) for o, _ in BAD])
async def test_bad_input_is_refused_with_its_sentence(
    scheduler: Scheduler, tmp_path: Path, options: dict[str, str], sentence: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        await scheduler.create(
            server="sim", command="say hi", task_id="t", created_by=MOD, **options
        )  # type: ignore[arg-type]
    assert sentence in str(refused.value)
    assert _stored(tmp_path / "bot.sqlite3") == 0
    assert await scheduler.planned("sim") == ([], 0)


async def test_a_good_input_is_stored_and_a_duplicate_id_refused(
    scheduler: Scheduler, tmp_path: Path
) -> None:
    row = await scheduler.create(
        server="sim",
        command="say hi",
        task_id="t",
        created_by=MOD,
        when="fri 20:00",
        timezone="Europe/Berlin",
        announce="5m,10s",
    )
    assert row.next_due == berlin(2026, 12, 4, 20, 0)
    assert row.announce == (300, 10) and row.state == "active" and row.kind == "at"
    assert row.created_by == MOD and row.missed == "once"
    with pytest.raises(ValidationError, match="already exists"):
        await scheduler.create(
            server="sim", command="say hi", task_id="t", created_by=MOD, when="in 5m"
        )
    with pytest.raises(ValidationError, match="There is no server called 'nope'"):
        await scheduler.create(
            server="nope", command="say hi", task_id="u", created_by=MOD, when="in 5m"
        )
    with pytest.raises(ValidationError):  # the command checker runs too: `stop` is denied
        await scheduler.create(
            server="sim", command="stop", task_id="u", created_by=MOD, when="in 5m"
        )
    assert _stored(tmp_path / "bot.sqlite3") == 1


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"when": "noon"}, "when"),
        ({"repeat": "* * *"}, "repeat"),
        ({"when": "in 5m", "timezone": "Mars/Olympus_Mons"}, "timezone"),
        ({"when": "in 5m", "announce": "10m"}, "announce"),
        ({"announce": "1m"}, "when"),
        ({"when": "in 5m", "retry_delay": 0}, "retry_delay"),
        ({"when": "in 5m", "as_player": "not a player!"}, "as_player"),
    ],
)
async def test_a_preview_makes_the_checks_of_create_names_the_field_and_stores_nothing(
    scheduler: Scheduler, tmp_path: Path, options: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        await scheduler.preview(server="sim", command="say hi", task_id="t", **options)  # type: ignore[arg-type]
    assert refused.value.field == field, str(refused.value)
    spec = await scheduler.preview(
        server="sim",
        command="say hi",
        task_id="t",
        when="in 5m",
        repeat="1h",
        timezone="Europe/Berlin",
    )
    assert next_runs(spec, 2) == [NOW + timedelta(minutes=5), NOW + timedelta(minutes=65)]
    assert _stored(tmp_path / "bot.sqlite3") == 0
    await scheduler.create(
        server="sim", command="say hi", task_id="t", created_by=MOD, when="in 5m"
    )
    with pytest.raises(ValidationError, match="already exists") as taken:
        await scheduler.preview(server="sim", command="say hi", task_id="t", when="in 9m")
    assert taken.value.field == "id"

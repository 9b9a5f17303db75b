"""A repeating row's DST policy in the calendar feed (read by icalendar and
recurring-ical-events, which expands RRULEs): the feed's runs over Berlin's 2026 autumn change
are the ones the scheduler makes under the policy."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.web.test_web_calendar import _address, _between, _feed, _plan
from tests.web.webdash import Dash


async def test_the_feed_runs_each_row_as_its_policy_says(dash: Dash) -> None:
    dash.wall.set(datetime(2026, 10, 20, 12, 0, tzinfo=UTC))
    await _plan(dash, "both", repeat="30 2 * * *", timezone="Europe/Berlin", dst_repeated="both")
    await _plan(
        dash, "second", repeat="30 2 * * *", timezone="Europe/Berlin", dst_repeated="second"
    )
    await _plan(
        dash,
        "hourly",
        when="2026-10-24 23:15",
        repeat="1h",
        timezone="Europe/Berlin",
        dst_repeated="first",
    )
    cal = await _feed(await _address(dash))
    days = (datetime(2026, 10, 24, tzinfo=UTC), datetime(2026, 10, 26, 12, 0, tzinfo=UTC))
    # 02:30 CEST is 00:30 UTC, 02:30 CET 01:30 UTC
    assert _between(cal, *days, "both") == [
        datetime(2026, 10, 24, 0, 30, tzinfo=UTC),
        datetime(2026, 10, 25, 0, 30, tzinfo=UTC),
        datetime(2026, 10, 25, 1, 30, tzinfo=UTC),
        datetime(2026, 10, 26, 1, 30, tzinfo=UTC),
    ]
    assert _between(cal, *days, "second") == [
        datetime(2026, 10, 24, 0, 30, tzinfo=UTC),
        datetime(2026, 10, 25, 1, 30, tzinfo=UTC),
        datetime(2026, 10, 26, 1, 30, tzinfo=UTC),
    ]
    # every real hour from 23:15 CEST (21:15 UTC), but not 02:15 CET (01:15 UTC): second pass
    night = (datetime(2026, 10, 24, 21, 0, tzinfo=UTC), datetime(2026, 10, 25, 3, 0, tzinfo=UTC))
    assert _between(cal, *night, "hourly") == [
        datetime(2026, 10, 24, h, 15, tzinfo=UTC) for h in (21, 22, 23)
    ] + [datetime(2026, 10, 25, h, 15, tzinfo=UTC) for h in (0, 2)]

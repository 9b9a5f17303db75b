"""The calendar feed end to end: rows planned with /schedule in Discord, the address from
/calendar (or the API, or the dashboard's page in Chromium), the feed fetched over HTTP from the
dashboard and read by two parsers (icalendar, and recurring-ical-events, which expands RRULEs)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import icalendar
import pytest
import recurring_ical_events

from bot.testkit.harness import MOD, NOBODY
from tests.web.webclient import Client
from tests.web.webdash import Dash

BERLIN = ZoneInfo("Europe/Berlin")
FEED = re.compile(r"(http://\S+/calendar/[\w\-]+\.ics)")


async def _plan(dash: Dash, task_id: str, **options: str) -> None:
    reply = await dash.harness.run("schedule", MOD, run=f"say {task_id}", id=task_id, **options)
    assert f"Planned `{task_id}`" in reply.text, reply.text


async def _address(dash: Dash, **options: object) -> str:
    reply = await dash.harness.run("calendar", MOD, **options)
    assert reply.ephemeral, reply.text
    found = FEED.search(reply.text)
    assert found, reply.text
    return found.group(1)


async def _fetch(url: str) -> tuple[int, bytes, str]:
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(timeout=timeout) as http, http.get(url) as answer:
        return answer.status, await answer.read(), answer.headers.get("Content-Type", "")


async def _feed(url: str) -> icalendar.Calendar:
    status, body, kind = await _fetch(url)
    assert status == 200, body
    assert kind.startswith("text/calendar"), kind
    return icalendar.Calendar.from_ical(body)


def _events(cal: icalendar.Calendar, prefix: str) -> list[Any]:
    return [e for e in cal.walk("VEVENT") if str(e["summary"]).endswith(prefix)]


def _between(cal: icalendar.Calendar, start: datetime, end: datetime, task: str) -> list[datetime]:
    found = recurring_ical_events.of(cal).between(start, end)
    return sorted(
        e["DTSTART"].dt.astimezone(UTC) for e in found if str(e["SUMMARY"]).endswith(task)
    )


async def test_a_weekly_cron_is_one_rrule_and_keeps_20_00_berlin_over_the_october_change(
    dash: Dash,
) -> None:
    dash.wall.set(datetime(2026, 10, 20, 12, 0, tzinfo=UTC))
    await _plan(dash, "raid", repeat="0 20 * * 5", timezone="Europe/Berlin")
    cal = await _feed(await _address(dash))
    [raid] = _events(cal, "raid")
    rule = {"FREQ": ["WEEKLY"], "BYDAY": ["FR"], "BYHOUR": [20], "BYMINUTE": [0], "BYSECOND": [0]}
    assert dict(raid["rrule"]) == rule
    start = raid["dtstart"]
    assert start.params["TZID"] == "Europe/Berlin"
    assert start.dt == datetime(2026, 10, 23, 20, 0, tzinfo=BERLIN)
    assert [str(z["tzid"]) for z in cal.walk("VTIMEZONE")] == ["Europe/Berlin"]
    assert raid["status"] == "CONFIRMED"
    # CEST (UTC+2) on the 23rd, CET (UTC+1) after the 25th: 20:00 local both times
    runs = _between(
        cal, datetime(2026, 10, 20, tzinfo=UTC), datetime(2026, 11, 7, tzinfo=UTC), "raid"
    )
    assert runs == [
        datetime(2026, 10, 23, 18, 0, tzinfo=UTC),
        datetime(2026, 10, 30, 19, 0, tzinfo=UTC),
        datetime(2026, 11, 6, 19, 0, tzinfo=UTC),
    ]


async def test_a_cron_in_the_march_gap_runs_in_the_feed_as_cron_runs_it(dash: Dash) -> None:
    dash.wall.set(datetime(2027, 3, 25, 12, 0, tzinfo=UTC))
    # 02:30 does not exist on 2027-03-28 in Berlin: cron runs at 03:00 CEST, the RRULE alone
    # would say 03:30, so that day's is an EXDATE and the 03:00 run an event of its own
    await _plan(dash, "night", repeat="30 2 * * *", timezone="Europe/Berlin")
    # a fixed interval is a grid of seconds: 24 h apart in UTC across the change, as an RRULE
    await _plan(dash, "daily", when="2027-03-26 20:00", repeat="1d", timezone="Europe/Berlin")
    # cron runs on the 1st OR a Friday; an RRULE would need both: the runs are written out
    await _plan(dash, "either", repeat="0 20 1 * 5", timezone="Europe/Berlin")
    cal = await _feed(await _address(dash))
    master, extra = sorted(_events(cal, "night"), key=lambda e: "rrule" not in e)
    assert dict(master["rrule"])["BYHOUR"] == [2] and "rrule" not in extra
    exdates = master["exdate"] if isinstance(master["exdate"], list) else [master["exdate"]]
    assert [d.dt for x in exdates for d in x.dts] == [datetime(2027, 3, 28, 1, 30, tzinfo=UTC)]
    assert extra["dtstart"].dt.strftime("%d %H:%M %Z") == "28 03:00 CEST"
    week = (datetime(2027, 3, 25, tzinfo=UTC), datetime(2027, 3, 31, tzinfo=UTC))
    assert _between(cal, *week, "night") == [
        datetime(2027, 3, 26, 1, 30, tzinfo=UTC),
        datetime(2027, 3, 27, 1, 30, tzinfo=UTC),
        datetime(2027, 3, 28, 1, 0, tzinfo=UTC),  # 03:00 CEST, right after the jump
        datetime(2027, 3, 29, 0, 30, tzinfo=UTC),
        datetime(2027, 3, 30, 0, 30, tzinfo=UTC),
    ]
    [daily] = _events(cal, "daily")
    assert dict(daily["rrule"]) == {"FREQ": ["DAILY"]}
    assert daily["dtstart"].dt == datetime(2027, 3, 26, 19, 0, tzinfo=UTC)
    assert _between(cal, *week, "daily") == [
        datetime(2027, 3, d, 19, 0, tzinfo=UTC) for d in (26, 27, 28, 29, 30)
    ]
    either = _events(cal, "either")
    assert all("rrule" not in e for e in either) and len({str(e["uid"]) for e in either}) == len(
        either
    )
    april = (datetime(2027, 3, 31, tzinfo=UTC), datetime(2027, 4, 17, tzinfo=UTC))
    starts = sorted(e["dtstart"].dt for e in either)
    shown = [d.strftime("%a %d %H:%M %Z") for d in starts if april[0] <= d <= april[1]]
    assert shown == [
        "Thu 01 20:00 CEST",
        "Fri 02 20:00 CEST",
        "Fri 09 20:00 CEST",
        "Fri 16 20:00 CEST",
    ]
    assert len(_between(cal, *april, "either")) == 4


async def test_paused_cancelled_and_discord_events_in_the_feed_of_every_server(dash: Dash) -> None:
    dash.wall.set(datetime(2026, 10, 20, 12, 0, tzinfo=UTC))
    await _plan(dash, "held", when="2026-10-22 18:00", timezone="Europe/Berlin")
    await _plan(dash, "dropped", repeat="0 12 * * *", timezone="UTC")
    assert "Paused" in (await dash.harness.run("pause", MOD, id="held")).text
    assert "ancel" in (await dash.harness.run("cancel", MOD, id="dropped")).text
    event = {
        "name": "Build Battle",
        "start": "2026-10-24 19:00",
        "end": "2h",
        "timezone": "Europe/Berlin",
        "start_run": "say go",
    }
    made = await dash.harness.run("event create", MOD, **event)
    assert "made" in made.text, made.text
    cal = await _feed(await _address(dash))  # no server: every server's feed
    assert str(cal["x-wr-calname"]) == "doom.schedule: every server"
    [held] = _events(cal, "held")
    assert held["status"] == "TENTATIVE" and str(held["summary"]) == "Paused: [main] held"
    assert held["dtstart"].dt == datetime(2026, 10, 22, 18, 0, tzinfo=BERLIN)
    [dropped] = _events(cal, "dropped")
    assert dropped["status"] == "CANCELLED"
    [battle] = [e for e in cal.walk("VEVENT") if str(e["summary"]) == "Build Battle"]
    assert battle["dtstart"].dt == datetime(2026, 10, 24, 19, 0, tzinfo=BERLIN)
    assert battle["dtend"].dt == datetime(2026, 10, 24, 21, 0, tzinfo=BERLIN)
    assert battle["status"] == "CONFIRMED"
    # the event's own start task is the event: not a second entry
    assert len(list(cal.walk("VEVENT"))) == 3
    cancelled = await dash.harness.run("event cancel", MOD, event="1")
    assert "cancelled" in cancelled.text, cancelled.text
    [battle] = [
        e
        for e in (await _feed(await _address(dash, renew=True))).walk("VEVENT")
        if str(e["summary"]) == "Build Battle"
    ]
    assert battle["status"] == "CANCELLED"


async def test_renewing_revokes_the_old_address(dash: Dash) -> None:
    old = await _address(dash, server="main")
    assert (await _fetch(old))[0] == 200
    again = await dash.harness.run("calendar", MOD, server="main")
    assert FEED.search(again.text) is None and "renew" in again.text, again.text
    assert (await _fetch(old))[0] == 200  # asking again changes nothing
    new = await _address(dash, server="main", renew=True)
    assert new != old
    assert (await _fetch(new))[0] == 200
    status, body, _kind = await _fetch(old)
    assert status == 404, body
    assert (await _fetch(old.replace(".ics", "x.ics")))[0] == 404
    refused = await dash.harness.run("calendar", NOBODY, renew=True)
    assert "moderator" in refused.text and FEED.search(refused.text) is None
    assert (await _fetch(new))[0] == 200
    actions = [r.action for r in await dash.harness.services.audit.mutations(server="main")]
    assert actions == ["calendar", "calendar"]


async def test_the_address_from_the_api(dash: Dash, mod: Client) -> None:
    csrf = {"X-CSRF-Token": await mod.csrf()}
    status, answer = await mod.post("/api/calendar", json={"server": "main"}, headers=csrf)
    assert status == 200, answer
    made = json.loads(answer)
    assert made["scope"] == "main" and made["created_by"] == "user7002", made
    assert (await _fetch(made["url"]))[0] == 200
    status, answer = await mod.post("/api/calendar", json={"server": "main"}, headers=csrf)
    assert status == 200 and json.loads(answer)["url"] is None, answer
    status, answer = await mod.post("/api/calendar", json={"server": "nope"}, headers=csrf)
    assert status == 400 and "nope" in answer, answer
    status, answer = await mod.post("/api/calendar", json={"when": "x"}, headers=csrf)
    assert status == 400 and "when" in answer, answer


@pytest.mark.slow
async def test_the_dashboard_page_gives_the_address(dash: Dash, browser: Any, shots: Path) -> None:
    await _plan(dash, "page", repeat="0 20 * * 5", timezone="Europe/Berlin")
    page = await browser.new_page()
    await page.goto(await dash.link(MOD))
    await page.get_by_role("button", name="Log in").click()
    await page.wait_for_url("**/servers")
    await page.goto(f"{dash.url}/calendar")
    await page.select_option("select[name=server]", "main")
    await page.click("form.actions button[type=submit]")
    url = await page.input_value("input.feed-url", timeout=15_000)
    await page.screenshot(path=str(shots / "address.png"))
    [found] = _events(await _feed(url), "page")
    assert "rrule" in found
    await page.select_option("select[name=server]", "main")
    await page.click("form.actions button[type=submit]")
    await page.wait_for_selector("p.feed-exists", timeout=15_000)
    await page.check("input[name=renew]")
    await page.click("form.actions button[type=submit]")
    renewed = await page.input_value("input.feed-url", timeout=15_000)
    assert renewed != url and (await _fetch(url))[0] == 404
    await page.close()


async def test_a_repeating_event_shows_its_next_occurrences_as_tentative(dash: Dash) -> None:
    dash.wall.set(datetime(2026, 10, 20, 12, 0, tzinfo=UTC))
    event = {
        "name": "Weekly",
        "start": "2026-10-22 19:00",
        "end": "1h",
        "repeat": "7d",
        "timezone": "Europe/Berlin",
    }
    made = await dash.harness.run("event create", MOD, **event)
    assert "made" in made.text, made.text
    cal = await _feed(await _address(dash))
    weekly = sorted(
        (e for e in cal.walk("VEVENT") if str(e["summary"]) == "Weekly"),
        key=lambda e: e["dtstart"].dt,
    )
    assert [str(e["status"]) for e in weekly] == ["CONFIRMED"] + ["TENTATIVE"] * 8
    starts = [e["dtstart"].dt.astimezone(UTC) for e in weekly[:3]]
    # 7 days apart as a grid of seconds: 19:00 CEST, then 18:00 CET after the change
    assert starts == [
        datetime(2026, 10, 22, 17, 0, tzinfo=UTC),
        datetime(2026, 10, 29, 17, 0, tzinfo=UTC),
        datetime(2026, 11, 5, 17, 0, tzinfo=UTC),
    ]
    assert all(e["dtend"].dt - e["dtstart"].dt == timedelta(hours=1) for e in weekly)
    assert len({str(e["uid"]) for e in weekly}) == 9

"""The Discord events pages: list, create, edit and cancel an event in Chromium, checked against
what the local Discord holds (bot/testkit/localdiscord/scheduled_events.py); and the refusals over
real HTTP, each naming its field with nothing made."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_web_browser import open_session
from tests.web.webclient import Client
from tests.web.webdash import WALL_START, Dash

START = datetime.fromtimestamp(WALL_START, UTC)


def live(dash: Dash) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = dash.harness.discord.scheduled.live()
    return found


def at(payload: dict[str, Any], key: str) -> datetime:
    return datetime.fromisoformat(payload[key])


@pytest.mark.slow
async def test_make_change_and_cancel_an_event_in_chromium(
    dash: Dash, browser: Any, shots: Path
) -> None:
    page = await open_session(browser, dash)
    await page.get_by_role("link", name="Discord events").click()
    await page.get_by_role("heading", name="Make a Discord event").wait_for()
    assert await page.get_by_label("Time zone").input_value() == "UTC"
    await page.get_by_label("Name", exact=True).fill("Build Battle")
    await page.get_by_label("Starts").fill("in 2h")
    await page.get_by_label("Ends (a time or a length)").fill("90m")
    await page.get_by_label("Description (optional)").fill("Bring blocks.")
    await page.get_by_label("Command at the start (optional)").fill("say go")
    await page.get_by_label("In-game countdown before the start").fill("none")
    await page.get_by_label("Discord reminders before the start").fill("30m")
    await page.get_by_role("button", name="Make the event").click()
    await page.wait_for_url("**/discord-events/1")
    flash = page.locator(".flash.ok")
    assert "Event #1 Build Battle made" in await flash.inner_text()
    assert await flash.locator("strong").inner_text() == "Build Battle"
    await page.screenshot(path=shots / "made.png", full_page=True)
    [made] = live(dash)
    assert made["name"] == "Build Battle" and made["description"] == "Bring blocks."
    assert at(made, "scheduled_start_time") == START + timedelta(hours=2)
    assert at(made, "scheduled_end_time") == START + timedelta(hours=3, minutes=30)
    facts = await page.locator("dl.facts").inner_text()
    assert "say go" in facts and "30m" in facts
    # its tasks are planned with it
    scheduler = dash.harness.services.scheduler
    assert scheduler is not None
    tasks, _ = await scheduler.planned("main")
    assert sorted(t.command for t in tasks if t.command == "say go") == ["say go"]

    # change it: its name and start; the end moves with it
    await page.get_by_label("Name", exact=True).fill("Build Battle II")
    await page.get_by_label("Starts").fill("in 3h")
    await page.get_by_role("button", name="Save the changes").click()
    await page.get_by_text("now runs").wait_for()
    [moved] = live(dash)
    assert moved["name"] == "Build Battle II"
    assert at(moved, "scheduled_start_time") == START + timedelta(hours=3)
    assert moved["description"] == "Bring blocks."  # left as it was
    # a bad time is refused on the page, naming it; nothing changes
    await page.get_by_label("Starts").fill("someday")
    await page.get_by_role("button", name="Save the changes").click()
    error = page.locator("#event-error")
    await error.wait_for()
    assert "is not a time I can read" in await error.inner_text()
    assert at(live(dash)[0], "scheduled_start_time") == START + timedelta(hours=3)

    # the list, then cancel from it
    await page.goto(dash.url + "/discord-events")
    row = page.get_by_role("row").filter(has_text="Build Battle II")
    await row.wait_for()
    assert "scheduled" in await row.inner_text()
    await page.screenshot(path=shots / "list.png", full_page=True)
    await page.get_by_role("button", name="Cancel Build Battle II").click()
    await page.get_by_text("cancelled: the Discord event and its tasks").wait_for()
    assert live(dash) == []
    assert await page.get_by_text("No events planned.").count() == 1
    actions = [r.action for r in await dash.harness.services.audit.mutations(server="main")]
    assert actions == ["event cancel", "event edit", "event create"]


@pytest.mark.parametrize(
    ("changes", "field", "said"),
    [
        ({"start": "someday"}, "start", "&#39;someday&#39; is not a time I can read"),
        ({"timezone": "Mars/Olympus"}, "timezone", "is not a time zone I know"),
        ({"end": "in 1m"}, "end", "is not after the start"),
        ({"announce": "3h"}, "announce", "longer than the time until the start"),
        ({"repeat": "10m"}, "repeat", "one occurrence would start before the last one ended"),
        ({"name": " "}, "name", "The event name is empty"),
        ({"require": "nobody"}, "require", "is not a condition"),
        ({"colour": "red"}, "colour", "Unknown field <code>colour</code>"),
        ({"server": "nowhere"}, None, "There is no server called &#39;nowhere&#39;"),
    ],
)
async def test_a_refused_event_names_its_field_and_makes_nothing(
    dash: Dash, mod: Client, changes: dict[str, str], field: str | None, said: str
) -> None:
    form = {
        "csrf_token": await mod.csrf(),
        "name": "Raid",
        "start": "in 2h",
        "end": "",
        "timezone": "UTC",
        "server": "main",
        "if_not": "skip",
        "after_wait": "skip",
        **changes,
    }
    status, html = await mod.post("/discord-events", data=form)
    assert status == 400, html[:400]
    error = html.split('id="event-error"', 1)[1].split("</div>", 1)[0]
    assert said in error, error
    if field is not None:
        assert f"<code>{field}</code>:" in error, error
    assert 'value="Raid"' in html or field == "name"
    assert live(dash) == []
    assert await dash.harness.services.audit.mutations(server="main") == []


async def test_the_event_pages_refuse_without_a_token_or_an_event(dash: Dash, mod: Client) -> None:
    form = {"name": "Raid", "start": "in 2h", "timezone": "UTC", "server": "main"}
    status, body = await mod.post("/discord-events", data=form)
    assert status == 403 and "security token" in body and live(dash) == []
    status, html = await mod.get("/discord-events/7")
    assert status == 404 and "There is no event &#39;7&#39;" in html
    csrf = await mod.csrf()
    status, _ = await mod.post("/discord-events", data={**form, "csrf_token": csrf})
    assert status == 303 and [e["name"] for e in live(dash)] == ["Raid"]
    status, html = await mod.post("/discord-events/1/edit", data={"csrf_token": csrf, "x": "1"})
    assert status == 400 and "Unknown field <code>x</code>" in html
    status, _ = await mod.post("/discord-events/1/cancel", data={})
    assert status == 403 and [e["name"] for e in live(dash)] == ["Raid"]
    status, _ = await mod.post("/discord-events/1/cancel", data={"csrf_token": csrf})
    assert status == 303 and live(dash) == []
    # cancelling it again says why not, on the list
    status, _ = await mod.post("/discord-events/1/cancel", data={"csrf_token": csrf})
    assert status == 303
    status, html = await mod.get("/discord-events")
    assert 'class="flash error"' in html

"""The queue page's schedule form with every field of /schedule, over real HTTP: the wall-clock
kind with its preview (the next runs in the chosen zone, nothing saved), a new unique id, a
group, and the refusals (a bad zone or `when`, the two kinds mixed, a field the form does not
have, no CSRF token), each naming its field and changing nothing. In Chromium: a wall-clock row
previewed, saved and run once, and a game-time task with `as_player` and `retry_delay`."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.testkit.harness import MOD
from tests.web.test_web_browser import open_session
from tests.web.webclient import Client
from tests.web.webdash import Dash, queue_ids

TIMES = re.compile(r'<time datetime="([^"]+)">([^<]+)</time>')


@pytest.fixture
async def mod(kept: Dash) -> AsyncIterator[Client]:
    client = await Client(kept).login(MOD)
    yield client
    await client.close()


async def planned_total(dash: Dash) -> int:
    scheduler = dash.harness.services.scheduler
    assert scheduler is not None
    return (await scheduler.planned("main"))[1]


def preview_times(html: str) -> list[tuple[str, str]]:
    box = html.split('id="preview"', 1)[1].split("</div>", 1)[0]
    return TIMES.findall(box)


async def test_the_preview_shows_the_next_runs_in_the_zone_and_saves_nothing(
    kept: Dash, mod: Client
) -> None:
    form = {
        "csrf_token": await mod.csrf(),
        "run": "say daily",
        "id": "daily",
        "when": "2026-12-12 09:00",
        "repeat": "1d",
        "timezone": "Europe/Berlin",
        "unit": "tick",
        "retry": "0",
        "retry_delay": "1",
        "target": "main",
        "if_not": "skip",
        "after_wait": "skip",
        "preview": "1",
    }
    status, html = await mod.post("/servers/main/queue", data=form)
    assert status == 200, html[:500]
    assert "Nothing is saved yet: the next 5 runs, in Europe/Berlin." in html
    shown = preview_times(html)
    assert [at for at, _ in shown] == [f"2026-12-{d}T08:00:00+00:00" for d in range(12, 17)]
    assert all(text.endswith(" CET") and "9:00\u202fAM" in text for _, text in shown), shown
    # the form is still filled in, the wall-clock group open, the zone chosen kept
    assert 'value="say daily"' in html and 'value="2026-12-12 09:00"' in html
    assert (
        '<details class="wall" open>' in html
        and '<option value="Europe/Berlin" selected>Berlin</option>' in html
    )
    assert await planned_total(kept) == 0 and queue_ids(kept) == ["keep"]
    assert [r.action for r in await kept.harness.services.audit.mutations(server="main")] == [
        "schedule"  # the fixture's `keep`, from Discord
    ]
    # the API says the same
    body = {
        "run": "say daily",
        "when": "2026-12-12 09:00",
        "repeat": "1d",
        "timezone": "Europe/Berlin",
    }
    status, answer = await mod.post(
        "/api/servers/main/tasks/preview", json=body, headers={"X-CSRF-Token": form["csrf_token"]}
    )
    assert status == 200, answer
    found = json.loads(answer)
    assert found["timezone"] == "Europe/Berlin" and found["runs"][:2] == [
        "2026-12-12T08:00:00+00:00",
        "2026-12-13T08:00:00+00:00",
    ], found
    # a one-shot has one run; a game-time task has none to preview (said, naming `when`)
    status, html = await mod.post("/servers/main/queue", data={**form, "repeat": ""})
    assert "the next run, in Europe/Berlin" in html and len(preview_times(html)) == 1
    game = {**form, "when": "", "repeat": "", "time": "20"}
    status, html = await mod.post("/servers/main/queue", data=game)
    assert status == 400 and "Only a wall-clock time has runs to preview" in html
    assert await planned_total(kept) == 0 and queue_ids(kept) == ["keep"]


async def test_the_readers_zone_is_the_one_chosen_at_first(kept: Dash, mod: Client) -> None:
    status, html = await mod.get("/servers/main/queue")
    assert status == 200 and '<option value="UTC" selected>UTC</option>' in html
    assert re.search(r"The game time now: tick \d+ \(day 0\)\.", html), html
    status, html = await mod.get("/servers")  # /time's clock, on the server's card
    assert re.search(r"<dt>Game time</dt><dd>tick \d+ \(day 0\)</dd>", html), html
    await mod.post("/timezone", data={"csrf_token": await mod.csrf(), "zone": "Asia/Tokyo"})
    status, html = await mod.get("/servers/main/queue")
    assert html.count('<option value="Asia/Tokyo" selected>Tokyo</option>') == 1


@pytest.mark.parametrize(
    ("changes", "field", "said"),
    [
        (
            {"when": "in 5m", "timezone": "Mars/Olympus"},
            "timezone",
            "&#39;Mars/Olympus&#39; is not a time zone I know",
        ),
        ({"when": "someday"}, "when", "&#39;someday&#39; is not a time I can read"),
        ({"repeat": "* * *"}, "repeat", "has 3 fields: a cron expression has five"),
        ({"when": "in 1m", "announce": "5m"}, "announce", "longer than the delay"),
        ({"when": "in 5m", "time": "20"}, "when", "use one or the other, not both"),
        ({"time": "20", "announce": "1m"}, "announce", "use one or the other, not both"),
        ({"time": "20", "colour": "red"}, "colour", "Unknown field <code>colour</code>"),
        ({"time": "twenty"}, "time", "<code>time</code> must be a whole number"),
        ({"time": "20", "retry_delay": "0"}, "retry_delay", "must be a whole number from 1 to"),
        ({"time": "20", "as_player": "x" * 17}, "as_player", "must be 1 to 16 characters"),
        ({"time": "20", "id": "mine", "prefix": "raid-"}, "id", "An id prefix makes a new"),
        ({"time": "20", "target": "nope"}, "target", "&#39;nope&#39; is not a server group"),
        ({"time": "20", "run": "sya x"}, "run", "did you mean <code>say</code>?"),
    ],
)
@pytest.mark.parametrize("preview", ["", "1"])
async def test_a_refused_form_names_its_field_and_changes_nothing(
    kept: Dash, mod: Client, changes: dict[str, str], field: str, said: str, preview: str
) -> None:
    form = {
        "csrf_token": await mod.csrf(),
        "run": "say x",
        "unit": "tick",
        "retry": "0",
        "retry_delay": "1",
        "timezone": "UTC",
        "target": "main",
        "if_not": "skip",
        "after_wait": "skip",
        **changes,
    }
    if preview:
        form["preview"] = preview
    status, html = await mod.post("/servers/main/queue", data=form)
    assert status == 400, html[:500]
    error = html.split('id="schedule-error"', 1)[1].split("</div>", 1)[0]
    assert f"<code>{field}</code>:" in error and said in error, error
    if field != "colour":
        assert re.search(rf'name="{field}"[^>]*aria-invalid="true"', html), field
    assert 'value="say x"' in html or field == "run"
    assert queue_ids(kept) == ["keep"] and await planned_total(kept) == 0
    actions = [r.action for r in await kept.harness.services.audit.mutations(server="main")]
    assert actions == ["schedule"]


async def test_without_the_csrf_token_the_form_does_nothing(kept: Dash, mod: Client) -> None:
    form = {"run": "say x", "when": "in 5m", "timezone": "UTC"}
    for token in ({}, {"csrf_token": "forged"}):
        status, body = await mod.post("/servers/main/queue", data={**form, **token})
        assert status == 403 and "security token" in body
    assert await planned_total(kept) == 0 and queue_ids(kept) == ["keep"]


async def test_a_new_unique_id_and_a_group_from_the_form(kept: Dash, mod: Client) -> None:
    csrf = await mod.csrf()
    base = {
        "csrf_token": csrf,
        "run": "say x",
        "time": "900",
        "unit": "tick",
        "retry": "0",
        "retry_delay": "1",
        "timezone": "UTC",
        "if_not": "skip",
        "after_wait": "skip",
    }
    status, _ = await mod.post("/servers/main/queue", data={**base, "prefix": "raid-"})
    assert status == 303
    made = [i for i in queue_ids(kept) if i != "keep"]
    assert len(made) == 1 and made[0].startswith("raid-"), made
    status, html = await mod.get("/servers/main/queue")
    assert f"Scheduled <code>{made[0]}</code> on main." in html
    status, _ = await mod.post(
        "/servers/main/queue", data={**base, "id": "everywhere", "target": "all"}
    )
    assert status == 303 and "everywhere" in queue_ids(kept)
    status, html = await mod.get("/servers/main/queue")
    assert "all: done on 1 of 1 servers." in html and "<strong>main</strong>" in html
    # at a game tick, repeating every 200 ticks
    at = kept.mc.game_time + 5000
    rest = {k: v for k, v in base.items() if k != "time"}
    status, _ = await mod.post(
        "/servers/main/queue", data={**rest, "id": "tick", "at": str(at), "every": "200"}
    )
    assert status == 303
    [task] = [t for t in kept.mc.storage("doom.schedule:data")["queue"] if t["id"] == "tick"]  # type: ignore[union-attr, index]
    assert (task["due"], task["interval"]) == (at, 200), task
    actions = [r.action for r in await kept.harness.services.audit.mutations(server="main")]
    assert actions == ["schedule", "schedule", "schedule_dynamic", "schedule"]


async def test_cancel_every_task_of_an_id_after_its_question(kept: Dash, mod: Client) -> None:
    for _ in range(2):
        await kept.harness.run("schedule", MOD, run="say twice", time=900, unit="tick", id="twice")
    status, html = await mod.get("/servers/main/tasks/twice")
    assert 'href="/servers/main/tasks/twice/cancel_all"' in html
    status, html = await mod.get("/servers/main/tasks/twice/cancel_all")
    assert status == 200 and "Cancel all 2 task(s) <code>twice</code> on main?" in html
    assert queue_ids(kept) == ["keep", "twice", "twice"]  # asking changed nothing
    csrf = await mod.csrf()
    status, html = await mod.post("/servers/main/tasks/twice/cancel_all", data={"csrf_token": csrf})
    assert status == 400 and queue_ids(kept) == ["keep", "twice", "twice"]
    status, _ = await mod.post(
        "/servers/main/tasks/twice/cancel_all", data={"csrf_token": csrf, "confirm": "yes"}
    )
    assert status == 303 and queue_ids(kept) == ["keep"]
    status, html = await mod.get("/servers/main/queue")
    assert "Cancelled 2 task(s) <code>twice</code> on main." in html


# -- in the browser ---------------------------------------------------------------------------


@pytest.mark.slow
async def test_a_wall_clock_row_previewed_saved_and_run_once_in_chromium(
    dash: Dash, browser: Any, shots: Path
) -> None:
    dash.mc.run("scoreboard objectives add web dummy")
    page = await open_session(browser, dash)
    await page.goto(dash.url + "/timezone")
    await page.get_by_label("Show times in").select_option("Europe/Berlin")
    await page.get_by_role("button", name="Save").click()
    await page.goto(dash.url + "/servers/main/queue")
    await page.get_by_label("Command", exact=True).fill("scoreboard players add #n web 1")
    await page.get_by_label("Id (optional)").fill("once")
    await page.get_by_text("At a wall-clock time").click()  # opens the group
    zone = page.get_by_label("Time zone")
    assert await zone.input_value() == "Europe/Berlin"  # the reader's zone, chosen at first
    await page.get_by_label("When", exact=True).fill("in 10m")
    await page.get_by_label("Announce in game before").fill("1m")
    await page.get_by_role("button", name="Preview the next runs").click()
    preview = page.locator("#preview")
    await preview.wait_for()
    assert "the next run, in Europe/Berlin" in await preview.inner_text()
    [shown] = await preview.locator("time").all_inner_texts()
    assert shown.endswith(" CET") and "3:50\u202fPM" in shown, shown  # 14:50 UTC, in Berlin
    await page.screenshot(path=shots / "preview.png", full_page=True)
    assert await page.get_by_label("When", exact=True).input_value() == "in 10m"
    assert await page.get_by_label("Command", exact=True).input_value() == (
        "scoreboard players add #n web 1"
    )
    scheduler = dash.harness.services.scheduler
    assert scheduler is not None and (await scheduler.planned("main"))[1] == 0
    await page.get_by_role("button", name="Schedule", exact=True).click()
    await page.wait_for_url("**/servers/main/planned")
    flash = page.locator(".flash.ok")
    assert "Planned once on main for " in await flash.inner_text()
    assert await flash.locator("time").count() == 2  # Discord's <t:…> shown as times
    row = page.get_by_role("row").filter(has_text="scoreboard players add #n web 1")
    await row.wait_for()
    assert "once" in await row.inner_text()
    await page.screenshot(path=shots / "planned.png", full_page=True)
    [made] = (await scheduler.planned("main"))[0]
    assert (made.task_id, made.timezone, made.announce) == ("once", "Europe/Berlin", (60,))
    dash.wall.advance(10 * 60)
    await scheduler.settled()
    assert dash.mc.score("#n", "web") == 1
    dash.wall.advance(24 * 3600)
    await scheduler.settled()
    assert dash.mc.score("#n", "web") == 1  # once
    # its run history, from the planned list
    await page.get_by_role("link", name="History of once").click()
    await page.get_by_role("heading", name="History of once on main").wait_for()
    assert await page.locator("tr[data-outcome=ran]").count() == 1


@pytest.mark.slow
async def test_a_game_time_task_with_as_player_and_retry_delay_in_chromium(
    dash: Dash, browser: Any, shots: Path
) -> None:
    steve = await asyncio.to_thread(dash.mc.join, "Steve")
    page = await open_session(browser, dash, viewport={"width": 390, "height": 844})
    await page.goto(dash.url + "/servers/main/queue")
    await page.get_by_label("Command", exact=True).fill("say as steve")
    await page.get_by_label("Delay").fill("900")
    await page.get_by_label("Unit").select_option("tick")
    await page.get_by_label("Id (optional)").fill("steve")
    await page.get_by_label("Retries", exact=True).fill("2")
    await page.get_by_label("Wait between retries (ticks)").fill("40")
    await page.get_by_label("Run as player (optional)").fill("Steve")
    await page.screenshot(path=shots / "form-narrow.png", full_page=True)
    await page.get_by_role("button", name="Schedule", exact=True).click()
    await page.get_by_text("Scheduled steve on main.").wait_for()
    [task] = [t for t in dash.mc.storage("doom.schedule:data")["queue"] if t["id"] == "steve"]  # type: ignore[union-attr, index]
    assert (task["retry"], task["retry_delay"], task["player"], task["executor"]) == (
        2,
        40,
        1,
        steve,
    ), task
    # the task's page, and its history from there
    await page.get_by_role("link", name="steve").click()
    await page.get_by_role("heading", name="Task steve on main").wait_for()
    assert "2 (every 40 ticks)" in await page.locator("dl.facts").inner_text()
    await page.get_by_role("link", name="History of steve").click()
    await page.get_by_role("heading", name="History of steve on main").wait_for()

"""A repeating row's DST policy from the dashboard's schedule form and the JSON API, over real
HTTP to mcsim over TCP RCON: the form's two selects and the API's two fields reach the stored
row; the preview shows the policy and the next 12 months' clock changes with the runs each
touches; the planned page says them on the row; a bad value is refused naming the field and
changes nothing."""

from __future__ import annotations

import html as markup
import json
from collections.abc import AsyncIterator

import pytest

from bot.testkit.harness import MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash

BOTH = "a time in the hour the clock repeats runs in both passes"
SKIP = "a time in the hour the clock skips does not run"


@pytest.fixture
async def mod(kept: Dash) -> AsyncIterator[Client]:
    client = await Client(kept).login(MOD)
    yield client
    await client.close()


async def test_the_form_previews_and_saves_the_policy(kept: Dash, mod: Client) -> None:
    form = {
        "csrf_token": await mod.csrf(),
        "run": "say night",
        "id": "night",
        "repeat": "30 2 * * *",
        "timezone": "Europe/Berlin",
        "dst_repeated": "both",
        "dst_skipped": "skip",
        "unit": "tick",
        "retry": "0",
        "retry_delay": "1",
        "target": "main",
        "if_not": "skip",
        "after_wait": "skip",
        "on_doubt": "skip",
    }
    status, html = await mod.get("/servers/main/queue")
    assert '<select name="dst_repeated"' in html and '<select name="dst_skipped"' in html
    status, html = await mod.post("/servers/main/queue", data={**form, "preview": "1"})
    assert status == 200, html[:500]
    box = markup.unescape(html.split('id="preview"', 1)[1].split("</div>", 1)[0])
    assert f"{BOTH}; {SKIP}" in box, box
    assert box.count("the clock goes forward from 02:00 to 03:00: 02:30 does not run.") == 1
    assert (
        box.count(
            "the clock goes back from 03:00 to 02:00: 02:30 runs twice, at 02:30 CEST and "
            "02:30 CET."
        )
        == 1
    )
    # the choices stay chosen
    repeated = html.split('<select name="dst_repeated"', 1)[1].split("</select>", 1)[0]
    skipped = html.split('<select name="dst_skipped"', 1)[1].split("</select>", 1)[0]
    assert '<option value="both" selected>' in repeated, repeated
    assert '<option value="skip" selected>' in skipped, skipped
    scheduler = kept.harness.services.scheduler
    assert scheduler is not None and await scheduler.store.find("main", "night") is None
    status, _html = await mod.post("/servers/main/queue", data=form)
    assert status == 303
    row = await scheduler.store.find("main", "night")
    assert row is not None and (row.dst_repeated, row.dst_skipped) == ("both", "skip")
    # the planned page says it on the row
    status, html = await mod.get("/servers/main/planned")
    row_html = markup.unescape(
        next(r for r in html.split("<tr")[1:] if "<td" in r and "<code>night</code>" in r)
    )
    assert status == 200 and f"when the clock changes: {BOTH}; {SKIP}" in row_html, row_html
    assert "02:30 runs twice, at 02:30 CEST and 02:30 CET." in row_html
    # the default choice leaves the row's policy unset; a value the select does not offer is
    # refused, named, nothing made
    plain = {**form, "id": "plain", "dst_repeated": "", "dst_skipped": ""}
    assert (await mod.post("/servers/main/queue", data=plain))[0] == 303
    row = await scheduler.store.find("main", "plain")
    assert row is not None and (row.dst_repeated, row.dst_skipped) == (None, None)
    status, html = await mod.post(
        "/servers/main/queue", data={**form, "id": "odd", "dst_repeated": "twice"}
    )
    assert status == 400, html[:500]
    error = html.split('id="schedule-error"', 1)[1].split("</div>", 1)[0]
    assert "<code>dst_repeated</code> is one of first, second, both" in error, error
    assert await scheduler.store.find("main", "odd") is None


async def test_the_api_previews_and_takes_the_policy(kept: Dash, mod: Client) -> None:
    headers = {"X-CSRF-Token": await mod.csrf()}
    body = {
        "run": "say hourly",
        "repeat": "30 * * * *",
        "timezone": "America/New_York",
        "dst_repeated": "first",
        "id": "hourly",
    }
    status, text = await mod.post("/api/servers/main/tasks/preview", json=body, headers=headers)
    assert status == 200, text
    found = json.loads(text)
    [(name, policy), *changes] = found["dst"]
    assert name == "when the clock changes"
    assert policy == (
        "a time in the hour the clock repeats runs once, in the first pass; a time in the hour "
        "the clock skips does not run"
    )
    assert len(changes) == 2
    back = next(t for _n, t in changes if "goes back" in t)
    assert back.endswith("the clock goes back from 02:00 to 01:00: 01:30 runs once, at 01:30 EDT.")
    status, text = await mod.post("/api/servers/main/tasks", json=body, headers=headers)
    assert status == 201, text
    assert kept.harness.services.scheduler is not None
    row = await kept.harness.services.scheduler.store.find("main", "hourly")
    assert row is not None and (row.dst_repeated, row.dst_skipped) == ("first", None)
    bad = {**body, "id": "api-bad", "repeat": "1d", "dst_skipped": "skip"}
    status, text = await mod.post("/api/servers/main/tasks", json=bad, headers=headers)
    assert status == 400, text
    refused = json.loads(text)
    assert refused["field"] == "dst_skipped", refused
    assert await kept.harness.services.scheduler.store.find("main", "api-bad") is None


async def test_the_openapi_document_lists_the_policy(kept: Dash) -> None:
    status, body = await Client(kept).get("/api/openapi.json")
    assert status == 200
    post = json.loads(body)["paths"]["/api/servers/{name}/tasks"]["post"]
    schema = post["requestBody"]["content"]["application/json"]["schema"]
    for field, values in (
        ("dst_repeated", ["both", "first", "second"]),
        ("dst_skipped", ["shift", "skip"]),
    ):
        [allowed] = [s for s in schema["properties"][field]["anyOf"] if "enum" in s]
        assert sorted(allowed["enum"]) == values
    assert "`dst_repeated`" in post["description"]

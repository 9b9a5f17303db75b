"""A task's policy after a crash (`on_doubt`) from the dashboard's schedule form and the JSON
API, over real HTTP to mcsim over TCP RCON: the form's select and the API's field reach the bot's
record of a game-time task and a wall-clock row; a bad value is refused naming the field and
changes nothing; the OpenAPI document lists the field with its two values."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from bot.services import ServerServices
from bot.testkit.harness import MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash, queue_ids


@pytest.fixture
async def mod(kept: Dash) -> AsyncIterator[Client]:
    client = await Client(kept).login(MOD)
    yield client
    await client.close()


async def policies(target: ServerServices) -> dict[str, str]:
    assert target.guard is not None
    return {e.task_id: e.on_doubt for e in await target.guard.ledger.entries()}


async def test_the_form_s_select_sets_the_policy_of_both_kinds(kept: Dash, mod: Client) -> None:
    base = {
        "csrf_token": await mod.csrf(),
        "run": "say x",
        "unit": "tick",
        "retry": "0",
        "retry_delay": "1",
        "timezone": "UTC",
        "target": "main",
        "if_not": "skip",
        "after_wait": "skip",
    }
    status, html = await mod.get("/servers/main/queue")
    assert '<select name="on_doubt"' in html and "If a crash leaves it unknown" in html
    form = {**base, "time": "900", "id": "border", "on_doubt": "run"}
    assert (await mod.post("/servers/main/queue", data=form))[0] == 303
    form = {**base, "time": "900", "id": "plain", "on_doubt": "skip"}
    assert (await mod.post("/servers/main/queue", data=form))[0] == 303
    form = {**base, "when": "in 1h", "id": "nightly", "on_doubt": "run"}
    assert (await mod.post("/servers/main/queue", data=form))[0] == 303
    target = kept.harness.services.servers["main"]
    assert (await policies(target))["border"] == "run"
    assert (await policies(target))["plain"] == "skip"
    # the task's page says it when it is run
    status, html = await mod.get("/servers/main/tasks/border")
    assert status == 200 and "After a crash" in html, html[:500]
    status, html = await mod.get("/servers/main/tasks/plain")
    assert status == 200 and "After a crash" not in html
    scheduler = kept.harness.services.scheduler
    assert scheduler is not None
    row = await scheduler.store.find("main", "nightly")
    assert row is not None and row.on_doubt == "run"
    # the planned page says it on the row
    status, html = await mod.get("/servers/main/planned")
    row_html = next(r for r in html.split("<tr") if "nightly" in r)
    assert status == 200 and "after a crash: run again if it may not have run" in row_html
    # a value the select does not offer: named, nothing made
    status, html = await mod.post(
        "/servers/main/queue", data={**base, "time": "900", "id": "odd", "on_doubt": "twice"}
    )
    assert status == 400, html[:500]
    error = html.split('id="schedule-error"', 1)[1].split("</div>", 1)[0]
    assert "<code>on_doubt</code>:" in error and "<code>on_doubt</code> is one of" in error, error
    assert "skip" in error and "run" in error and "twice" in error, error
    assert "odd" not in queue_ids(kept)


async def test_the_api_takes_the_policy_and_names_a_bad_one(kept: Dash, mod: Client) -> None:
    headers = {"X-CSRF-Token": await mod.csrf()}
    body = {"run": "say hi", "time": 600, "unit": "tick", "id": "api-run", "on_doubt": "run"}
    status, text = await mod.post("/api/servers/main/tasks", json=body, headers=headers)
    assert status == 201, text
    assert (await policies(kept.harness.services.servers["main"]))["api-run"] == "run"
    status, text = await mod.get("/api/servers/main/tasks/api-run")
    assert status == 200 and json.loads(text)["on_doubt"] == "run", text
    planned = {"run": "say hi", "when": "in 1h", "id": "api-planned", "on_doubt": "run"}
    status, text = await mod.post("/api/servers/main/tasks", json=planned, headers=headers)
    assert status == 201, text
    assert kept.harness.services.scheduler is not None
    row = await kept.harness.services.scheduler.store.find("main", "api-planned")
    assert row is not None and row.on_doubt == "run"
    status, text = await mod.get("/api/servers/main/lists/planned")
    [listed] = [r for r in json.loads(text)["tasks"] if r["task_id"] == "api-planned"]
    assert status == 200 and listed["on_doubt"] == "run", listed
    bad = {"run": "say hi", "time": 600, "unit": "tick", "id": "api-bad", "on_doubt": "always"}
    status, text = await mod.post("/api/servers/main/tasks", json=bad, headers=headers)
    assert status == 400, text
    assert json.loads(text)["field"] == "on_doubt"
    assert "api-bad" not in queue_ids(kept)


async def test_the_openapi_document_lists_the_policy(kept: Dash) -> None:
    status, body = await Client(kept).get("/api/openapi.json")
    assert status == 200
    spec = json.loads(body)
    post = spec["paths"]["/api/servers/{name}/tasks"]["post"]
    schema = post["requestBody"]["content"]["application/json"]["schema"]
    [allowed] = [s for s in schema["properties"]["on_doubt"]["anyOf"] if "enum" in s]
    assert sorted(allowed["enum"]) == ["run", "skip"]
    assert "`on_doubt`" in post["description"]

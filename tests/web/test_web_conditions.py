"""The conditions through every face but the pack: `/schedule require:... if_not:...` through
discord.py's CommandTree (the harness) and the JSON API over real HTTP, both to mcsim over TCP
RCON; a bad `require` is refused naming it, and nothing is queued or planned."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.testkit.harness import MOD
from tests.web.test_web_browser import open_session
from tests.web.webclient import Client
from tests.web.webdash import Dash, queue_ids


@pytest.fixture
async def mod(kept: Dash) -> AsyncIterator[Client]:
    client = await Client(kept).login(MOD)
    yield client
    await client.close()


def queued(dash: Dash, task_id: str) -> list[dict[str, Any]]:
    tasks = dash.mc.storage("doom.schedule:data").get("queue", [])
    return [t for t in tasks if t["id"] == task_id]  # type: ignore[union-attr, index]


async def test_slash_schedule_passes_the_conditions_to_the_pack(kept: Dash) -> None:
    reply = await kept.harness.run(
        "schedule",
        MOD,
        run="say restart",
        time=600,
        unit="tick",
        id="restart",
        require="empty",
        if_not="wait",
        max_wait="10m",
        after_wait="run",
    )
    assert "Scheduled `restart`" in reply.text, reply.text
    [embed] = reply.embeds
    shown = {f["name"]: f["value"] for f in embed["fields"]}
    assert shown["only if"] == "`empty`; if not: wait up to 10m, then run"
    [task] = queued(kept, "restart")
    assert task["cond"] == {"min": 0, "max": 0, "wait": 12000, "then": "run"}


async def test_slash_schedule_refuses_a_bad_require_and_queues_nothing(kept: Dash) -> None:
    reply = await kept.harness.run(
        "schedule", MOD, run="say restart", time=600, unit="tick", id="restart", require="nobody"
    )
    assert "`require` `nobody` is not a condition" in reply.text, reply.text
    assert queue_ids(kept) == ["keep"]  # the dashboard fixture's own task only
    planned = await kept.harness.run(
        "schedule",
        MOD,
        run="say restart",
        when="in 1h",
        id="later",
        require="empty",
        max_wait="5m",
    )
    assert "`max_wait` is for `if_not:wait` only." in planned.text, planned.text
    assert kept.harness.services.scheduler is not None
    assert await kept.harness.services.scheduler.store.find("main", "later") is None


async def test_the_api_takes_the_conditions_and_names_a_bad_one(kept: Dash, mod: Client) -> None:
    headers = {"X-CSRF-Token": await mod.csrf()}
    body = {"run": "say hi", "time": 600, "unit": "tick", "id": "two", "require": "players>=2"}
    status, text = await mod.post("/api/servers/main/tasks", json=body, headers=headers)
    assert status == 201, text
    assert queued(kept, "two")[0]["cond"]["min"] == 2
    bad = {
        "run": "say hi",
        "time": 600,
        "unit": "tick",
        "id": "bad",
        "require": "players>=2",
        "if_not": "wait",
    }
    status, text = await mod.post("/api/servers/main/tasks", json=bad, headers=headers)
    assert status == 400, text
    assert json.loads(text)["field"] == "max_wait"
    assert queued(kept, "bad") == []
    planned = {"run": "say hi", "when": "in 1h", "id": "p1", "require": "online:Steve"}
    status, text = await mod.post("/api/servers/main/tasks", json=planned, headers=headers)
    assert status == 201, text
    assert kept.harness.services.scheduler is not None
    row = await kept.harness.services.scheduler.store.find("main", "p1")
    assert row is not None and row.conditions == {"require": "online:Steve"}


@pytest.mark.slow
async def test_the_schedule_form_takes_the_conditions_in_chromium(dash: Dash, browser: Any) -> None:
    page = await open_session(browser, dash, viewport={"width": 390, "height": 800})
    await page.goto(dash.url + "/servers/main/queue")
    await page.get_by_label("Command", exact=True).fill("say restart")
    await page.get_by_label("Delay").fill("600")
    await page.locator("select[name=unit]").select_option("tick")
    await page.get_by_label("Id (optional)").fill("restart")
    await page.get_by_label("Run only if (optional)").fill("players>=two")
    await page.get_by_label("If not").select_option("wait")
    await page.get_by_label("Longest wait").fill("10m")
    await page.get_by_role("button", name="Schedule").click()
    error = page.locator("#schedule-error")
    await error.wait_for()
    assert "is not a condition" in await error.inner_text()
    assert await page.get_by_label("Run only if (optional)").input_value() == "players>=two"
    assert queued(dash, "restart") == []
    await page.get_by_label("Run only if (optional)").fill("empty")
    await page.get_by_label("After the wait").select_option("run")
    await page.get_by_role("button", name="Schedule").click()
    await page.get_by_text("Scheduled restart on main.").wait_for()
    [task] = queued(dash, "restart")
    assert task["cond"] == {"min": 0, "max": 0, "wait": 12000, "then": "run"}

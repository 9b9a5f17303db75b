"""The planned (wall-clock) list in the dashboard, on branch wallclock's scheduler
(services.scheduler) with its manual clock: listed, paused, resumed and cancelled from the page,
and the lateness of its runs on /metrics."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.testkit.harness import ADMIN, MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash


async def planned(client: Client) -> dict[str, Any]:
    status, body = await client.get("/api/servers/main/lists/planned")
    assert status == 200, body
    found: dict[str, Any] = json.loads(body)
    return found


@pytest.mark.slow
async def test_the_planned_list_and_its_actions(dash: Dash, mod: Client) -> None:
    h = dash.harness
    reply = await h.run("schedule", MOD, run="say raid", id="raid", when="fri 20:00")
    assert "Planned `raid`" in reply.text
    await h.run("schedule", MOD, run="say hourly", id="hourly", repeat="0 * * * *", timezone="UTC")
    found = await planned(mod)
    assert found["total"] == 2
    rows = {r["task_id"]: r for r in found["tasks"]}
    assert rows["hourly"]["when"] == "cron 0 * * * * (UTC)" and rows["raid"]["when"] == "once"
    assert rows["hourly"]["next_due"] == "2026-12-11T15:00:00+00:00"
    status, html = await mod.get("/servers/main/planned?id=hour")
    assert status == 200 and "hourly" in html and "say raid" not in html
    raid = rows["raid"]["id"]
    csrf = await mod.csrf()
    status, _ = await mod.post(f"/servers/main/planned/{raid}/pause", data={"csrf_token": csrf})
    assert status == 303
    scheduler = h.services.scheduler
    assert scheduler is not None
    assert (await scheduler.get(raid)).state == "paused"  # type: ignore[union-attr]
    status, html = await mod.get("/servers/main/planned")
    assert (
        "Paused planned <code>raid</code> on main." in html and 'aria-label="Resume raid"' in html
    )
    await mod.post(f"/servers/main/planned/{raid}/pause", data={"csrf_token": csrf})
    status, html = await mod.get("/servers/main/planned")
    assert "is paused: it cannot be paused" in html  # the scheduler's own sentence
    await mod.post(f"/servers/main/planned/{raid}/resume", data={"csrf_token": csrf})
    assert (await scheduler.get(raid)).state == "active"  # type: ignore[union-attr]
    status, body = await mod.post(
        f"/api/servers/main/planned/{raid}/cancel", headers={"X-CSRF-Token": csrf}
    )
    assert status == 200 and json.loads(body) == {"outcome": "Cancelled planned raid on main."}
    assert [r["task_id"] for r in (await planned(mod))["tasks"]] == ["hourly"]
    status, body = await mod.post(
        f"/api/servers/main/planned/{raid}/cancel", headers={"X-CSRF-Token": csrf}
    )
    assert status == 400 and "cannot be cancelled" in json.loads(body)["error"]
    status, body = await mod.get(f"/api/audit?action=cancel&user={MOD.id}")
    assert json.loads(body)["mutations"][0]["outcome"] == "Cancelled planned raid on main."
    # without the CSRF token nothing changes; an unknown row is a 404 sentence
    hourly = rows["hourly"]["id"]
    assert (await mod.post(f"/servers/main/planned/{hourly}/cancel"))[0] == 403
    status, html = await mod.post("/servers/main/planned/99999/cancel", data={"csrf_token": csrf})
    assert status == 404 and "no planned schedule #99999" in html
    assert (await planned(mod))["total"] == 1


async def test_lateness_of_planned_runs_is_on_metrics(dash: Dash, mod: Client) -> None:
    h = dash.harness
    await h.run("schedule", MOD, run="say soon", id="soon", when="in 10s")
    status, text = await mod.get("/metrics")
    assert status == 200
    before = {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples}
    assert before["doom_wallclock_lateness_seconds_count"] == 0
    scheduler = h.services.scheduler
    assert scheduler is not None
    soon = await scheduler.find("main", "soon")
    assert soon is not None
    dash.wall.advance(12)  # two seconds late
    await scheduler.settled()
    [row] = await scheduler.runs(soon.id)
    assert row.lateness is not None and row.lateness >= 2
    status, text = await mod.get("/metrics")
    assert status == 200
    samples = [
        (s.name, s.labels, s.value) for f in text_string_to_metric_families(text) for s in f.samples
    ]
    count = [v for n, _, v in samples if n == "doom_wallclock_lateness_seconds_count"]
    assert count == [1.0]
    total = [v for n, _, v in samples if n == "doom_wallclock_lateness_seconds_sum"]
    assert total == [pytest.approx(row.lateness)]
    assert "soon" not in text and "say soon" not in text


async def test_the_api_plans_a_wall_clock_row_that_runs_once(dash: Dash, mod: Client) -> None:
    dash.mc.run("scoreboard objectives add api dummy")
    headers = {"X-CSRF-Token": await mod.csrf()}
    body = {
        "run": "scoreboard players add #n api 1",
        "when": "in 5m",
        "id": "api-once",
        "timezone": "Europe/Berlin",
        "announce": "1m",
    }
    status, answer = await mod.post("/api/servers/main/tasks", json=body, headers=headers)
    assert status == 201, answer
    made = json.loads(answer)
    assert made["task"] is None and made["planned"]["task_id"] == "api-once"
    assert made["planned"]["timezone"] == "Europe/Berlin" and re.fullmatch(
        r"Planned api-once on main for \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\.", made["outcome"]
    )
    # the planned count is on the server card, in /api/servers and in /status
    status, answer = await mod.get("/api/servers")
    assert status == 200 and json.loads(answer)["servers"][0]["queues"]["planned"] == 1, answer
    status, html = await mod.get("/servers")
    assert 'href="/servers/main/planned">planned <strong>1</strong></a>' in html
    shown = await dash.harness.run("status", ADMIN)
    fields = {f["name"]: f["value"] for f in shown.embeds[0]["fields"]}
    assert fields["planned"] == "1" and fields["queue"] == "0", fields
    scheduler = dash.harness.services.scheduler
    assert scheduler is not None
    dash.wall.advance(5 * 60 - 1)
    await scheduler.settled()
    assert dash.mc.score("#n", "api") is None  # not yet
    dash.wall.advance(1)
    await scheduler.settled()
    assert dash.mc.score("#n", "api") == 1
    dash.wall.advance(24 * 3600)
    await scheduler.settled()
    assert dash.mc.score("#n", "api") == 1  # once
    rows = await dash.harness.services.audit.mutations(server="main")
    assert [r.action for r in rows] == ["schedule"]

"""Run now through its faces: the slash command (the console drives the same tree), the
dashboard's button and the JSON API, each against mcsim with the pack over TCP RCON."""

from __future__ import annotations

import json

import pytest

from bot.testkit.harness import MOD, NOBODY
from tests.web.webclient import Client
from tests.web.webdash import Dash

ADD = "scoreboard players add #n now 1"


def queued(dash: Dash) -> list[tuple[str, int]]:
    data = dash.mc.storage("doom.schedule:data")
    return [(str(t["id"]), int(t["due"])) for t in data.get("queue", [])]  # type: ignore[attr-defined]


@pytest.mark.slow
async def test_run_now_from_discord_the_page_and_the_api(dash: Dash, mod: Client) -> None:
    h = dash.harness
    dash.mc.run("scoreboard objectives add now dummy")
    await h.run("schedule", MOD, run=ADD, time=90000, unit="tick", id="later")
    before = queued(dash)
    reply = await h.run("run_now", MOD, id="later")
    assert reply.text == "Ran `later` on main now; its schedule is unchanged."
    assert dash.mc.score("#n", "now") == 1 and queued(dash) == before
    refused = await h.run("run_now", NOBODY, id="later")
    assert "moderator" in refused.text and dash.mc.score("#n", "now") == 1
    # the page's button, then the API's verb
    status, html = await mod.get("/servers/main/queue")
    assert 'aria-label="Run now later"' in html
    csrf = await mod.csrf()
    status, _ = await mod.post(
        "/servers/main/tasks/later/run_now", data={"csrf_token": csrf, "list": "queue"}
    )
    assert status == 303 and dash.mc.score("#n", "now") == 2
    status, body = await mod.post(
        "/api/servers/main/tasks/later/run_now", headers={"X-CSRF-Token": csrf}
    )
    assert status == 200, body
    assert json.loads(body) == {"outcome": "Ran later on main now; its schedule is unchanged."}
    assert dash.mc.score("#n", "now") == 3 and queued(dash) == before
    # a planned row: an extra run, its next due kept, "triggered by" in its record
    await h.run("schedule", MOD, run=ADD, id="nightly", when="in 90m")
    scheduler = h.services.scheduler
    assert scheduler is not None
    row = await scheduler.find("main", "nightly")
    assert row is not None
    status, html = await mod.get("/servers/main/planned")
    assert 'aria-label="Run now nightly"' in html
    status, _ = await mod.post(
        "/servers/main/tasks/nightly/run_now", data={"csrf_token": csrf, "list": "planned"}
    )
    assert status == 303 and dash.mc.score("#n", "now") == 4
    [run] = await scheduler.runs(row.id)
    assert (await scheduler.get(row.id)).next_due == row.next_due  # type: ignore[union-attr]
    audited = [r for r in await h.services.audit.mutations(server="main") if r.action == "run_now"]
    assert len(audited) == 4
    assert run.outcome == "ran" and run.triggered_by == audited[0].user_name  # newest first

"""The dashboard's reads and the plugin host over real HTTP: /metrics through prometheus-client's
own parser, search by id, audit filters, the planned list without a scheduler, OpenAPI, and an
extension's pages mounted and unmounted with the extension."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.testkit.harness import ADMIN, MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash


def families(text: str) -> dict[str, list[tuple[dict[str, str], float, str]]]:
    found: dict[str, list[tuple[dict[str, str], float, str]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(family.name, []).append((sample.labels, sample.value, sample.name))
    return found


async def test_metrics_parse_and_count_what_happened(dash: Dash, admin: Client) -> None:
    h = dash.harness
    for i in range(3):
        await h.run("schedule", MOD, run="say hi", time=900 + i, unit="tick", id=f"m{i}")
    await h.run("pause", MOD, id="m0")
    typo = await h.run("schedule", MOD, run="sya hi", time=5, unit="tick", id="typo")
    assert "^" in typo.text
    denied = await h.run("schedule", MOD, run="op Steve", time=5, unit="tick", id="op")
    assert "deny-list" in denied.text
    await h.run(
        "schedule",
        MOD,
        run="execute if entity @e[type=minecraft:pig]",
        time=1,
        unit="tick",
        id="np",
    )
    exhausted = asyncio.ensure_future(  # the alerts cog has read it through the bus
        h.bot.wait_for("doom_event", check=lambda ev: ev.type == "retry_exhausted", timeout=30)
    )
    await asyncio.sleep(0)
    await asyncio.to_thread(dash.mc.step, 5)
    await exhausted
    status, text = await admin.get("/metrics")
    assert status == 200
    got = families(text)
    tasks = {(s[0]["server"], s[0]["list"]): s[1] for s in got["doom_tasks"]}
    assert tasks == {
        ("main", "queue"): 2,
        ("main", "offline"): 0,
        ("main", "paused"): 1,
        ("main", "planned"): 0,
    }
    events = {s[0]["type"]: s[1] for s in got["doom_events"] if s[2] == "doom_events_total"}
    assert events["retry_exhausted"] == 1
    refusals = {
        s[0]["kind"]: s[1] for s in got["doom_command_check_refusals"] if s[2].endswith("_total")
    }
    assert refusals == {"parse": 1, "refused": 1}
    rtt = {s[2]: s[1] for s in got["doom_rcon_round_trip_seconds"] if s[0].get("server") == "main"}
    assert rtt["doom_rcon_round_trip_seconds_count"] > 10
    assert rtt["doom_rcon_round_trip_seconds_sum"] > 0
    assert ({}, 0.0, "doom_wallclock_lateness_seconds_count") in got[
        "doom_wallclock_lateness_seconds"
    ]  # the scheduler exists, nothing planned ran
    assert ({"server": "main", "list": "planned"}, 0.0, "doom_tasks") in got["doom_tasks"]
    assert {s[1] for s in got["doom_server_up"]} == {1.0}
    # nothing on it names a task, its command or a user (as a whole word: the user's id 7002 may
    # begin a sample's value, 0.0700289903)
    for needle in ("m0", "say hi", "sya", "Steve", str(MOD.id), "user7002"):
        assert not re.search(rf"(?<![\w.]){re.escape(needle)}(?![\w.])", text), needle
    status, body = await Client(dash).get("/healthz")
    assert status == 200 and json.loads(body) == {"status": "ok", "servers": {"main": True}}


async def test_search_by_id_and_paging(dash: Dash, admin: Client) -> None:
    for i in range(23):
        await dash.harness.run(
            "schedule", MOD, run=f"say {i}", time=900 + i, unit="tick", id=f"p{i}"
        )
    await dash.harness.run("schedule", MOD, run="say dup a", time=950, unit="tick", id="dup")
    await dash.harness.run("schedule", MOD, run="say dup b", time=960, unit="tick", id="dup")
    status, body = await admin.get("/api/servers/main/lists/queue?id=dup")
    found = json.loads(body)
    assert found["total"] == 2 and [t["run"] for t in found["tasks"]] == ["say dup a", "say dup b"]
    status, body = await admin.get("/api/servers/main/lists/queue?page=2")
    page2 = json.loads(body)
    assert page2["total"] == 25 and len(page2["tasks"]) == 5
    status, html = await admin.get("/servers/main/queue?id=dup")
    assert status == 200 and "2 tasks with id “dup”" in html and "say dup b" in html
    status, html = await admin.get("/servers/main/queue")
    assert '<a href="?page=2" rel="next">' in html and 'rel="prev"' not in html
    status, html = await admin.get("/servers/main/queue?page=2")
    assert '<a href="?page=1" rel="prev">' in html and 'rel="next"' not in html
    for i in range(20):  # 22 of id dup: the pages of a search keep it
        await dash.harness.run(
            "schedule", MOD, run=f"say dup {i}", time=970 + i, unit="tick", id="dup"
        )
    status, html = await admin.get("/servers/main/queue?id=dup")
    assert '<a href="?page=2&id=dup" rel="next">' in html
    status, html = await admin.get("/servers/main/queue?page=x")
    assert status == 400 and "whole number" in html
    status, html = await admin.get("/servers/nowhere/queue")
    assert status == 404 and "There is no server called &#39;nowhere&#39;" in html


async def test_audit_filters_and_planned_without_a_scheduler(dash: Dash, admin: Client) -> None:
    await dash.harness.run("schedule", MOD, run="say a", time=900, unit="tick", id="a1")
    csrf = await admin.csrf()
    await admin.post("/servers/main/tasks/a1/pause", data={"csrf_token": csrf, "list": "queue"})
    status, body = await admin.get("/api/audit?action=pause")
    rows = json.loads(body)["mutations"]
    assert [(r["action"], r["user_id"], r["outcome"]) for r in rows] == [
        ("pause", ADMIN.id, "Paused a1.")
    ]
    status, body = await admin.get(f"/api/audit?user={MOD.id}")
    assert [r["action"] for r in json.loads(body)["mutations"]] == ["schedule"]
    status, html = await admin.get("/audit?user=bob")
    assert status == 400 and "a Discord user id" in html
    # the web write reached the audit channel like a slash command's
    posts = dash.harness.posts(6002)
    assert any(p.payload["embeds"][0]["title"] == "/pause (web)" for p in posts)
    # services without a scheduler say so on the planned list
    scheduler, dash.harness.services.scheduler = dash.harness.services.scheduler, None
    try:
        status, html = await admin.get("/servers/main/planned")
        assert status == 200 and "Wall-clock schedules are not enabled." in html
    finally:
        dash.harness.services.scheduler = scheduler


async def test_openapi_documents_the_api(dash: Dash) -> None:
    status, body = await Client(dash).get("/api/openapi.json")
    spec = json.loads(body)
    assert status == 200 and spec["info"]["title"] == "doom.schedule dashboard API"
    post = spec["paths"]["/api/servers/{name}/tasks"]["post"]
    schema = json.dumps(post["requestBody"])
    assert "ScheduleRequest" in schema or "run" in schema
    # every operation says what it does: a summary (its line in the docs page) and a description
    bare = [
        (method, path)
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if not operation.get("summary") or not operation.get("description")
    ]
    assert bare == [], bare


async def test_an_extension_brings_pages_while_it_is_loaded(dash: Dash, admin: Client) -> None:
    status, html = await admin.get("/x/commands/")
    assert status == 200 and "<code>/schedule</code>" in html
    assert 'href="/x/commands/"' in (await admin.get("/servers"))[1]
    await dash.harness.bot.unload_extension("cogs.dashboard")
    status, html = await admin.get("/x/commands/")
    assert status == 404
    assert 'href="/x/commands/"' not in (await admin.get("/servers"))[1]
    # an admin loads it again from the extensions page
    csrf = await admin.csrf()
    status, _ = await admin.post(
        "/extensions/reload", data={"csrf_token": csrf, "extension": "cogs.dashboard"}
    )
    assert status == 303
    status, html = await admin.get("/extensions")
    assert "Reloaded cogs.dashboard." in html and 'href="/x/commands/"' in html
    status, html = await admin.get("/x/commands/")
    assert status == 200 and "<code>/dashboard</code>" in html


async def test_a_damaged_pack_is_shown_on_the_servers_page_and_in_the_api(
    dash: Dash, admin: Client
) -> None:
    status, body = await admin.get("/api/servers")
    assert status == 200 and json.loads(body)["servers"][0]["pack_damage"] == []
    dash.mc.run("scoreboard objectives remove doom.schedule")
    status, body = await admin.get("/api/servers")
    assert json.loads(body)["servers"][0]["pack_damage"] == [
        "the scoreboard objective doom.schedule is missing"
    ]
    status, html = await admin.get("/servers")
    assert (
        "The pack is damaged: the scoreboard objective doom.schedule is missing. Run /setup" in html
    ), html


@pytest.mark.slow
async def test_setup_and_selftest_from_the_api_are_for_admins(dash: Dash, admin: Client) -> None:
    csrf = {"X-CSRF-Token": await admin.csrf()}
    status, body = await admin.post("/api/servers/main/setup", headers=csrf)
    assert status == 200, body
    done = json.loads(body)
    assert done["ok"] is True and "doom.schedule" in done["outcome"], done
    # the pack is in place, so the selftest followed: one entry per check
    names = {c["name"] for c in done["selftest"]["checks"]}
    assert {"rcon", "pack version", "marker task"} <= names, names
    status, body = await admin.post("/api/servers/main/selftest", headers=csrf)
    assert status == 200, body
    tested = json.loads(body)
    assert tested["outcome"] == tested["verdict"] and tested["checks"], tested
    actions = [r.action for r in await dash.harness.services.audit.mutations(server="main")]
    assert actions == ["selftest", "selftest", "setup"]  # newest first
    mod = await Client(dash).login(MOD)
    try:
        status, body = await mod.post(
            "/api/servers/main/selftest", headers={"X-CSRF-Token": await mod.csrf()}
        )
        assert status == 403, body
    finally:
        await mod.close()


async def test_discord_events_from_the_api_as_from_event(dash: Dash, admin: Client) -> None:
    csrf = {"X-CSRF-Token": await admin.csrf()}
    body = {
        "name": "Build Battle",
        "start": "in 2h",
        "end": "1h",
        "start_run": "say go",
        "announce": "none",
    }
    status, answer = await admin.post("/api/discord-events", json=body, headers=csrf)
    assert status == 201, answer
    made = json.loads(answer)
    assert made["outcome"].startswith("Event #1 Build Battle made: Discord event 20"), made
    live = dash.harness.discord.scheduled.live()
    assert [e["name"] for e in live] == ["Build Battle"]
    first_start = live[0]["scheduled_start_time"]
    status, answer = await admin.get("/api/discord-events")
    assert status == 200 and [e["name"] for e in json.loads(answer)["events"]] == [
        "Build Battle"
    ], answer
    status, answer = await admin.post(
        "/api/discord-events/1/edit", json={"start": "in 3h"}, headers=csrf
    )
    assert status == 200 and "now runs" in json.loads(answer)["outcome"], answer
    moved = dash.harness.discord.scheduled.live()[0]["scheduled_start_time"]
    assert moved != first_start
    status, answer = await admin.post(
        "/api/discord-events", json={**body, "when": "x"}, headers=csrf
    )
    assert status == 400 and json.loads(answer)["field"] == "when", answer
    status, answer = await admin.post("/api/discord-events/1/cancel", headers=csrf)
    assert status == 200 and "cancelled" in json.loads(answer)["outcome"], answer
    assert dash.harness.discord.scheduled.live() == []
    actions = [r.action for r in await dash.harness.services.audit.mutations(server="main")]
    assert actions == ["event cancel", "event edit", "event create"]
    status, html = await admin.get("/api/docs")
    assert status == 200 and "openapi.json" in html


async def test_schedule_dynamic_time_and_cancel_all_from_the_api(dash: Dash, admin: Client) -> None:
    csrf = {"X-CSRF-Token": await admin.csrf()}
    body = {"run": "say hi", "time": 500, "unit": "tick", "prefix": "raid-"}
    status, answer = await admin.post("/api/servers/main/tasks/dynamic", json=body, headers=csrf)
    assert status == 201, answer
    made = json.loads(answer)
    assert made["id"].startswith("raid-") and made["outcome"] == f"Scheduled {made['id']} on main."
    for _ in range(2):
        await dash.harness.run("schedule", ADMIN, run="say x", time=900, unit="tick", id="twice")
    status, answer = await admin.post("/api/servers/main/tasks/twice/cancel_all", headers=csrf)
    assert status == 200 and json.loads(answer)["outcome"] == (
        "Cancelled 2 task(s) twice on main."
    ), answer
    ids = [str(t["id"]) for t in dash.mc.storage("doom.schedule:data").get("queue", [])]  # type: ignore[attr-defined]
    assert ids == [made["id"]]
    dash.mc.step(7)
    status, answer = await admin.get("/api/servers/main/time")
    clock = json.loads(answer)
    assert status == 200 and clock["game_time"] == dash.mc.game_time and clock["day"] == 0, clock
    status, answer = await admin.post(
        "/api/servers/main/tasks/dynamic", json={**body, "server": "other"}, headers=csrf
    )
    assert status == 400 and json.loads(answer)["field"] == "server", answer

"""The plan file from Discord (`/plan export` as an attachment, `/plan import` of an attached
file: the dry run, then Confirm), the JSON API and the dashboard's page in Chromium (download,
upload, dry run, confirm), against mcsim over TCP RCON."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.testkit.harness import MOD, NOBODY
from bot.testkit.localdiscord.http_session import LocalFile
from bot.testkit.localdiscord.message_text import buttons
from tests.web.webclient import Client
from tests.web.webdash import Dash, queue_ids

PLAN = """\
version: 1
server: main
planned:
- id: raid
  run: say raid night
  repeat: 0 20 * * 5
  timezone: Europe/Berlin
- id: reset
  run: say reset
  when: 2027-01-05 18:00
tasks:
- id: bell
  run: say bell
  time: 6000
"""
WRONG = PLAN + "- id: halt\n  run: stop\n  time: 20\n"


async def _exported(dash: Dash) -> dict[str, Any]:
    reply = await dash.harness.run("plan export", MOD)
    assert reply.ephemeral, reply.text
    [(name, body)] = [f for s in reply.messages for f in s.files]
    assert name == "plan-main.yaml"
    found: dict[str, Any] = yaml.safe_load(body.decode())
    return found


async def test_plan_import_in_discord_shows_the_dry_run_then_confirm_does_it(dash: Dash) -> None:
    assert await _exported(dash) == {"version": 1, "server": "main"}
    file = LocalFile("plan.yaml", PLAN.encode())
    asked = await dash.harness.run("plan import", MOD, file=file)
    assert "Importing into main would:" in asked.text, asked.text
    assert "add: planned[1] (raid)" in asked.text and "add: tasks[1] (bell)" in asked.text
    assert await _exported(dash) == {"version": 1, "server": "main"}  # asked only
    message_id = asked.messages[-1].message_id
    assert message_id is not None
    done = await dash.harness.press(message_id, "Confirm", MOD)
    assert "Imported into main:" in done.text, done.text
    assert yaml.safe_load(PLAN) == await _exported(dash)
    assert queue_ids(dash) == ["bell"]
    again = await dash.harness.run("plan import", MOD, file=file)
    assert again.text.count("leave as it is") == 3, again.text
    refused = await dash.harness.run("plan import", MOD, file=LocalFile("w.yaml", WRONG.encode()))
    assert "tasks[2] (halt)" in refused.text and "deny-list" in refused.text, refused.text
    assert not any(b.get("label") == "Confirm" for s in refused.messages for b in buttons(s.data))
    nobody = await dash.harness.run("plan export", NOBODY)
    assert not any(s.files for s in nobody.messages)


async def test_plan_file_through_the_api(dash: Dash, mod: Client) -> None:
    csrf = {"X-CSRF-Token": await mod.csrf()}
    body = {"document": PLAN, "dry_run": True}
    status, answer = await mod.post("/api/servers/main/plan", json=body, headers=csrf)
    assert status == 200, answer
    shown = json.loads(answer)
    assert (
        shown["done"] is False
        and {"verdict": "add", "entry": "planned[2] (reset)"} in shown["steps"]
    ), shown
    status, answer = await mod.get("/api/servers/main/plan")
    assert status == 200 and yaml.safe_load(answer) == {"version": 1, "server": "main"}, answer
    status, answer = await mod.post(
        "/api/servers/main/plan", json={"document": WRONG}, headers=csrf
    )
    refused = json.loads(answer)
    assert status == 400 and refused["field"] == "document", answer
    assert "tasks[2] (halt)" in refused["error"] and "Nothing was changed" in refused["error"]
    assert queue_ids(dash) == []
    # a planned row's id is unique on a server (the pack keeps several tasks of one id)
    twice = PLAN.replace("tasks:\n", "- id: raid\n  run: say raid again\n  repeat: 1h\ntasks:\n")
    status, answer = await mod.post(
        "/api/servers/main/plan", json={"document": twice}, headers=csrf
    )
    refused = json.loads(answer)
    assert status == 400 and "planned[3] (raid)" in refused["error"], answer
    assert "planned[1] has the same id" in refused["error"], answer
    assert queue_ids(dash) == []
    status, answer = await mod.post("/api/servers/main/plan", json={"document": PLAN}, headers=csrf)
    assert status == 200 and json.loads(answer)["done"] is True, answer
    status, answer = await mod.get("/api/servers/main/plan")
    assert status == 200 and yaml.safe_load(answer) == yaml.safe_load(PLAN), answer
    status, answer = await mod.post(
        "/api/servers/main/plan", json={"document": PLAN, "x": 1}, headers=csrf
    )
    assert status == 400 and "x" in json.loads(answer)["field"], answer


@pytest.mark.slow
async def test_the_dashboard_uploads_shows_the_dry_run_and_confirms(
    dash: Dash, browser: Any, shots: Path
) -> None:
    ctx = await browser.new_context(accept_downloads=True)
    ctx.set_default_timeout(15_000)
    page = await ctx.new_page()
    await page.goto(await dash.link(MOD))
    await page.get_by_role("button", name="Log in").click()
    await page.wait_for_url("**/servers")
    await page.get_by_role("link", name="Plan file").click()
    await page.wait_for_url("**/servers/main/plan")
    wrong = {"name": "wrong.yaml", "mimeType": "application/yaml", "buffer": WRONG.encode()}
    await page.set_input_files("input[name=file]", wrong)
    await page.get_by_role("button", name="Check the file").click()
    error = await page.locator(".plan-error").inner_text()
    assert "tasks[2] (halt)" in error, error
    await page.screenshot(path=str(shots / "refused.png"), full_page=True)
    good = {"name": "plan.yaml", "mimeType": "application/yaml", "buffer": PLAN.encode()}
    await page.set_input_files("input[name=file]", good)
    await page.get_by_role("button", name="Check the file").click()
    steps = await page.locator(".plan-steps").inner_text()
    assert "What the import would do" in steps and "add: planned[1] (raid)" in steps, steps
    await page.screenshot(path=str(shots / "dry-run.png"), full_page=True)
    assert queue_ids(dash) == []
    await page.get_by_role("button", name="Yes, import it").click()
    await page.get_by_role("heading", name="Imported").wait_for()
    assert queue_ids(dash) == ["bell"]
    async with page.expect_download() as got:
        await page.get_by_role("link", name="Download the plan file").click()
    download = await got.value
    saved = await asyncio.to_thread(Path(await download.path()).read_text)
    assert download.suggested_filename == "plan-main.yaml"
    assert yaml.safe_load(saved) == yaml.safe_load(PLAN)
    await ctx.close()


async def test_discord_events_go_out_and_back_in_through_discord(dash: Dash) -> None:
    made = await dash.harness.run(
        "event create",
        MOD,
        name="Build Battle",
        start="in 3h",
        end="2h",
        timezone="Europe/Berlin",
        start_run="say go",
        announce="5m",
        reminders="1h",
        require="players>=2",
        if_not="wait",
        max_wait="15m",
    )
    assert "made" in made.text, made.text
    first = await _exported(dash)
    [event] = first["events"]
    assert event["name"] == "Build Battle" and event["start_run"] == "say go", event
    assert event["announce"] == "5m" and event["reminders"] == "1h", event
    assert (event["require"], event["if_not"], event["max_wait"]) == ("players>=2", "wait", "15m")
    assert "planned" not in first  # the event's own tasks are the event
    cancelled = await dash.harness.run("event cancel", MOD, event="Build Battle")
    assert "cancelled" in cancelled.text, cancelled.text
    assert "events" not in await _exported(dash)
    text = yaml.safe_dump(first, sort_keys=False).encode()
    asked = await dash.harness.run("plan import", MOD, file=LocalFile("plan.yaml", text))
    assert "add: events[1] (Build Battle)" in asked.text, asked.text
    message_id = asked.messages[-1].message_id
    assert message_id is not None
    done = await dash.harness.press(message_id, "Confirm", MOD)
    assert "Imported into main:" in done.text, done.text
    assert await _exported(dash) == first
    assert [e["name"] for e in dash.harness.discord.scheduled.live()] == ["Build Battle"]
    again = await dash.harness.run("plan import", MOD, file=LocalFile("plan.yaml", text))
    assert "leave as it is: events[1] (Build Battle)" in again.text, again.text
    # an event's own command is checked with the others, before anything is made
    first["events"].append({**event, "name": "Halt", "start_run": "stop"})
    text = yaml.safe_dump(first, sort_keys=False).encode()
    refused = await dash.harness.run("plan import", MOD, file=LocalFile("plan.yaml", text))
    assert "events[2] (Halt)" in refused.text and "deny-list" in refused.text, refused.text
    assert [e["name"] for e in dash.harness.discord.scheduled.live()] == ["Build Battle"]


async def test_an_event_discord_refuses_part_way_undoes_the_whole_import(dash: Dash) -> None:
    events = (
        "events:\n- name: Opening\n  start: 2027-06-01 19:00\n  end: 2027-06-01 21:00\n"
        "- name: Closing\n  start: 2027-06-08 19:00\n  end: 2027-06-08 21:00\n"
    )
    text = (PLAN + events).encode()
    scheduled = dash.harness.discord.scheduled
    posts: list[Any] = []

    def refuse_the_second(sent: Any) -> None:  # Discord makes the first event, not the next
        if sent.kind == "scheduled_event" and sent.method == "POST":
            posts.append(sent)
            if len(posts) == 2:  # seen before it is answered: this one is refused
                scheduled.fail_next("POST")

    asked = await dash.harness.run("plan import", MOD, file=LocalFile("plan.yaml", text))
    assert "add: events[2] (Closing)" in asked.text, asked.text
    message_id = asked.messages[-1].message_id
    assert message_id is not None
    dash.harness.discord.listeners.append(refuse_the_second)
    done = await dash.harness.press(message_id, "Confirm", MOD)
    assert "events[2] (Closing) could not be written" in done.text, done.text
    assert "Missing Permissions" in done.text, done.text
    # two rows, a task and the first event: undone, the event in Discord too
    assert "undid the 4 change(s) it had made before" in done.text, done.text
    assert scheduled.live() == [] and queue_ids(dash) == []
    assert await _exported(dash) == {"version": 1, "server": "main"}
    [refused] = dash.harness.discord.refused  # the one refusal, provoked: checked, cleared
    assert (refused.method, refused.status) == ("POST", 403)
    dash.harness.discord.refused.clear()

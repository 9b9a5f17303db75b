"""The programs pages of the dashboard (web/programs.py) over real HTTP to the dashboard, on the
bot's services with mcsim over TCP RCON and a manual wall clock: the step editor's add and
remove buttons (nothing saved until Save), a save, the list, a start, a run's steps and its
cancel; a refusal named by step and field with the rows kept; a user whose role was taken away
refused. One test drives the editor in Debian's chromium."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.programs.model import parse_steps
from bot.testkit.harness import MOD, OTHER_ROLE
from tests.web.webclient import Client, api
from tests.web.webdash import Dash
from web.programs import rows_yaml

TIMEOUT = 20_000  # ms, a browser's wait: the machine is shared

STEP_1 = {"run-1": "say soon", "at-1": "-10m", "on_failure-1": "continue", "if_not-1": "skip"}
STEP_2 = {"run-2": "say go", "at-2": "0", "on_failure-2": "continue", "if_not-2": "skip"}
STEP_3 = {
    "run-3": "say round two",
    "at-3": "+5m",
    "after-3": "2",
    "limit-3": "30m",
    "on_failure-3": "skip",
    "if_not-3": "skip",
}


def inputs(page: str) -> dict[str, str]:
    """The editor's text fields as the page fills them: name -> value."""
    found = re.findall(r'<input name="([a-z_]+-[0-9]+)" value="([^"]*)"', page)
    return {name: html.unescape(value) for name, value in found}


async def test_a_program_made_in_the_editor_started_shown_and_cancelled(
    dash: Dash, mod: Client
) -> None:
    csrf = await mod.csrf()
    status, page = await mod.get("/programs/new")
    assert status == 200 and list(inputs(page)) == [
        "run-1",
        "at-1",
        "after-1",
        "limit-1",
        "require-1",
        "max_wait-1",
        "as_player-1",
    ], page
    # "Add a step" brings the page back with one more row, what was typed kept, nothing saved
    form = {"csrf_token": csrf, "name": "evening", "rows": "1", **STEP_1, "add": "1"}
    status, page = await mod.post("/programs/editor", data=form)
    assert status == 200, page
    assert inputs(page)["run-1"] == "say soon" and inputs(page)["run-2"] == ""
    assert 'name="rows" value="2"' in page and 'value="evening"' in page
    form = {"csrf_token": csrf, "name": "evening", "rows": "2", **STEP_1, **STEP_2, "add": "1"}
    status, page = await mod.post("/programs/editor", data=form)
    assert status == 200 and "run-3" in inputs(page), page
    # a fourth row added, then removed by its own button: back to three, the others kept
    form = {**form, "rows": "3", **STEP_3}
    status, page = await mod.post("/programs/editor", data=form)
    assert 'name="rows" value="4"' in page
    del form["add"]
    status, page = await mod.post(
        "/programs/editor", data={**form, "rows": "4", "run-4": "say extra", "remove": "4"}
    )
    assert status == 200 and 'name="rows" value="3"' in page, page
    assert inputs(page)["run-3"] == "say round two" and "run-4" not in inputs(page)
    assert (await api(mod, "program/list", {}))["programs"] == []

    status, page = await mod.post("/programs/editor", data={**form, "save": "1"})
    assert status == 303, page
    status, page = await mod.get("/programs/edit/evening")
    assert "saved as version 1 with 3 steps" in page, page
    shown = inputs(page)
    assert (shown["at-2"], shown["at-3"], shown["after-3"]) == ("0", "+5m", "2")
    saved = (await api(mod, "program/list", {}))["programs"]
    assert saved == [
        {
            "name": "evening",
            "version": 1,
            "steps": [
                {"run": "say soon", "at": "-10m"},
                {"run": "say go"},  # at 0, the default
                {
                    "run": "say round two",
                    "at": "+5m",
                    "after": 2,
                    "limit": "30m",
                    "on_failure": "skip",
                },
            ],
        }
    ]
    status, page = await mod.get("/programs")
    row = re.search(r'<a href="/programs/edit/evening">evening</a></td>(.*?)</tr>', page, re.S)
    assert row is not None, page
    assert re.findall(r">(\d+)</td>", row.group(1)) == ["1", "3"]

    # a time the start cannot read: refused in the start form, named, what was typed kept
    start = {"csrf_token": csrf, "server": "main", "when": "whenever", "timezone": "UTC"}
    status, page = await mod.post("/programs/start/evening", data=start)
    assert status == 400 and 'id="start-error"' in page, page
    assert re.search(r'name="when"[^>]*value="whenever"[^>]*aria-invalid="true"', page), page
    assert (await api(mod, "program/list", {}))["runs"] == []
    # started on the server in an hour (the manual wall clock stands still: nothing is due)
    start = {**start, "when": "in 1h"}
    status, page = await mod.post("/programs/start/evening", data=start)
    assert status == 303, page
    shown = await api(mod, "program/show", {"run": 1})
    assert shown["state"] == "running" and shown["server"] == "main"
    begins = datetime.fromisoformat(shown["start"])
    assert begins == dash.wall.now() + timedelta(hours=1)
    status, page = await mod.get("/programs/runs/1")
    assert status == 200, page
    assert "started on main as run #1" in page
    states = re.findall(r'<tr class="step-([a-z]+)">', page)
    assert states == ["planned", "planned", "waiting"], page
    due = re.findall(r'data-label="Due"><time datetime="([^"]+)"', page)
    assert [datetime.fromisoformat(d) for d in due] == [begins - timedelta(minutes=10), begins]
    status, listed = await mod.get("/programs")
    assert '<a href="/programs/runs/1">Run #1</a>' in listed

    # paused, then resumed: each button the state allows
    assert "Pause</button>" in page and "Resume</button>" not in page
    status, page = await mod.post("/programs/runs/1/pause", data={"csrf_token": csrf})
    assert status == 303, page
    status, page = await mod.get("/programs/runs/1")
    assert "Run #1 paused" in page and '<dd id="run-state">paused</dd>' in page, page
    assert "Resume</button>" in page and "Pause</button>" not in page
    assert (await api(mod, "program/show", {"run": 1}))["state"] == "paused"
    status, page = await mod.post("/programs/runs/1/resume", data={"csrf_token": csrf})
    status, page = await mod.get("/programs/runs/1")
    assert "Run #1 resumed." in page and '<dd id="run-state">running</dd>' in page, page

    status, page = await mod.post("/programs/runs/1/cancel", data={"csrf_token": csrf})
    assert status == 303, page
    status, page = await mod.get("/programs/runs/1")
    assert "Run #1 cancelled: its remaining steps will not run." in page
    assert re.findall(r'<tr class="step-([a-z]+)">', page) == ["cancelled"] * 3
    assert "Cancel the remaining steps" not in page  # nothing left to cancel
    shown = await api(mod, "program/show", {"run": 1})
    assert shown["state"] == "cancelled"
    assert [s["state"] for s in shown["steps"]] == ["cancelled"] * 3
    # the second cancel is refused in the operation's words, nothing changed
    status, page = await mod.post("/programs/runs/1/cancel", data={"csrf_token": csrf})
    status, page = await mod.get("/programs/runs/1")
    assert "it cannot be cancelled" in page, page

    # on a group (`all`, here its one server): a run each, shown in the list
    status, page = await mod.post("/programs/start/evening", data={**start, "server": "all"})
    assert status == 303, page  # to the list: no one run to show
    status, listed = await mod.get("/programs")
    assert "started on main as run #2" in listed, listed
    assert '<a href="/programs/runs/2">Run #2</a>' in listed


async def test_an_editor_refusal_names_the_step_and_field_and_keeps_the_rows(
    dash: Dash, mod: Client
) -> None:
    csrf = await mod.csrf()
    bad = {**STEP_2, "at-2": "soon"}
    form = {"csrf_token": csrf, "name": "evening", "rows": "2", **STEP_1, **bad, "save": "1"}
    status, page = await mod.post("/programs/editor", data=form)
    assert status == 400, page
    said = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "Step 2: at: The offset 'soon'" in said, said
    marked = re.findall(r'<input name="([a-z_]+-\d+)" value="[^"]*" aria-invalid="true"', page)
    assert marked == ["at-2"]
    kept = {"run-1": "say soon", "at-1": "-10m", "run-2": "say go", "at-2": "soon"}
    assert {name: inputs(page)[name] for name in kept} == kept
    # a step after a later one, and a name that is not a word: each named
    form = {**form, "at-2": "0", "after-1": "2"}
    status, page = await mod.post("/programs/editor", data=form)
    assert status == 400 and "Step 1:" in page, page
    assert re.findall(r'name="([a-z_]+-\d+)" value="[^"]*" aria-invalid="true"', page) == [
        "after-1"
    ]
    status, page = await mod.post(
        "/programs/editor", data={**form, "after-1": "", "name": "two words"}
    )
    assert status == 400 and "is not a word" in page, page
    assert 'value="two words"' in page
    status, page = await mod.post("/programs/editor", data={**form, "colour-1": "red"})
    assert status == 400 and "colour-1" in page, page
    assert (await api(mod, "program/list", {}))["programs"] == []
    # what does not exist is a 404 with its sentence, on a page or a button
    status, page = await mod.get("/programs/edit/nothing")
    assert status == 404 and "There is no program" in page, page
    status, page = await mod.get("/programs/runs/9")
    assert status == 404 and "There is no program run #9." in page, page
    status, page = await mod.post("/programs/runs/9/cancel", data={"csrf_token": csrf})
    assert status == 404 and "There is no program run #9." in page, page
    status, page = await mod.post("/programs/start/nothing", data={"csrf_token": csrf})
    assert status == 404, page


async def test_a_user_whose_role_was_taken_away_is_refused(dash: Dash, mod: Client) -> None:
    csrf = await mod.csrf()
    assert (await mod.get("/programs"))[0] == 200
    dash.harness.discord.set_roles(MOD.id, [OTHER_ROLE])  # a guild admin removes the role
    form = {"csrf_token": csrf, "name": "evening", "rows": "1", **STEP_1, "save": "1"}
    status, page = await mod.post("/programs/editor", data=form)
    assert status == 403 and "no longer allow" in page, page
    assert (await mod.get("/programs"))[0] == 401
    dash.harness.discord.set_roles(MOD.id, list(MOD.roles))
    again = await Client(dash).login(MOD)
    try:
        assert (await api(again, "program/list", {}))["programs"] == []
    finally:
        await again.close()


@pytest.mark.slow
async def test_the_editor_in_a_browser_adds_a_step_and_saves(
    dash: Dash, browser: Any, shots: Path
) -> None:
    ctx = await browser.new_context()
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    await page.goto(await dash.link(MOD))
    await page.get_by_role("button", name="Log in").click()
    await page.wait_for_url("**/servers")
    await page.get_by_role("link", name="Programs").click()
    await page.get_by_role("link", name="New program").click()
    await page.get_by_label("Name", exact=True).fill("night")
    await page.locator('input[name="run-1"]').fill("say soon")
    await page.locator('input[name="at-1"]').fill("-10m")
    await page.get_by_role("button", name="Add a step").click()
    await page.locator('input[name="run-2"]').fill("say go")
    assert await page.locator('input[name="run-1"]').input_value() == "say soon"
    await page.screenshot(path=shots / "editor.png", full_page=True)
    await page.get_by_role("button", name="Save", exact=True).click()
    await page.wait_for_url("**/programs/edit/night")
    await page.get_by_text("saved as version 1 with 2 steps").wait_for()
    await page.get_by_role("link", name="Programs", exact=True).click()
    row = page.get_by_role("row").filter(has_text="night")
    assert " ".join((await row.inner_text()).split()) == "night 1 2"
    await page.screenshot(path=shots / "programs.png", full_page=True)
    await ctx.close()


def test_the_rows_become_yaml_the_model_reads_back_as_typed() -> None:
    """A command YAML would cut or read otherwise (` #`, `: `, quotes, JSON) saves as typed."""
    commands = [
        "scoreboard players add #wave game 1",
        "say a: b",
        """say 'single' "double\"""",
        'tellraw @a {"text":"hi","color":"gold"}',
        "say yes",
    ]
    rows = [{"run": c, "at": f"+{n}m", "on_failure": "continue"} for n, c in enumerate(commands)]
    rows.append({"run": "", "at": "", "on_failure": "continue"})  # a trailing blank row
    text, steps = rows_yaml(rows)
    parsed = parse_steps(text)
    assert [s.run for s in parsed] == commands
    assert [s.at for s in parsed] == [f"+{n}m" for n in range(len(commands))]
    assert len(steps) == len(commands)

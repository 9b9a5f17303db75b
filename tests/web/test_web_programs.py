"""`/program save`, `start` and `show`, declared only in the registry, through the JSON API
(`POST /api/operations/program/...`): the run's facts as data, a bad step refused naming it."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime

from bot.testkit.harness import MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash

STEPS = "- run: say one\n  at: -10m\n- run: say two\n  at: 0\n  after: 1\n"


async def test_the_api_saves_starts_and_shows_a_program(faces: Dash) -> None:
    mod = await Client(faces).login(MOD)
    try:
        csrf = {"X-CSRF-Token": await mod.csrf()}
        bad = {"name": "evening", "steps": "- run: say one\n  at: soon\n"}
        status, body = await mod.post("/api/operations/program/save", json=bad, headers=csrf)
        assert status == 400, body
        assert json.loads(body)["error"].startswith("Step 1: at: The offset 'soon'"), body
        saved = {"name": "evening", "steps": STEPS}
        status, body = await mod.post("/api/operations/program/save", json=saved, headers=csrf)
        assert status == 200 and json.loads(body)["facts"]["version"] == 1, body
        status, body = await mod.post(
            "/api/operations/program/start", json={"name": "evening"}, headers=csrf
        )
        assert status == 200, body
        started = json.loads(body)
        assert "so the start is in 10m." in started["outcome"], started
        run = started["facts"]["run"]
        status, body = await mod.post(
            "/api/operations/program/show", json={"run": run}, headers=csrf
        )
        assert status == 200, body
        facts = json.loads(body)["facts"]
        assert facts["state"] == "running" and facts["start"] == started["facts"]["start"]
        assert facts["steps"][1]["state"] == "waiting"
        # step 1 is due now: it runs, and the bot's runner then makes step 2 (after 1), due at
        # the start
        async with asyncio.timeout(10):
            while True:
                status, body = await mod.post(
                    "/api/operations/program/show", json={"run": run}, headers=csrf
                )
                steps = json.loads(body)["facts"]["steps"]
                if steps[1]["state"] != "waiting":
                    break
                assert [s["state"] for s in steps] in (["planned", "waiting"], ["ran", "waiting"])
                await asyncio.sleep(0.1)
        assert [s["state"] for s in steps] == ["ran", "planned"], steps
        start = datetime.fromisoformat(facts["start"])
        assert abs((datetime.fromisoformat(steps[1]["due"]) - start).total_seconds()) < 1
    finally:
        await mod.close()


async def test_discord_has_the_program_commands_as_a_slash_group(faces: Dash) -> None:
    harness = faces.harness
    saved = await harness.run("program save", MOD, name="evening", steps=STEPS)
    assert "Program `evening` saved as version 1 with 2 steps" in saved.text, saved
    started = await harness.run("program start", MOD, name="evening", when="in 2h")
    assert "started on main as run #1" in started.text, started
    shown = await harness.run("program show", MOD, run=1)
    assert "Run #1 of `evening` (version 1) on main" in shown.text, shown
    assert "1. `say one` at -10m: planned due" in shown.text, shown
    refused = await harness.run("program show", MOD, run=7)
    assert "There is no program run #7." in refused.text, refused

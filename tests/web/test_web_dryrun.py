"""`/dryrun`, declared only in the registry, on the faces that need a web server or Discord:
`POST /api/operations/dryrun` (in the OpenAPI document) answers with the dry run's facts as
data and refuses a bad request with /schedule's words and field; the slash command answers in
Discord. Nothing is queued by either. (The operation itself: tests/bot/test_dryrun.py.)"""

from __future__ import annotations

import json
from datetime import datetime

from bot.testkit.harness import MOD
from mcsim.server import Server
from tests.web.webclient import Client
from tests.web.webdash import Dash


def queued(server: Server) -> list[object]:
    return list(server.storage("doom.schedule:data").get("queue", []))  # type: ignore[call-overload]


async def test_the_api_gives_a_dry_run_as_data_and_refuses_in_the_schedule_s_words(
    faces: Dash,
) -> None:
    mod = await Client(faces).login(MOD)
    try:
        status, text = await mod.get("/api/openapi.json")
        assert "/api/operations/dryrun" in json.loads(text)["paths"]
        csrf = {"X-CSRF-Token": await mod.csrf()}
        request = {"run": "say hi", "time": 5, "unit": "second", "every": 3, "require": "empty"}
        status, body = await mod.post("/api/operations/dryrun", json=request, headers=csrf)
        assert status == 200, body
        found = json.loads(body)
        assert found["operation"] == "dryrun"
        assert found["outcome"].startswith("A dry run of this /schedule on main: nothing was sent")
        facts = found["facts"]
        now = faces.mc.game_time
        assert facts["commands"] == [{"command": "say hi", "executor": None}]
        assert facts["due_ticks"] == [now + 100 + 60 * k for k in range(10)]
        first, second = (datetime.fromisoformat(t) for t in facts["estimated_runs"][:2])
        assert (second - first).total_seconds() == 3.0
        assert facts["conditions"]["terms"] == [{"term": "empty", "holds": True}]
        assert queued(faces.mc) == []

        # refused as /schedule refuses it: the schedule route's words and field
        bad = {"run": "say hi", "time": 5}
        status, body = await mod.post("/api/servers/main/tasks", json=bad, headers=csrf)
        assert status == 400, body
        real = json.loads(body)
        assert real["field"] == "unit" and "time needs a unit: one of tick" in real["error"], real
        status, body = await mod.post("/api/operations/dryrun", json=bad, headers=csrf)
        assert status == 400, body
        said = json.loads(body)
        assert (said["field"], said["error"]) == (real["field"], real["error"])
        assert queued(faces.mc) == []
    finally:
        await mod.close()


async def test_discord_has_the_dry_run_as_a_slash_command(faces: Dash) -> None:
    reply = await faces.harness.run("dryrun", MOD, run="say hi", time=5, unit="second")
    assert reply.text.startswith("A dry run of this /schedule on main: nothing was sent"), reply
    assert "`say hi`, as the server" in reply.text, reply.text
    assert f"tick {faces.mc.game_time + 100}, about" in reply.text, reply.text
    assert queued(faces.mc) == []

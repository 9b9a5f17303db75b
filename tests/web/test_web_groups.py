"""`POST /api/groups/<group>/tasks`: /schedule on a group of servers from the API, each
server's outcome in the answer (the dashboard's one mcsim is the group `all`)."""

from __future__ import annotations

import json

from tests.cogs.harness import MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash, queue_ids


async def test_schedule_on_a_group_from_the_api(dash: Dash) -> None:
    client = await Client(dash).login(MOD)
    try:
        csrf = {"X-CSRF-Token": await client.csrf()}
        body = {"run": "say all", "time": 900, "id": "g1"}
        status, answer = await client.post("/api/groups/all/tasks", json=body, headers=csrf)
        assert status == 200, answer
        found = json.loads(answer)
        [main] = found["outcomes"]
        assert main["server"] == "main" and main["ok"] is True, found
        assert main["outcome"].startswith("Scheduled `g1` on main."), found
        assert found["outcome"].startswith("all: done on 1 of 1 servers."), found
        assert queue_ids(dash) == ["g1"]
        body = {"run": "stop", "time": 5, "id": "g2"}
        status, answer = await client.post("/api/groups/all/tasks", json=body, headers=csrf)
        assert status == 200 and json.loads(answer)["outcomes"][0]["ok"] is False, answer
        assert queue_ids(dash) == ["g1"]
        status, answer = await client.post("/api/groups/nope/tasks", json=body, headers=csrf)
        assert status == 404 and "nope" in answer, answer
    finally:
        await client.close()

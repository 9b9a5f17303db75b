"""`/api/groups/<group>/...`: the server routes on a group of servers from the API, each
server's outcome in the answer; one server that is down is named and stops none of the others.
Two mcsims over TCP RCON (the group `all`), the dashboard served on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.testkit.harness import ADMIN, MOD, make_settings
from mcsim.server import Server
from tests.fixtures import server_config
from tests.web.webclient import Client
from tests.web.webdash import BOT_TOKEN, PASSWORD, Dash, dash_on, queue_ids


def _queue(server: Server) -> list[str]:
    data = server.storage("doom.schedule:data")
    return [str(t["id"]) for t in data.get("queue", [])]  # type: ignore[union-attr]


@pytest.fixture
async def pair(mcsim: Callable[..., Server], tmp_path: Path) -> AsyncIterator[tuple[Dash, Server]]:
    main, other = mcsim(password=PASSWORD, name="main"), mcsim(password=PASSWORD, name="other")
    configs = [server_config(main, PASSWORD), server_config(other, PASSWORD, name="other")]
    # the default RCON timeout: a live server on a busy host may take over 2 s to answer, and
    # the one the test stops refuses the connection at once
    settings = make_settings(tmp_path, configs, discord_token=BOT_TOKEN, web_port=0)
    async with dash_on(settings, main) as dash:
        yield dash, other


async def _post(client: Client, path: str, body: object = None) -> tuple[int, Any]:
    csrf = {"X-CSRF-Token": await client.csrf()}
    status, answer = await client.post(path, json=body, headers=csrf)
    return status, json.loads(answer)


async def _get(client: Client, path: str) -> tuple[int, Any]:
    status, answer = await client.get(path)
    return status, json.loads(answer)


def _by_server(found: Any) -> dict[str, Any]:
    return {o["server"]: o for o in found["outcomes"]}


async def test_schedule_on_a_group_from_the_api(pair: tuple[Dash, Server]) -> None:
    dash, _other = pair
    client = await Client(dash).login(MOD)
    try:
        body = {"run": "say all", "time": 900, "unit": "tick", "id": "g1"}
        status, found = await _post(client, "/api/groups/all/tasks", body)
        assert status == 200, found
        main = _by_server(found)["main"]
        assert main["ok"] is True and main["outcome"].startswith("Scheduled g1 on main."), found
        assert found["outcome"].startswith("all: done on 2 of 2 servers."), found
        assert queue_ids(dash) == ["g1"]
        status, found = await _post(
            client, "/api/groups/all/tasks", {"run": "stop", "time": 5, "unit": "tick", "id": "g2"}
        )
        assert status == 200 and not any(o["ok"] for o in found["outcomes"]), found
        assert queue_ids(dash) == ["g1"]
        status, found = await _post(client, "/api/groups/nope/tasks", body)
        assert status == 404 and "nope" in found["error"], found
    finally:
        await client.close()


@pytest.mark.slow
async def test_every_group_route_answers_per_server_and_names_one_that_is_down(
    pair: tuple[Dash, Server],
) -> None:
    dash, other = pair
    mod, admin = await Client(dash).login(MOD), await Client(dash).login(ADMIN)
    try:
        await _post(
            mod, "/api/groups/all/tasks", {"run": "say t", "time": 900, "unit": "tick", "id": "t"}
        )
        status, found = await _post(mod, "/api/groups/all/tasks/t/pause")
        assert status == 200 and [o["done"] for o in found["outcomes"]] == [True, True], found
        assert _queue(dash.mc) == _queue(other) == []
        status, found = await _post(mod, "/api/groups/all/tasks/t/resume")
        assert status == 200 and _queue(dash.mc) == _queue(other) == ["t"], found
        status, found = await _get(mod, "/api/groups/all/tasks/t")
        assert [o["task"]["id"] for o in found["outcomes"]] == ["t", "t"], found
        status, found = await _get(mod, "/api/groups/all/lists/queue")
        assert [[t["id"] for t in o["tasks"]] for o in found["outcomes"]] == [["t"], ["t"]]
        status, found = await _get(mod, "/api/groups/all/time")
        assert status == 200 and all("game_time" in o for o in found["outcomes"]), found
        status, found = await _post(
            mod,
            "/api/groups/all/tasks/dynamic",
            {"run": "say d", "time": 900, "unit": "tick", "prefix": "api-"},
        )
        assert [o["id"].startswith("api-") for o in found["outcomes"]] == [True, True], found
        status, found = await _get(mod, "/api/groups/all/history/t")
        assert status == 200 and [o["total"] for o in found["outcomes"]] == [0, 0], found
        status, found = await _get(mod, "/api/groups/all")
        assert [s["name"] for s in found["servers"]] == ["main", "other"], found
        other.stop()
        status, found = await _post(mod, "/api/groups/all/tasks/t/cancel")
        assert status == 200, found
        assert found["outcome"].startswith("all: done on 1 of 2 servers."), found
        said = _by_server(found)
        assert said["main"]["ok"] and said["main"]["done"] and "done" not in said["other"]
        assert not said["other"]["ok"] and "'other'" in said["other"]["outcome"], said
        assert "t" not in _queue(dash.mc) and "t" in _queue(other)  # other: down, as it was
        status, found = await _get(mod, "/api/groups/all/time")
        assert [o["ok"] for o in found["outcomes"]] == [True, False], found
        status, found = await _post(admin, "/api/groups/all/clear", {"confirm": True})
        assert status == 200 and _by_server(found)["main"]["removed"] == 1, found
        assert _queue(dash.mc) == [] and not _by_server(found)["other"]["ok"], found
        status, found = await _post(mod, "/api/groups/all/clear", {"confirm": True})
        assert status == 403, found  # admins only
        status, found = await _post(mod, "/api/groups/all/tasks/t/explode")
        assert status == 404, found
        status, found = await _post(mod, f"/api/groups/all/tasks/{'x' * 65}/cancel")
        assert status == 400 and found["field"] == "task_id", found
    finally:
        await mod.close()
        await admin.close()

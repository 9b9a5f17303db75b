"""Security of the dashboard over real HTTP (aiohttp -> Hypercorn): nothing without a session,
CSRF on every write, roles re-checked with Discord at each action, rate limits, logout, and no
secret on any page, API answer, metric or log line."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

import pytest

from bot.testkit.harness import ADMIN, MOD, OTHER_ROLE
from tests.web.webclient import Client
from tests.web.webdash import BOT_TOKEN, PASSWORD, Dash, queue_ids
from web.app import create_app

READS = [
    "/servers",
    "/servers/main/queue",
    "/servers/main/paused",
    "/servers/main/tasks/keep",
    "/servers/main/clear",
    "/events",
    "/events/stream",
    "/audit",
    "/extensions",
    "/x/commands/",
    "/api/me",
    "/api/token",
    "/api/servers",
    "/api/servers/main/lists/queue",
    "/api/servers/main/tasks/keep",
    "/api/audit",
    "/api/events",
    "/discord-events",
    "/servers/main/admin",
    "/servers/main/tasks/keep/cancel_all",
    "/groups/all",
    "/groups/all/queue",
    "/groups/all/paused",
    "/groups/all/tasks/keep",
    "/groups/all/history/keep",
    "/groups/all/clear",
    "/groups/all/tasks/keep/cancel_all",
    "/pick?target=all&view=queue",
]
WRITES = [
    ("/servers/main/schedule", {"run": "say x", "time": "5"}),
    ("/servers/main/tasks/keep/cancel", {}),
    ("/servers/main/tasks/keep/pause", {}),
    ("/servers/main/clear", {"confirm": "yes"}),
    ("/extensions/reload", {"extension": "cogs.reads"}),
    ("/servers/main/planned/p1/cancel", {}),
    ("/servers/main/queue", {"run": "say x", "when": "in 5m", "preview": "1"}),
    ("/servers/main/setup", {}),
    ("/servers/main/selftest", {}),
    ("/discord-events", {"name": "x", "start": "in 1h"}),
    ("/discord-events/1/edit", {"name": "y"}),
    ("/discord-events/1/cancel", {}),
    ("/groups/all/queue", {"run": "say x", "time": "5"}),
    ("/groups/all/tasks/keep/cancel", {}),
    ("/groups/all/clear", {"confirm": "yes"}),
]
API_WRITES = [
    ("/api/servers/main/tasks", {"run": "say x", "time": 5, "unit": "tick"}),
    ("/api/servers/main/tasks/keep/cancel", {}),
    ("/api/servers/main/clear", {"confirm": True}),
    ("/api/servers/main/tasks/preview", {"run": "say x", "when": "in 5m"}),
]


@pytest.fixture
async def anon(kept: Dash) -> AsyncIterator[Client]:
    client = Client(kept)
    yield client
    await client.close()


@pytest.fixture
async def mod(kept: Dash) -> AsyncIterator[Client]:
    client = await Client(kept).login(MOD)
    yield client
    await client.close()


async def test_nothing_is_read_or_done_without_a_session(kept: Dash, anon: Client) -> None:
    for path in READS:
        status, body = await anon.get(path)
        assert status == 401, (path, status, body[:200])
        assert "keep" not in body and "say keep" not in body
    for path, form in WRITES:
        status, body = await anon.post(path, data=form)
        assert status == 401, (path, status, body[:200])
    for path, payload in API_WRITES:
        status, body = await anon.post(path, json=payload)
        assert status == 401, (path, status)
        assert "not logged in" in body
    status, _ = await anon.get("/api/servers", headers={"Authorization": "Bearer forged.token"})
    assert status == 401
    assert queue_ids(kept) == ["keep"]
    # metrics and health need no login
    assert (await anon.get("/healthz"))[0] == 200
    assert (await anon.get("/metrics"))[0] == 200


async def test_a_write_without_the_csrf_token_is_refused(kept: Dash, mod: Client) -> None:
    for data in ({}, {"csrf_token": "forged"}, {"csrf_token": ""}):
        status, body = await mod.post("/servers/main/tasks/keep/cancel", data=data)
        assert status == 403 and "security token" in body, (data, status)
    status, body = await mod.post("/api/servers/main/tasks/keep/cancel", json={})
    assert status == 403 and "security token" in body
    status, _ = await mod.post(
        "/api/servers/main/tasks",
        json={"run": "say x", "time": 5, "unit": "tick"},
        headers={"X-CSRF-Token": "forged"},
    )
    assert status == 403
    assert queue_ids(kept) == ["keep"]
    # another session's token is no good either
    other = await Client(kept).login(ADMIN)
    try:
        status, _ = await mod.post(
            "/servers/main/tasks/keep/cancel", data={"csrf_token": await other.csrf()}
        )
        assert status == 403
    finally:
        await other.close()
    assert queue_ids(kept) == ["keep"]
    status, _ = await mod.post(
        "/servers/main/tasks/keep/cancel", data={"csrf_token": await mod.csrf()}
    )
    assert status == 303
    assert queue_ids(kept) == []


async def test_a_role_taken_away_in_discord_is_refused_at_the_next_action(
    kept: Dash, mod: Client
) -> None:
    token = await mod.csrf()
    assert (await mod.get("/servers/main/queue"))[0] == 200
    kept.harness.discord.set_roles(MOD.id, [OTHER_ROLE])  # a guild admin removes the role
    status, body = await mod.post("/servers/main/tasks/keep/cancel", data={"csrf_token": token})
    assert status == 403 and "no longer allow" in body
    assert queue_ids(kept) == ["keep"]
    # and the session is over: reads are refused too
    assert (await mod.get("/servers/main/queue"))[0] == 401
    # an admin demoted to moderator keeps reading but cannot clear any more
    admin = await Client(kept).login(ADMIN)
    try:
        csrf = await admin.csrf()
        kept.harness.discord.set_roles(ADMIN.id, [MOD.roles[0]])
        status, body = await admin.post(
            "/servers/main/clear", data={"csrf_token": csrf, "confirm": "yes"}
        )
        assert status == 403 and "admin role" in body
        assert queue_ids(kept) == ["keep"]
    finally:
        await admin.close()


async def test_bearer_token_for_scripts_and_logout_ends_it(kept: Dash, mod: Client) -> None:
    status, body = await mod.get("/api/token")
    token = json.loads(body)["token"]
    bearer = Client(kept)
    try:
        headers = {"Authorization": f"Bearer {token}"}
        status, body = await bearer.post(
            "/api/servers/main/tasks",
            json={"run": "say api", "time": 50, "unit": "tick", "id": "api"},
            headers=headers,
        )
        assert status == 201, body
        assert "Scheduled api on main." in body
        assert sorted(queue_ids(kept)) == ["api", "keep"]
        status, body = await bearer.post(
            "/api/servers/main/tasks",
            json={"run": "tp @s ~ ~ ~x", "time": 5, "unit": "tick"},
            headers=headers,
        )
        assert status == 400
        assert json.loads(body)["caret"] == "tp @s ~ ~ ~x\n" + " " * 10 + "^"
        status, body = await bearer.post(
            "/api/servers/main/tasks", json={"run": "say x", "time": "soon"}, headers=headers
        )
        assert status == 400 and "schema" in body
        assert (await mod.post("/logout", data={"csrf_token": await mod.csrf()}))[0] == 303
        status, page = await mod.get("/logged-out")  # where the logout sends the browser
        assert status == 200 and "You are logged out" in page
        assert (await bearer.get("/api/servers", headers=headers))[0] == 401
        assert (await mod.get("/servers"))[0] == 401
    finally:
        await bearer.close()


async def test_login_is_rate_limited(kept: Dash, anon: Client) -> None:
    statuses = [(await anon.post("/login", data={"t": f"bad{i}"}))[0] for i in range(12)]
    assert statuses[:10] == [403] * 10
    assert statuses[10:] == [429, 429]


async def test_no_secret_in_any_page_answer_metric_or_log(
    kept: Dash, mod: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    admin = await Client(kept).login(ADMIN)
    seen: list[str] = []
    try:
        for client in (mod, admin):
            for path in [*READS, "/metrics", "/healthz", "/api/openapi.json"]:
                if path == "/events/stream":
                    continue  # endless; its events are on /events and /api/events
                status, body = await client.get(path)
                admin_only = path in (
                    "/servers/main/clear",
                    "/servers/main/admin",
                    "/groups/all/clear",
                )
                admin_only = admin_only and client is mod
                redirect = path.startswith("/pick")  # to the page picked
                assert status == (403 if admin_only else 303 if redirect else 200), (
                    path,
                    status,
                    body[:300],
                )
                seen.append(body)
        status, body = await admin.post(
            "/servers/main/schedule",
            data={"csrf_token": await admin.csrf(), "run": "sya x", "time": "1"},
        )
        seen.append(body)
    finally:
        await admin.close()
    logged = [r.getMessage() for r in caplog.records] + [caplog.text]
    for secret in (PASSWORD, BOT_TOKEN):
        assert not [s for s in seen if secret in s]
        assert not [line for line in logged if secret in line]
    # the login tokens of the links never reach a log line
    link = await kept.link(MOD)
    token = link.split("t=")[1]
    assert not [r for r in caplog.records if token in r.getMessage()]


async def test_session_cookie_flags(kept: Dash) -> None:
    # over http (the test server): HttpOnly and SameSite, not Secure
    link = await kept.link(MOD)
    client = Client(kept)
    try:
        token = link.split("t=")[1]
        async with client.http.post("/login", data={"t": token}, allow_redirects=False) as r:
            cookie = r.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    finally:
        await client.close()
    # behind https (DOOM_WEB_URL): Secure too
    settings = kept.web.settings.model_copy(update={"web_url": "https://dash.example.org"})
    app = create_app(kept.harness.services, bot=kept.harness.bot, settings=settings)
    async with app.test_app() as running:
        token = app.extensions["doom"].links.issue(MOD.id, 1, "mod")
        response = await running.test_client().post("/login", form={"t": token})
        assert response.status_code == 303
        cookie = response.headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


async def test_a_moderator_cannot_reach_the_packs_state_through_the_api_or_the_page(
    kept: Dash, mod: Client
) -> None:
    """The role boundary holds on the web faces too: the refusal names the rule."""
    status, body = await mod.get("/api/token")
    headers = {"Authorization": f"Bearer {json.loads(body)['token']}"}
    bearer = Client(kept)
    try:
        status, body = await bearer.post(
            "/api/servers/main/tasks",
            json={
                "run": "data modify storage doom.schedule:data queue set value []",
                "time": 5,
                "unit": "tick",
            },
            headers=headers,
        )
        assert status == 400
        assert json.loads(body)["error"] == (
            "This command touches the pack's own storage doom.schedule:data: only the bot's own "
            "commands may change it."
        )
    finally:
        await bearer.close()
    status, body = await mod.post(
        "/servers/main/schedule",
        data={
            "run": "execute as @a run scoreboard objectives remove doom.schedule",
            "time": "5",
            "unit": "tick",
            "csrf_token": await mod.csrf(),
        },
    )
    assert "touches the pack&#39;s scoreboard objective doom.schedule" in body, body
    assert queue_ids(kept) == ["keep"]

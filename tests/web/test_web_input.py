"""Bad input over real HTTP (aiohttp -> Hypercorn): bodies over DOOM_WEB_MAX_BODY are a 413,
values out of range and unknown fields a 400 naming the field, nothing is changed by a refused
request; the login rate limit counts per link and per user, and believes X-Forwarded-For only
from DOOM_WEB_TRUSTED_PROXIES."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from ipaddress import ip_network
from typing import Any
from urllib.parse import parse_qs, urlparse

import aiohttp
import pytest

from bot.testkit.harness import ADMIN, MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash, queue_ids
from web import server as web_server
from web.server import WebServer


@pytest.fixture
async def mod(kept: Dash) -> AsyncIterator[Client]:
    client = await Client(kept).login(MOD)
    yield client
    await client.close()


def refusal(body: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(body)
    assert set(found) >= {"error", "field"}, found
    return found


async def test_a_json_body_over_the_limit_is_413_and_changes_nothing(
    kept: Dash, mod: Client
) -> None:
    limit = 64 * 1024  # DOOM_WEB_MAX_BODY's default
    headers = {"X-CSRF-Token": await mod.csrf()}
    big = {"run": "say x", "time": 5, "unit": "tick", "id": "big", "pad": "x" * (limit + 1)}
    status, body = await mod.post("/api/servers/main/tasks", json=big, headers=headers)
    assert status == 413, body
    assert "at most 65,536 bytes" in refusal(body)["error"]

    # the same without a declared length (chunked): read up to the limit, then refused
    async def chunks() -> AsyncIterator[bytes]:
        text = json.dumps(big).encode()
        for start in range(0, len(text), 8192):
            yield text[start : start + 8192]

    status, body = await mod.post(
        "/api/servers/main/tasks",
        data=chunks(),
        headers={**headers, "Content-Type": "application/json"},
    )
    assert status == 413, body
    # any other body too: a text/plain one on a write that reads no form is not let through
    status, body = await mod.post(
        "/api/servers/main/tasks/keep/cancel",
        data="x" * (limit + 1),
        headers={**headers, "Content-Type": "text/plain"},
    )
    assert status == 413, body
    assert queue_ids(kept) == ["keep"]
    # just under the limit is read as usual
    status, body = await mod.post(
        "/api/servers/main/tasks",
        json={"run": "say " + "y" * 1300, "time": 5, "unit": "tick", "id": "ok"},
        headers=headers,
    )
    assert status == 201, body
    assert kept.web.settings.web_max_body == limit


async def test_a_10_mb_login_form_is_a_readable_413_page(kept: Dash) -> None:
    client = Client(kept)
    try:
        status, html = await client.post("/login", data={"t": "x" * 10_000_000})
        assert status == 413
        assert "<h1>Too large</h1>" in html and "at most 65,536 bytes" in html
        assert "Traceback" not in html and "quote" not in html
    finally:
        await client.close()


async def test_a_huge_or_negative_page_is_refused_naming_page(kept: Dash, mod: Client) -> None:
    for page in ("99999999999999999999", "-1", "0", "1000001", "1e3", "x" * 5000):
        status, body = await mod.get(f"/api/servers/main/lists/queue?page={page}")
        assert status == 400, (page, status, body[:300])
        assert refusal(body)["field"] == "page"
        status, html = await mod.get(f"/servers/main/queue?page={page}")
        assert status == 400, (page, status, html[:300])
        assert "page number must be a whole number from 1 to 1,000,000" in html
    # the last allowed page past the end of the list is empty, not an error
    status, body = await mod.get("/api/servers/main/lists/queue?page=1000000")
    assert status == 200 and json.loads(body)["tasks"] == []


async def test_an_unknown_field_is_refused_naming_it_and_nothing_runs(
    kept: Dash, mod: Client
) -> None:
    headers = {"X-CSRF-Token": await mod.csrf()}
    before = len(kept.mc.storage("doom.schedule:data").get("queue", []))  # type: ignore[arg-type]
    # a field the API does not know must not be dropped and the command run now; `when` with
    # a game time is refused as /schedule refuses it
    cases = [
        (
            {"run": "say x", "later": "in 5m", "time": 0, "unit": "tick"},
            "later",
            "Unknown field later",
        ),
        (
            {"run": "say x", "when": "in 5m", "time": 0, "unit": "tick"},
            "when",
            "when set a wall-clock time",
        ),
        ({"run": "say x"}, "time", "Give either time (a delay) or at (a game tick)"),
        ({"run": "say x", "time": "soon"}, "time", "must be a whole number"),
        (
            {"run": "say x", "time": 2**40, "unit": "tick"},
            "time",
            "must be a whole number from 0 to 2,147,483,647",
        ),
        ({"run": "say x", "time": 5, "unit": "week"}, "unit", "unit is one of tick, second"),
        (
            {"run": "say x", "time": 5, "unit": "tick", "retry": -1},
            "retry",
            "must be a whole number from 0 to 1,000",
        ),
        ({"run": "", "time": 5, "unit": "tick"}, "run", "1 to 1,400 characters"),
    ]
    for payload, field, said in cases:
        status, body = await mod.post("/api/servers/main/tasks", json=payload, headers=headers)
        assert status == 400, (payload, body)
        found = refusal(body)
        assert found["field"] == field and said in found["error"], (payload, found)
    for payload in ([1, 2], "say x", None):
        status, body = await mod.post(
            "/api/servers/main/tasks",
            data=json.dumps(payload),
            headers={**headers, "Content-Type": "application/json"},
        )
        assert status == 400 and "JSON object" in refusal(body)["error"], (payload, body)
    for raw in (
        b"{not json",
        b'{"run": "say \xa5", "time": 5, "unit": "tick"}',
    ):  # not JSON; not UTF-8
        status, body = await mod.post(
            "/api/servers/main/tasks",
            data=raw,
            headers={**headers, "Content-Type": "application/json"},
        )
        assert status == 400, (raw, body)
        assert refusal(body)["error"], body
    admin = await Client(kept).login(ADMIN)
    try:
        status, body = await admin.post(
            "/api/servers/main/clear",
            json={"confirm": True, "everything": True},
            headers={"X-CSRF-Token": await admin.csrf()},
        )
        assert status == 400 and refusal(body)["field"] == "everything"
    finally:
        await admin.close()
    assert queue_ids(kept) == ["keep"]
    assert len(kept.mc.storage("doom.schedule:data").get("queue", [])) == before  # type: ignore[arg-type]
    assert not [e for e in kept.harness.services.bus.history if "say x" in str(e.details)]


async def test_the_schedule_form_says_a_bad_value_on_its_page(kept: Dash, mod: Client) -> None:
    csrf = await mod.csrf()
    for form, said in (
        ({"run": "say x", "time": "5", "unit": "week"}, "is one of tick, second"),
        ({"run": "say x", "time": "99999999999"}, "must be a whole number from 0 to 2,147,483,647"),
        ({"run": "say x", "time": "5", "retry": "-2"}, "must be a whole number from 0 to 1,000"),
    ):
        status, html = await mod.post("/servers/main/schedule", data={**form, "csrf_token": csrf})
        assert status == 400 and said in html, (form, status, html[:300])
        assert 'value="say x"' in html  # the form is kept for the fix
    assert queue_ids(kept) == ["keep"]


async def test_ids_and_filters_out_of_range_are_400_naming_them(kept: Dash, mod: Client) -> None:
    headers = {"X-CSRF-Token": await mod.csrf()}
    status, body = await mod.post(
        "/api/servers/main/planned/99999999999999999999999/cancel", headers=headers
    )
    assert status == 400 and refusal(body)["field"] == "plan_id", body
    for query, field in (("user=99999999999999999999999", "user"), ("before=-3", "before")):
        status, body = await mod.get(f"/api/audit?{query}")
        assert status == 400 and refusal(body)["field"] == field, body
        status, html = await mod.get(f"/audit?{query}")
        assert status == 400 and "must be a whole number" in html
    status, body = await mod.get("/api/servers/main/tasks/" + "k" * 300)
    assert status == 400 and refusal(body)["field"] == "task_id", body
    status, body = await mod.get("/api/servers/main/lists/queue?id=a%20b")
    assert status == 400 and refusal(body)["field"] == "id", body
    # a method a route does not take is a 405, on a page and in the API
    async with mod.http.put("/servers") as r:
        assert r.status == 405 and "does not take PUT" in await r.text()
    async with mod.http.delete("/api/servers") as r:
        assert r.status == 405 and refusal(await r.text())["field"] is None


# -- the login rate limit ---------------------------------------------------------------------


def token_of(link: str) -> str:
    return parse_qs(urlparse(link).query)["t"][0]


async def login_status(http: aiohttp.ClientSession, token: str, via: str | None = None) -> int:
    headers = {"X-Forwarded-For": via} if via else {}
    async with http.post("/login", data={"t": token}, headers=headers, allow_redirects=False) as r:
        return r.status


async def test_one_users_wrong_tries_behind_a_proxy_lock_out_nobody_else(kept: Dash) -> None:
    """Everyone comes from the proxy's address (127.0.0.1, not a trusted proxy here)."""
    http = aiohttp.ClientSession(kept.url)
    try:
        # the moderator mistypes their link, then keeps pressing a used one
        statuses = [await login_status(http, f"typo{i}", "198.51.100.7") for i in range(11)]
        assert statuses == [403] * 10 + [429]
        used = token_of(await kept.link(MOD))
        assert await login_status(http, used) == 303
        statuses = [await login_status(http, used) for _ in range(10)]
        assert statuses == [403] * 9 + [429]  # 10 tries a minute for one link
        # the admin, behind the same proxy, logs in with their own link at once
        assert await login_status(http, token_of(await kept.link(ADMIN)), "198.51.100.8") == 303
        # and the moderator with a new link: their first link's tries do not count for it
        assert await login_status(http, token_of(await kept.link(MOD))) == 303
    finally:
        await http.close()


async def test_a_users_links_share_a_limit(kept: Dash) -> None:
    http = aiohttp.ClientSession(kept.url)
    try:
        statuses = []
        for _ in range(7):
            used = token_of(await kept.link(MOD))
            statuses += [await login_status(http, used) for _ in range(3)]
        assert statuses[:20] == [303, 403, 403] * 6 + [303, 403]
        assert statuses[20] == 429  # 20 a minute for all of one user's links
        assert await login_status(http, token_of(await kept.link(ADMIN))) == 303
    finally:
        await http.close()


async def another_web(dash: Dash, trusted: list[str]) -> WebServer:
    settings = dash.web.settings.model_copy(
        update={"web_trusted_proxies": [ip_network(n) for n in trusted]}
    )
    web = WebServer(
        dash.harness.services, dash.harness.bot, settings=settings, port=0, clock=dash.clock
    )
    await web.start()
    return web


@pytest.mark.parametrize("trusted", [["127.0.0.1"], ["10.0.0.0/8", "::1/128"]])
async def test_x_forwarded_for_is_believed_only_from_a_trusted_proxy(
    kept: Dash, trusted: list[str]
) -> None:
    web = await another_web(kept, trusted)
    http = aiohttp.ClientSession(web.base_url)
    try:
        first = [await login_status(http, f"bad{i}", "203.0.113.1") for i in range(11)]
        assert first == [403] * 10 + [429]
        other = await login_status(http, "bad", "203.0.113.2")
        if "127.0.0.1" in trusted:  # the proxy (our peer) is trusted: another client
            assert other == 403
        else:  # an untrusted peer's header is ignored: the same address, limited
            assert other == 429
    finally:
        await http.close()
        await web.stop()


def test_the_hops_believed_follow_the_trusted_proxies_from_the_right() -> None:
    fix = web_server.TrustedProxies(None, [ip_network("10.0.0.0/8"), ip_network("127.0.0.1/32")])

    def hops(peer: str, *forwarded: str) -> int:
        headers = [(b"x-forwarded-for", f.encode()) for f in forwarded]
        return fix.hops({"type": "http", "client": (peer, 1234), "headers": headers})

    assert hops("127.0.0.1") == 0  # nothing forwarded
    assert hops("192.0.2.1", "203.0.113.1") == 0  # an untrusted peer
    assert hops("127.0.0.1", "203.0.113.1") == 1
    assert hops("127.0.0.1", "198.51.100.9, 203.0.113.1, 10.1.2.3") == 2
    assert hops("127.0.0.1", "198.51.100.9, 203.0.113.1", "10.1.2.3") == 2  # two headers
    assert hops("127.0.0.1", "10.0.0.1, 10.0.0.2") == 2  # all trusted: the leftmost
    assert hops("127.0.0.1", "garbage, 10.0.0.2") == 2

"""An HTTP client for the dashboard tests: aiohttp over real TCP to the Hypercorn server."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlparse

import aiohttp

from bot.testkit.harness import MOD, User
from tests.web.webdash import Dash


class Client:
    def __init__(self, dash: Dash) -> None:
        self.dash = dash
        # unsafe: keep cookies for an IP address host (127.0.0.1)
        self.http = aiohttp.ClientSession(
            dash.url,
            cookie_jar=aiohttp.CookieJar(unsafe=True),
            timeout=aiohttp.ClientTimeout(total=30),
        )

    async def close(self) -> None:
        await self.http.close()

    async def login(self, user: User = MOD) -> Client:
        link = await self.dash.link(user)
        token = parse_qs(urlparse(link).query)["t"][0]
        async with self.http.get(f"/login?t={token}") as page:
            assert page.status == 200, await page.text()
        async with self.http.post("/login", data={"t": token}, allow_redirects=False) as done:
            assert done.status == 303, await done.text()
        return self

    async def csrf(self) -> str:
        async with self.http.get("/api/me") as r:
            assert r.status == 200, await r.text()
            token: str = (await r.json())["csrf_token"]
            return token

    async def get(self, path: str, **kw: Any) -> tuple[int, str]:
        async with self.http.get(path, allow_redirects=False, **kw) as r:
            return r.status, await r.text()

    async def post(self, path: str, **kw: Any) -> tuple[int, str]:
        async with self.http.post(path, allow_redirects=False, **kw) as r:
            return r.status, await r.text()


async def api(client: Client, operation: str, body: dict[str, Any]) -> dict[str, Any]:
    """An operation's facts through the JSON API (what every face reads), asserted to succeed."""
    headers = {"X-CSRF-Token": await client.csrf()}
    status, text = await client.post(f"/api/operations/{operation}", json=body, headers=headers)
    assert status == 200, text
    facts: dict[str, Any] = json.loads(text)["facts"]
    return facts

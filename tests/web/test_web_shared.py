"""Two dashboards on one PostgreSQL database, as two bot processes behind one load balancer:
a login made through one is good in the other, a logout through one ends it in both, a link is
good once whichever opens it, and a rate limit counts the requests to both. A database that
stops answering lets the rate-limited pages through rather than failing them."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

from bot.config import Settings
from bot.operations import Caller, Operations, Rank, access
from bot.operations.base import StoreAuditor
from bot.operations.requests import validated
from bot.services import Services
from bot.store.audit import AuditStore
from bot.store.db import Database
from web.server import WebServer

ADMIN = Caller(0, "tester", Rank.ADMIN, "console", 1)


@asynccontextmanager
async def dashboards(url: str, tmp_path: Path, count: int) -> AsyncIterator[list[WebServer]]:
    """`count` dashboards, each on services of its own (its own connections) on `url`, signing
    with the key the database keeps (no secret given)."""
    async with AsyncExitStack() as stack:
        webs: list[WebServer] = []
        for i in range(count):
            settings = Settings(  # type: ignore[call-arg]
                _env_file=None, data_dir=tmp_path / f"data{i}", web_port=0, web_host="127.0.0.1"
            )
            db = Database(url)
            stack.push_async_callback(db.close)
            services = Services(settings, {}, AuditStore(db))
            web = WebServer(services, None, ops=Operations(services, StoreAuditor(services)))
            await web.start()
            stack.push_async_callback(web.stop)
            webs.append(web)
        yield webs


async def _code(web: WebServer) -> str:
    return await access.login(
        web.state.ops, ADMIN, validated(access.AccessRequest, {"name": "Ada"})
    )


async def _me(http: aiohttp.ClientSession, web: WebServer) -> tuple[int, Any]:
    async with http.get(f"{web.base_url}/api/me") as r:
        return r.status, await r.json()


def _client() -> aiohttp.ClientSession:
    # one browser: a cookie is the host's, whatever the port (RFC 6265), as behind one balancer
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def test_a_login_through_one_dashboard_is_good_in_the_other_until_logged_out(
    postgres: Any, tmp_path: Path
) -> None:
    url = postgres.new_database(template="doom_template")
    async with dashboards(url, tmp_path, 2) as (one, other), _client() as http:
        async with http.post(f"{one.base_url}/login", data={"c": await _code(one)}) as r:
            assert r.status == 200 and str(r.url).endswith("/servers")
        status, me = await _me(http, other)
        assert status == 200 and (me["name"], me["rank"]) == ("Ada", "moderator")
        # the CSRF token one page gave is good for a form sent to the other
        csrf = (await _me(http, one))[1]["csrf_token"]
        async with http.post(f"{other.base_url}/logout", data={"csrf_token": csrf}) as r:
            assert r.status == 200 and str(r.url).endswith("/logged-out")
        for web in (one, other):
            status, said = await _me(http, web)
            assert status == 401 and "not logged in" in said["error"]


async def test_a_dashboard_link_is_good_once_whichever_dashboard_opens_it(
    postgres: Any, tmp_path: Path
) -> None:
    url = postgres.new_database(template="doom_template")
    async with dashboards(url, tmp_path, 2) as (one, other), _client() as http:
        token = one.login_link(7, 1, "Ada").split("t=")[1]
        async with http.get(f"{other.base_url}/login", params={"t": token}) as r:
            assert r.status == 200  # made by one, known to the other
        form = {"t": token}
        async with http.post(f"{other.base_url}/login", data=form, allow_redirects=False) as r:
            assert r.status == 303
        async with http.post(f"{one.base_url}/login", data=form) as r:
            assert r.status == 403 and "already used" in await r.text()


async def test_a_rate_limit_counts_the_requests_to_both_dashboards(
    postgres: Any, tmp_path: Path
) -> None:
    url = postgres.new_database(template="doom_template")
    async with dashboards(url, tmp_path, 2) as (one, other), _client() as http:
        statuses = []
        # 10 tries a minute for an address that sends no link of ours: 5 to each, then more
        for i in range(12):
            web = (one, other)[i % 2]
            async with http.get(f"{web.base_url}/login", params={"t": f"guess{i}"}) as r:
                statuses.append(r.status)
        assert statuses == [403] * 10 + [429, 429]


async def test_a_database_that_stops_answering_lets_the_limited_pages_through(
    postgres: Any, tmp_path: Path
) -> None:
    url = postgres.new_database(template="doom_template")
    name = url.rsplit("/", 1)[1]
    async with dashboards(url, tmp_path, 1) as (web,), _client() as http:
        postgres.psql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        postgres.terminate_backends(name)
        try:
            for i in range(12):  # past the limit: not counted, and no 5xx
                async with http.get(f"{web.base_url}/login", params={"t": f"g{i}"}) as r:
                    page = await r.text()
                    assert r.status == 403, page
                    assert re.search("not a valid login link", page)
        finally:
            postgres.psql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")

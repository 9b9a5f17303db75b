"""What the host says of its plugins on the dashboard: the extensions page lists each with its
state, why, its commands and its page; /metrics has a gauge per plugin and state; a plugin's
pages are served with no cog behind them, and pages that cannot be made, or whose path another
plugin has, keep that plugin from loading."""

from __future__ import annotations

import re
from importlib.metadata import Distribution
from pathlib import Path

import aiohttp
import pytest

from bot.operations import Caller, Rank, access
from bot.operations.requests import validated
from bot.plugins import GROUP, load_plugins
from tests.plugins.test_plugin_host import installed, shell
from web.server import WebServer

PAGES = """
from bot.api import Plugin

def pages():
    from quart import Blueprint
    blueprint = Blueprint("notes", __name__)

    @blueprint.get("/")
    async def index():
        return "the notes page"

    return blueprint

def broken():
    raise RuntimeError("no pages today")

PLUGIN = Plugin(name="notes", version="2.0", pages=pages, label="Notes")
TWIN = Plugin(name="twin", version="1", pages=pages)
BROKEN = Plugin(name="nopages", version="1", pages=broken)
"""


async def test_the_dashboard_lists_the_plugins_and_serves_their_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = installed(tmp_path)
    (tmp_path / "notes_plugin.py").write_text(PAGES)
    with (info / "entry_points.txt").open("a") as entries:
        entries.write(
            "notes = notes_plugin:PLUGIN\ntwin = notes_plugin:TWIN\nnopages = notes_plugin:BROKEN\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path))
    ops = shell(tmp_path, web_port=0, web_host="127.0.0.1")
    found = Distribution.at(info).entry_points.select(group=GROUP)
    ops.plugins = await load_plugins(ops, ops.services.settings, found=found, setup_limit=0.5)
    states = {s.name: s for s in ops.plugins}
    assert states["notes"].state == "loaded" and states["notes"].pages == "/x/notes/"
    assert (
        states["twin"].state == "failed" and "/x/notes/ is another plugin's" in states["twin"].why
    )
    assert states["nopages"].state == "failed" and "no pages today" in states["nopages"].why

    web = WebServer(ops.services, None, ops=ops)
    await web.start()
    admin = Caller(0, "tester", Rank.ADMIN, "console", 1)
    code = await access.login(ops, admin, validated(access.AccessRequest, {"name": "Ada"}))
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.post(f"{web.base_url}/login", data={"c": code}) as r:
                assert r.status == 200
            async with http.get(f"{web.base_url}/extensions") as r:
                page = await r.text()
            assert r.status == 200, page
            rows = re.findall(r"<tr>.*?</tr>", page, re.S)
            notes = next(row for row in rows if "<code>notes</code>" in row)
            assert "2.0" in notes and "loaded" in notes and 'href="/x/notes/"' in notes
            broken = next(row for row in rows if "<code>broken</code>" in row)
            assert "failed" in broken and "the plugin is broken" in broken
            hello = next(row for row in rows if "<code>hello</code>" in row)
            assert "<code>/hello</code>" in hello
            async with http.get(f"{web.base_url}/x/notes/") as r:
                assert r.status == 200 and await r.text() == "the notes page"
            async with http.get(f"{web.base_url}/servers") as r:
                assert 'href="/x/notes/"' in await r.text()  # "Notes" in the navigation
            async with http.get(f"{web.base_url}/metrics") as r:
                metrics = await r.text()
        assert 'doom_plugin_state{plugin="notes",state="loaded"} 1.0' in metrics
        assert 'doom_plugin_state{plugin="broken",state="failed"} 1.0' in metrics
        assert 'doom_plugin_state{plugin="broken",state="loaded"} 0.0' in metrics
        assert 'doom_plugin_state{plugin="future",state="incompatible"} 1.0' in metrics
    finally:
        await web.stop()
        await ops.services.close()

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

from bot.core import Core
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
    ops = Core.around(shell(tmp_path, web_port=0, web_host="127.0.0.1").services).ops
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
            async with http.get(f"{web.base_url}/api/me") as r:
                csrf = (await r.json())["csrf_token"]
            form = {"plugin": "hello", "csrf_token": csrf}
            async with http.post(f"{web.base_url}/extensions/plugins/reload", data=form) as r:
                page = await r.text()
            # this session is a moderator's: reloading is an admin's
            assert r.status == 403 and "You need the admin role to reload plugins." in page
        request = validated(access.AccessRequest, {"name": "Al", "rank": "admin"})
        code = await access.login(ops, admin, request)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.post(f"{web.base_url}/login", data={"c": code}) as r:
                assert r.status == 200
            async with http.get(f"{web.base_url}/api/me") as r:
                csrf = (await r.json())["csrf_token"]
            form = {"plugin": "hello", "csrf_token": csrf}
            async with http.post(f"{web.base_url}/extensions/plugins/reload", data=form) as r:
                page = await r.text()
            assert r.status == 200 and "Reloaded the plugin hello 1.2.0." in page, page
            async with http.get(f"{web.base_url}/metrics") as r:
                metrics = await r.text()
        assert 'doom_plugin_state{plugin="notes",state="loaded"} 1.0' in metrics
        assert 'doom_plugin_state{plugin="broken",state="failed"} 1.0' in metrics
        assert 'doom_plugin_state{plugin="broken",state="loaded"} 0.0' in metrics
        assert 'doom_plugin_state{plugin="future",state="incompatible"} 1.0' in metrics
    finally:
        await web.stop()
        await ops.services.close()


GREET = """
from pydantic import BaseModel, ConfigDict
from bot.api import OperationSpec, Plugin, Rank

SAID = "{said}"

class Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

async def greet(ops, caller, req):
    return f"greet {{SAID}}"

PLUGIN = Plugin(
    name="greet",
    version=SAID,
    operations=(OperationSpec("greet", "Greet.", Nothing, Rank.MODERATOR, greet),),
    cogs=("greet_cog",),
)
"""
COG = """
import discord
from discord import app_commands
from discord.ext import commands

SAID = "{said}"

class Greeter(commands.Cog):
    @app_commands.command(description="A plugin's own cog.")
    async def greetcog(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"cog {{SAID}}", ephemeral=True)

async def setup(bot):
    await bot.add_cog(Greeter())
"""


def _write(where: Path, said: str) -> None:
    (where / "greet_plugin.py").write_text(GREET.format(said=said))
    (where / "greet_cog.py").write_text(COG.format(said=said))


async def test_a_plugin_brings_a_cog_and_reloads_with_it_from_any_face(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.operations.registry import run
    from bot.services import Services
    from bot.store.audit import AuditStore
    from bot.testkit.harness import ADMIN, MOD, Harness, make_settings
    from tests.console.typed import typed

    site = tmp_path / "site"
    info = site / "doom_greet-1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: doom-greet\nVersion: 1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\ngreet = greet_plugin:PLUGIN\n")
    _write(site, "1")
    monkeypatch.syspath_prepend(str(site))
    settings = make_settings(tmp_path)
    services = Services(settings, {}, AuditStore(tmp_path / "audit.sqlite3"))
    core = Core.around(services)
    found = Distribution.at(info).entry_points.select(group=GROUP)
    core.ops.plugins = await load_plugins(core.ops, settings, found=found)
    [state] = core.ops.plugins
    assert state.state == "loaded" and state.cogs == ("greet_cog",)
    harness = await Harness(settings, services, core).start()
    try:
        assert (await harness.run("greet", MOD)).text == "greet 1"
        assert (await harness.run("greetcog", MOD)).text == "cog 1"  # the Discord bot loaded it
        status = await run(core.ops, Caller(0, "a", Rank.ADMIN, "console", 1), "status", {})
        [plugins] = [s for s in status.sections if s.title == "Installed plugins"]
        assert plugins.lines == ("`greet` 1: loaded",)

        _write(site, "22")  # an upgrade: the plugin's code changed on disk
        said = await typed(core.ops, "/plugin reload name:greet\n/greet\n", ADMIN)
        assert "Reloaded the plugin greet 22." in said and "greet 22" in said, said
        assert (await harness.run("greetcog", MOD)).text == "cog 22"  # its cog reloaded too
        refused = await harness.run("plugin reload", MOD, name="greet")
        assert "You need the admin role" in refused.text
        unknown = await typed(core.ops, "/plugin reload name:nope\n", ADMIN)
        assert "There is no installed plugin called 'nope' (installed: greet)." in unknown
    finally:
        await harness.close()

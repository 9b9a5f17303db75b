"""`python -m bot plugins new NAME DIR`: a plugin's project, ready to install and test.

It writes an installable project (pyproject.toml with the entry point in the group
``doom_schedule.plugins``), a package with one operation ``NAME`` (the server's game time, asked
through the API's :func:`bot.api.run`, so the rank check is the built-in ``/time``'s) and one
dashboard page, its tests on the test kit's fixtures (``doom_core``, ``doom_dashboard``), and a
README. Installed with pip into the bot's environment, its operation is a slash command, a
console command and an API route; its tests pass with a plain ``pytest`` in DIR.
"""

from __future__ import annotations

__all__ = ["new_plugin"]

import keyword
import re
from pathlib import Path
from string import Template

from bot import errors
from bot.i18n import _

NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "doom-schedule-$name"
version = "0.1.0"
description = "A doom.schedule plugin: /$name says the server's game time."
readme = "README.md"
requires-python = ">=3.11"
# the bot, with the test kit's needs: mcsim for the tests, the dashboard for the page
dependencies = ["doom-schedule"]

# how the bot finds it (python -m bot plugins lists it)
[project.entry-points."doom_schedule.plugins"]
$name = "doom_$name:PLUGIN"

[tool.pytest.ini_options]
asyncio_mode = "auto"
asyncio_default_fixture_loop_scope = "function"
"""

PACKAGE = '''\
"""/$name: the server's game time, said by a doom.schedule plugin; and a dashboard page.

It imports only bot.api, the bot's public API: what it names is kept, or the API's version says
it changed.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bot.api import N_, Caller, Operations, OperationSpec, Outcome, Plugin, Rank, _, run


class ${title}Request(BaseModel):
    """What /$name takes: each field is an option, on every face (Discord, console, API)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str | None = Field(default=None, description="Which Minecraft server.")


async def $name(ops: Operations, caller: Caller, req: ${title}Request) -> Outcome:
    """The built-in /time through the API (its rank check included), said in our words."""
    asked = {"server": req.server} if req.server else {}
    clock = await run(ops, caller, "time", asked)
    said = _(
        "Hello from $name: it is tick {ticks} (day {day}) on {server}.",
        ticks=clock.facts["ticks"],
        day=clock.facts["day"],
        server=clock.facts["server"],
    )
    return Outcome(said, {"ticks": clock.facts["ticks"], "server": clock.facts["server"]})


SPEC = OperationSpec(
    name="$name",
    summary=N_("Say hello with the server's game time."),
    request=${title}Request,
    rank=Rank.MODERATOR,
    handler=$name,
)

PAGE = """{% extends "base.html" %}
{% block title %}$title{% endblock %}
{% block main %}
<h1>$title</h1>
<p>A page of the $name plugin. Type <code>/$name</code> in Discord or the console, or
<code>POST /api/operations/$name</code>.</p>
{% endblock %}
"""


def pages() -> object:
    """The plugin's dashboard pages (a Quart blueprint, at /x/$name/)."""
    from quart import Blueprint, render_template_string

    blueprint = Blueprint("$name", __name__)

    @blueprint.get("/")
    async def index() -> str:
        return await render_template_string(PAGE)

    return blueprint


PLUGIN = Plugin(
    name="$name",
    version="0.1.0",
    operations=(SPEC,),
    pages=pages,
    label="$title",
)
'''

TESTS = '''\
"""/$name through the test kit's fixtures (bot.testkit.pytest_plugin): a real mcsim server, the
application built on it with this plugin loaded, the dashboard, Discord (the local one)."""

from __future__ import annotations

import pytest

from bot.api import Caller, NotAllowed, Rank, run
from bot.testkit.harness import MOD


async def test_the_plugin_is_loaded(doom_core) -> None:
    [state] = [s for s in doom_core.plugins if s.name == "$name"]
    assert state.state == "loaded" and state.version == "0.1.0", state


async def test_${name}_says_the_game_time(doom_core, doom_moderator) -> None:
    done = await run(doom_core.ops, doom_moderator, "$name", {})
    assert done.text.startswith("Hello from $name: it is tick "), done.text
    assert done.facts["server"] == "main" and done.facts["ticks"] >= 0


async def test_${name}_is_refused_below_its_rank(doom_core) -> None:
    nobody = Caller(3, "player", Rank.NONE, "console", 1)
    with pytest.raises(NotAllowed):
        await run(doom_core.ops, nobody, "$name", {})


async def test_${name}_in_discord(doom_discord) -> None:
    reply = await doom_discord.run("$name", MOD)
    assert reply.text.startswith("Hello from $name: it is tick "), reply.text


async def test_the_page(doom_dashboard) -> None:
    status, html = await doom_dashboard.get("/x/$name/")
    assert status == 200 and "<h1>$title</h1>" in html, html
'''

README = """\
# doom-schedule-$name

A [doom.schedule](https://example.org/doom.schedule) plugin: `/$name` says the server's game
time, on every face of the bot (a Discord slash command, a console command,
`POST /api/operations/$name`), and a dashboard page at `/x/$name/`.

Install it into the bot's environment and restart the bot:

    pip install .
    python -m bot plugins        # $name 0.1.0: loaded

Test it (the bot's test kit gives the fixtures: a real mcsim server, the application on it):

    pytest

It imports only `bot.api`; the bot says which API versions it supports (`api` in `PLUGIN`).
"""


def new_plugin(name: str, folder: Path) -> list[Path]:
    """Write the project for a plugin called `name` into `folder` (new, or empty); the files
    written. ValidationError (nothing written) for a name or a folder that cannot be used."""
    if not NAME.fullmatch(name) or keyword.iskeyword(name):
        raise errors.ValidationError(
            _(
                "A plugin's name is 1 to 32 lowercase letters, digits and _, starting with a "
                "letter (it is the command's name): {name} is not one.",
                name=repr(name),
            )
        )
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise errors.ValidationError(
            _("{folder} is not an empty folder: nothing was written.", folder=folder)
        )
    values = {"name": name, "title": name.replace("_", " ").title().replace(" ", "")}
    files = {
        folder / "pyproject.toml": PYPROJECT,
        folder / f"doom_{name}" / "__init__.py": PACKAGE,
        folder / "tests" / f"test_{name}.py": TESTS,
        folder / "README.md": README,
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(Template(text).substitute(values), encoding="utf-8")
    return list(files)

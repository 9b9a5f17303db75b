"""The plugin host with real installed distributions: a folder on the path holding a
``.dist-info`` with entry points in ``doom_schedule.plugins`` (what pip writes), and the plugins'
modules. One good plugin loads and its operation runs; one whose import raises, one for API 99,
one that hangs in setup, one that needs a plugin that is not there: each is listed with its
reason, and the others load."""

from __future__ import annotations

import asyncio
import os
import sys
from importlib.metadata import Distribution
from pathlib import Path

import pytest

from bot import api
from bot.config import Settings
from bot.operations import Caller, Operations, Rank
from bot.operations.base import StoreAuditor
from bot.operations.program_repeats import PROGRAM_REPEAT_OPERATIONS
from bot.operations.programs import PROGRAM_OPERATIONS
from bot.operations.registry import run
from bot.operations.triggers import TRIGGER_OPERATIONS
from bot.plugins import GROUP, load_plugins
from bot.services import Services
from bot.store.audit import AuditStore

ROOT = Path(__file__).resolve().parents[2]
HELLO = """
from pydantic import BaseModel, ConfigDict

from bot.api import OperationSpec, Plugin, Rank

class HelloRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "world"

async def hello(ops, caller, req):
    return f"Hello, {req.name}! (from {caller.name})"

async def setup(ops):
    ops.hello_ready = True

PLUGIN = Plugin(
    name="hello",
    version="1.2.0",
    operations=(OperationSpec("hello", "Say hello.", HelloRequest, Rank.MODERATOR, hello),),
    setup=setup,
)
"""
OTHERS = {
    "broken_plugin": "raise RuntimeError('the plugin is broken')\n",
    "future_plugin": (
        "from bot.api import Plugin\nPLUGIN = Plugin(name='future', version='9', api=(99, 99))\n"
    ),
    "slow_plugin": (
        "import asyncio\nfrom bot.api import Plugin\n"
        "async def setup(ops):\n    await asyncio.sleep(3600)\n"
        "PLUGIN = Plugin(name='slow', version='1', setup=setup)\n"
    ),
    "needy_plugin": (
        "from bot.api import Plugin\n"
        "def make():\n    return Plugin(name='needy', version='1', needs=('missing', 'hello'))\n"
    ),
    "notaplugin_plugin": "PLUGIN = 42\n",
    "cycle_plugin": (  # two plugins that need each other
        "from bot.api import Plugin\n"
        "PING = Plugin(name='ping', version='1', needs=('pong',))\n"
        "PONG = Plugin(name='pong', version='1', needs=('ping',))\n"
    ),
}
ENTRIES = {
    "hello": "hello_plugin:PLUGIN",
    "broken": "broken_plugin:PLUGIN",
    "future": "future_plugin:PLUGIN",
    "slow": "slow_plugin:PLUGIN",
    "needy": "needy_plugin:make",
    "notaplugin": "notaplugin_plugin:PLUGIN",
    "ping": "cycle_plugin:PING",
    "pong": "cycle_plugin:PONG",
}


def installed(where: Path) -> Path:
    """The plugins as pip would leave them in site-packages."""
    (where / "hello_plugin.py").write_text(HELLO)
    for module, text in OTHERS.items():
        (where / f"{module}.py").write_text(text)
    info = where / "doom_test_plugins-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: doom-test-plugins\nVersion: 1.0\n")
    lines = [f"[{GROUP}]", *(f"{k} = {v}" for k, v in ENTRIES.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return info


def shell(tmp_path: Path, **settings: object) -> Operations:
    made = Settings(data_dir=tmp_path / "data", **settings)  # type: ignore[arg-type]
    services = Services(made, {}, AuditStore(tmp_path / "db.sqlite3"))
    return Operations(services, StoreAuditor(services))


# the operations the bot registers itself that no cog answers, in the registry's order
OWN = [
    "whoami",
    "dryrun",
    *(spec.name for spec in PROGRAM_OPERATIONS),
    "program dryrun",
    *(spec.name for spec in PROGRAM_REPEAT_OPERATIONS),
    *(spec.name for spec in TRIGGER_OPERATIONS),
]


async def test_each_plugin_is_loaded_or_said_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = installed(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    ops = shell(tmp_path)
    found = Distribution.at(info).entry_points.select(group=GROUP)
    states = {
        s.name: s
        for s in await load_plugins(ops, ops.services.settings, found=found, setup_limit=0.5)
    }
    assert states["hello"].state == "loaded" and states["hello"].operations == ("hello",)
    assert states["hello"].source == "doom-test-plugins 1.0: hello_plugin:PLUGIN"
    assert states["broken"].state == "failed" and "the plugin is broken" in states["broken"].why
    assert states["future"].state == "incompatible"
    assert states["future"].why == f"supports API 99-99; this bot's is {api.API_VERSION}"
    assert states["slow"].state == "failed" and states["slow"].why == "setup took over 0.5 s"
    assert states["needy"].state == "incompatible" and "needs missing" in states["needy"].why
    assert (
        states["notaplugin"].state == "failed"
        and "not a bot.api.Plugin" in states["notaplugin"].why
    )
    for name in ("ping", "pong"):  # a needs cycle: neither loads, each says why
        assert states[name].state == "incompatible" and "did not load" in states[name].why
    # the loaded one works: its setup ran and its operation is every face's (the registry's)
    assert getattr(ops, "hello_ready", False)
    done = await run(ops, Caller(1, "Mia", Rank.MODERATOR, "web", 1), "hello", {"name": "Ada"})
    assert done.text == "Hello, Ada! (from Mia)"
    # only the loaded plugin's operation joined the ones the bot has (the built-ins, /whoami,
    # /dryrun, /program)
    assert sorted(s.name for s in ops.registry if not s.face_code) == sorted(["hello", *OWN])
    await ops.services.close()


async def test_autoload_off_and_disabled_plugins_are_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = installed(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    found = list(Distribution.at(info).entry_points.select(group=GROUP))
    ops = shell(tmp_path, plugins_autoload=False, plugins_enabled=["hello", "future"])
    states = {s.name: s.state for s in await load_plugins(ops, ops.services.settings, found=found)}
    assert states == {
        "broken": "disabled",
        "future": "incompatible",
        "hello": "loaded",
        "needy": "disabled",
        "notaplugin": "disabled",
        "ping": "disabled",
        "pong": "disabled",
        "slow": "disabled",
    }
    await ops.services.close()
    ops = shell(tmp_path / "again", plugins_disabled=["hello", "slow"])
    states = {s.name: s.state for s in await load_plugins(ops, ops.services.settings, found=found)}
    assert states["hello"] == "disabled" and states["needy"] == "incompatible"
    assert [s.name for s in ops.registry if not s.face_code] == OWN
    await ops.services.close()


async def test_the_cli_lists_the_installed_plugins(tmp_path: Path) -> None:
    installed(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env.update(
        PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]),
        DOOM_DATA_DIR=str(tmp_path / "data"),
        DOOM_LOCALE="en",
        DOOM_PLUGINS_DISABLED="slow",  # its setup would take the whole 30 s limit
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "bot", "plugins"),
        env=env,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    said = out.decode()
    assert proc.returncode == 1, err.decode()  # some did not load: a script can tell
    assert "hello 1.2.0: loaded operations: /hello" in said, said
    assert "future 9: incompatible (supports API 99-99" in said, said
    assert "broken: failed (import: RuntimeError('the plugin is broken'))" in said, said
    assert "slow: disabled (turned off in the settings)" in said, said


def test_the_public_api_is_a_closed_list() -> None:
    # a name leaving bot.api breaks plugins: it is a new API_VERSION, decided, not an accident
    assert sorted(api.__all__) == sorted(
        [
            "API_VERSION",
            "N_",
            "BotError",
            "Caller",
            "Done",
            "Field",
            "File",
            "NotAllowed",
            "NotFound",
            "OperationSpec",
            "Operations",
            "Outcome",
            "Plugin",
            "PluginData",
            "Rank",
            "Section",
            "ServerUnavailable",
            "ValidationError",
            "_",
            "data_of",
            "lazy",
            "run",
            "settings_of",
        ]
    )
    assert api.API_VERSION == 1
    assert all(hasattr(api, name) for name in api.__all__)

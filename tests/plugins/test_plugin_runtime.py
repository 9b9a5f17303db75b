"""What a loaded plugin does while the bot runs, on a real mcsim server: its listener hears each
event of the server's stream (here the bot's own alert) but none relayed from another process,
its background task runs and is cancelled when the bot stops, its texts speak the reader's
language, its settings come from DOOM_<NAME>_*, and the audit names it for each change its
operations make."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from importlib.metadata import Distribution
from pathlib import Path

import pytest

from bot import api
from bot.core import Core
from bot.events.event import Event
from bot.i18n import use_locale
from bot.operations import Caller, Rank
from bot.operations.registry import run
from bot.plugins import GROUP, load_plugins
from bot.services import build_services
from bot.testkit.harness import make_settings
from bot.testkit.servers import server_config
from mcsim.server import Server

PASSWORD = "plugin-runtime-Pw"
LISTENER = """
import asyncio
from pydantic import BaseModel, ConfigDict
from bot.api import OperationSpec, Plugin, Rank, _

HEARD = []
TICKS = []
STOPPED = []

async def on_event(ops, event):
    if event.type == "boom":
        raise RuntimeError("a listener's own bug")  # logged; the next event still comes
    HEARD.append((event.server, event.type, event.task_id))

async def ticker(ops):
    try:
        while True:
            TICKS.append(ops.now())
            await asyncio.sleep(0.01)
    except asyncio.CancelledError:
        STOPPED.append(True)
        raise

class Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

async def mark(ops, caller, req):
    return _("Marked.")

PLUGIN = Plugin(
    name="watcher",
    version="1",
    on_event=on_event,
    tasks=(ticker,),
    texts="{texts}",
    operations=(OperationSpec("mark", "Mark.", Nothing, Rank.MODERATOR, mark, changes=True),),
)
"""
ZH = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Marked."
msgstr "已标记。"
"""


async def test_a_plugins_listener_tasks_texts_settings_and_audit(
    mcsim: Callable[..., Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = tmp_path / "texts" / "zh_CN" / "LC_MESSAGES"
    texts.mkdir(parents=True)
    (texts / "watcher.po").write_text(ZH, encoding="utf-8")
    site = tmp_path / "site"
    info = site / "doom_watcher-1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: doom-watcher\nVersion: 1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nwatcher = watcher_plugin:PLUGIN\n")
    (site / "watcher_plugin.py").write_text(LISTENER.replace("{texts}", str(tmp_path / "texts")))
    monkeypatch.syspath_prepend(str(site))
    server = mcsim(password=PASSWORD, realtime=True)
    settings = make_settings(tmp_path, [server_config(server, PASSWORD)], health_interval=3600)
    core = Core.around(await build_services(settings))
    found = Distribution.at(info).entry_points.select(group=GROUP)
    core.ops.plugins = await load_plugins(core.ops, settings, found=found)
    assert [s.state for s in core.ops.plugins] == ["loaded"]
    import watcher_plugin  # type: ignore[import-not-found]

    await core.start()
    try:
        alerts = core.services.servers["main"].guard.alerts  # type: ignore[union-attr]
        alerts.emit(Event("main", 1, "boom", "t0", -1))
        alerts.emit(Event("main", 2, "wallclock_missed", "raid", -1))
        async with asyncio.timeout(10):
            while not watcher_plugin.HEARD or len(watcher_plugin.TICKS) < 3:  # noqa: ASYNC110
                await asyncio.sleep(0.02)  # the plugin's own lists: nothing to wait on
        assert watcher_plugin.HEARD == [("main", "wallclock_missed", "raid")]
        # an event another process read (relayed from the shared log): its plugins heard it
        core.services.bus.relay(Event("main", 3, "wallclock_missed", "elsewhere", -1, relayed=True))
        alerts.emit(Event("main", 4, "wallclock_missed", "after", -1))
        async with asyncio.timeout(10):
            while len(watcher_plugin.HEARD) < 2:  # noqa: ASYNC110
                await asyncio.sleep(0.02)
        assert watcher_plugin.HEARD == [
            ("main", "wallclock_missed", "raid"),
            ("main", "wallclock_missed", "after"),
        ]

        mod = Caller(7002, "Mia", Rank.MODERATOR, "console", 1)
        with use_locale("zh_CN"):
            assert (await run(core.ops, mod, "mark", {})).text == "已标记。"
        assert (await run(core.ops, mod, "mark", {})).text == "Marked."
        [entry, _zh] = await core.services.audit.mutations(limit=5)
        assert entry.action == "mark" and entry.request == {"plugin": "watcher"}
    finally:
        await core.close()
    assert watcher_plugin.STOPPED == [True]  # its task was cancelled with the bot
    assert api.settings_of("watcher", {"DOOM_WATCHER_CHANNEL": "events", "DOOM_X": "1"}) == {
        "channel": "events"
    }

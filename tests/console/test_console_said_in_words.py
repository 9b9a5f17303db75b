"""What the console shows in words: an alert's reason (not the pack's code word, not the run's
key), the person at the terminal by their name, and a planned row's conditions and countdown on
the `/schedule` reply and on `/show`."""

from __future__ import annotations

import asyncio
import io
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.core import Core, follow_alerts
from bot.events.event import Event
from bot.events.log_tail import LogTailer
from bot.minecraft.rcon import RconClient
from bot.operations.sections import alert_section
from bot.services import ServerServices, Services
from bot.store.audit import AuditStore
from bot.testkit.harness import ADMIN, make_settings
from console.session import Screen, console_caller, run_console
from mcsim.server import Server
from tests.cogs.test_cogs_alerts import live_log, said
from tests.console.typed import typed_by
from tests.fixtures import start_bot

PASSWORD = "console-words-Pw"


async def test_an_alert_in_the_console_says_why_in_words(tmp_path: Path) -> None:
    config = ServerConfig(name="main", rcon_password="x", log_path=tmp_path / "latest.log")  # type: ignore[arg-type]
    settings = make_settings(tmp_path, [config])
    store = AuditStore(tmp_path / "audit.sqlite3")
    tailer = LogTailer(tmp_path / "latest.log", "main", store, poll_interval=0.02)
    # nothing here talks to a server: the alerts come from the log the tailer reads
    rcon = RconClient("127.0.0.1", 9, "x")
    server = ServerServices(config, rcon, None, None, tailer, None, "log")  # type: ignore[arg-type]
    core = Core.around(Services(settings, {"main": server}, store))
    await core.start()

    shown = asyncio.Event()

    def alert(screen: Screen, event: Event) -> None:
        screen.alert(alert_section(event))
        shown.set()

    async def alerts(screen: Screen) -> None:
        await follow_alerts(core, lambda _server, event: alert(screen, event))

    read, write = os.pipe()
    try:
        with os.fdopen(read) as stdin, os.fdopen(write, "w") as typed:
            out = io.StringIO()
            session = asyncio.ensure_future(
                run_console(core.ops, stdin, out, typed_by(ADMIN), follow=alerts)
            )
            log = await live_log(core, "main", tmp_path)
            log.info(said("skipped", "raid", 4, 1200, why="too_few", players="1", k="adaa3b95"))
            await asyncio.wait_for(shown.wait(), 10)
            log.close()
            typed.write("quit\n")
            typed.flush()
            await asyncio.wait_for(session, 10)
    finally:
        await core.close()
    text = out.getvalue()
    assert "[alert] Task skipped: its conditions were not met" in text, text
    assert "why:" in text and "fewer players online than it requires" in text, text
    assert "players online:" in text, text
    assert "too_few" not in text and "adaa3b95" not in text, text
    assert not re.search(r"^\s+k:", text, re.MULTILINE), text


async def test_the_console_user_and_a_planned_rows_conditions_in_words(
    mcsim: Callable[..., Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGNAME", "alex")  # the system's user name, as getpass reads it
    server = mcsim(password=PASSWORD)
    harness = await start_bot(server, tmp_path, PASSWORD)
    try:
        stdin = io.StringIO(
            "/schedule run:say raid id:raid when:in 90m require:players>=2 if_not:wait"
            " max_wait:10m announce:5m,1m\n"
            "/show id:raid\n"
        )
        out = io.StringIO()
        await run_console(harness.bot.ops, stdin, out, console_caller())
        # the audit log (and so the dashboard's audit page) names them as the console does
        [entry] = await harness.services.audit.mutations(limit=5)
        assert (entry.user_name, entry.face) == ("alex", "console")
    finally:
        await harness.close()
    text = out.getvalue()
    reply, shown = text.split("Planned raid\n")
    assert "Planned raid on main for " in reply, text
    assert "only if:   players>=2; if not: wait up to 10m, then skip" in shown, text
    assert "announce:" in shown and "5m, 1m" in shown, text
    assert "planned #1 by alex" in shown, text
    assert "user1100000000000000010" not in text, text

"""What the console shows in words: an alert's reason (not the pack's code word, not the run's
key), channels by name, the person at the terminal by their name, and a planned row's
conditions and countdown on the `/schedule` reply and on `/show`."""

from __future__ import annotations

import asyncio
import io
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.events.log_tail import LogTailer
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices, Services
from bot.store.audit import AuditStore
from console.session import CONSOLE_USER_ID, run_console
from mcsim.server import Server
from tests.cogs.harness import ADMIN, ALERT_CHANNEL, Harness, make_settings
from tests.cogs.test_cogs_alerts import live_log, said
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
    harness = await Harness(settings, Services(settings, {"main": server}, store)).start()
    harness.bot.get_cog("Alerts").batch_window = 0.1  # type: ignore[union-attr]
    read, write = os.pipe()
    try:
        with os.fdopen(read) as stdin, os.fdopen(write, "w") as typed:
            out = io.StringIO()
            session = asyncio.ensure_future(
                run_console(harness.discord, stdin, out, CONSOLE_USER_ID, ADMIN.roles)
            )
            log = await live_log(harness, "main", tmp_path)
            log.info(said("skipped", "raid", 4, 1200, why="too_few", players="1", k="adaa3b95"))
            await harness.discord.wait_for(lambda: bool(harness.posts(ALERT_CHANNEL)))
            log.close()
            await asyncio.sleep(0.1)  # the listener prints as the post is made
            typed.write("quit\n")
            typed.flush()
            await asyncio.wait_for(session, 10)
    finally:
        await harness.close()
    text = out.getvalue()
    assert "[#alerts] Task skipped: its conditions were not met" in text, text
    assert "why:" in text and "fewer players online than it requires" in text, text
    assert "players online:" in text, text
    assert "too_few" not in text and "adaa3b95" not in text, text
    assert not re.search(r"^\s+k:", text, re.MULTILINE), text
    assert str(ALERT_CHANNEL) not in text, text


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
        await run_console(harness.discord, stdin, out, CONSOLE_USER_ID, ADMIN.roles)
        await harness.bot.audit_posted()
        # the audit log (and so the dashboard's audit page) names them as the console does
        [entry] = await harness.services.audit.mutations(limit=5)
        assert (entry.user_name, entry.face) == ("alex", "discord")
    finally:
        await harness.close()
    text = out.getvalue()
    reply = text.split("[#audit]")[0]
    shown = text.split("Planned raid\n")[1]
    for part in (reply, shown):
        assert "only if:   players>=2; if not: wait up to 10m, then skip" in part, text
        assert "announce:" in part and "5m, 1m" in part, text
        assert "planned #1 by alex" in part, text
    assert "[#audit] /schedule" in text, text
    assert "user1100000000000000010" not in text and str(CONSOLE_USER_ID) not in text, text

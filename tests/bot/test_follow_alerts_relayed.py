"""follow_alerts (serve, the console) with several processes on one database: an alert another
process read (relayed from the shared event log) is shown, but logged only by that process, so
the fleet's logs have each alert once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.core import Core, follow_alerts
from bot.events.event import Event
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices, Services
from bot.store.audit import AuditStore
from bot.testkit.harness import make_settings


class _Source:
    """The events this process reads itself, fed by the test."""

    def __init__(self) -> None:
        self.ready = asyncio.Event()
        self.queue: asyncio.Queue[Event] = asyncio.Queue()

    async def events(self) -> AsyncGenerator[Event, None]:
        self.ready.set()
        while True:
            yield await self.queue.get()


async def test_a_relayed_alert_is_shown_and_not_logged_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = ServerConfig(name="main", rcon_password="x")  # type: ignore[call-arg]
    settings = make_settings(tmp_path, [config])
    store = AuditStore(tmp_path / "audit.sqlite3")
    source = _Source()
    # nothing here talks to a server: the alerts come from the source and the relay
    server = ServerServices(config, RconClient("127.0.0.1", 9, "x"), None, None, source, None)  # type: ignore[arg-type]
    services = Services(settings, {"main": server}, store)
    core = Core.around(services)
    shown: list[tuple[str, bool]] = []
    caplog.set_level(logging.WARNING, logger="bot.core")
    following = asyncio.create_task(
        follow_alerts(core, lambda _s, event: shown.append((event.task_id, event.relayed)))
    )
    try:
        await asyncio.wait_for(source.ready.wait(), 5)  # its reader is on the bus
        services.bus.relay(Event("main", 1, "retry_exhausted", "far", 10, relayed=True))
        source.queue.put_nowait(Event("main", 2, "retry_exhausted", "near", 20))
        async with asyncio.timeout(5):
            while len(shown) < 2:  # noqa: ASYNC110 - the callback's list: nothing to wait on
                await asyncio.sleep(0.01)
    finally:
        following.cancel()
        await asyncio.gather(following, return_exceptions=True)
        await services.close()
    assert shown == [("far", True), ("near", False)]
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("alert:")]
    assert logged == ["alert: retry_exhausted near on main (out of retries)"]

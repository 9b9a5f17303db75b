"""What the dashboard tests share (their fixtures are in conftest.py). They test the real
thing: the bot's services over TCP RCON to an in-process mcsim running the pack, the Discord
side on the local Discord (bot/testkit/localdiscord/emulator.py), the app served by Hypercorn on
127.0.0.1 port 0, and (for the browser tests) Debian's chromium driven by Playwright.
Time-based login expiry runs on an injected clock.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import MOD, Harness, User
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from web.server import WebServer

if TYPE_CHECKING:
    from bot.config import Settings

WALL_START = 1_797_000_000  # 2026-12-11 14:40 UTC, the scheduler's manual clock
ROOT = Path(__file__).resolve().parent.parent.parent
PASSWORD = "web-rcon-Secret-4711"
BOT_TOKEN = "MTAx.web-test-bot-token.Zm9vYmFy"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = ROOT / "test-artifacts" / "web"
LINK = re.compile(r"(http://\S+/login\?t=[\w.\-]+)")


class Clock:
    """Epoch seconds that move only when a test says so."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Dash:
    harness: Harness
    web: WebServer
    mc: Server
    clock: Clock  # the dashboard's (link and session expiry)
    wall: ManualClock  # the wall-clock scheduler's

    @property
    def url(self) -> str:
        return self.web.base_url

    async def link(self, user: User = MOD) -> str:
        """A login link as /dashboard gives it in Discord (ephemeral)."""
        reply = await self.harness.run("dashboard", user)
        assert reply.ephemeral, reply.text
        found = LINK.search(reply.text)
        assert found, reply.text
        return found.group(1)


def queue_ids(dash: Dash) -> list[str]:
    data = dash.mc.storage("doom.schedule:data")
    return [str(t["id"]) for t in data.get("queue", [])]  # type: ignore[union-attr]


@asynccontextmanager
async def dash_on(settings: Settings, main: Server) -> AsyncIterator[Dash]:
    """The bot (its Discord face; wall-clock schedules on a manual clock from WALL_START) and
    the dashboard on `settings`' servers, `main` the one the Dash names; closed after."""
    services = await build_services(settings)
    wall = ManualClock(datetime.fromtimestamp(WALL_START, UTC))
    services.scheduler = Scheduler(ScheduleStore(services.db), services.servers, clock=wall)
    harness = await Harness(settings, services).start()
    clock = Clock()
    web = WebServer(services, harness.bot, port=0, clock=clock)
    await web.start()
    harness.bot.web = web
    try:
        yield Dash(harness, web, main, clock, wall)
    finally:
        await web.stop()
        await harness.close()

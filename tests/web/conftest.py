"""Fixtures of the dashboard tests; see webdash.py for what they run against."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.services import build_services
from bot.store.schedules import ScheduleStore
from bot.testkit.harness import ADMIN, MOD, Harness, make_settings
from bot.times.clock import ManualClock
from bot.wallclock.scheduler import Scheduler
from mcsim.server import Server
from tests.fixtures import following, server_config, settled
from tests.web.webclient import Client
from tests.web.webdash import (
    ARTIFACTS,
    BOT_TOKEN,
    CHROMIUM,
    CHROMIUM_ARGS,
    PASSWORD,
    WALL_START,
    Clock,
    Dash,
)
from web.server import WebServer


@pytest.fixture
def mc(mcsim: Callable[..., Server]) -> Server:
    return mcsim(password=PASSWORD)


@pytest.fixture
def dash_locale() -> str | None:
    """DOOM_LOCALE of the dashboard (a test parametrizes it to change it)."""
    return None


@pytest.fixture
async def dash(mc: Server, tmp_path: Path, dash_locale: str | None) -> AsyncIterator[Dash]:
    settings = make_settings(
        tmp_path,
        [server_config(mc, PASSWORD)],
        log_poll_interval=0.02,
        discord_token=BOT_TOKEN,
        web_port=0,
        locale=dash_locale,
    )
    services = await build_services(settings)
    # wall-clock schedules on a manual clock: nothing here waits for real time to pass
    wall = ManualClock(datetime.fromtimestamp(WALL_START, UTC))
    services.scheduler = Scheduler(
        ScheduleStore(services.db),
        services.servers,
        clock=wall,
        max_late=settings.max_late,
        default_timezone=settings.timezone,
    )
    harness = await Harness(settings, services).start()
    alerts: Any = harness.bot.get_cog("Alerts")
    alerts.batch_window = 0.1
    clock = Clock()
    web = WebServer(services, harness.bot, port=0, clock=clock)
    await web.start()
    harness.bot.web = web
    await following(harness, mc)
    await settled(harness)
    try:
        yield Dash(harness, web, mc, clock, wall)
    finally:
        await web.stop()
        await harness.close()


@pytest.fixture
async def faces(mc: Server, tmp_path: Path) -> AsyncIterator[Dash]:
    """The bot with its Discord face and the dashboard on `mc`, on the system's wall clock (no
    scheduler of the test's: an operation's background work runs as in a bot)."""
    settings = make_settings(
        tmp_path, [server_config(mc, PASSWORD)], discord_token=BOT_TOKEN, web_port=0
    )
    services = await build_services(settings)
    harness = await Harness(settings, services).start()
    web = WebServer(services, harness.bot, port=0, clock=Clock())
    await web.start()
    harness.bot.web = web
    try:
        yield Dash(harness, web, mc, Clock(), None)  # type: ignore[arg-type]
    finally:
        await web.stop()
        await harness.close()


@pytest.fixture
async def kept(dash: Dash) -> AsyncIterator[Dash]:
    """The dashboard with one task `keep` queued from Discord."""
    reply = await dash.harness.run(
        "schedule", MOD, run="say keep", time=900, unit="tick", id="keep"
    )
    assert "Scheduled `keep`" in reply.text
    yield dash


@pytest.fixture
def chromium() -> Path:
    """Debian's chromium; never skipped: when it is missing the test fails and says why."""
    if not CHROMIUM.exists():
        pytest.fail(
            "Debian's chromium is not installed at /usr/bin/chromium: install it with "
            "`apt-get update && apt-get install -y chromium` (.ci/run does)."
        )
    return CHROMIUM


@pytest.fixture
async def browser(chromium: Path) -> AsyncIterator[Any]:
    """Debian's chromium under Playwright (its own browser download is not reachable here)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        found = await pw.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            yield found
        finally:
            await found.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Path:
    """Where a test writes its screenshots (test-artifacts/web/<test>/, git-ignored)."""
    folder = ARTIFACTS / request.node.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
async def mod(dash: Dash) -> AsyncIterator[Client]:
    """A moderator signed in to the dashboard."""
    client = await Client(dash).login(MOD)
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
async def admin(dash: Dash) -> AsyncIterator[Client]:
    """An admin signed in to the dashboard."""
    client = await Client(dash).login(ADMIN)
    try:
        yield client
    finally:
        await client.close()

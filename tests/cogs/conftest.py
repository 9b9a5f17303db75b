from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.services import Services
from bot.store.audit import AuditStore
from tests.cogs.harness import Harness, make_settings


@pytest.fixture
async def bare(tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with every cog loaded and no Minecraft server configured."""
    settings = make_settings(tmp_path)
    services = Services(settings, {}, AuditStore(tmp_path / "audit.sqlite3"))
    harness = await Harness(settings, services).start()
    try:
        yield harness
    finally:
        await harness.close()

"""The stepped mcsim with the pack and the `wc` objective, and its server's services, that the
wall-clock scheduler tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.services import ServerServices
from tests.wallclock.wallclock_sim import PackSim, prepare_objective, server_services, start_sim


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PackSim]:
    sim = start_sim(tmp_path / "world")
    prepare_objective(sim)
    try:
        yield sim
    finally:
        sim.server.stop()


@pytest.fixture
async def server(sim: PackSim) -> AsyncIterator[ServerServices]:
    services = server_services(sim)
    try:
        yield services
    finally:
        await services.rcon.close()

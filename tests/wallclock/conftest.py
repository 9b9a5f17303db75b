"""The stepped mcsim with the pack and the `wc` objective, and its server's services, that the
wall-clock scheduler tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.services import ServerServices
from tests.wallclock.wallclock_sim import (
    PackSim,
    TcpProxy,
    prepare_objective,
    server_services,
    start_sim,
)


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PackSim]:
    sim = start_sim(tmp_path / "world")
    prepare_objective(sim)
    try:
        yield sim
    finally:
        sim.server.stop()


async def _services(sim: PackSim) -> AsyncIterator[ServerServices]:
    services = server_services(sim)
    try:
        yield services
    finally:
        await services.rcon.close()


@pytest.fixture
async def server(sim: PackSim) -> AsyncIterator[ServerServices]:
    async for services in _services(sim):
        yield services


@pytest.fixture
async def other(sim: PackSim) -> AsyncIterator[ServerServices]:
    """A second process's connection to the same server."""
    async for services in _services(sim):
        yield services


@pytest.fixture
async def proxy(sim: PackSim) -> AsyncIterator[TcpProxy]:
    """A TCP proxy in front of the sim's RCON port (tests point their own services at it)."""
    assert sim.server.rcon_port is not None
    proxy = TcpProxy(sim.server.rcon_port)
    await proxy.start()
    try:
        yield proxy
    finally:
        proxy.release.set()  # a request a test held goes on, so its connection can close
        await proxy.close()

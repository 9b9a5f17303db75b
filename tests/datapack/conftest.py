"""A world holding the doom.schedule pack, started in a frozen mcsim server (ticks only by step)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.datapack.dpharness import Pack, install

from mcsim.server import Server


@pytest.fixture
def world(tmp_path: Path) -> Path:
    world = tmp_path / "world"
    world.mkdir()
    install(world)
    return world


@pytest.fixture
def pack(world: Path) -> Iterator[Pack]:
    server = Server(world, frozen=True)
    server.start()
    try:
        yield Pack(server)
    finally:
        server.stop()

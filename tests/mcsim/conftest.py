"""Shared fixtures: a started, frozen, manual-mode Server on tmp_path, and a pack writer."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcsim.server import Server

PACK_META = {
    "pack": {
        "description": "test pack",
        "pack_format": 48,
        "supported_formats": [48, 94],
        "min_format": 48,
        "max_format": 94,
    }
}

WritePack = Callable[..., Path]


def write_pack(
    world: Path,
    functions: dict[str, str],
    *,
    name: str = "testpack",
    tags: dict[str, list[str]] | None = None,
    meta: dict[str, object] | None = None,
) -> Path:
    """Write datapacks/<name> with `functions` ({"ns:path": body}) and function tags
    ({"ns:tag": [ids]}) into `world`; returns the pack folder."""
    root = world / "datapacks" / name
    root.mkdir(parents=True, exist_ok=True)
    (root / "pack.mcmeta").write_text(json.dumps(meta or PACK_META), encoding="utf-8")
    for fid, body in functions.items():
        ns, _, path = fid.partition(":")
        f = root / "data" / ns / "function" / f"{path}.mcfunction"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(body, encoding="utf-8")
    for tid, values in (tags or {}).items():
        ns, _, path = tid.partition(":")
        f = root / "data" / ns / "tags" / "function" / f"{path}.json"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps({"values": values}), encoding="utf-8")
    return root


@pytest.fixture
def world(tmp_path: Path) -> Path:
    return tmp_path / "world"


@pytest.fixture
def pack(world: Path) -> WritePack:
    """Write a pack into the world (before the server starts, or then `reload`)."""

    def write(functions: dict[str, str], **kwargs: object) -> Path:
        return write_pack(world, functions, **kwargs)  # type: ignore[arg-type]

    return write


@pytest.fixture
def server(world: Path) -> Iterator[Server]:
    """A started, frozen, manual-mode server (ticks only through step() / `tick step`)."""
    srv = Server(world, frozen=True)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def make_server(world: Path) -> Iterator[Callable[..., Server]]:
    """Start servers on the test's world with custom options; all are stopped afterwards."""
    started: list[Server] = []

    def make(**kwargs: object) -> Server:
        kwargs.setdefault("frozen", True)
        srv = Server(world, **kwargs)  # type: ignore[arg-type]
        srv.start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        srv.stop()

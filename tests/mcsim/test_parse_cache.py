"""Parsed lines are kept for the whole process: a second server parses none of the pack again,
and what the parse cannot know (a server's permission level, its world) stays per server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mcsim.executor as executor
from mcsim.server import Server
from tests.fixtures import start_mcsim
from tests.mcsim.conftest import write_pack


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every line mecha is asked to parse from now on."""
    seen: list[str] = []
    real: Callable[[str, str], Any] = executor._parse

    def counting(text: str, version: str) -> Any:
        seen.append(text)
        return real(text, version)

    monkeypatch.setattr(executor, "_parse", counting)
    yield seen


def test_a_second_server_parses_nothing_of_the_pack_again(
    tmp_path: Path, parses: list[str]
) -> None:
    first = start_mcsim(tmp_path / "a")
    first.stop()
    # the first start in this test process may have found lines parsed by earlier tests; a
    # line the pack holds either was parsed now or already was: none is parsed a second time
    assert len(parses) == len(set(parses))
    before = len(parses)
    second = start_mcsim(tmp_path / "b")
    try:
        assert second.sim is not None and second.sim.functions is not None
        assert len(second.sim.functions.functions) > 50  # the whole pack loaded
        assert len(parses) == before
        assert executor.parse_cache_size() >= len(set(parses))
    finally:
        second.stop()


def test_a_cached_parse_still_meets_each_servers_permission_level(tmp_path: Path) -> None:
    # the same line parses once; a function-permission-level 1 server still refuses it
    body = "execute as @a run scoreboard players set #x o 1\n"
    worlds = {}
    for level in (2, 1):
        world = tmp_path / f"level{level}"
        write_pack(world, {"t:f": body})
        (world / "server.properties").write_text(f"function-permission-level={level}\n")
        worlds[level] = world
    loaded = {}
    for level, world in worlds.items():
        server = Server(world, frozen=True)
        server.start()
        assert server.sim is not None and server.sim.functions is not None
        loaded[level] = "t:f" in server.sim.functions.functions
        server.stop()
    assert loaded == {2: True, 1: False}


def test_a_refused_line_is_refused_the_same_way_on_every_server(tmp_path: Path) -> None:
    replies = []
    for name in ("a", "b"):
        server = start_mcsim(tmp_path / name)
        try:
            replies.append(server.run("scoreboard players set #x o notanumber").feedback)
        finally:
            server.stop()
    assert replies[0] == replies[1]
    assert replies[0][-1].endswith("<--[HERE]"), replies[0]

"""Parsed lines are kept for the whole process: a second server parses none of the pack again,
and what the parse cannot know (a server's permission level, its world) stays per server. The
pack's function lines are kept on disk too (mcsim.parse_cache): the next process's first start
parses none of them, and a damaged file or `MCSIM_PARSE_CACHE=off` changes nothing but the time."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mcsim.executor as executor
from bot.minecraft.installer import pack_version_of
from mcsim.server import Server
from tests.fixtures import REPO, install_pack, start_mcsim
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


VERSION = pack_version_of(REPO / "datapack")

# a process of its own: its first server start, and how many lines mecha parsed for it
FIRST_START = """
import sys
from pathlib import Path
from mcsim import executor
from mcsim.server import Server
server = Server(Path(sys.argv[1]), frozen=True)
server.start()
assert len(server.sim.functions.functions) > 50, "the whole pack loaded"
server.run("scoreboard objectives add t dummy")
print(executor.mecha_parses, server.storage("doom.schedule:const")["version"])
server.stop()
"""


def first_start(world: Path, cache: str) -> tuple[int, str]:
    """(lines mecha parsed, the version the pack's load function set) for a new process's
    first start on `world`."""
    env = {**os.environ, "MCSIM_PARSE_CACHE": cache}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_START, str(world)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    parsed, version = done.stdout.split()
    return int(parsed), version


def test_the_next_process_reads_the_packs_lines_instead_of_parsing_them(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    world = install_pack(tmp_path / "world")
    parsed, version = first_start(world, str(cache))
    assert parsed > 500 and version == VERSION  # the pack's ~550 lines, and the RCON command
    [kept] = cache.glob("parsed-*.pickle")
    lines = pickle.loads(kept.read_bytes())
    assert "scoreboard objectives add t dummy" not in lines  # RCON commands are not kept
    again, version = first_start(world, str(cache))
    assert again == 1 and version == VERSION  # only the script's RCON command was parsed
    assert oct(kept.stat().st_mode & 0o777) == "0o600"


def test_a_damaged_file_is_parsed_over_and_off_keeps_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    world = install_pack(tmp_path / "world")
    first_start(world, str(cache))
    [kept] = cache.glob("parsed-*.pickle")
    kept.write_bytes(b"not a pickle")
    parsed, version = first_start(world, str(cache))
    assert parsed > 500 and version == VERSION
    assert len(pickle.loads(kept.read_bytes())) > 500  # written whole again
    kept.unlink()
    parsed, version = first_start(world, "off")
    assert parsed > 500 and version == VERSION
    assert list(cache.iterdir()) == []


def test_a_line_the_tree_refuses_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCSIM_PARSE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(executor, "_on_disk", None)  # as in a new process
    world = tmp_path / "world"
    bad = "scoreboard players set #x o notanumber"
    write_pack(world, {"t:good": "scoreboard players set #kept o 1\n", "t:bad": bad + "\n"})
    server = Server(world, frozen=True)
    server.start()
    server.stop()
    [kept] = (tmp_path / "cache").glob("parsed-*.pickle")
    lines = pickle.loads(kept.read_bytes())
    assert "scoreboard players set #kept o 1" in lines
    assert bad not in lines

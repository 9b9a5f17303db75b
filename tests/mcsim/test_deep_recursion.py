"""Deep function recursion: vanilla bounds it only by the budget (functions run from an explicit
queue since 1.20.3); mcsim must survive any depth the budget allows, and a Python
RecursionError must end the call as a budget overflow, never crash Server.run or the loop."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

import mcsim.deepstack
from mcsim.server import Server
from tests.mcsim.conftest import WritePack

# 60,000 levels raised RecursionError out of Server.run before (limit 200,000, 4 frames a level).
DEPTH = 60_000


def _recursive(pack: WritePack, depth: int) -> None:
    pack(
        {
            "t:r": "scoreboard players add #d o 1\n"
            f"execute if score #d o matches ..{depth - 1} run function t:r\n",
            "t:ret": "scoreboard players add #d o 1\n"
            f"execute if score #d o matches {depth}.. run return 7\n"
            "return run function t:ret\n",
        },
        tags={"minecraft:tick": ["t:tick"]},
    )
    pack({"t:tick": "execute if score #go o matches 1 run function t:r\n"}, tags={})


def _overflow_lines(srv: Server) -> list[str]:
    text = srv.log_path.read_text(encoding="utf-8")
    return [ln for ln in text.splitlines() if "Command execution stopped due to limit" in ln]


@pytest.mark.slow
def test_recursion_as_deep_as_the_budget_allows(server: Server, pack: WritePack) -> None:
    _recursive(pack, DEPTH)
    server.run("reload")
    server.run("gamerule maxCommandChainLength 400000")
    server.run("scoreboard objectives add o dummy")
    r = server.run("function t:r")
    assert r.success
    assert server.score("#d", "o") == DEPTH
    # entry, add and the `if score` stage (1 even on the last level, where it passes nothing)
    assert server.counters.last_call == 3 * DEPTH
    server.run("scoreboard players set #d o 0")
    r = server.run("execute store result score #res o run function t:ret")
    assert (r.success, server.score("#res", "o")) == (True, 7)
    assert server.score("#d", "o") == DEPTH
    assert _overflow_lines(server) == []


@pytest.fixture
def low_recursion_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """Python's recursion limit held at 20,000 (about 5,000 levels) for this test."""
    limit = 20_000
    monkeypatch.setattr(mcsim.deepstack, "MAX_RECURSION_LIMIT", limit)
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield limit
    finally:
        sys.setrecursionlimit(before)


def test_running_out_of_python_stack_ends_the_call_like_the_budget(
    server: Server, pack: WritePack, low_recursion_limit: int
) -> None:
    _recursive(pack, DEPTH)
    server.run("reload")
    server.run("gamerule maxCommandChainLength 400000")
    server.run("scoreboard objectives add o dummy")
    r = server.run("execute store result score #res o run function t:r")  # no exception
    depth = server.score("#d", "o")
    assert depth is not None and 1000 < depth < DEPTH
    assert server.score("#res", "o") is None  # pending store callbacks never fire
    lines = _overflow_lines(server)
    assert len(lines) == 1 and f"(executed {server.counters.last_call} commands)" in lines[0]
    assert r.feedback == ["Running function t:r"]
    # The server goes on: a later command and a tick function that overflows the same way.
    assert server.run("scoreboard players set #go o 1").success
    server.run("scoreboard players set #d o 0")
    server.step(1)
    assert len(_overflow_lines(server)) == 2
    assert server.run("scoreboard players get #go o").result == 1

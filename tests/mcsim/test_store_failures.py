"""A command failing in one context: store callbacks get (False, 0) at every site that runs
commands (ordinary commands, `function`; Carpet's raw /player only runs top-level), silent after
a fork."""

from __future__ import annotations

import pytest

from mcsim.context import server_source
from mcsim.errors import CommandError
from mcsim.executor import context_failed
from mcsim.server import Server
from tests.mcsim.conftest import WritePack


def test_context_failed_feeds_callbacks_then_raises_only_before_a_fork() -> None:
    got: list[tuple[bool, int]] = []
    src = server_source("Server", None).with_(callbacks=(lambda s, r: got.append((s, r)),))
    error = CommandError("boom")
    context_failed(src, error, True)
    assert got == [(False, 0)]
    with pytest.raises(CommandError) as caught:
        context_failed(src, error, False)
    assert caught.value is error
    assert got == [(False, 0), (False, 0)]


@pytest.mark.parametrize(
    "failing",
    [
        "scoreboard players get #nobody o",  # Leaf
        "function t:missing",  # FunctionCall
    ],
)
def test_every_failing_site_stores_zero_per_context(
    server: Server, pack: WritePack, failing: str
) -> None:
    server.run("scoreboard objectives add o dummy")
    server.run("summon marker 0 0 0 {Tags: [m]}")
    server.run("summon marker 0 0 0 {Tags: [m]}")
    server.run("scoreboard players set @e[tag=m] o 7")
    r = server.run(f"execute as @e[tag=m] store success score @s o run {failing}")
    assert (r.success, r.feedback) == (False, [])  # silent after the fork
    assert server.run("execute if score @e[tag=m, limit=1] o matches 0").success
    assert server.run("execute if score @e[tag=m, limit=1, sort=furthest] o matches 0").success
    server.run("scoreboard players set #s o 7")
    r = server.run(f"execute store success score #s o run {failing}")
    assert not r.success and r.feedback  # before a fork the error is the command's
    assert server.score("#s", "o") == 0


def test_a_failing_raw_command_reports_failure(server: Server) -> None:
    r = server.run("player Bot spawn at 0 64 0 facing 0 0 in d:nowhere")
    assert (r.success, r.result, r.feedback) == (False, 0, ["Unknown dimension 'd:nowhere'"])

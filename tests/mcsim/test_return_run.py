"""`return run` as the 1.21.11 decompile runs it (ReturnCommand.ReturnRunRedirector and
SingleCommandAction with insideReturnRun): the inner chain's stages run for every context, the
command at its end for the first context that reaches it; the source's own consumers (stores)
hear returns too."""

from __future__ import annotations

import pytest

from mcsim.server import Server
from tests.mcsim.conftest import WritePack


@pytest.fixture
def srv(server: Server, pack: WritePack) -> Server:
    pack(
        {
            "t:filtered": "execute as @e[tag=t] run return run execute if entity @s[tag=second] "
            "run scoreboard players add #hits o 1\nscoreboard players set #after o 1",
            "t:first": "execute as @e[tag=t] run return run scoreboard players add @s o 1",
            "t:stages": "execute as @e[tag=t] run return run execute if function t:count "
            "run scoreboard players add #ran o 1",
            "t:count": "scoreboard players add #count o 1\nreturn 1",
            "t:store_run": "execute store result score #st o run return run "
            "scoreboard players set #v o 9",
            "t:store_value": "execute store result score #sv o run return 4",
            "t:broken": "return run execute if score #x nosuch matches 1 run say x\nsay after",
        }
    )
    server.run("reload")
    server.run("scoreboard objectives add o dummy")
    server.run("summon marker 0 0 0 {Tags: [t]}")
    server.run("summon marker 0 0 0 {Tags: [t, second]}")
    return server


def test_inner_stages_see_every_context_so_a_later_one_can_reach_the_command(srv: Server) -> None:
    r = srv.run("function t:filtered")
    assert (r.success, r.result) == (True, 1)
    assert srv.score("#hits", "o") == 1
    assert srv.score("#after", "o") is None  # the rest of the function was discarded


def test_the_command_runs_in_the_first_context_only(srv: Server) -> None:
    assert srv.run("function t:first").result == 1
    assert srv.run("execute if score @e[tag=t, tag=!second, limit=1] o matches 1").success
    assert srv.run("execute unless score @e[tag=second, limit=1] o matches 1").success


def test_stages_before_the_command_run_for_all_contexts(srv: Server) -> None:
    assert srv.run("function t:stages").result == 1
    assert srv.score("#count", "o") == 2  # `if function` evaluated for both contexts
    assert srv.score("#ran", "o") == 1


def test_a_store_around_return_hears_the_value(srv: Server) -> None:
    assert srv.run("function t:store_run").result == 9
    assert srv.score("#st", "o") == 9
    assert srv.run("function t:store_value").result == 4
    assert srv.score("#sv", "o") == 4


def test_a_failing_stage_inside_return_run_ends_the_function_with_no_value(srv: Server) -> None:
    srv.run("scoreboard players set #r o 99")
    srv.run("execute store result score #r o store success score #s o run function t:broken")
    assert (srv.score("#r", "o"), srv.score("#s", "o")) == (99, None)  # nothing stored
    r = srv.run("function t:broken")
    assert r.feedback == ["Running function t:broken"]  # no "returned" line, no "after"
    assert not any("after" in ln for ln in _log(srv))


def _log(srv: Server) -> list[str]:
    return srv.log_path.read_text(encoding="utf-8").splitlines()

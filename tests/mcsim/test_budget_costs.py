"""What each command costs from the budget, as the 1.21.11 decompile counts it.

`CommandExecutionContext.decrementCommandQuota` has three callers (paths under
src/main/java/net/minecraft/ of duollectis/minecraft-decompiled-1.21.11):
- `command/SingleCommandAction.execute`: once per `execute` stage whose redirect modifier is
  non-null and not a `Forkable`, whatever the number of contexts (none included);
- `command/FixedCommandAction.execute`: an ordinary command, once per context it runs in;
- `command/CommandFunctionAction.execute`: a function entry.
`run` is a plain redirect (no modifier, `server/command/ExecuteCommand.java`), `if|unless function`
(`ExecuteCommand.IfUnlessRedirector`) and `return run` (`server/command/ReturnCommand.java`
ReturnRunRedirector) are Forkable, and `function`/`return` are `ControlFlowAware` commands that
never reach FixedCommandAction: all of these cost 0. `CommandExecutionContext.run` checks the
quota before every queue entry (a function line, a command in one context, a function entry).
"""

from __future__ import annotations

import pytest

from mcsim.server import Server
from tests.mcsim.conftest import WritePack

OVERFLOW = "Command execution stopped due to limit"


@pytest.fixture
def srv(server: Server, pack: WritePack) -> Server:
    pack(
        {
            "t:yes": "return 1",
            "t:no": "return 0",
            "t:rr": "return run scoreboard players set #x o 1",
            "t:rr_as": "return run execute as @e[tag=m] run scoreboard players add #n o 1",
            "t:ret5": "return 5",
            "t:k": "scoreboard players set #x o 1\nreturn 3",
            "t:m": "execute if score #a o matches 1 run return 4",
        }
    )
    server.run("reload")
    server.run("scoreboard objectives add o dummy")
    server.run("data modify storage t:s a set value 1")
    return server


def cost(srv: Server, command: str) -> int:
    srv.run(command)
    return srv.counters.last_call


def markers(srv: Server, count: int) -> None:
    for i in range(count):
        srv.run(f"summon marker {i} 64 0 {{Tags: [m]}}")


def overflow_lines(srv: Server) -> int:
    return srv.log_path.read_text(encoding="utf-8").count(OVERFLOW)


def test_if_data_stage_costs_one_with_the_data_present_or_absent(srv: Server) -> None:
    # SingleCommandAction: the stage (1) + FixedCommandAction for the one context (1)
    assert cost(srv, "execute if data storage t:s a run say hi") == 2
    # the stage still costs 1; no context reaches `say`
    assert cost(srv, "execute if data storage t:s b run say hi") == 1


@pytest.mark.parametrize(("count", "expected"), [(0, 1), (1, 2), (3, 4)])
def test_as_costs_one_for_the_stage_and_one_per_context(
    srv: Server, count: int, expected: int
) -> None:
    markers(srv, count)
    assert cost(srv, "execute as @e[tag=m] run scoreboard players add #n o 1") == expected
    assert srv.score("#n", "o") == (count or None)


def test_store_stage_costs_one(srv: Server) -> None:
    assert cost(srv, "execute store result score #r o run scoreboard players set #x o 5") == 2
    assert srv.score("#r", "o") == 5
    # two stages, no context left after `as`: 2, nothing stored
    assert cost(srv, "execute store result score #q o as @e[tag=m] run say hi") == 2
    assert srv.score("#q", "o") is None


def test_every_stage_of_a_nested_chain_costs_even_after_the_contexts_ran_out(srv: Server) -> None:
    srv.run("scoreboard players set #a o 1")
    srv.run("scoreboard players set #b o 1")
    both = "execute if score #a o matches 1 if score #b o matches 1 run say hi"
    assert cost(srv, both) == 3
    srv.run("scoreboard players set #a o 0")
    assert cost(srv, both) == 2  # the second `if` runs on an empty list and still costs 1
    # `run execute ...` is the same flat chain to vanilla (`run` redirects to the root)
    nested = "execute if score #a o matches 1 run execute if score #b o matches 1 run say hi"
    assert cost(srv, nested) == 2
    assert cost(srv, "execute positioned 0 0 0 in minecraft:overworld rotated 0 0 run say a") == 4


def test_if_function_stage_is_free_its_function_entries_are_not(srv: Server) -> None:
    # IfUnlessRedirector is a Forkable: the entry (1) + `return 1` (0) + the command (1)
    assert cost(srv, "execute if function t:yes run scoreboard players add #f o 1") == 2
    assert cost(srv, "execute if function t:no run scoreboard players add #f o 1") == 1
    assert srv.score("#f", "o") == 1
    markers(srv, 3)
    # `as` (1) + three entries + three commands
    assert cost(srv, "execute as @e[tag=m] if function t:yes run say hi") == 7


def test_return_and_function_cost_nothing_themselves(srv: Server) -> None:
    assert cost(srv, "function t:ret5") == 1  # the entry only
    assert cost(srv, "function t:rr") == 2  # entry + the command `return run` runs
    markers(srv, 3)
    # entry + `as` (1, the stages after `return run` run for every context) + the command
    # in the first context only
    assert cost(srv, "function t:rr_as") == 3
    assert srv.score("#n", "o") == 1


def test_the_quota_is_checked_before_free_lines_too(srv: Server) -> None:
    """`return 3` costs 0 but is a queue entry: with the quota at 0 it never runs."""
    srv.run("gamerule max_command_sequence_length 3")
    srv.run("scoreboard players set #r o 7")
    before = overflow_lines(srv)
    # store (1) + entry (1) + `scoreboard` (1): 0 left when `return 3` comes up
    srv.run("execute store result score #r o run function t:k")
    assert srv.score("#x", "o") == 1
    assert srv.score("#r", "o") == 7
    assert overflow_lines(srv) == before + 1


def test_a_lines_stages_may_overdraw_and_the_next_entry_stops(srv: Server) -> None:
    """Stages decrement inside their line's entry without a check: `return 4` (run by the same
    entry) still returns; CommandExecutionContext.run then finds 0 and logs the line."""
    srv.run("gamerule max_command_sequence_length 3")
    srv.run("scoreboard players set #a o 1")
    before = overflow_lines(srv)
    # store (1) + entry (1) + the `if` stage (1) = 3, all spent
    srv.run("execute store result score #r o run function t:m")
    assert srv.score("#r", "o") == 4
    assert overflow_lines(srv) == before + 1
    srv.run("gamerule max_command_sequence_length 4")
    srv.run("execute store result score #r2 o run function t:m")
    assert srv.score("#r2", "o") == 4
    assert overflow_lines(srv) == before + 1  # 1 left over: no line

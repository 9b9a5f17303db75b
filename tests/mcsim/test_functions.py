"""Functions, return, macros, tags, store through functions, `if function`, the budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcsim.server import Server
from tests.mcsim.conftest import WritePack


@pytest.fixture
def srv(make_server, pack: WritePack) -> Server:  # type: ignore[no-untyped-def]
    pack(
        {
            "t:ret7": "return 7",
            "t:ret0": "return 0",
            "t:fail": "return fail",
            "t:noret": "scoreboard players set #side o 1",
            "t:early": "scoreboard players set #a o 1\nreturn 3\nscoreboard players set #a o 2",
            "t:runret": "return run scoreboard players set #rr o 12",
            "t:runfail": "return run scoreboard players get #unset o",
            "t:caller": "function t:ret7\nscoreboard players set #after o 1",
            "t:skip": "scoreboard players get #nope o\nscoreboard players set #next o 5",
            "t:m": "$data modify storage t:s $(key) set value $(value)",
            "t:mtext": '$data modify storage t:s text set value "$(v)"',
            "t:mbad": "$scoreboard players set #m o $(v)",
            "t:outer": "function t:m {key: a}\nscoreboard players set #went_on o 1",
            "t:outer2": "function t:mbad {v: notanumber}\nscoreboard players set #went_on2 o 1",
            "t:a": "return 2",
            "t:b": "return 5",
            "t:c": "scoreboard players set #c o 1",
            "t:loop": "scoreboard players add #loop o 1\nfunction t:loop",
            "t:load": "scoreboard objectives add o dummy",
        },
        tags={"t:sum": ["t:a", "t:b", "t:c"], "minecraft:load": ["t:load"]},
    )
    srv: Server = make_server()
    return srv


def test_function_feedback_and_return_value(srv: Server) -> None:
    out = srv.run("function t:ret7")
    assert out.feedback == ["Running function t:ret7", "Function t:ret7 returned 7"]
    assert (out.success, out.result) == (True, 7)
    assert srv.run("function t:noret").feedback == ["Running function t:noret"]


def test_return_ends_only_this_function(srv: Server) -> None:
    assert srv.run("function t:early").result == 3
    assert srv.score("#a", "o") == 1
    srv.run("function t:caller")
    assert srv.score("#after", "o") == 1


def test_failing_line_is_skipped_silently(srv: Server) -> None:
    out = srv.run("function t:skip")
    assert out.feedback == ["Running function t:skip"]
    assert srv.score("#next", "o") == 5


def test_return_run_gives_the_command_result(srv: Server) -> None:
    assert srv.run("function t:runret").result == 12
    failed = srv.run("execute store success score #s o run function t:runfail")
    assert failed.success is False
    assert srv.score("#s", "o") == 0


@pytest.mark.parametrize(
    ("fn", "result", "success"),
    [("t:ret7", 7, 1), ("t:ret0", 0, 1), ("t:fail", 0, 0)],
)
def test_store_through_function_return(srv: Server, fn: str, result: int, success: int) -> None:
    srv.run(f"execute store result score #r o store success score #s o run function {fn}")
    assert srv.score("#r", "o") == result
    assert srv.score("#s", "o") == success


def test_store_nothing_when_function_never_returns(srv: Server) -> None:
    srv.run("scoreboard players set #r o 99")
    srv.run("execute store result score #r o run function t:noret")
    assert srv.score("#r", "o") == 99
    srv.run("execute store result storage t:s r int 1 run function t:noret")
    assert "r" not in srv.storage("t:s")


def test_tag_collecting_caller_gets_sum_of_returns(srv: Server) -> None:
    srv.run("execute store result score #sum o run function #t:sum")
    assert srv.score("#sum", "o") == 7
    out = srv.run("function #t:sum")
    assert out.feedback[0] == "Running functions t:a, t:b, t:c"


def test_if_function(srv: Server) -> None:
    assert srv.run("execute if function t:ret7 run scoreboard players set #if o 1").success
    assert srv.score("#if", "o") == 1
    for fn in ("t:ret0", "t:fail", "t:noret"):
        srv.run("scoreboard players set #if2 o 0")
        srv.run(f"execute if function {fn} run scoreboard players set #if2 o 1")
        assert srv.score("#if2", "o") == 0, fn
    srv.run("execute unless function t:noret run scoreboard players set #un o 1")
    assert srv.score("#un", "o") == 1


def test_macro_values_are_raw_text(srv: Server) -> None:
    srv.run("function t:m {key: n, value: 5b}")
    srv.run("function t:m {key: f, value: 2.5f}")
    srv.run('function t:m {key: c, value: {x: "y"}}')
    srv.run("function t:mtext {v: hello}")
    assert srv.storage("t:s") == {"n": 5, "f": 2.5, "c": {"x": "y"}, "text": "hello"}
    # 5b went in as "5": an Int now, not a Byte
    assert srv.run("data get storage t:s n").feedback == [
        "Storage t:s has the following contents: 5"
    ]


def test_macro_with_storage_and_missing_argument(srv: Server) -> None:
    srv.run("data modify storage t:args in set value {key: w, value: 1}")
    srv.run("function t:m with storage t:args in")
    assert srv.storage("t:s")["w"] == 1
    out = srv.run("function t:m {key: z}")
    assert out.success is False
    assert out.feedback[-1] == (
        "Failed to instantiate function t:m: Missing argument value to function t:m"
    )
    assert srv.run("function t:m").feedback[-1] == (
        "Failed to instantiate function t:m: Missing arguments to function t:m"
    )


def test_macro_parse_failure_fails_that_call_only(srv: Server) -> None:
    out = srv.run("execute store success score #ok o run function t:mbad {v: x}")
    assert out.feedback[-1].startswith(
        "Failed to instantiate function t:mbad: While instantiating macro t:mbad: "
        "Command 'scoreboard players set #m o x' caused error: "
    )
    assert srv.score("#ok", "o") == 0
    srv.run("function t:outer")
    srv.run("function t:outer2")
    assert srv.score("#went_on", "o") == 1
    assert srv.score("#went_on2", "o") == 1


def test_macro_expansion_cache_keeps_last_eight(srv: Server) -> None:
    assert srv.sim is not None and srv.sim.functions is not None
    fn = srv.sim.functions.functions["t:m"]
    for i in range(10):
        srv.run(f"function t:m {{key: k{i}, value: {i}}}")
    assert len(fn._cache) == 8
    assert ("k9", "9") in fn._cache and ("k0", "0") not in fn._cache


def test_budget_overflow_drops_the_rest_and_logs(srv: Server) -> None:
    srv.run("gamerule max_command_sequence_length 100")
    out = srv.run("function t:loop")
    # each round costs 2 (entry + scoreboard command): 50 rounds fit in 100
    assert srv.score("#loop", "o") == 50
    assert out.feedback == ["Running function t:loop"]
    log = srv.log_path.read_text()
    assert "Command execution stopped due to limit (executed 100 commands)" in log
    srv.run("gamerule maxCommandChainLength 10")
    srv.run("scoreboard players set #loop o 0")
    srv.run("function t:loop")
    assert srv.score("#loop", "o") == 5


def test_budget_is_per_top_level_call(srv: Server) -> None:
    srv.run("gamerule max_command_sequence_length 10")
    for _ in range(3):
        srv.run("function t:early")
    assert srv.score("#a", "o") == 1  # each call had its own budget


def test_unknown_function_and_parse_error_logged(make_server, pack: WritePack, world: Path) -> None:  # type: ignore[no-untyped-def]
    pack({"t:broken": "say ok\nscoreboard players set #x", "t:fine": "say fine"})
    srv = make_server()
    assert srv.run("function t:broken").feedback == ["Unknown function t:broken"]
    assert srv.run("function t:fine").success
    log = srv.log_path.read_text()
    assert "[Worker-Main-1/ERROR]: Failed to load function t:broken" in log
    assert "Whilst parsing command on line 2: " in log


def test_macro_functions_from_tick_are_skipped(make_server, pack: WritePack) -> None:  # type: ignore[no-untyped-def]
    pack(
        {"t:mt": "$say $(x)", "t:plain": "say plain"},
        tags={"minecraft:tick": ["t:mt", "t:plain"]},
    )
    srv = make_server()
    srv.step(1)
    log = srv.log_path.read_text()
    assert "[Not Secure] [Server] plain" in log
    assert log.count("[Not Secure]") == 1


def test_execute_as_evaluates_function_for_all_contexts_first(srv: Server) -> None:
    for name in ("A", "B"):
        srv.join(name)
    srv.run("data modify storage t:args a set value {key: first, value: 1}")
    srv.run(
        "execute as @a run function t:m with storage t:args a",
    )
    assert srv.storage("t:s")["first"] == 1

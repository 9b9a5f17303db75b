"""`execute`: stages, conditions, store, forking and its error rules."""

from __future__ import annotations

import pytest

from mcsim.server import Server


@pytest.fixture
def srv(server: Server) -> Server:
    server.run("scoreboard objectives add o dummy")
    return server


def test_as_at_fork_over_players(srv: Server) -> None:
    srv.join("A", pos=(1, 64, 1))
    srv.join("B", pos=(5, 70, 5), dimension="minecraft:the_nether")
    srv.run("execute as @a run scoreboard players add @s o 1")
    assert (srv.score("A", "o"), srv.score("B", "o")) == (1, 1)
    srv.run(
        "execute as @a at @s if dimension minecraft:the_nether run scoreboard players add @s o 5"
    )
    assert (srv.score("A", "o"), srv.score("B", "o")) == (1, 6)


def test_as_self_without_entity_runs_nothing(srv: Server) -> None:
    out = srv.run("execute as @s run scoreboard players set #x o 1")
    assert out.feedback == [] and not out.success
    assert srv.score("#x", "o") is None


def test_in_positioned_rotated_anchored(srv: Server) -> None:
    srv.join("A", pos=(0, 64, 0))
    srv.run("execute in minecraft:the_end positioned 10 20 30 run summon minecraft:marker ~ ~ ~")
    data = srv.run("execute in minecraft:the_end if entity @e[type=minecraft:marker]")
    assert data.success
    srv.run(
        "execute positioned 3 4 5 rotated 90 0 anchored eyes as @e[type=minecraft:marker] "
        "run scoreboard players set #m o 1"
    )
    assert srv.score("#m", "o") == 1
    srv.run("execute as A positioned as @s rotated as @s run scoreboard players set #p o 2")
    assert srv.score("#p", "o") == 2


def test_conditions_last_in_chain(srv: Server) -> None:
    srv.join("A")
    srv.join("B")
    assert srv.run("execute if entity @a").feedback == ["Test passed. Count: 2"]
    assert srv.run("execute if entity @a").result == 2
    fail = srv.run("execute if entity @e[type=minecraft:zombie]")
    assert (fail.success, fail.feedback) == (False, ["Test failed"])
    srv.run("data merge storage t:s {list: [1, 2, 3]}")
    assert srv.run("execute if data storage t:s list[]").result == 3
    assert srv.run("execute if data storage t:s nope.deeper").feedback == ["Test failed"]
    assert srv.run("execute unless data storage t:s nope").feedback == ["Test passed"]
    assert srv.run("execute if dimension minecraft:overworld").success


def test_if_score(srv: Server) -> None:
    srv.run("scoreboard players set #a o 5")
    srv.run("scoreboard players set #b o 7")
    assert srv.run("execute if score #a o matches 1..5").success
    assert not srv.run("execute if score #a o matches 6..").success
    assert srv.run("execute if score #a o < #b o").success
    assert not srv.run("execute if score #a o >= #b o").success
    # an unset score on either side is false, both for if and for comparisons
    assert not srv.run("execute if score #unset o matches ..0").success
    assert not srv.run("execute if score #a o = #unset o").success
    assert srv.run("execute unless score #unset o = #a o").success
    many = srv.run("execute if score * o matches 1")
    assert many.feedback == [
        "Only one entity is allowed, but the provided selector allows more than one"
    ]


def test_if_score_wildcard_without_holders(server: Server) -> None:
    server.run("scoreboard objectives add o dummy")
    out = server.run("execute if score * o matches 1")
    assert out.feedback == ["No relevant score holders could be found"]


def test_store_result_and_success_into_score(srv: Server) -> None:
    srv.run("data merge storage t:s {list: [1, 2, 3, 4]}")
    srv.run("execute store result score #n o run data get storage t:s list")
    assert srv.score("#n", "o") == 4
    srv.run("execute store success score #ok o run data get storage t:s list")
    assert srv.score("#ok", "o") == 1
    srv.run("execute store success score #ok o run data get storage t:s missing")
    assert srv.score("#ok", "o") == 0
    srv.run("scoreboard players set #r o 9")
    srv.run("execute store result score #r o run data get storage t:s missing")
    assert srv.score("#r", "o") == 0  # a command that throws stores 0


def test_store_into_storage_creates_parents_and_casts(srv: Server) -> None:
    srv.run("scoreboard players set #v o 300")
    srv.run("execute store result storage t:s a.b.c byte 1 run scoreboard players get #v o")
    srv.run("execute store result storage t:s half double 0.5 run scoreboard players get #v o")
    srv.run("execute store result storage t:s trunc int 0.01 run scoreboard players get #v o")
    srv.run("scoreboard players set #neg o -7")
    srv.run("execute store result storage t:s neg int 0.5 run scoreboard players get #neg o")
    assert srv.storage("t:s") == {"a": {"b": {"c": 44}}, "half": 150.0, "trunc": 3, "neg": -3}
    assert srv.run("data get storage t:s a.b.c").feedback == [
        "Storage t:s has the following contents: 44b"
    ]


def test_store_once_per_context_last_wins(srv: Server) -> None:
    for name, score in (("A", 3), ("B", 8)):
        srv.join(name)
        srv.run(f"scoreboard players set {name} o {score}")
    srv.run("execute store result score #last o as @a run scoreboard players get @s o")
    assert srv.score("#last", "o") == 8


def test_store_nothing_with_zero_contexts(srv: Server) -> None:
    srv.run("scoreboard players set #r o 5")
    srv.run("execute store result score #r o as @e[type=minecraft:zombie] run say hi")
    assert srv.score("#r", "o") == 5


def test_errors_before_fork_abort_after_fork_are_silent(srv: Server) -> None:
    out = srv.run("execute store result score #x nope run say hi")
    assert (out.success, out.feedback) == (False, ["Unknown scoreboard objective 'nope'"])
    srv.join("A")
    after = srv.run("execute as @a run scoreboard players get @s o")
    assert after.feedback == [] and not after.success


def test_fork_limit(srv: Server) -> None:
    for name in ("A", "B", "C"):
        srv.join(name)
    srv.run("gamerule max_command_forks 2")
    out = srv.run("execute as @a run say hi")
    assert out.feedback == ["Maximum number of contexts (2) reached"]
    # the limit itself is already too many (vanilla compares with >=)
    srv.run("gamerule max_command_forks 3")
    at_limit = srv.run("execute as @a run say hi")
    assert at_limit.feedback == ["Maximum number of contexts (3) reached"]
    srv.run("gamerule max_command_forks 4")
    assert srv.run("execute as @a run say hi").success


def test_execute_run_counts_budget(srv: Server) -> None:
    srv.run("execute positioned 0 0 0 run scoreboard players set #x o 1")
    # one non-forking stage + one command
    assert srv.counters.last_call == 2

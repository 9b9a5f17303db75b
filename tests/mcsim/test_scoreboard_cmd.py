"""`scoreboard`: objectives, players, every operator with Java int semantics."""

from __future__ import annotations

import pytest

from mcsim.server import Server


@pytest.fixture
def srv(server: Server) -> Server:
    server.run("scoreboard objectives add o dummy")
    return server


def _op(srv: Server, a: int | None, op: str, b: int | None) -> tuple[bool, int | None, int | None]:
    srv.run("scoreboard players reset #a o")
    srv.run("scoreboard players reset #b o")
    if a is not None:
        srv.run(f"scoreboard players set #a o {a}")
    if b is not None:
        srv.run(f"scoreboard players set #b o {b}")
    out = srv.run(f"scoreboard players operation #a o {op} #b o")
    return out.success, srv.score("#a", "o"), srv.score("#b", "o")


@pytest.mark.parametrize(
    ("a", "op", "b", "want_a", "want_b"),
    [
        (7, "=", 3, 3, 3),
        (7, "+=", 3, 10, 3),
        (7, "-=", 3, 4, 3),
        (7, "*=", 3, 21, 3),
        (7, "/=", 2, 3, 2),
        (-7, "/=", 2, -4, 2),  # floorDiv
        (7, "/=", -2, -4, -2),
        (-7, "/=", -2, 3, -2),
        (7, "%=", 3, 1, 3),
        (-7, "%=", 3, 2, 3),  # floorMod: sign of the divisor
        (7, "%=", -3, -2, -3),
        (-7, "%=", -3, -1, -3),
        (7, "<", 3, 3, 3),
        (3, "<", 7, 3, 7),
        (7, ">", 3, 7, 3),
        (3, ">", 7, 7, 7),
        (7, "><", 3, 3, 7),
        (2147483647, "+=", 1, -2147483648, 1),  # wraps as a Java int
        (-2147483648, "-=", 1, 2147483647, 1),
        (65536, "*=", 65536, 0, 65536),
        (-2147483648, "/=", -1, -2147483648, -1),
        (None, "+=", 5, 5, 5),  # unset target created as 0
        (5, "+=", None, 5, 0),  # unset source created as 0
    ],
)
def test_operators(
    srv: Server, a: int | None, op: str, b: int | None, want_a: int, want_b: int
) -> None:
    ok, got_a, got_b = _op(srv, a, op, b)
    assert ok
    assert (got_a, got_b) == (want_a, want_b)


@pytest.mark.parametrize("op", ["/=", "%="])
def test_divide_by_zero_fails(srv: Server, op: str) -> None:
    srv.run("scoreboard players set #a o 7")
    srv.run("scoreboard players set #b o 0")
    out = srv.run(f"scoreboard players operation #a o {op} #b o")
    assert (out.success, out.feedback) == (False, ["Cannot divide by zero"])
    assert srv.score("#a", "o") == 7


def test_divide_by_zero_keeps_earlier_pairs(srv: Server) -> None:
    srv.run("scoreboard objectives add p dummy")
    srv.run("scoreboard players set #d2 o 2")
    srv.run("scoreboard players set #d0 o 0")
    srv.run("scoreboard players set #t p 100")
    # `*` = every tracked holder in first-seen order: #d2 (applied), then #d0 (fails)
    out = srv.run("scoreboard players operation #t p /= * o")
    assert out.feedback == ["Cannot divide by zero"]
    assert srv.score("#t", "p") == 50


def test_operation_result_and_feedback(srv: Server) -> None:
    srv.run("scoreboard players set #a o 4")
    out = srv.run("scoreboard players operation #a o *= #a o")
    assert (out.result, out.feedback) == (16, ["Set [o] for #a to 16"])


def test_set_add_remove_get_reset(srv: Server) -> None:
    assert srv.run("scoreboard players set #x o 5").feedback == ["Set [o] for #x to 5"]
    assert srv.run("scoreboard players add #x o 3").feedback == ["Added 3 to [o] for #x (now 8)"]
    out = srv.run("scoreboard players remove #x o 10")
    assert (out.result, out.feedback) == (-2, ["Removed 10 from [o] for #x (now -2)"])
    assert srv.run("scoreboard players get #x o").feedback == ["#x has -2 [o]"]
    srv.run("scoreboard players set #max o 2147483647")
    assert srv.run("scoreboard players add #max o 1").result == -2147483648
    assert srv.run("scoreboard players reset #x o").feedback == ["Reset [o] for #x"]
    assert srv.score("#x", "o") is None
    assert srv.run("scoreboard players reset #never o").success  # no error when absent
    get = srv.run("scoreboard players get #x o")
    assert get.feedback == ["Can't get value of o for #x; none is set"]


def test_negative_add_is_a_parse_error(srv: Server) -> None:
    out = srv.run("scoreboard players add #x o -1")
    assert not out.success
    assert out.feedback == ["Integer must not be less than 0, found -1", "... add #x o -1<--[HERE]"]


def test_objectives(srv: Server) -> None:
    dup = srv.run("scoreboard objectives add o dummy")
    assert dup.feedback == ["An objective already exists by that name"]
    assert srv.run("scoreboard objectives add p dummy").feedback == ["Created new objective [p]"]
    assert srv.run("scoreboard objectives list").feedback == ["There are 2 objective(s): [o], [p]"]
    assert srv.run("scoreboard objectives remove p").feedback == ["Removed objective [p]"]
    unknown = srv.run("scoreboard players set #x nope 1")
    assert unknown.feedback == ["Unknown scoreboard objective 'nope'"]


def test_players_list(srv: Server) -> None:
    assert srv.run("scoreboard players list").feedback == ["There are no tracked entities"]
    srv.run("scoreboard players set #x o 1")
    srv.run("scoreboard players set #y o 2")
    assert srv.run("scoreboard players list").feedback == [
        "There are 2 tracked entity/entities: #x, #y"
    ]
    assert srv.run("scoreboard players list #x").feedback == ["#x has 1 score(s):", "[o]: 1"]


def test_set_many_holders(srv: Server) -> None:
    srv.join("A")
    srv.join("B")
    out = srv.run("scoreboard players set @a o 3")
    assert (out.result, out.feedback) == (6, ["Set [o] for 2 entities to 3"])
    assert srv.run("scoreboard players set @e[type=minecraft:zombie] o 1").feedback == [
        "No entity was found"
    ]

"""Operators (ops.json): a player's own commands run at their op level, 0 when not an op."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcsim.entities import offline_uuid
from mcsim.server import Server

UNKNOWN = "Unknown or incomplete command. See below for error"


def test_a_player_who_is_not_an_operator_runs_at_level_0(server: Server) -> None:
    server.join("Alex")
    r = server.run("say hi", as_player="Alex")  # say needs level 2
    assert (r.success, r.feedback[0]) == (False, UNKNOWN)
    assert server.run("list", as_player="Alex").success  # level 0 commands still work


def test_op_and_deop_write_ops_json_and_change_the_players_level(
    server: Server, world: Path
) -> None:
    server.join("Alex")
    r = server.run("op Alex")
    assert (r.success, r.result, r.feedback) == (True, 1, ["Made Alex a server operator"])
    entries = json.loads((world / "ops.json").read_text(encoding="utf-8"))
    assert entries == [
        {"uuid": offline_uuid("Alex"), "name": "Alex", "level": 4, "bypassesPlayerLimit": False}
    ]
    assert server.run("say hi", as_player="Alex").success
    assert server.run("op Alex").feedback == ["Nothing changed. The player already is an operator"]
    r = server.run("deop Alex")
    assert r.feedback == ["Made Alex no longer a server operator"]
    assert not server.run("say hi", as_player="Alex").success
    assert server.run("deop Alex").feedback == ["Nothing changed. The player is not an operator"]


def test_op_level_comes_from_op_permission_level_and_ops_json(
    world: Path, make_server: Callable[..., Server]
) -> None:
    world.mkdir(parents=True)
    (world / "server.properties").write_text("op-permission-level=2\n", encoding="utf-8")
    entry = {"uuid": offline_uuid("Steve"), "name": "Steve", "level": 3}
    (world / "ops.json").write_text(json.dumps([entry]), encoding="utf-8")
    srv = make_server()
    srv.join("Alex")
    srv.join("Steve")
    srv.run("op Alex")
    assert srv.run("say hi", as_player="Alex").success  # level 2
    r = srv.run("op Steve", as_player="Alex")  # op needs level 3
    assert (r.success, r.feedback[0]) == (False, UNKNOWN)
    assert srv.run("deop Alex", as_player="Steve").success  # Steve is at 3
    assert not srv.run("say hi", as_player="Alex").success

"""Facts from ../shared/notes/vanilla-1.21.md that had no test of their own (see the table at the
end of mcsim/README.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mcsim.errors import CommandError, CommandSyntaxError
from mcsim.nbt import NbtPath, parse_snbt
from mcsim.server import Server
from tests.mcsim.conftest import WritePack


def test_filter_node_is_valid_only_at_the_root() -> None:
    root = parse_snbt("{a: {b: 1}}")
    assert len(NbtPath.parse("{a: {b: 1}}").get(root)) == 1
    with pytest.raises((CommandError, CommandSyntaxError), match="Invalid NBT path element"):
        NbtPath.parse("a.{b: 1}").get(root)


def test_macro_functions_from_load_and_schedule_are_skipped_silently(
    make_server: Callable[..., Server], pack: WritePack
) -> None:
    pack(
        {"t:m": "$say $(x)", "t:plain": "say plain\nschedule function t:m 1t"},
        tags={"minecraft:load": ["t:m", "t:plain"]},
    )
    srv = make_server()
    srv.step(3)
    log = srv.log_path.read_text()
    assert "[Not Secure] [Server] plain" in log
    assert log.count("[Not Secure]") == 1
    assert "Failed to instantiate" not in log


def test_reload_keeps_game_time_and_scores(server: Server) -> None:
    server.step(5)
    server.run("scoreboard objectives add o dummy")
    server.run("scoreboard players set #k o 4")
    assert server.run("reload").feedback == ["Reloading!"]
    assert server.game_time == 5
    assert server.score("#k", "o") == 4


def test_game_time_does_not_advance_while_stopped(world: Path) -> None:
    with Server(world, frozen=True) as srv:
        srv.step(3)
    with Server(world, frozen=True) as again:
        assert again.run("time query gametime").result == 3

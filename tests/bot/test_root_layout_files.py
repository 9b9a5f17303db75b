"""The bot finds a vanilla-laid-out server's files from world_dir = <root>/world alone: the
server.properties and logs/latest.log in the root, as mcsim --root writes them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.background.event_source import local_log
from bot.minecraft.server_files import find_server_properties, local_root
from mcsim.server import Server


@dataclass
class _Files:
    world_dir: Path | None
    name: str = "survival"
    log_path: Path | None = None
    event_source: Literal["log", "rcon", "auto"] = "auto"


def test_the_root_layouts_properties_and_log_are_found_from_the_world(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    with Server(root=root, frozen=True) as srv:
        srv.run("say hello")
        files = _Files(world_dir=srv.world)
        assert find_server_properties(files) == root / "server.properties"
        assert local_root(srv.world) == root
        assert local_log(files) == srv.log_path == root / "logs" / "latest.log"
        assert "[Server] hello" in srv.log_path.read_text(encoding="utf-8")


def test_the_compact_layout_is_still_found_in_the_world_itself(tmp_path: Path) -> None:
    world = tmp_path / "w"
    with Server(world, frozen=True) as srv:
        files = _Files(world_dir=world)
        assert find_server_properties(files) == world / "server.properties"
        assert local_log(files) == srv.log_path == world / "logs" / "latest.log"

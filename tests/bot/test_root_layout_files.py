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


async def test_the_pack_installs_into_the_world_of_a_root_layout(tmp_path: Path) -> None:
    from pydantic import SecretStr

    from bot.config import ServerConfig
    from bot.minecraft.installer import PackInstaller
    from bot.minecraft.rcon import RconClient

    srv = Server(root=tmp_path / "srv", rcon_port=0, rcon_password="pw")
    srv.start(realtime=True)
    try:
        assert srv.rcon_port is not None
        config = ServerConfig(
            name="rooted",
            rcon_port=srv.rcon_port,
            rcon_password=SecretStr("pw"),
            world_dir=srv.world,
            log_path=srv.log_path,
        )
        rcon = RconClient("127.0.0.1", srv.rcon_port, "pw", timeout=10, name="rooted")
        try:
            report = await PackInstaller(rcon, config, verify_timeout=10).install()
        finally:
            await rcon.close()
        assert report.ok, report.summary()
        assert (srv.world / "datapacks" / "doom.schedule" / "pack.mcmeta").is_file()
        assert not (srv.root / "datapacks").exists()
    finally:
        srv.stop()

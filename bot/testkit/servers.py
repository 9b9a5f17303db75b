"""Minecraft servers for tests: mcsim (our stand-in server, which runs the real pack) started on
a world folder with the pack installed, RCON on 127.0.0.1 and a free port; and the bot's
configuration of one. The project's own tests and a plugin's use these."""

from __future__ import annotations

__all__ = ["PACK_FOLDER", "install_pack", "server_config", "start_mcsim"]

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.config import ServerConfig
from bot.minecraft.installer import bundled_datapack

if TYPE_CHECKING:
    from mcsim.server import Server

PACK_FOLDER = "doom.schedule"


def install_pack(world: Path, pack: Path | None = None) -> Path:
    """`world`/datapacks/doom.schedule from `pack` (default: the bundled pack), as an admin
    copies it; returns the world."""
    target = world / "datapacks" / PACK_FOLDER
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(pack or bundled_datapack(), target, dirs_exist_ok=True)
    return world


def start_mcsim(
    world: Path,
    *,
    password: str | None = None,
    realtime: bool = False,
    pack: Path | None = None,
    **options: Any,
) -> Server:
    """A started mcsim on `world` with the pack installed; RCON on a free port of 127.0.0.1
    when `password` is given. Without `realtime` it ticks only when stepped."""
    from mcsim.server import Server  # the [sim] extra: only when a test starts one

    install_pack(world, pack)
    if password is not None:
        options.update(rcon_port=0, rcon_password=password)
    server = Server(world, **options)
    server.start(realtime=realtime)
    return server


def server_config(
    server: Server, password: str, *, name: str = "main", event_source: str = "log"
) -> ServerConfig:
    """The bot's configuration of `server`: its RCON port, world and log."""
    assert server.rcon_port is not None
    return ServerConfig(
        name=name,
        rcon_port=server.rcon_port,
        rcon_password=password,  # type: ignore[arg-type]
        world_dir=server.world,
        log_path=server.log_path,
        event_source=event_source,  # type: ignore[arg-type]
    )

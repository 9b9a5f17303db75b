"""The embedded stand-in server the bot uses when no Minecraft server is configured.

An mcsim world in `<data_dir>/world` running at 20 TPS in this process, RCON on 127.0.0.1 with a
port the OS picks and a password made up for this run (neither is written to disk: mcsim takes
them as overrides of server.properties), and the doom.schedule pack installed and verified by
the same installer a real server gets. The world (queue included) persists between runs.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr

from bot.config import ServerConfig, Settings
from bot.i18n import _
from bot.minecraft.installer import InstallError, InstallReport, PackInstaller
from bot.minecraft.rcon import RconClient

if TYPE_CHECKING:
    from mcsim.server import Server

__all__ = ["EMBEDDED_NAME", "EmbeddedServer", "start_embedded"]

log = logging.getLogger(__name__)

EMBEDDED_NAME = "embedded"


@dataclass
class EmbeddedServer:
    """A running embedded mcsim; `servers` is what the services drive (bot.services.Embedded)."""

    server: Server
    servers: list[ServerConfig]
    install: InstallReport

    @property
    def world(self) -> Path:
        return self.server.world

    def stop(self) -> None:
        """Save and stop the game (idempotent)."""
        self.server.stop()


async def start_embedded(settings: Settings, *, rcon_timeout: float = 20.0) -> EmbeddedServer:
    """Start the world, install the pack, return it once the pack answers with its version."""
    # the simulator is only needed in this mode
    from mcsim.server import Server
    from mcsim.session_lock import SessionLockedError
    from mcsim.world import read_properties, write_properties

    world = Path(settings.data_dir) / "world"
    world.mkdir(parents=True, exist_ok=True)
    # loopback only, whatever an edited server.properties says, no echo of RCON commands to
    # operators, and no empty-server pause (1.21.2+ stops ticking after 60 s with nobody online,
    # and nobody ever joins the embedded world, so its tasks would never run); written to the
    # file so `check` reads what the server uses (the port and the password are per run and stay
    # out of it)
    properties = world / "server.properties"
    values = read_properties(properties)
    values.update(
        {
            "rcon.ip": "127.0.0.1",
            "broadcast-rcon-to-ops": "false",
            "pause-when-empty-seconds": "0",
        }
    )
    write_properties(properties, values)
    password = secrets.token_urlsafe(24)
    server = Server(world, rcon_port=0, rcon_password=password)
    try:
        await asyncio.to_thread(server.start, realtime=True)
    except SessionLockedError:
        # another process's server (not a bot: the data folder's lock would have said so)
        raise InstallError(
            _(
                "The embedded world {world} is in use by another Minecraft server (its "
                "session.lock is held). Stop that server, then try again.",
                world=str(world),
            )
        ) from None
    try:
        port = server.rcon_port
        if port is None:
            raise InstallError("The embedded server started without RCON.")
        config = ServerConfig(
            name=EMBEDDED_NAME,
            rcon_host="127.0.0.1",
            rcon_port=port,
            rcon_password=SecretStr(password),
            world_dir=world,
            log_path=server.log_path,
        )
        rcon = RconClient("127.0.0.1", port, password, timeout=rcon_timeout, name=EMBEDDED_NAME)
        try:
            report = await PackInstaller(rcon, config, verify_timeout=rcon_timeout).install()
        finally:
            await rcon.close()
        if not report.ok:
            raise InstallError(f"The embedded server is not usable: {report.summary()}")
    except BaseException:
        await asyncio.to_thread(server.stop)
        raise
    log.info(
        "embedded mcsim running in %s (RCON 127.0.0.1:%s), doom.schedule %s",
        world,
        port,
        report.version,
    )
    return EmbeddedServer(server, [config], report)

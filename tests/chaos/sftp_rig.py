"""The chaos rig's `sftp` source: the trial's server read as a rented one, its log followed over
SFTP from a real OpenSSH server (tests/sftp/sshd.py) started for the trial. mcsim's --world
layout keeps server.properties and logs/ in the world folder, which is then the server's
folder the SFTP URL names; the bot gets no world_dir and no log_path."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.config import ServerConfig
from tests.e2e.test_acceptance_crash import PASSWORD
from tests.sftp.conftest import sftp_settings
from tests.sftp.sshd import Sshd

__all__ = ["sftp_config", "start_sshd"]


async def start_sshd(home: Path) -> Sshd:
    sshd = Sshd(home)
    await asyncio.to_thread(sshd.start)
    return sshd


def sftp_config(world: Path, port: int, sshd: Sshd) -> ServerConfig:
    return ServerConfig(
        name="main",
        rcon_port=port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        event_source="log",
        **sftp_settings(sshd, world),  # type: ignore[arg-type]
    )

"""/setup on a rented server: mcsim in vanilla's layout (`Server(root=...)`: server.properties
and logs/ in the root, the world named by level-name inside it) behind a real OpenSSH server,
the bot given only RCON and the SFTP login. The setup operation ships the pack into
<root>/<level-name>/datapacks over SFTP and verifies it over RCON; server.properties and the
version are read over SFTP; the events come from the log over SFTP, which /status says."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.minecraft.installer import InstallError
from bot.minecraft.server_files import version_from_logs
from bot.operations import Operations, admin, status
from bot.operations.queue import ServerRef
from bot.services import build_services
from bot.testkit.harness import make_settings
from mcsim.server import Server
from tests.bot.conftest import Recorder
from tests.bot.test_operations import ADMIN
from tests.sftp.conftest import sftp_settings
from tests.sftp.sshd import Sshd

PASSWORD = "rented-rcon"


@pytest.fixture
def rented(tmp_path: Path) -> Iterator[Server]:
    """A server in vanilla's layout whose world is named by level-name, without the pack."""
    root = tmp_path / "server"
    root.mkdir()
    (root / "server.properties").write_text(
        "level-name=realm\nfunction-permission-level=3\nbroadcast-rcon-to-ops=false\n"
    )
    server = Server(root=root, rcon_port=0, rcon_password=PASSWORD)
    server.start(realtime=True)
    try:
        yield server
    finally:
        server.stop()


def config(server: Server, sshd: Sshd, root: Path) -> ServerConfig:
    assert server.rcon_port is not None
    return ServerConfig(
        name="rented",
        rcon_port=server.rcon_port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        **sftp_settings(sshd, root),  # type: ignore[arg-type]
    )


async def test_setup_ships_and_verifies_the_pack_over_sftp(
    rented: Server, sshd: Sshd, tmp_path: Path
) -> None:
    assert rented.world == rented.root / "realm"
    settings = make_settings(tmp_path / "data", [config(rented, sshd, rented.root)])
    services = await build_services(settings)
    try:
        server = services.servers["rented"]
        # read over SFTP: the bot has no file of this server on its own disk
        assert server.properties.level_name == "realm"
        assert server.checker.function_permission_level == 3
        version = await asyncio.to_thread(version_from_logs, rented.log_path)
        assert version and server.minecraft.version == version
        assert server.event_kind == "sftp"
        ops = Operations(services, Recorder())
        done = await admin.setup(ops, ADMIN, ServerRef(server="rented"))
        assert done.report.ok, done.text
        assert done.report.action == "installed" and done.report.expected_version
        pack = rented.world / "datapacks" / "doom.schedule"
        assert (pack / "pack.mcmeta").is_file()
        assert not list(pack.rglob("*.py")) and not list(pack.rglob("__pycache__"))
        assert [p.name for p in rented.world.iterdir() if p.name.startswith(".")] == []
        again = await admin.setup(ops, ADMIN, ServerRef(server="rented"))
        assert again.report.ok and again.report.action == "reinstalled", again.text
        [found] = await status.status(ops, ADMIN, ServerRef(server="rented"))
        assert found.version == done.report.version
        assert "log over SFTP" in found.events and "reading" in found.events, found.events
    finally:
        await services.close()


async def test_a_wrong_root_is_refused_before_anything_changes(
    rented: Server, sshd: Sshd, tmp_path: Path
) -> None:
    settings = make_settings(tmp_path / "data", [config(rented, sshd, tmp_path / "elsewhere")])
    services = await build_services(settings)
    try:
        ops = Operations(services, Recorder())
        with pytest.raises(InstallError, match="must be the server's folder"):
            await admin.setup(ops, ADMIN, ServerRef(server="rented"))
        assert not (rented.world / "datapacks" / "doom.schedule").exists()
    finally:
        await services.close()


async def test_install_datapack_command_ships_the_pack_over_sftp_then_selftests(
    rented: Server, sshd: Sshd, tmp_path: Path
) -> None:
    import io

    from bot.__main__ import _install

    settings = make_settings(
        tmp_path / "data", [config(rented, sshd, rented.root)], log_poll_interval=0.02
    )
    out = io.StringIO()
    code = await _install(settings, None, out)
    assert code == 0, out.getvalue()
    assert "the server lists it as enabled" in out.getvalue()
    assert (rented.world / "datapacks" / "doom.schedule" / "pack.mcmeta").is_file()

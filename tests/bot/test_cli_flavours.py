"""`python -m bot check` and `install-datapack` as real processes against Paper 1.21.6 (whose
plain `reload` is Bukkit's) and Fabric with Carpet: check names the software and the reload it
uses; install-datapack succeeds and sends no command that server takes as a plugin reload."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.minecraft.installer import pack_version_of
from mcsim.server import Server
from tests.bot.pack_sim import PASSWORD, REPO
from tests.bot.test_cli import bot, env_for

# every test here takes seconds (a real browser, a server at 20 TPS, processes)
pytestmark = pytest.mark.slow

VERSION = pack_version_of(REPO / "datapack")


@pytest.mark.parametrize(
    ("flavour", "named", "reload"),
    [
        ("paper-1.21.6", "software: Paper 1.21.6 (1.21.6-", "`minecraft:reload`"),
        ("fabric-carpet", "software: Fabric + Carpet 1.21.11 (Fabric Loader", "`reload`"),
    ],
)
def test_check_and_install_on_other_software(
    tmp_path: Path, flavour: str, named: str, reload: str
) -> None:

    world = tmp_path / "world"
    # as the README asks, so the selftest that ends install-datapack passes (it FAILs an echo)
    world.mkdir()
    (world / "server.properties").write_text("broadcast-rcon-to-ops=false\n")
    server = Server(world, rcon_port=0, rcon_password=PASSWORD, flavour=flavour)
    server.start(realtime=True)
    try:
        entry = {
            "name": "mc",
            "rcon_port": server.rcon_port,
            "rcon_password": PASSWORD,
            "world_dir": str(world),
            "log_path": str(server.log_path),
        }
        env = env_for(tmp_path, [entry])
        installed = bot(tmp_path, "install-datapack", env=env)
        assert installed.returncode == 0, installed.stdout + installed.stderr
        assert f"doom.schedule {VERSION} installed on server 'mc'" in installed.stdout
        assert "selftest of 'mc' passed" in installed.stdout
        checked = bot(tmp_path, "check", env=env)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert named in checked.stdout
        assert f"the pack is reloaded with {reload}" in checked.stdout
    finally:
        server.stop()
    assert not [c for c in server.rcon_commands if server.flavour.is_plugin_reload(c)]
    assert server.flavour_state.plugin_reloads == 0

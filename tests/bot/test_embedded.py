"""bot.minecraft.embedded: with no server configured, an mcsim world in data_dir with the pack
installed."""

from __future__ import annotations

from pathlib import Path

from bot.config import DEFAULT_DENY, Settings
from bot.minecraft.command_check import CommandChecker
from bot.minecraft.embedded import EMBEDDED_NAME, start_embedded
from bot.minecraft.installer import pack_version_of
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient

REPO = Path(__file__).resolve().parents[2]


def settings_for(data_dir: Path) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]


async def test_embedded_world_runs_the_pack_and_keeps_its_queue(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "data")
    first = await start_embedded(settings)
    try:
        (config,) = first.servers
        assert config.name == EMBEDDED_NAME and config.rcon_host == "127.0.0.1"
        assert config.world_dir == tmp_path / "data" / "world"
        assert config.log_path is not None and config.log_path.is_file()
        assert first.install.ok and first.install.version == pack_version_of(REPO / "datapack")
        password = config.rcon_password.get_secret_value()
        assert len(password) >= 24
        properties = (config.world_dir / "server.properties").read_text()
        assert password not in properties  # per run, never on disk
        assert "broadcast-rcon-to-ops=false" in properties
        # nobody joins the embedded world: vanilla's empty-server pause would stop its clock
        assert "pause-when-empty-seconds=0" in properties
        rcon = RconClient("127.0.0.1", config.rcon_port, password)
        pack = PackClient(rcon, config, CommandChecker(deny=DEFAULT_DENY))
        try:
            assert 15.0 <= await pack.tps() <= 21.0  # real time, 20 TPS
            await pack.schedule("say kept", 1, "h", "kept")
        finally:
            await rcon.close()
    finally:
        first.stop()

    second = await start_embedded(settings)  # same world: an in-place reinstall
    try:
        (again,) = second.servers
        assert again.rcon_password.get_secret_value() != password
        assert second.install.ok and second.install.action == "reinstalled"
        rcon = RconClient("127.0.0.1", again.rcon_port, again.rcon_password.get_secret_value())
        pack = PackClient(rcon, again, CommandChecker(deny=DEFAULT_DENY))
        try:
            task = await pack.show("kept")
            assert task is not None and task.run == "say kept"
        finally:
            await rcon.close()
    finally:
        second.stop()

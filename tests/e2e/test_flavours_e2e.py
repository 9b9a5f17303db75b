"""/status and /setup through the bot's real services on every mcsim flavour (mcsim/flavours.py):
the software is named, the pack installs and verifies, and no command the bot sends is one that
flavour takes as a Bukkit plugin reload (mcsim records every RCON command it receives)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.minecraft.installer import bundled_datapack, pack_version_of
from bot.services import build_services
from mcsim.flavours import FLAVOURS
from mcsim.server import Server
from tests.cogs.harness import ADMIN, Harness, make_settings

ROOT = Path(__file__).resolve().parent.parent.parent
PASSWORD = "flavour-rcon-pw"
# What /status must call each flavour (bot/minecraft/software.py names, from the log).
NAMED = {
    "vanilla": "vanilla 1.21.11",
    "paper": "Paper 1.21.11",
    "paper-1.21.6": "Paper 1.21.6",
    "spigot": "Spigot 1.21.11",
    "fabric": "Fabric 1.21.11",
    "fabric-carpet": "Fabric + Carpet 1.21.11",
}


@pytest.fixture(params=sorted(FLAVOURS))
def flavoured(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    world = tmp_path / "world"
    (world / "datapacks").mkdir(parents=True)
    shutil.copytree(ROOT / "datapack", world / "datapacks" / "doom.schedule")
    server = Server(world, rcon_port=0, rcon_password=PASSWORD, flavour=request.param)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def bot(flavoured: Server, tmp_path: Path) -> AsyncIterator[Harness]:
    assert flavoured.rcon_port is not None
    config = ServerConfig(
        name="main",
        rcon_port=flavoured.rcon_port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=flavoured.world,
        log_path=flavoured.log_path,
        event_source="log",
    )
    settings = make_settings(tmp_path, [config], log_poll_interval=0.02)
    harness = await Harness(settings, await build_services(settings)).start()
    try:
        yield harness
    finally:
        await harness.close()


async def test_status_names_the_software_and_setup_never_reloads_plugins(
    bot: Harness, flavoured: Server
) -> None:
    flavour = flavoured.flavour
    status = await bot.run("status", ADMIN)
    fields = {f["name"]: f["value"] for f in status.embeds[0]["fields"]}
    assert fields["server software"].startswith(NAMED[flavour.name]), fields
    assert fields["pack version"] == pack_version_of(bundled_datapack())

    setup = await bot.run("setup", ADMIN)
    assert "doom.schedule" in setup.text and "Not verified" not in setup.text, setup.text

    sent = list(flavoured.rcon_commands)
    assert not [c for c in sent if flavour.is_plugin_reload(c)]
    assert flavoured.flavour_state.plugin_reloads == 0
    reloads = [c for c in sent if c.split(" ")[0] in ("reload", "minecraft:reload", "rl")]
    if flavour.family == "bukkit":
        assert reloads == ["minecraft:reload"]
    else:
        assert reloads == ["reload"]
        assert not [c for c in sent if c.startswith("minecraft:")]

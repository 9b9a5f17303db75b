"""/status and /setup through the bot's real services on every mcsim flavour (mcsim/flavours.py):
the software is named, the pack installs and verifies, and no command the bot sends is one that
flavour takes as a Bukkit plugin reload (mcsim records every RCON command it receives)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.minecraft.installer import bundled_datapack, pack_version_of
from bot.testkit.harness import ADMIN, Harness
from mcsim.flavours import FLAVOURS
from mcsim.server import Server
from tests.fixtures import start_bot

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
def flavoured(request: pytest.FixtureRequest, mcsim: Callable[..., Server]) -> Server:
    return mcsim(password=PASSWORD, flavour=request.param)


@pytest.fixture
async def bot(flavoured: Server, tmp_path: Path) -> AsyncIterator[Harness]:
    harness = await start_bot(flavoured, tmp_path, PASSWORD)
    try:
        yield harness
    finally:
        await harness.close()


@pytest.mark.slow
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

"""bot.minecraft.software: telling vanilla, Paper, Spigot and Fabric apart, from the start-up
lines mcsim's flavours write (mcsim/flavours.py) and from hand-written real-world shapes; the
log parser on Paper/Fabric lines; the pack client reading Bukkit-shaped (§, `\\n`) replies."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.events.event import parse_log_line
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.minecraft.software import (
    detect_from_log,
    detect_from_log_lines,
    probe_over_rcon,
    reload_command,
    split_log_line,
    strip_colours,
)
from mcsim.flavours import FLAVOURS
from mcsim.server import Server
from tests.bot.conftest import RconHarness

EXPECTED = {
    "vanilla": ("vanilla", "vanilla", "1.21.11", False),
    "paper": ("bukkit", "Paper", "1.21.11", False),
    "paper-1.21.6": ("bukkit", "Paper", "1.21.6", False),
    "spigot": ("bukkit", "Spigot", "1.21.11", False),
    "fabric": ("fabric", "Fabric", "1.21.11", False),
    "fabric-carpet": ("fabric", "Fabric", "1.21.11", True),
}
EVENT = "[Not Secure] [Server] [doom.schedule] event=retry id=a seq=3 t=40"


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_each_flavours_start_up_log_names_its_software(tmp_path: Path, flavour: str) -> None:
    with Server(tmp_path / "w", frozen=True, flavour=flavour) as srv:
        found = detect_from_log(srv.log_path)
    assert found is not None
    assert (found.family, found.name, found.version, found.carpet) == EXPECTED[flavour]
    assert found.source == "log"
    want = "minecraft:reload" if EXPECTED[flavour][0] == "bukkit" else "reload"
    assert found.reload_command == want


def test_a_log_rolled_at_midnight_still_names_the_software(tmp_path: Path) -> None:
    """A server running past midnight rolls latest.log (its start-up lines go to the archive):
    the software and its build are read from the newest rolled log that has them."""
    with Server(tmp_path / "w", frozen=True, flavour="paper-1.21.6") as srv:
        assert srv.log is not None
        srv.log.rotate()
        srv.log.info(EVENT)
        assert "Paper" not in srv.log_path.read_text(encoding="utf-8")
        found = detect_from_log(srv.log_path)
    assert found is not None and (found.name, found.version) == ("Paper", "1.21.6")
    assert found.build is not None and found.build.startswith("1.21.6-")


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
async def test_rcon_probes_tell_bukkit_from_the_rest(tmp_path: Path, flavour: str) -> None:
    srv = Server(tmp_path / "w", frozen=True, flavour=flavour, rcon_port=0, rcon_password="pw")
    srv.start()
    try:
        assert srv.rcon_port is not None
        rcon = RconClient("127.0.0.1", srv.rcon_port, "pw", timeout=5.0)
        try:
            found = await probe_over_rcon(rcon)
        finally:
            await rcon.close()
    finally:
        srv.stop()
    family, name, version, carpet = EXPECTED[flavour]
    assert found.version == version and found.source == "rcon"  # vanilla's `version`
    if family == "bukkit":
        assert (found.family, found.name) == (family, name)
    elif carpet:
        assert (found.family, found.carpet) == ("fabric", True)
    else:  # vanilla and Fabric without Carpet answer RCON alike
        assert (found.family, found.name) == ("vanilla", "vanilla or Fabric")
    assert not [c for c in srv.rcon_commands if srv.flavour.is_plugin_reload(c)]
    # Bukkit's own `version` answers later, on another thread: never asked
    assert "version" not in srv.rcon_commands or family != "bukkit"
    assert srv.flavour_state.version_known is False


def test_itzg_log_layout_with_dates(tmp_path: Path) -> None:
    # itzg/minecraft-server's files/log4j2.xml: `[%d{yyyy-MM-dd HH:mm:ss}] [%t/%level]: %msg`
    with Server(tmp_path / "w", frozen=True, flavour="paper", log_timestamp="datetime") as srv:
        found = detect_from_log(srv.log_path)
    assert found is not None and (found.family, found.name) == ("bukkit", "Paper")


def test_real_world_shapes() -> None:
    purpur = [
        "[10:00:00] [main/INFO]: [bootstrap] Loading Purpur 1.21.4-2416-HEAD@7d0e4b1 (2025-01-"
        "20T01:55:53Z) for Minecraft 1.21.4",
        "[10:00:01] [Server thread/INFO]: Starting minecraft server version 1.21.4",
        '[10:00:05] [Server thread/INFO]: Done (4.512s)! For help, type "help"',
    ]
    found = detect_from_log_lines(purpur)
    assert found is not None and (found.family, found.name, found.version) == (
        "bukkit",
        "Purpur",
        "1.21.4",
    )
    spigot_console = [  # the console layout, and a datetime stamp
        "[2025-01-01 10:00:00 INFO]: Starting minecraft server version 1.21.4",
        "[2025-01-01 10:00:00 INFO]: This server is running CraftBukkit version 4380-Spigot-"
        "6198b5a-d6bb0b8 (MC: 1.21.4) (Implementing API version 1.21.4-R0.1-SNAPSHOT)",
    ]
    found = detect_from_log_lines(spigot_console)
    assert found is not None and (found.family, found.name) == ("bukkit", "Spigot")
    # A plugin's logger saying the words does not make a vanilla server Paper.
    forged = [
        "[10:00:01] [Server thread/INFO]: Starting minecraft server version 1.21.11",
        "[10:00:02] [Server thread/INFO]: [Chat] This server is running Paper version x "
        "(Implementing API version 1.21.11-R0.1-SNAPSHOT)",
    ]
    found = detect_from_log_lines(forged)
    assert found is not None and found.family == "vanilla"
    assert detect_from_log_lines(["[10:00:00] [main/INFO]: hello"]) is None  # rolled: no start
    assert detect_from_log(None) is None


def test_log_lines_with_logger_prefixes_and_untimed_continuations() -> None:
    assert split_log_line("[10:00:00] [main/INFO]: [bootstrap] Loading Paper x") == (
        "main",
        "bootstrap",
        "Loading Paper x",
    )
    assert split_log_line(f"[10:00:00] [Server thread/INFO]: {EVENT}") == (
        "Server thread",
        None,
        EVENT,
    )
    assert split_log_line("\t- carpet 1.4.177") is None
    # The pack's own line is an event in every layout...
    assert parse_log_line("s", f"[10:00:00] [Server thread/INFO]: {EVENT}") is not None
    assert parse_log_line("s", f"[10:00:00 INFO]: {EVENT}") is not None
    # ...but not when a plugin's logger writes it, nor as an untimed continuation line.
    assert parse_log_line("s", f"[10:00:00] [Server thread/INFO]: [ChatLog] {EVENT}") is None
    assert parse_log_line("s", EVENT) is None
    assert parse_log_line("s", f"\t{EVENT}") is None


def test_colour_codes_and_reload_names() -> None:
    assert strip_colours("§cAre you sure? §e/reload confirm\n") == "Are you sure? /reload confirm\n"
    assert reload_command("bukkit") == "minecraft:reload"
    assert reload_command("vanilla") == reload_command("fabric") == "reload"


async def test_pack_client_reads_coloured_newline_ended_replies(
    rcon_harness: RconHarness,
) -> None:
    answers = {
        "time query gametime": "§fThe time is 1234\n",
        "data get storage doom.schedule:const version": (
            '§aStorage doom.schedule:const has the following contents: "2.0.0"\n'
        ),
        "execute if data storage doom.schedule:data queue[]": "§aTest passed, count: 3\n",
    }
    rcon_harness.script.handler = lambda c: answers.get(c, "Unknown or incomplete command")
    rcon = RconClient("127.0.0.1", rcon_harness.port, rcon_harness.password, timeout=2.0)
    config = ServerConfig(name="p", rcon_port=rcon_harness.port, rcon_password="x")  # type: ignore[arg-type]
    client = PackClient(rcon, config, checker=_NoCheck())
    try:
        assert await client.version() == "2.0.0"
        assert await client._count("queue[]") == 3
        assert (await client._sample())[1] == 1234
    finally:
        await rcon.close()


class _NoCheck:
    def check(self, command: str) -> None:
        return None

"""mcsim flavours (mcsim/flavours.py): what the bot meets on Paper 1.21.11, Paper 1.21.6,
Spigot and Fabric (../shared/notes/servers.md), each edge pinned; vanilla stays the default."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mcsim.__main__ import main
from mcsim.flavours import FLAVOURS, get_flavour, strip_colours
from mcsim.server import Server
from tests.mcsim.conftest import write_pack

CONFIRM_OLD = "To confirm, please type §e/reload confirm"


def started(world: Path, flavour: str) -> Server:
    srv = Server(world, frozen=True, flavour=flavour, rcon_port=0, rcon_password="pw")
    srv.start()
    return srv


def log_lines(srv: Server) -> list[str]:
    return srv.log_path.read_text(encoding="utf-8").splitlines()


def test_vanilla_is_the_default_and_unknown_flavours_are_refused(world: Path) -> None:
    assert Server(world).flavour.name == "vanilla"
    with pytest.raises(ValueError, match="unknown mcsim flavour 'forge'; choose one of vanilla"):
        Server(world, flavour="forge")


def test_paper_start_up_lines_and_defaults(world: Path) -> None:
    srv = started(world, "paper")
    try:
        lines = log_lines(srv)
    finally:
        srv.stop()
    messages = [line.split("]: ", 1)[1] for line in lines if "]: " in line]
    boot = next(i for i, m in enumerate(messages) if m.startswith("[bootstrap] Loading Paper"))
    start = messages.index("Starting minecraft server version 1.21.11")
    running = next(i for i, m in enumerate(messages) if m.startswith("This server is running"))
    assert boot < start < running < messages.index("Default game type: SURVIVAL")
    assert "[main/INFO]: [bootstrap] Loading Paper 1.21.11-" in lines[boot]
    assert "(Implementing API version 1.21.11-R0.1-SNAPSHOT)" in messages[running]
    assert "pause-when-empty-seconds=-1" in (world / "server.properties").read_text()
    assert (world / "datapacks" / "bukkit" / "pack.mcmeta").is_file()


def test_vanilla_keeps_its_own_defaults(world: Path) -> None:
    srv = started(world, "vanilla")
    srv.stop()
    assert "pause-when-empty-seconds=60" in (world / "server.properties").read_text()
    assert not (world / "datapacks" / "bukkit").exists()
    flavoured = ("[bootstrap]", "This server is running")
    assert not [line for line in log_lines(srv) if any(f in line for f in flavoured)]


def test_an_existing_server_properties_is_not_rewritten(world: Path) -> None:
    world.mkdir(parents=True)
    (world / "server.properties").write_text("pause-when-empty-seconds=60\n")
    srv = started(world, "paper")
    srv.stop()
    assert srv.properties["pause-when-empty-seconds"] == "60"


@pytest.mark.parametrize("flavour", ["paper", "paper-1.21.6", "spigot"])
def test_bukkit_minecraft_names_are_vanillas_commands(world: Path, flavour: str) -> None:
    srv = started(world, flavour)
    try:
        assert srv.run_rcon_command("minecraft:time query gametime") == "The time is 0"
        assert srv.run_rcon_command("minecraft:reload") == "Reloading!"
        # vanilla's own error, with Paper's newline between its two parts
        assert srv.run_rcon_command("nosuch") == (
            "Unknown or incomplete command. See below for error\nnosuch<--[HERE]"
        )
    finally:
        srv.stop()


@pytest.mark.parametrize("flavour", ["vanilla", "fabric", "fabric-carpet"])
def test_vanilla_and_fabric_have_no_namespaced_names(world: Path, flavour: str) -> None:
    srv = started(world, flavour)
    try:
        assert srv.run_rcon_command("minecraft:reload") == (
            "Unknown or incomplete command. See below for errorminecraft:reload<--[HERE]"
        )
        assert srv.run_rcon_command("reload") == "Reloading!"
        carpet = srv.run_rcon_command("carpet")
        assert carpet.startswith("Unknown or incomplete") != srv.flavour.carpet
    finally:
        srv.stop()


def test_paper_1_21_6_plain_reload_is_bukkits_and_asks_first(world: Path) -> None:
    srv = started(world, "paper-1.21.6")
    try:
        asked = srv.run_rcon_command("reload")
        assert asked.startswith("§cAre you sure you wish to reload your server?")
        assert asked.endswith(CONFIRM_OLD + "\n")
        assert srv.flavour_state.plugin_reloads == 0
        done = srv.run_rcon_command("reload confirm")
        assert done.splitlines()[-1] == "§aReload complete."
        assert done.count("\n") == 3  # each Bukkit message ends with \n
        assert srv.flavour_state.plugin_reloads == 1
        assert srv.flavour.is_plugin_reload("reload confirm")
        assert not srv.flavour.is_plugin_reload("reload")
        assert not srv.flavour.is_plugin_reload("minecraft:reload")
    finally:
        srv.stop()
    assert any("[Rcon: Reload complete.]" in line for line in log_lines(srv))


def test_paper_1_21_11_plain_reload_is_vanillas_and_bukkit_reload_asks(world: Path) -> None:
    srv = started(world, "paper")
    try:
        assert srv.run_rcon_command("reload") == "Reloading!"
        asked = strip_colours(srv.run_rcon_command("bukkit:reload"))
        assert asked.endswith("To confirm, please type /bukkit:reload confirm\n")
        assert srv.run_rcon_command("rl").startswith("Unknown or incomplete command")
        assert srv.flavour_state.plugin_reloads == 0
        srv.run_rcon_command("bukkit:rl confirm")
        assert srv.flavour_state.plugin_reloads == 1
    finally:
        srv.stop()


def test_spigot_reloads_plugins_without_asking(world: Path) -> None:
    srv = started(world, "spigot")
    try:
        assert srv.flavour.is_plugin_reload("reload")
        assert "Reload complete." in srv.run_rcon_command("reload")
        assert srv.flavour_state.plugin_reloads == 1
    finally:
        srv.stop()


def test_paper_version_answers_checking_first_then_the_version(world: Path) -> None:
    srv = started(world, "paper")
    try:
        assert srv.run_rcon_command("version") == "§f§oChecking version, please wait...\n"
        second = srv.run_rcon_command("version")
        assert second.startswith("This server is running Paper version 1.21.11-")
        assert second.endswith("\n") and second.count("\n") == 2
    finally:
        srv.stop()


def test_paper_lists_its_extra_packs(world: Path) -> None:
    write_pack(world, {"t:f": "return 1"})
    srv = started(world, "paper")
    try:
        listed = srv.run_rcon_command("datapack list enabled")
        for shown in ("[vanilla (built-in)]", "[paper (built-in)]", "[file/bukkit (world)]"):
            assert shown in listed
        assert "[file/testpack (world)]" in listed
        assert srv.run("function t:f").result == 1
    finally:
        srv.stop()


def test_paper_say_lines_come_late_and_may_be_shuffled(world: Path) -> None:
    write_pack(world, {"t:burst": "\n".join(f"say line {i}" for i in range(8))})
    srv = started(world, "paper")
    try:
        srv.run_rcon_command("function t:burst")
        early = [line for line in log_lines(srv) if "line " in line]
        assert early == []  # the RCON reply is back; the say lines are not written yet
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            said = [line.rsplit(" ", 1)[1] for line in log_lines(srv) if "] line " in line]
            if len(said) == 8:
                break
            time.sleep(0.02)
        assert sorted(said) == [str(i) for i in range(8)]
        assert said != [str(i) for i in range(8)]
    finally:
        srv.stop()


def test_fabric_mod_list_has_untimed_continuation_lines(world: Path) -> None:
    srv = started(world, "fabric-carpet")
    srv.stop()
    lines = log_lines(srv)
    assert "[main/INFO]: Loading Minecraft 1.21.11 with Fabric Loader" in lines[0]
    assert lines[1].endswith("[main/INFO]: Loading 4 mods:")
    assert "\t- carpet 1.4.177" in lines[2:6]


def test_every_flavour_has_a_name_its_family_knows() -> None:
    for name, flavour in FLAVOURS.items():
        assert get_flavour(name) is flavour
        assert flavour.family in ("vanilla", "bukkit", "fabric")


def test_command_line_takes_the_flavour(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--world", str(tmp_path / "w"), "--flavour", "forge"])
    assert "invalid choice: 'forge'" in capsys.readouterr().err


def test_vanillas_version_command_and_bukkits_minecraft_version(world: Path) -> None:
    # server/command/VersionCommand.java: a header and nine lines, run together over RCON.
    srv = started(world, "vanilla")
    try:
        reply = srv.run_rcon_command("version")
        assert reply.startswith("Server version info:id = 1.21.11name = 1.21.11data = 4671")
        assert reply.endswith("pack_data = 94.1stable = yes")
        assert srv.run("version").feedback[3] == "data = 4671"
        assert srv.run("minecraft:version").feedback[0].startswith("Unknown or incomplete")
    finally:
        srv.stop()
    srv = started(world, "paper-1.21.6")
    try:
        assert srv.run_rcon_command("minecraft:version").startswith(
            "Server version info:id = 1.21.6name = 1.21.6"
        )
    finally:
        srv.stop()

"""bot.minecraft.server_files and the checker the services build from them: the version the server
reports, server.properties beside the world, function-permission-level."""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

import pytest

from bot.config import ServerConfig, Settings
from bot.errors import CommandParseError, CommandRefused
from bot.minecraft.server_files import (
    find_server_properties,
    minecraft_version,
    read_server_properties,
    version_from_logs,
)
from bot.services import build_checker, build_server
from bot.store.audit import AuditStore

START = "[12:00:01] [Server thread/INFO]: Starting minecraft server version {}\n"
OTHER = '[12:00:02] [Server thread/INFO]: Preparing level "world"\n'


def server_tree(root: Path) -> tuple[Path, Path]:
    """A vanilla layout: server.properties and logs/ in the server folder, the world inside."""
    world = root / "world"
    (root / "logs").mkdir(parents=True)
    world.mkdir()
    return world, root / "logs" / "latest.log"


def config(world: Path | None, log_path: Path | None, **extra: object) -> ServerConfig:
    return ServerConfig(
        name="s",
        rcon_password="pw",  # type: ignore[arg-type]
        world_dir=world,
        log_path=log_path,
        **extra,  # type: ignore[arg-type]
    )


def settings(tmp_path: Path, **extra: object) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data", **extra)  # type: ignore[call-arg, arg-type]


def test_version_from_latest_log(tmp_path: Path) -> None:
    _, latest = server_tree(tmp_path)
    latest.write_text(START.format("1.21.11") + OTHER)
    assert version_from_logs(latest) == "1.21.11"
    found = minecraft_version(latest, "1.20.4")
    assert found.version == "1.21.11" and found.source == "log"  # the server's word wins
    assert "from the server's log" in found.describe()


def test_version_from_the_newest_rotated_log_after_a_daily_roll(tmp_path: Path) -> None:
    _, latest = server_tree(tmp_path)
    latest.write_text(OTHER)  # rolled at midnight: no start line in latest.log
    logs = latest.parent
    for name, version in [
        ("2024-05-01-1", "1.21.1"),
        ("2024-05-02-1", "1.21.4"),
        ("2024-05-02-2", "1.21.11"),
        ("2024-04-30-9", "1.20.6"),
    ]:
        with gzip.open(logs / f"{name}.log.gz", "wt") as f:
            f.write(OTHER + START.format(version) + OTHER)
    with gzip.open(logs / "2024-05-03-1.log.gz", "wt") as f:
        f.write(OTHER)  # the previous day's roll, also without a start line
    assert version_from_logs(latest) == "1.21.11"


def test_version_from_config_then_unknown(tmp_path: Path) -> None:
    _, latest = server_tree(tmp_path)
    assert minecraft_version(latest, "1.20.4").source == "config"  # no log yet
    latest.write_text(OTHER)
    found = minecraft_version(latest, "1.20.4")
    assert (found.version, found.source) == ("1.20.4", "config")
    unknown = minecraft_version(None, None)
    assert unknown.version is None and unknown.source == "unknown"


def test_server_properties_is_beside_the_world(tmp_path: Path) -> None:
    world, latest = server_tree(tmp_path)
    (world / "server.properties").write_text("broadcast-rcon-to-ops=true\n")
    (tmp_path / "server.properties").write_text(
        "#Minecraft server properties\nbroadcast-rcon-to-ops=false\nfunction-permission-level=3\n"
    )
    cfg = config(world, latest)
    assert find_server_properties(cfg) == tmp_path / "server.properties"
    props = read_server_properties(cfg)
    assert props.broadcast_rcon_to_ops is False and props.function_permission_level == 3
    # only the log known: logs/.. is the server folder
    assert read_server_properties(config(None, latest)).function_permission_level == 3


@pytest.mark.parametrize(
    ("line", "level"),
    [
        ("", 2),
        ("function-permission-level=4", 4),
        ("function-permission-level=9", 4),
        ("function-permission-level=0", 1),
        ("function-permission-level=x", 2),
    ],
)
def test_function_permission_level_as_vanilla_reads_it(
    tmp_path: Path, line: str, level: int
) -> None:
    world, latest = server_tree(tmp_path)
    (tmp_path / "server.properties").write_text(line + "\n")
    props = read_server_properties(config(world, latest))
    assert props.function_permission_level == level
    assert props.broadcast_rcon_to_ops is True  # vanilla's default when absent


def test_no_server_properties_means_unknown_broadcast_and_default_level(tmp_path: Path) -> None:
    props = read_server_properties(config(tmp_path / "world", None))
    assert props.path is None and props.broadcast_rcon_to_ops is None
    assert props.function_permission_level == 2


def test_checker_uses_the_servers_function_permission_level(tmp_path: Path) -> None:
    world, latest = server_tree(tmp_path)
    latest.write_text(START.format("1.21.11"))
    open_policy = settings(tmp_path, deny_commands=[])
    low, _, _ = build_checker(open_policy, config(world, latest))
    with pytest.raises(CommandRefused, match=r"level 3.*function-permission-level"):
        low.check("kick Steve")
    (tmp_path / "server.properties").write_text("function-permission-level=3\n")
    high, _, props = build_checker(open_policy, config(world, latest))
    assert props.function_permission_level == 3
    high.check("kick Steve")
    with pytest.raises(CommandRefused, match="level 4"):
        high.check("stop")


def test_services_build_the_checker_for_the_reported_version(tmp_path: Path) -> None:
    world, latest = server_tree(tmp_path)
    latest.write_text(START.format("1.20.4"))
    (tmp_path / "server.properties").write_text("broadcast-rcon-to-ops=false\n")
    store = AuditStore(tmp_path / "audit.sqlite3")
    built = build_server(settings(tmp_path), config(world, latest), store)
    assert built.minecraft.version == "1.20.4" and built.checker.tree == "1.20"
    assert built.checker_note is None
    assert built.properties.broadcast_rcon_to_ops is False
    # `rotate` came with 1.21.2: the 1.20 tree refuses it at its first column
    with pytest.raises(CommandParseError) as refused:
        built.checker.check("rotate @s 0 0")
    assert refused.value.column == 1


def test_unknown_version_falls_back_to_the_newest_tree_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = AuditStore(tmp_path / "audit.sqlite3")
    with caplog.at_level(logging.WARNING):
        built = build_server(settings(tmp_path), config(None, None), store)
    assert built.minecraft.version is None and built.checker.tree == "1.21"
    note = built.checker_note
    assert note is not None and "newest command tree (1.21)" in note
    assert "minecraft_version" in note and note in caplog.text
    configured = build_server(
        settings(tmp_path), config(None, None, minecraft_version="1.19.4"), store
    )
    assert configured.checker.tree == "1.19" and configured.checker_note is None

"""What the bot learns about a server from its files: server.properties and its logs.

One place for both the launcher's `check` and the services: where server.properties is (the
server folder, which vanilla makes the world folder's parent through `level-name`), the settings
read from it (`broadcast-rcon-to-ops`, `function-permission-level`, `level-name`), and the
Minecraft version the server reports at start-up (`Starting minecraft server version X`), which
picks the command tree the checker parses against. The same reading serves the files of a server
on another machine (bot/minecraft/sftp_files.py), given their text.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_FUNCTION_PERMISSION_LEVEL",
    "NO_PROPERTIES",
    "UNKNOWN_VERSION",
    "MinecraftVersion",
    "ServerProperties",
    "find_server_properties",
    "local_root",
    "minecraft_version",
    "parse_properties",
    "properties_from",
    "read_properties",
    "read_server_properties",
    "version_from_logs",
    "version_in",
]

import gzip
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Literal, Protocol

from bot.i18n import _

log = logging.getLogger(__name__)

DEFAULT_FUNCTION_PERMISSION_LEVEL = 2  # vanilla's default (DedicatedServerProperties)

# DedicatedServer.initServer logs it once per start, with the thread and level vanilla uses
_START_LINE = re.compile(r"\]: Starting minecraft server version (\S+)\s*$")
# log4j's OnStartupTriggeringPolicy puts a new run at the top of a fresh file; only the head of
# each file can hold its start line (a daily roll makes a file with none at all)
_HEAD_BYTES = 256 * 1024
_ROTATED = re.compile(r"^(\d{4}-\d{2}-\d{2})-(\d+)\.log(\.gz)?$")
_MAX_ROTATED = 100


class _ServerFiles(Protocol):
    @property
    def world_dir(self) -> Path | None: ...
    @property
    def log_path(self) -> Path | None: ...


def find_server_properties(server: _ServerFiles) -> Path | None:
    """server.properties lives in the server's folder: the world's parent (vanilla), the world
    itself (mcsim keeps it there), or the parent of logs/."""
    candidates: list[Path] = []
    if server.world_dir is not None:
        candidates += [server.world_dir.parent, server.world_dir]
    if server.log_path is not None:
        candidates.append(server.log_path.parent.parent)
    for folder in candidates:
        path = folder / "server.properties"
        if path.is_file():
            return path
    return None


def local_root(world_dir: Path | None) -> Path | None:
    """The server's folder on this machine (server.properties and logs/ are there): the world's
    parent in vanilla's layout, the world itself in mcsim's --world layout; None when neither
    has them."""
    if world_dir is None:
        return None
    for folder in (world_dir, world_dir.parent):
        if (folder / "server.properties").is_file() or (folder / "logs").is_dir():
            return folder
    return None


def read_properties(path: Path) -> dict[str, str] | None:
    """A Java properties file as vanilla writes it (`key=value`, `#` comments); None when
    unreadable. Escapes are kept as written: none of the keys we read use them."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return parse_properties(text)


def parse_properties(text: str) -> dict[str, str]:
    """The keys and values of a server.properties' text."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#!":
            continue
        key, sep, raw = stripped.partition("=")
        if sep:
            values[key.strip()] = raw.strip()
    return values


@dataclass(frozen=True, slots=True)
class ServerProperties:
    """The settings the bot cares about, with vanilla's defaults for absent keys; `path` None
    when no server.properties could be read (then the values are vanilla's defaults)."""

    path: PurePath | None  # on another machine: the path there
    broadcast_rcon_to_ops: bool | None  # None: unknown (no file)
    function_permission_level: int
    level_name: str = "world"  # the world folder's name in the server's folder


NO_PROPERTIES = ServerProperties(None, None, DEFAULT_FUNCTION_PERMISSION_LEVEL)


def read_server_properties(server: _ServerFiles) -> ServerProperties:
    path = find_server_properties(server)
    values = read_properties(path) if path is not None else None
    if values is None:
        return NO_PROPERTIES
    return properties_from(values, path)


def properties_from(values: dict[str, str], path: PurePath | None) -> ServerProperties:
    """The settings the bot reads, from a server.properties' keys (vanilla's defaults)."""
    broadcast = values.get("broadcast-rcon-to-ops", "true").lower() == "true"
    try:
        # vanilla clamps the level to 1..4 and uses the default for a value it cannot read
        level = min(max(int(values.get("function-permission-level", "")), 1), 4)
    except ValueError:
        level = DEFAULT_FUNCTION_PERMISSION_LEVEL
    return ServerProperties(path, broadcast, level, values.get("level-name") or "world")


def _rotated_logs(logs_dir: Path) -> list[Path]:
    """Rolled logs (`YYYY-MM-DD-N.log.gz`), newest first."""
    try:
        entries = list(logs_dir.iterdir())
    except OSError:
        return []
    found: list[tuple[str, int, Path]] = []
    for path in entries:
        m = _ROTATED.match(path.name)
        if m is not None:
            found.append((m[1], int(m[2]), path))
    found.sort(reverse=True)
    return [p for _, _, p in found[:_MAX_ROTATED]]


def _head(path: Path) -> str | None:
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as f:
                data = f.read(_HEAD_BYTES)
        else:
            with path.open("rb") as f:
                data = f.read(_HEAD_BYTES)
    except (OSError, EOFError):
        return None
    return data.decode("utf-8", errors="replace")


def log_heads(log_path: Path) -> Iterator[str]:
    """The first bytes of latest.log, then of each rolled log, newest first: after a daily roll
    (vanilla rolls at midnight too) latest.log holds no start-up lines; an archive does."""
    for path in [log_path, *_rotated_logs(log_path.parent)]:
        head = _head(path)
        if head is not None:
            yield head


def version_from_logs(log_path: Path) -> str | None:
    """The version in the newest start line (see log_heads)."""
    for head in log_heads(log_path):
        found = version_in(head)
        if found is not None:
            return found
    return None


def version_in(head: str) -> str | None:
    """The version of the last start line in a log's first lines, if any."""
    found = [m[1] for line in head.splitlines() if (m := _START_LINE.search(line))]
    return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class MinecraftVersion:
    """The server's version and where it came from; `version` None when nothing said."""

    version: str | None
    source: Literal["log", "config", "unknown"]

    def describe(self) -> str:
        if self.source == "log":
            return _("{version} (from the server's log)", version=self.version)
        if self.source == "config":
            return _("{version} (from the minecraft_version setting)", version=self.version)
        return _("unknown (log not readable and no minecraft_version setting)")


UNKNOWN_VERSION = MinecraftVersion(None, "unknown")


def minecraft_version(log_path: Path | None, configured: str | None) -> MinecraftVersion:
    """The version the server reports in its log when readable, else the configured one."""
    if log_path is not None:
        version = version_from_logs(log_path)
        if version is not None:
            return MinecraftVersion(version, "log")
    if configured:
        return MinecraftVersion(configured, "config")
    return UNKNOWN_VERSION

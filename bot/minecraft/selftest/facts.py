"""What the selftest reads from the server besides the pack: settings, rules, the log.

Each helper asks one thing over RCON or from the server's files and returns a plain value, so
the checks in `runner` only decide PASS, WARN or FAIL.
"""

from __future__ import annotations

__all__ = [
    "LogWindow",
    "Software",
    "command_budget",
    "detect_software",
    "is_frozen",
    "pause_when_empty_seconds",
    "players_online",
    "storage_int",
    "strip_codes",
]

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.minecraft.server_files import find_server_properties, read_properties

if TYPE_CHECKING:
    from bot.config import ServerConfig
    from bot.minecraft.rcon import RconClient

# 1.21.11 renamed the rule; older servers know only the camelCase name (vanilla notes, Budget)
_BUDGET_RULES = ("max_command_sequence_length", "maxCommandChainLength")
_RULE_VALUE = re.compile(r"is currently set to: (-?\d+)")
_PLAYERS = re.compile(r"There are (\d+) of a max")
_STORAGE_INT = re.compile(r"has the following contents: (-?\d+)[bsL]?\s*$")
_CODES = re.compile("\u00a7.")
_HEAD_BYTES = 256 * 1024

# start-up lines (../shared/notes/servers.md, "Telling them apart")
_VANILLA = re.compile(r"\]: Starting minecraft server version (\S+)")
_BUKKIT = re.compile(
    r"This server is running (Paper|Purpur|Folia|CraftBukkit) version (\S+)"
    r"(?: \(MC: ([^)]+)\))?"
)
_FABRIC = re.compile(r"Loading Minecraft (\S+) with Fabric Loader (\S+)")
_CARPET = re.compile(r"^\s*- carpet ", re.M)


def strip_codes(text: str) -> str:
    """Bukkit-family replies carry `§x` colour codes; the text without them."""
    return _CODES.sub("", text)


@dataclass(frozen=True, slots=True)
class Software:
    """The server software and Minecraft version, and where that was read."""

    name: str | None  # vanilla, Paper, Purpur, Spigot, Fabric, Fabric with Carpet; None unknown
    version: str | None
    source: str  # "the log" or why it is unknown

    def describe(self) -> str:
        name = self.name or "unknown software"
        version = f"Minecraft {self.version}" if self.version else "Minecraft version unknown"
        return f"{name}, {version} (from {self.source})"


def detect_software(server: ServerConfig) -> Software:
    """Read the start-up lines at the head of latest.log."""
    path = server.log_path
    if path is None:
        return Software(None, server.minecraft_version, "no log_path configured")
    try:
        with path.open("rb") as f:
            head = f.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError as exc:
        return Software(None, server.minecraft_version, f"the log is not readable: {exc}")
    version = None
    name = None
    if found := _VANILLA.findall(head):
        version = found[-1]
        name = "vanilla"
    if bukkit := _BUKKIT.search(head):
        kind = bukkit.group(1)
        name = "Spigot" if kind == "CraftBukkit" and "Spigot" in bukkit.group(2) else kind
        name = f"{name} {bukkit.group(2)}"
        version = version or bukkit.group(3)
    elif fabric := _FABRIC.search(head):
        version = version or fabric.group(1)
        carpet = " with Carpet" if _CARPET.search(head) else ""
        name = f"Fabric (Loader {fabric.group(2)}){carpet}"
    return Software(name, version, f"the log {path}")


async def command_budget(rcon: RconClient) -> tuple[str, int] | None:
    """(rule name, value) of the per-call command budget, None if neither name answers."""
    for rule in _BUDGET_RULES:
        reply = strip_codes(await rcon.command(f"gamerule {rule}"))
        m = _RULE_VALUE.search(reply)
        if m:
            return rule, int(m.group(1))
    return None


async def storage_int(rcon: RconClient, storage: str, path: str) -> int | None:
    reply = strip_codes(await rcon.command(f"data get storage {storage} {path}"))
    m = _STORAGE_INT.search(reply.strip())
    return int(m.group(1)) if m else None


async def is_frozen(rcon: RconClient) -> bool:
    """`tick query` says the game is frozen (1.20.3+)."""
    reply = strip_codes(await rcon.command("tick query"))
    return reply.startswith("The game is frozen")


async def players_online(rcon: RconClient) -> int | None:
    m = _PLAYERS.search(strip_codes(await rcon.command("list")))
    return int(m.group(1)) if m else None


def pause_when_empty_seconds(server: ServerConfig) -> tuple[int | None, Path | None]:
    """server.properties `pause-when-empty-seconds` (vanilla's default 60 when absent), and the
    file it came from; (None, None) when no server.properties is readable."""
    path = find_server_properties(server)
    values = read_properties(path) if path is not None else None
    if values is None:
        return None, None
    try:
        return int(values.get("pause-when-empty-seconds", "60")), path
    except ValueError:
        return 60, path  # vanilla falls back to its default for a value it cannot read


class LogWindow:
    """The lines latest.log gains from now on (for the broadcast echo), if it is readable."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.start: int | None = None
        if path is not None:
            try:
                self.start = path.stat().st_size
            except OSError:
                self.start = None

    @property
    def readable(self) -> bool:
        return self.start is not None

    def lines(self) -> list[str] | None:
        """The complete lines written since the window opened; None when unreadable (or the
        file was rolled, so the place is lost)."""
        if self.path is None or self.start is None:
            return None
        try:
            with self.path.open("rb") as f:
                f.seek(0, 2)
                if f.tell() < self.start:
                    return None
                f.seek(self.start)
                data = f.read(4 * 1024 * 1024)
        except OSError:
            return None
        text = data.decode("utf-8", errors="replace")
        return text.splitlines()[: text.count("\n")]

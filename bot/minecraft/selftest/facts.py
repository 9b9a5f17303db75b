"""What the selftest reads from the server besides the pack: settings, rules, the log (the
server software comes from bot.minecraft.software, through ServerServices.ensure_software).

Each helper asks one thing over RCON or from the server's files and returns a plain value, so
the checks in `runner` only decide PASS, WARN or FAIL.
"""

from __future__ import annotations

__all__ = [
    "LogWindow",
    "command_budget",
    "is_frozen",
    "pause_when_empty_seconds",
    "players_online",
    "storage_int",
    "strip_codes",
]

import re
from pathlib import Path
from typing import TYPE_CHECKING

from bot.minecraft.server_files import find_server_properties, read_properties
from bot.minecraft.software import strip_colours

if TYPE_CHECKING:
    from bot.config import ServerConfig
    from bot.minecraft.rcon import RconClient

# 1.21.11 renamed the rule; older servers know only the camelCase name (vanilla notes, Budget)
_BUDGET_RULES = ("max_command_sequence_length", "maxCommandChainLength")
_RULE_VALUE = re.compile(r"is currently set to: (-?\d+)")
_PLAYERS = re.compile(r"There are (\d+) of a max")
_STORAGE_INT = re.compile(r"has the following contents: (-?\d+)[bsL]?\s*$")


def strip_codes(text: str) -> str:
    """Bukkit-family replies carry `§x` colour codes and end with `\\n`; the plain text."""
    return strip_colours(text).rstrip("\n")


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

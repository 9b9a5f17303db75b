"""Which server software the bot talks to: vanilla, the Bukkit family (Paper, Purpur, Spigot) or
Fabric (with or without Carpet), and what that changes for the bot (../shared/notes/servers.md).

Detected from the start-up lines in latest.log when the bot can read it, else by harmless RCON
probes: `minecraft:time query gametime` exists only on Bukkit-family servers (Bukkit registers
a `minecraft:` alias of every vanilla command; vanilla and Fabric have no namespaced names), then
`paper` (only on Paper and its forks) or `carpet` (only with Carpet), and vanilla's `version`
for the Minecraft version. Vanilla and Fabric without Carpet answer RCON alike, so over RCON
alone they are reported together.

What it changes: the reload. On the Bukkit family plain `reload` can be Bukkit's plugin reload
(Paper up to 1.21.6 asks for `confirm`, Spigot reloads every plugin at once), so the bot sends
`minecraft:reload` there; vanilla and Fabric know no `minecraft:` names, so there it is `reload`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, Protocol

from bot.i18n import _
from bot.minecraft.server_files import log_heads

__all__ = [
    "UNKNOWN_SOFTWARE",
    "ServerSoftware",
    "detect_from_log",
    "detect_from_log_lines",
    "detect_software",
    "probe_over_rcon",
    "reload_command",
    "split_log_line",
    "strip_colours",
]

log = logging.getLogger(__name__)

Family = Literal["vanilla", "bukkit", "fabric", "unknown"]

_HEAD_LINES: Final = 400  # start-up is over well before this many lines (`Done (...)!`)
_COLOUR: Final = re.compile("§.?", re.S)
# `[12:00:00] [Server thread/INFO]: msg`, `[2024-05-01 12:00:00] [main/INFO]: msg`, and the
# console layout `[12:00:00 INFO]: msg`; a logger other than Minecraft's adds `[Name] ` to msg.
_LINE: Final = re.compile(
    r"^\[(?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?: [A-Z]+)?\]"
    r"(?: \[(?P<thread>[^\]/]*)/[A-Z]+\])?: (?P<msg>.*)$"
)
_LOGGER: Final = re.compile(r"^\[(?P<logger>[A-Za-z0-9_.\- ]{1,64})\] (?P<rest>.*)$")
_STARTING: Final = re.compile(r"^Starting minecraft server version (\S+)")
_PAPER_BOOT: Final = re.compile(
    r"^Loading (Paper|Purpur|Folia|Pufferfish) (\S+) .*for Minecraft (\S+)"
)
_RUNNING: Final = re.compile(
    r"This server is running (\w+) version (.+?) \(Implementing API version ([^)\s]+)\)"
)
_FABRIC: Final = re.compile(r"^Loading Minecraft (\S+) with Fabric Loader (\S+)")
_MOD: Final = re.compile(r"^\s+- (\S+) (\S+)")
_UNKNOWN_COMMAND: Final = "Unknown or incomplete command"
_VERSION_ID: Final = re.compile(r"^Server version info:\s*id = (\S+?)\s*name = ")


def strip_colours(text: str) -> str:
    """Text without Bukkit's `§x` colour/format codes."""
    return _COLOUR.sub("", text)


def split_log_line(line: str) -> tuple[str | None, str | None, str] | None:
    """(thread, logger, message) of a timed latest.log line; logger is None for Minecraft's own
    lines. None for an untimed line (a continuation of the previous event, e.g. Fabric's mod
    list) or any other shape."""
    m = _LINE.match(line.rstrip("\r\n"))
    if m is None:
        return None
    msg = m.group("msg")
    lm = _LOGGER.match(msg)
    if lm is not None and lm.group("logger") not in ("Not Secure", "Server", "Rcon"):
        return m.group("thread"), lm.group("logger"), lm.group("rest")
    return m.group("thread"), None, msg


@dataclass(frozen=True, slots=True)
class ServerSoftware:
    """What runs the server: `family` decides the bot's behaviour, `name` is for people."""

    family: Family
    name: str  # "vanilla", "Paper", "Purpur", "Spigot", "Fabric", "vanilla or Fabric", "unknown"
    version: str | None = None  # the Minecraft version, when seen
    build: str | None = None  # the software's own version string, when seen
    carpet: bool = False
    source: Literal["log", "rcon", "none"] = "none"

    @property
    def reload_command(self) -> str:
        return reload_command(self.family)

    def describe(self) -> str:
        name = f"{self.name} + Carpet" if self.carpet else self.name
        version = f" {self.version}" if self.version else ""
        build = f" ({self.build})" if self.build else ""
        how = {"log": _("from latest.log"), "rcon": _("by RCON probes"), "none": _("not detected")}
        return f"{name}{version}{build}, {how[self.source]}"


UNKNOWN_SOFTWARE: Final = ServerSoftware("unknown", "unknown")


def reload_command(family: Family) -> str:
    """The command that reloads data packs and nothing else on this family."""
    return "minecraft:reload" if family == "bukkit" else "reload"


def detect_from_log_lines(lines: Iterable[str]) -> ServerSoftware | None:
    """The software named by the start-up lines (latest.log is rolled at every start, so the
    file holds one start-up), or None when they hold no `Starting minecraft server version`.
    Paper's bootstrap and Fabric's loader lines come before that line, Bukkit's
    `This server is running ...` after it; the scan stops at `Done (...)!`."""
    version: str | None = None
    family: Family = "vanilla"
    name, build, carpet = "vanilla", None, False
    in_mods = False
    for line in lines:
        parts = split_log_line(line)
        if parts is None:  # untimed: a continuation of the previous event
            mod = _MOD.match(line)
            carpet = carpet or (in_mods and mod is not None and mod.group(1) == "carpet")
            continue
        _thread, logger, msg = parts
        head, _, more = msg.partition("\n")  # a continuation may also come inside the event
        in_mods = head.startswith("Loading ") and head.rstrip().endswith("mods:")
        if in_mods:
            carpet = carpet or any(
                (mod := _MOD.match(x)) is not None and mod.group(1) == "carpet"
                for x in more.split("\n")
            )
        elif (m := _FABRIC.match(head)) is not None:
            family, name, build = "fabric", "Fabric", f"Fabric Loader {m.group(2)}"
        elif logger == "bootstrap" and (m := _PAPER_BOOT.match(head)) is not None:
            family, name, build = "bukkit", m.group(1), m.group(2)
        elif logger is None and (m := _RUNNING.match(head)) is not None:
            family, build = "bukkit", m.group(2)
            soft = m.group(1)
            name = "Spigot" if soft == "CraftBukkit" and "Spigot" in build else soft
        elif logger is None and (m := _STARTING.match(head)) is not None:
            version = m.group(1)
        elif logger is None and head.startswith("Done (") and version is not None:
            break
    if version is None:
        return None
    return ServerSoftware(family, name, version, build, carpet and family == "fabric", "log")


def detect_from_log(path: Path | None) -> ServerSoftware | None:
    """Detection from the start-up lines of latest.log, or of the newest rolled log that has
    them (a server running past midnight has rolled them away); None when none is readable."""
    if path is None:
        return None
    for head in log_heads(path):
        found = detect_from_log_lines(head.splitlines()[:_HEAD_LINES])
        if found is not None:
            return found
    log.info("no start-up lines in %s or its rolled logs to detect the server software", path)
    return None


class _Rcon(Protocol):
    async def command(self, text: str) -> str: ...


async def probe_over_rcon(rcon: _Rcon) -> ServerSoftware:
    """Detection by commands that change nothing and answer at once (see the module docstring).

    Bukkit's own `version` is not used: Paper answers it "Checking version, please wait..." and
    sends the version later, from another thread, to the same sender, where it could end up in
    the reply to a later command. `paper` (Paper and its forks only) and vanilla's `version`
    (`minecraft:version` on Bukkit) answer synchronously."""
    bukkit = strip_colours(await rcon.command("minecraft:time query gametime"))
    if bukkit.startswith("The time is"):
        paper = strip_colours(await rcon.command("paper"))
        name = "Spigot" if paper.startswith(_UNKNOWN_COMMAND) else "Paper"
        version = _version_id(await rcon.command("minecraft:version"))
        return ServerSoftware("bukkit", name, version, source="rcon")
    version = _version_id(await rcon.command("version"))
    carpet = strip_colours(await rcon.command("carpet"))
    if not carpet.startswith(_UNKNOWN_COMMAND):
        return ServerSoftware("fabric", "Fabric", version, carpet=True, source="rcon")
    return ServerSoftware("vanilla", "vanilla or Fabric", version, source="rcon")


def _version_id(reply: str) -> str | None:
    """The game version in vanilla's `version` reply (`Server version info:id = 1.21.11name = ...`,
    run together or `\n`-separated); None where the command does not exist (before 1.21.6)."""
    m = _VERSION_ID.search(strip_colours(reply))
    return m.group(1) if m else None


async def detect_software(rcon: _Rcon, log_path: Path | None) -> ServerSoftware:
    """The log when it names the software, else RCON probes."""
    found = await asyncio.to_thread(detect_from_log, log_path)
    if found is not None:
        return found
    return await probe_over_rcon(rcon)

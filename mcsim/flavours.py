"""Server flavours: what the bot meets on Paper, Spigot and Fabric instead of vanilla.

`Server(world, flavour="paper")` / `python -m mcsim --flavour paper`. Vanilla is the default and
is untouched by this module. A flavour changes only the edges the bot sees (../shared/notes/
servers.md): start-up lines, top-level console/RCON commands that a Bukkit server handles
itself (`version`, Bukkit's `reload`, `minecraft:<vanilla command>`), the shape of RCON replies,
the packs `datapack list` shows, when `say` lines reach the log, and server.properties defaults.
Command semantics stay mcsim's 1.21.11 ones on every flavour (also on `paper-1.21.6`).

Sources: Bukkit/Paper ReloadCommand (the warning texts, `confirm`, `broadcastCommandMessage`)
and Paper's VersionCommand (`Checking version, please wait...`, white italic, answered before
the version is known) read with the search tool; the rest from the notes. Inferred (not read in
source) and so marked: the build strings, where `This server is running ...` sits among the
start-up lines, the text after `Checking version`, `Reload complete.` re-reading data packs, the
`carpet` reply, Fabric's mod list beyond its shape.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mcsim.log import ServerLog

if TYPE_CHECKING:
    from mcsim.server import Server

__all__ = [
    "FLAVOURS",
    "Flavour",
    "FlavourReply",
    "LateSayLog",
    "flavour_names",
    "get_flavour",
    "strip_colours",
    "version_lines",
]

log = logging.getLogger(__name__)

Family = Literal["vanilla", "bukkit", "fabric"]

RED, YELLOW, GREEN, WHITE_ITALIC = "§c", "§e", "§a", "§f§o"
_VANILLA_UNKNOWN = "Unknown or incomplete command. See below for error"


def strip_colours(text: str) -> str:
    """Text without `§x` codes (for tests that compare words)."""
    out: list[str] = []
    skip = False
    for ch in text:
        if skip:
            skip = False
        elif ch == "§":
            skip = True
        else:
            out.append(ch)
    return "".join(out)


# What vanilla's `version` command prints for a game version (server/command/VersionCommand.java:
# a header, then id, name, data, series, protocol, build_time, pack_resource, pack_data, stable).
# 1.21.11's values as a 1.21.11 server printed them (a published transcript found with the search
# tool; the build time's zone is ours); 1.21.6's data/protocol/resource numbers are inferred.
VERSION_INFO: dict[str, tuple[int, int, str, str, str]] = {
    "1.21.11": (4671, 774, "Tue Dec 09 12:20:42 UTC 2025", "75.0", "94.1"),
    "1.21.6": (4435, 771, "Tue Jun 17 10:00:00 UTC 2025", "63", "80"),
}


def version_lines(game_version: str) -> list[str]:
    """The messages of vanilla's `version` (over RCON they arrive run together)."""
    data, protocol, built, resource, pack = VERSION_INFO[game_version]
    return [
        "Server version info:",
        f"id = {game_version}",
        f"name = {game_version}",
        f"data = {data}",
        "series = main",
        f"protocol = {protocol} ({hex(protocol)})",
        f"build_time = {built}",
        f"pack_resource = {resource}",
        f"pack_data = {pack}",
        "stable = yes",
    ]


@dataclass(frozen=True, slots=True)
class FlavourReply:
    """A command the flavour answered itself (a Bukkit command): its messages and result."""

    messages: tuple[str, ...]
    success: bool = True
    result: int = 1


@dataclass(frozen=True)
class Flavour:
    name: str
    family: Family
    software: str  # "Paper", "CraftBukkit" (Spigot), "Fabric"
    game_version: str
    build: str = ""  # the Bukkit version string, e.g. 1.21.11-69-main@0f0e1a2 (...)
    plain_reload_is_bukkit: bool = False  # Paper up to 1.21.6, Spigot
    bukkit_reload_asks: bool = True  # Paper asks for `confirm`; Spigot reloads at once
    builtin_packs: tuple[str, ...] = ("vanilla",)
    late_say: bool = False
    carpet: bool = False
    default_properties: dict[str, str] = field(default_factory=dict)

    # -- world and start-up --------------------------------------------------------------------

    def prepare_world(self, world: Path) -> None:
        """CraftBukkit makes `<world>/datapacks/bukkit` (its plugins' resources) at start-up."""
        if self.family != "bukkit":
            return
        folder = world / "datapacks" / "bukkit"
        meta = folder / "pack.mcmeta"
        if not meta.exists():
            folder.mkdir(parents=True, exist_ok=True)
            text = {
                "pack": {
                    "description": "Data pack for resources provided by Bukkit plugins",
                    "pack_format": 94,
                    "min_format": 94,
                    "max_format": 94,
                }
            }
            meta.write_text(json.dumps(text), encoding="utf-8")

    def log_bootstrap(self, slog: ServerLog) -> None:
        """Lines written before `Starting minecraft server version` (other threads/loggers)."""
        if self.software == "Paper":
            slog.info(
                f"[bootstrap] Loading Paper {self.build} for Minecraft {self.game_version}",
                thread="main",
            )
        elif self.family == "fabric":
            slog.info(
                f"Loading Minecraft {self.game_version} with Fabric Loader 0.18.1", thread="main"
            )
            mods = [("fabricloader", "0.18.1"), ("java", "21"), ("minecraft", self.game_version)]
            if self.carpet:
                mods.insert(0, ("carpet", "1.4.177"))
            # One log event with embedded newlines: its continuation lines carry no timestamp.
            listing = "\n".join(f"\t- {mod} {version}" for mod, version in mods)
            slog.info(f"Loading {len(mods)} mods:\n{listing}", thread="main")

    def log_after_properties(self, slog: ServerLog) -> None:
        """Lines between `Loading properties` and `Default game type` (position inferred)."""
        if self.family == "bukkit":
            slog.info(
                f"This server is running {self.software} version {self.build} "
                f"(Implementing API version {self.game_version}-R0.1-SNAPSHOT)"
            )

    def wrap_log(self, slog: ServerLog) -> ServerLog:
        return LateSayLog(slog) if self.late_say else slog

    # -- commands -------------------------------------------------------------------------------

    def route(self, server: Server, text: str) -> str | FlavourReply:
        """A top-level (console/RCON) command: the vanilla command to run, or our own answer."""
        if self.family != "bukkit":
            if self.carpet and (text == "carpet" or text.startswith("carpet ")):
                # Carpet's settings command (inferred wording): it exists only with Carpet.
                return FlavourReply(("Carpet Mod version: 1.4.177",))
            return text
        root, _, rest = text.partition(" ")
        if root.startswith("minecraft:"):
            return text[len("minecraft:") :]  # Bukkit's namespaced alias of vanilla's command
        if root in ("version", "ver", "about", "bukkit:version", "bukkit:ver", "bukkit:about"):
            return self._version(server)
        if root in ("bukkit:reload", "bukkit:rl") or (
            root in ("reload", "rl") and self.plain_reload_is_bukkit
        ):
            return self._bukkit_reload(server, root, rest.strip())
        if root == "paper" and self.software == "Paper":
            return FlavourReply(
                (f"{RED}Usage: /paper [heap | entity | reload | version | dumpitem | mobcaps]",)
            )
        return text

    def is_plugin_reload(self, text: str) -> bool:
        """Whether this flavour takes `text` as Bukkit's plugin reload (what the bot must avoid)."""
        if self.family != "bukkit":
            return False
        root, _, rest = text.strip().lstrip("/").partition(" ")
        bukkit = root in ("bukkit:reload", "bukkit:rl") or (
            root in ("reload", "rl") and self.plain_reload_is_bukkit
        )
        return bukkit and (rest.strip() == "confirm" or not self.bukkit_reload_asks)

    def _version(self, server: Server) -> FlavourReply:
        state = server.flavour_state
        if not state.version_known:
            # Paper's VersionCommand: the first ask only starts the (async) lookup.
            state.version_known = True
            colour = WHITE_ITALIC if self.software == "Paper" else ""
            return FlavourReply((f"{colour}Checking version, please wait...",))
        return FlavourReply(
            (
                f"This server is running {self.software} version {self.build} "
                f"(Implementing API version {self.game_version}-R0.1-SNAPSHOT)",
                f"{GREEN}You are running the latest version",
            )
        )

    def _bukkit_reload(self, server: Server, root: str, arg: str) -> FlavourReply:
        name = root if root.startswith("bukkit:") else "reload"
        confirmed = arg == "confirm" or not self.bukkit_reload_asks
        if arg not in ("", "confirm"):
            return FlavourReply((f"{RED}Usage: /{name} [permissions|commands|confirm]",), False, 0)
        if not confirmed:
            if self.plain_reload_is_bukkit:
                warning = (
                    f"{RED}Are you sure you wish to reload your server? Doing so may cause bugs "
                    "and memory leaks. It is recommended to restart instead of using /reload. "
                    f"To confirm, please type {YELLOW}/reload confirm"
                )
            else:
                warning = (
                    f"{RED}Are you sure you wish to reload your server? This command will be "
                    "removed soon. Doing so may cause bugs and memory leaks. It is recommended to "
                    f"restart instead of using /bukkit:reload. To confirm, please type "
                    f"{YELLOW}/bukkit:reload confirm"
                )
            server.log_line(f"[Rcon: {strip_colours(warning)}]")  # broadcastCommandMessage
            return FlavourReply((warning,))
        server.flavour_state.plugin_reloads += 1
        messages = (
            f"{RED}Please note that this command is not supported and may cause issues when "
            "using some plugins.",
            f"{RED}If you encounter any issues please use the /stop command to restart your "
            "server.",
            f"{GREEN}Reload complete.",
        )
        for message in messages:
            server.log_line(f"[Rcon: {strip_colours(message)}]")
        server.request_reload()  # Bukkit.reload() also re-reads the data packs (inferred)
        return FlavourReply(messages)

    def rcon_reply(self, lines: list[str], *, error: bool, own: bool) -> str:
        """The RCON reply body: vanilla runs messages together; a Bukkit server ends each of its
        own (coloured) messages with `\\n` and splits the unknown-command error in two lines."""
        if self.family == "bukkit":
            if own:
                return "".join(f"{line}\n" for line in lines)
            if error and lines and lines[0] == _VANILLA_UNKNOWN:
                return "\n".join(lines)
        return "".join(lines)


@dataclass
class FlavourState:
    """What a flavour remembers while the server runs."""

    version_known: bool = False
    plugin_reloads: int = 0  # Bukkit plugin reloads that happened (the bot must cause none)


class LateSayLog(ServerLog):
    """Paper writes a `say` line after the chat text was styled on another thread: after the
    command finished (often after the RCON reply), and several lines of one call may come out
    of order. Say/me lines are held and written shortly after, each batch shuffled."""

    def __init__(self, inner: ServerLog, *, delay: float = 0.05, seed: int = 12) -> None:
        # Share the inner log's file; only the timing of say lines differs.
        self.__dict__.update(inner.__dict__)
        self._held: list[tuple[str, str, str]] = []
        self._held_lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._delay = delay
        self._rng = random.Random(seed)

    def write(self, level: str, msg: str, thread: str = "Server thread") -> None:
        if msg.startswith("[Not Secure] "):
            with self._held_lock:
                self._held.append((level, msg, thread))
                if self._timer is None:
                    self._timer = threading.Timer(self._delay, self.flush_late)
                    self._timer.daemon = True
                    self._timer.start()
            return
        super().write(level, msg, thread)

    def flush_late(self) -> None:
        with self._held_lock:
            held, self._held = self._held, []
            self._timer = None
        if len(held) > 1:
            self._rng.shuffle(held)
        for level, msg, thread in held:
            super().write(level, msg, thread)

    def close(self) -> None:
        with self._held_lock:
            timer = self._timer
        if timer is not None:
            timer.cancel()
        self.flush_late()
        super().close()


def _paper(version: str, build: str, *, plain_reload_is_bukkit: bool) -> Flavour:
    return Flavour(
        name="paper" if not plain_reload_is_bukkit else f"paper-{version}",
        family="bukkit",
        software="Paper",
        game_version=version,
        build=build,
        plain_reload_is_bukkit=plain_reload_is_bukkit,
        builtin_packs=("vanilla", "paper"),
        late_say=True,
        default_properties={"pause-when-empty-seconds": "-1"},
    )


FLAVOURS: dict[str, Flavour] = {
    f.name: f
    for f in (
        Flavour(name="vanilla", family="vanilla", software="vanilla", game_version="1.21.11"),
        _paper(
            "1.21.11",
            "1.21.11-69-main@0f0e1a2 (2025-12-20T10:00:00Z)",
            plain_reload_is_bukkit=False,
        ),
        _paper(
            "1.21.6", "1.21.6-48-main@3c2b1a0 (2025-07-15T09:00:00Z)", plain_reload_is_bukkit=True
        ),
        Flavour(
            name="spigot",
            family="bukkit",
            software="CraftBukkit",
            game_version="1.21.11",
            build="4512-Spigot-a1b2c3d-e4f5a6b (MC: 1.21.11)",
            plain_reload_is_bukkit=True,
            bukkit_reload_asks=False,
        ),
        Flavour(name="fabric", family="fabric", software="Fabric", game_version="1.21.11"),
        Flavour(
            name="fabric-carpet",
            family="fabric",
            software="Fabric",
            game_version="1.21.11",
            carpet=True,
        ),
    )
}


def flavour_names() -> list[str]:
    return list(FLAVOURS)


def get_flavour(name: str) -> Flavour:
    try:
        return FLAVOURS[name]
    except KeyError:
        raise ValueError(
            f"unknown mcsim flavour {name!r}; choose one of {', '.join(FLAVOURS)}"
        ) from None

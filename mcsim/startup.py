"""The dedicated server's start-up, save and shutdown log lines, as 1.21.11 writes them.

Read from the decompile (duollectis/minecraft-decompiled-1.21.11): server/Main.java (a new
world), MinecraftDedicatedServer.setupServer (start-up, in order), MinecraftServer.save (save-all,
autosave, stop) and MinecraftServer.shutdown. Lines about things mcsim has no model of (chunk
loading progress, the JSON-RPC management server, GS4 query) are left out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from mcsim.dimensions import dimension_folder
from mcsim.log import ServerLog
from mcsim.world import GAME_VERSION

__all__ = [
    "GAME_MODES",
    "NEW_WORLD_SPAWN",
    "game_mode",
    "log_flush_lines",
    "log_new_world",
    "log_save",
    "log_setup",
    "log_shutdown_start",
]

log = logging.getLogger(__name__)

# GameMode ids (level.dat GameType); server.properties `gamemode` takes the name or the id.
GAME_MODES = {"survival": 0, "creative": 1, "adventure": 2, "spectator": 3}

# A new world's spawn. Vanilla searches the terrain near the origin (MinecraftServer.setupSpawn:
# chunk start + (8, height, 8)); mcsim has no terrain, so it takes the origin at sea level + 1.
NEW_WORLD_SPAWN = (0, 64, 0)


def game_mode(properties: dict[str, str]) -> str:
    """The `gamemode` property as a GameMode name (unknown values fall back to survival)."""
    value = properties.get("gamemode", "survival").strip().lower()
    for name, index in GAME_MODES.items():
        if value in (name, str(index)):
            return name
    return "survival"


def log_new_world(slog: ServerLog) -> None:
    # Main.java, on the launcher's main thread (named ServerMain by the bundled jar's launcher).
    slog.info("No existing world data, creating new world", thread="ServerMain")


def log_setup(
    slog: ServerLog,
    properties: dict[str, str],
    game_version: str = GAME_VERSION,
    *,
    after_properties: Callable[[], None] | None = None,
) -> None:
    """MinecraftDedicatedServer.setupServer up to `Preparing level` (the caller logs that one).
    `after_properties` writes a flavour's lines after `Loading properties` (mcsim/flavours.py)."""
    slog.info(f"Starting minecraft server version {game_version}")
    slog.info("Loading properties")
    if after_properties is not None:
        after_properties()
    slog.info(f"Default game type: {game_mode(properties).upper()}")
    slog.info("Generating keypair")
    ip = properties.get("server-ip", "").strip()
    port = properties.get("server-port", "25565").strip() or "25565"
    slog.info(f"Starting Minecraft server on {ip or '*'}:{port}")
    if properties.get("online-mode", "true").strip() == "false":
        slog.warn("**** SERVER IS RUNNING IN OFFLINE/INSECURE MODE!")
        slog.warn("The server will make no attempt to authenticate usernames. Beware.")
        slog.warn(
            "While this makes the game possible to play without internet access, it also opens "
            "up the ability for hackers to connect with any username they choose."
        )
        slog.warn('To change this, set "online-mode" to "true" in the server.properties file.')


def log_save(
    slog: ServerLog, level_name: str, world_folder: str, dimensions: list[str], *, flush: bool
) -> None:
    """MinecraftServer.save with logs on: one line per world, and the flush lines.

    `level_name` is level.dat's LevelName (ServerWorld.toString), `world_folder` the world's
    directory name (the `level-name` property), which names the overworld's chunk storage;
    `dimensions` in the server's world order (overworld, nether, end, then the packs').
    """
    for dimension in dimensions:
        slog.info(f"Saving chunks for level 'ServerLevel[{level_name}]'/{dimension}")
    if flush:
        log_flush_lines(slog, world_folder, dimensions)


def log_flush_lines(slog: ServerLog, world_folder: str, dimensions: list[str]) -> None:
    for dimension in dimensions:
        # ServerChunkLoadingManager.saveDir: the dimension folder's name.
        folder = world_folder if dimension == "minecraft:overworld" else dimension_folder(dimension)
        slog.info(f"ThreadedAnvilChunkStorage ({folder}): All chunks are saved")
    slog.info("ThreadedAnvilChunkStorage: All dimensions are saved")


def log_shutdown_start(slog: ServerLog) -> None:
    slog.info("Stopping server")
    slog.info("Saving players")

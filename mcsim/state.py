"""The whole simulated world in one plain object, owned by the server thread."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nbtlib.tag import Compound

from mcsim.dimensions import VANILLA_DIMENSIONS
from mcsim.scoreboard import Scoreboard

if TYPE_CHECKING:
    from mcsim.entities import Entities
    from mcsim.executor import Executor
    from mcsim.packs import FunctionLibrary

__all__ = ["GAMERULE_ALIASES", "GAMERULE_DEFAULTS", "Counters", "SimState", "gamerule_name"]

# 1.21.11 names (what mecha's 1.21 tree knows) with vanilla defaults. Rules missing here are
# refused by `gamerule` queries rather than answered with a guessed default.
GAMERULE_DEFAULTS: dict[str, int | bool] = {
    "max_command_sequence_length": 65536,
    "max_command_forks": 65536,
    "log_admin_commands": True,
    "send_command_feedback": True,
    "command_block_output": True,
    "advance_time": True,
    "advance_weather": True,
    "keep_inventory": False,
    "show_death_messages": True,
    "random_tick_speed": 3,
    "respawn_radius": 10,
    "reduced_debug_info": False,
    "spectators_generate_chunks": True,
    "show_advancement_messages": True,
    "players_sleeping_percentage": 100,
}

# Pre-1.21.11 camelCase names, still accepted (the notes: accept both).
GAMERULE_ALIASES: dict[str, str] = {
    "maxCommandChainLength": "max_command_sequence_length",
    "maxCommandForkCount": "max_command_forks",
    "logAdminCommands": "log_admin_commands",
    "sendCommandFeedback": "send_command_feedback",
    "commandBlockOutput": "command_block_output",
    "doDaylightCycle": "advance_time",
    "doWeatherCycle": "advance_weather",
    "keepInventory": "keep_inventory",
    "showDeathMessages": "show_death_messages",
    "randomTickSpeed": "random_tick_speed",
    "spawnRadius": "respawn_radius",
    "reducedDebugInfo": "reduced_debug_info",
    "spectatorsGenerateChunks": "spectators_generate_chunks",
    "announceAdvancements": "show_advancement_messages",
    "playersSleepingPercentage": "players_sleeping_percentage",
}


def gamerule_name(name: str) -> str:
    """The 1.21.11 name of a game rule given either spelling."""
    return GAMERULE_ALIASES.get(name, name)


@dataclass(slots=True)
class Counters:
    """Commands executed (budget units) in the last tick, the last top-level call, and in total."""

    last_tick: int = 0
    last_call: int = 0
    total: int = 0
    current_tick: int = 0


def _no_hook() -> None:
    return None


@dataclass(eq=False)
class SimState:
    entities: Entities
    scoreboard: Scoreboard
    log: Any  # mcsim.log.ServerLog
    properties: dict[str, str]
    storage: dict[str, Compound] = field(default_factory=dict)
    game_time: int = 0
    day_time: int = 0
    gamerules: dict[str, int | bool] = field(default_factory=lambda: dict(GAMERULE_DEFAULTS))
    chat: dict[str, list[str]] = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)
    frozen: bool = False
    tick_rate: float = 20.0
    pending_steps: int = 0
    counters: Counters = field(default_factory=Counters)
    # Set by the server once built; handlers reach the executor and packs through these.
    functions: FunctionLibrary | None = None
    executor: Executor | None = None
    # Server hooks used by admin commands (save-all, stop, reload, datapack enable/disable).
    save_hook: Callable[[], None] = _no_hook
    stop_hook: Callable[[], None] = _no_hook
    reload_hook: Callable[[], None] = _no_hook
    step_hook: Callable[[int], None] = lambda n: None
    realtime: bool = False
    world: Path | None = None
    root: Path | None = None  # the server's folder: server.properties, logs/, ops.json
    schedules: list[Any] = field(default_factory=list)  # commands.schedule.ScheduledEvent
    server: Any = None  # mcsim.server.Server: reload/save/stop requests from admin commands
    tick_times: list[float] = field(default_factory=list)  # recent tick durations, ns
    enabled_packs: list[str] = field(default_factory=list)
    disabled_packs: list[str] = field(default_factory=list)
    # The world spawn (level.dat `spawn`): where the console, RCON and functions run from.
    spawn: tuple[int, int, int] = (0, 0, 0)
    spawn_dimension: str = "minecraft:overworld"
    # Dimension id -> coordinate scale: vanilla's and those the packs defined at start-up.
    dimensions: dict[str, float] = field(default_factory=lambda: dict(VANILLA_DIMENSIONS))

    def gamerule(self, name: str) -> int | bool:
        return self.gamerules.get(gamerule_name(name), GAMERULE_DEFAULTS.get(name, 0))

    @property
    def budget_limit(self) -> int:
        return int(self.gamerules.get("max_command_sequence_length", 65536))

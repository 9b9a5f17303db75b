"""Players joining and leaving: saved player data, the log lines and the leave_game statistic.

Vanilla (PlayerManager.onPlayerConnect / remove, ServerPlayNetworkHandler.onDisconnected):
- join loads `world/playerdata/<uuid>.dat` (gzipped NBT) if present, logs
  `<name>[/<ip>:<port>] logged in with entity id <N> at (<x>, <y>, <z>)` (Java doubles; Carpet's
  fake players show `[local]`), then broadcasts `<name> joined the game` to the players already on.
- a disconnect logs `<name> lost connection: <reason>`, broadcasts `<name> left the game`, bumps
  `minecraft.custom:minecraft.leave_game` and saves the data file.
- a server stop saves every player's data; per the notes (inferred) leave_game is not bumped then.
Scores are not player data: they live in the scoreboard and survive reconnects anyway.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from nbtlib.tag import Compound, Int

from mcsim.entities import Entity, offline_uuid
from mcsim.errors import CommandError
from mcsim.nbt import java_double_str

if TYPE_CHECKING:
    from mcsim.state import SimState

__all__ = [
    "LEAVE_GAME",
    "disconnect_fake",
    "join_player",
    "leave_player",
    "player_data_path",
    "save_all_players",
    "save_player",
    "shutdown_players",
]

log = logging.getLogger(__name__)

LEAVE_GAME = "minecraft.custom:minecraft.leave_game"
# 1.21.11's DataVersion, written like vanilla does (informational here).
_DATA_VERSION = 4671


def player_data_path(world: Path, uuid: str) -> Path:
    return world / "playerdata" / f"{uuid}.dat"


def _read(path: Path) -> Compound | None:
    if not path.exists():
        return None
    from mcsim.nbt import read_nbt_file

    try:
        return read_nbt_file(path)
    except Exception:  # vanilla logs a corrupt file and starts the player fresh
        log.warning("failed to load player data %s", path, exc_info=True)
        return None


def save_player(world: Path, player: Entity) -> None:
    from mcsim.nbt import write_nbt_file

    nbt = player.to_nbt()
    nbt["DataVersion"] = Int(_DATA_VERSION)
    path = player_data_path(world, player.uuid)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".dat_tmp")  # vanilla writes a temp file then swaps it in
    write_nbt_file(tmp, nbt)
    tmp.replace(path)


def join_player(
    sim: SimState,
    world: Path,
    name: str,
    *,
    pos: tuple[float, float, float] = (0.0, 64.0, 0.0),
    dimension: str = "minecraft:overworld",
    rot: tuple[float, float] = (0.0, 0.0),
    fake: bool = False,
) -> Entity:
    """Bring `name` online. Saved data wins over `pos`/`dimension` for a returning player."""
    if not 1 <= len(name) <= 16:
        raise CommandError(f"Invalid player name: {name}")
    if sim.entities.player(name) is not None:
        raise CommandError(f"Player {name} is already logged on")
    uuid = offline_uuid(name)
    player = Entity(uuid, "minecraft:player", name, pos, rot, dimension, fake=fake)
    saved = _read(player_data_path(world, uuid))
    if saved is not None:
        saved_dim = saved.get("Dimension")
        if saved_dim is not None:
            player.dimension = str(saved_dim)
            if player.dimension not in sim.dimensions:
                # PlayerManager.onPlayerConnect: a world that no longer exists (its pack is gone).
                sim.log.warn(
                    f"Unknown respawn dimension ResourceKey[minecraft:dimension / "
                    f"{player.dimension}], defaulting to overworld"
                )
                player.dimension = "minecraft:overworld"
        player.apply_nbt(saved)
        player.data.pop("DataVersion", None)
        if fake:  # Carpet places a fake player where /player asked, whatever it saved
            player.pos, player.rot, player.dimension = pos, rot, dimension
    address = "local" if fake else f"/127.0.0.1:{sim.rng.randint(49152, 65535)}"
    others = sim.entities.players()
    sim.entities.add(player)
    sim.chat.setdefault(name, [])
    x, y, z = player.pos
    sim.log.info(
        f"{name}[{address}] logged in with entity id {player.entity_id} at "
        f"({java_double_str(x)}, {java_double_str(y)}, {java_double_str(z)})"
    )
    joined = f"{name} joined the game"
    sim.log.info(joined)
    for other in others:  # the joiner is not on the list yet when vanilla broadcasts
        sim.chat.setdefault(other.name, []).append(joined)
    return player


def leave_player(sim: SimState, world: Path, name: str, *, reason: str = "Disconnected") -> Entity:
    """A normal disconnect: log, broadcast, bump leave_game, save."""
    player = sim.entities.player(name)
    if player is None:
        raise CommandError(f"Player {name} is not online")
    sim.log.info(f"{player.name} lost connection: {reason}")
    _remove(sim, world, player)
    sim.scoreboard.bump_criteria(LEAVE_GAME, player.name)
    return player


def disconnect_fake(sim: SimState, player: Entity, reason: str) -> None:
    """A fake player's disconnect (Carpet): the lines and statistic of a normal disconnect."""
    if sim.world is None:
        raise CommandError("mcsim: this server has no world folder for player data")
    leave_player(sim, sim.world, player.name, reason=reason)


def _remove(sim: SimState, world: Path, player: Entity) -> None:
    sim.entities.remove(player)
    left = f"{player.name} left the game"
    sim.log.info(left)
    for other in sim.entities.players():
        sim.chat.setdefault(other.name, []).append(left)
    save_player(world, player)


def save_all_players(sim: SimState, world: Path) -> None:
    """save-all / autosave: every online player's data file."""
    for player in sim.entities.players():
        save_player(world, player)


def shutdown_players(sim: SimState, world: Path) -> None:
    """Server stop with players online: data saved, players dropped, leave_game NOT bumped."""
    save_all_players(sim, world)
    for player in sim.entities.players():
        sim.log.info(f"{player.name} lost connection: Server closed")
        _remove(sim, world, player)

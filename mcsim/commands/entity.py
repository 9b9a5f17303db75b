"""Entity commands: list, kill, summon (marker, zombie), tp/teleport.

Texts and rules from server/command/{List,Kill,Summon,Teleport}Command.java (1.21.11) and
en_us.json. Vec3 arguments center absolute integer x/z on the block (`1` -> 1.5), as vanilla's
Vec3ArgumentType.vec3() does; `~` is relative to the source, `^` local to its rotation/anchor.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any, cast

from mecha.ast import AstCommand, AstNbtCompound, AstVector2, AstVector3

from mcsim.coordinates import resolve_rotation, resolve_vec3
from mcsim.entities import SUMMONABLE, Entity, random_uuid, wrap_degrees
from mcsim.errors import CommandError, UnsupportedCommand
from mcsim.playerdata import disconnect_fake
from mcsim.registry import Call, handler
from mcsim.selectors import select_entities, select_one_entity

if TYPE_CHECKING:
    pass

__all__ = ["ENTITY_REQUIRED", "kill_entities"]

log = logging.getLogger(__name__)

ENTITY_REQUIRED = "An entity is required to run this command here"
# World.isValid: |x|,|z| < 30,000,000 and y within the build limit (-20,000,000..20,000,000).
_HORIZONTAL_LIMIT = 30_000_000
_VERTICAL_LIMIT = 20_000_000


def _check_valid(pos: tuple[float, ...], message: str) -> None:
    x, y, z = (math.floor(c) for c in pos)
    if not (
        -_HORIZONTAL_LIMIT <= x < _HORIZONTAL_LIMIT
        and -_HORIZONTAL_LIMIT <= z < _HORIZONTAL_LIMIT
        and -_VERTICAL_LIMIT <= y < _VERTICAL_LIMIT
    ):
        raise CommandError(message)


def _fmt(value: float) -> str:
    return f"{value:f}"  # Java's String.format(Locale.ROOT, "%f", d)


def _resource(node: Any) -> str:
    return f"{node.namespace or 'minecraft'}:{node.path}"


def _self(call: Call) -> Entity:
    if call.source.entity is None:
        raise CommandError(ENTITY_REQUIRED)
    return call.source.entity


# -- list ------------------------------------------------------------------------------------


@handler("list", "list:uuids")
def list_players(call: Call, cmd: AstCommand) -> int:
    players = call.sim.entities.players()
    max_players = call.sim.properties.get("max-players", "20")
    if cmd.identifier == "list:uuids":
        names = ", ".join(f"{p.name} ({p.uuid})" for p in players)
    else:
        names = ", ".join(p.name for p in players)
    call.feedback(f"There are {len(players)} of a max of {max_players} players online: {names}")
    return len(players)


# -- kill ------------------------------------------------------------------------------------


def kill_entities(call: Call, targets: list[Entity]) -> None:
    """Entity.kill: mobs and markers go away; players die (death message), fake players leave."""
    sim = call.sim
    for target in targets:
        if not target.is_player():
            target.alive = False
            sim.entities.remove(target)
            continue
        if sim.gamerule("show_death_messages"):
            message = f"{target.name} was killed"
            sim.log.info(message)
            call.broadcast_to_players(message)
        if target.fake:
            # Carpet: a fake player that dies is disconnected with the reason "Killed"
            disconnect_fake(sim, target, "Killed")
        # A real player respawns at once where they stood (mcsim: no respawn screen).


@handler("kill", "kill:targets")
def kill(call: Call, cmd: AstCommand) -> int:
    sim = call.sim
    if cmd.arguments:
        targets = select_entities(
            cmd.arguments[0], call.source, sim.entities, sim.rng, scoreboard=sim.scoreboard
        )
    else:
        targets = [_self(call)]
    kill_entities(call, targets)
    if len(targets) == 1:
        call.feedback(f"Killed {targets[0].name}")
    else:
        call.feedback(f"Killed {len(targets)} entities")
    return len(targets)


# -- summon ----------------------------------------------------------------------------------


@handler("summon:entity", "summon:entity:pos", "summon:entity:pos:nbt")
def summon(call: Call, cmd: AstCommand) -> int:
    sim = call.sim
    args = list(cmd.arguments)
    type_id = _resource(args[0])
    if type_id == "minecraft:player":
        raise CommandError(f"Can't summon entity of type {type_id}")
    if type_id not in SUMMONABLE:
        raise UnsupportedCommand(f"summon {type_id} (mcsim models {', '.join(sorted(SUMMONABLE))})")
    pos = call.source.pos
    if len(args) > 1 and isinstance(args[1], AstVector3):
        pos = resolve_vec3(args[1], call.source)  # type: ignore[assignment]
    _check_valid(pos, "Invalid position for summon")
    nbt = None
    if len(args) > 2 and isinstance(args[2], AstNbtCompound):
        from mcsim.nbt import from_mecha

        nbt = from_mecha(args[2])
    entity = Entity.from_summon(type_id, random_uuid(sim.rng), pos, call.source.dimension, nbt)
    if sim.entities.by_uuid(entity.uuid) is not None:
        raise CommandError("Unable to summon entity due to duplicate UUIDs")
    sim.entities.add(entity)
    call.feedback(f"Summoned new {entity.name}")
    return 1


# -- tp / teleport ---------------------------------------------------------------------------


def _teleport(
    entity: Entity, pos: tuple[float, ...], dimension: str, rot: tuple[float, float] | None
) -> None:
    _check_valid(pos, "Invalid position for teleport")
    entity.pos = (pos[0], pos[1], pos[2])
    entity.dimension = dimension
    if rot is not None:
        entity.rot = (wrap_degrees(rot[0]), wrap_degrees(rot[1]))


@handler("tp:", "teleport:")
def teleport(call: Call, cmd: AstCommand) -> int:
    sim = call.sim
    source = call.source
    ident = cmd.identifier.split(":", 1)[1]
    args = list(cmd.arguments)
    if ident.startswith("targets"):
        targets = select_entities(args[0], source, sim.entities, sim.rng, scoreboard=sim.scoreboard)
        rest = args[1:]
        ident = ident.removeprefix("targets:")
    else:
        targets = [_self(call)]
        rest = args
    if ident == "destination":
        dest = select_one_entity(rest[0], source, sim.entities, sim.rng, scoreboard=sim.scoreboard)
        for target in targets:
            _teleport(target, dest.pos, dest.dimension, dest.rot)
        if len(targets) == 1:
            call.feedback(f"Teleported {targets[0].name} to {dest.name}")
        else:
            call.feedback(f"Teleported {len(targets)} entities to {dest.name}")
        return len(targets)
    if ident.startswith("location:facing"):
        raise UnsupportedCommand(cmd.identifier)
    pos = resolve_vec3(cast(AstVector3, rest[0]), source)
    rot = None
    if ident == "location:rotation":
        rot = resolve_rotation(cast(AstVector2, rest[1]), source)
    for target in targets:
        _teleport(target, pos, source.dimension, rot)
    where = f"{_fmt(pos[0])}, {_fmt(pos[1])}, {_fmt(pos[2])}"
    if len(targets) == 1:
        call.feedback(f"Teleported {targets[0].name} to {where}")
    else:
        call.feedback(f"Teleported {len(targets)} entities to {where}")
    return len(targets)

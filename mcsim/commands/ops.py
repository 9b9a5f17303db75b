"""`op` and `deop` (S/OpCommand.java, S/DeOpCommand.java) over ops.json (mcsim/ops.py)."""

from __future__ import annotations

import logging

from mecha.ast import AstCommand

from mcsim.entities import offline_uuid
from mcsim.errors import CommandError
from mcsim.ops import add_op, remove_op
from mcsim.registry import Call, handler

__all__ = ["deop", "op"]

log = logging.getLogger(__name__)


def _profiles(call: Call, node: AstCommand) -> list[tuple[str, str]]:
    """(uuid, name) of the game profiles named: online players for selectors, and for a plain
    name the online player or (offline mode) the name's offline UUID."""
    from mecha.ast import AstPlayerName

    from mcsim.selectors import resolve_targets

    arg = node.arguments[0]
    sim = call.sim
    if isinstance(arg, AstPlayerName):
        player = sim.entities.player(str(arg.value))
        if player is not None:
            return [(player.uuid, player.name)]
        return [(offline_uuid(str(arg.value)), str(arg.value))]
    found = resolve_targets(arg, call.source, sim.entities, sim.rng, players_only=True)
    if not found:
        raise CommandError("No player was found")
    return [(p.uuid, p.name) for p in found]


def _server_dir(call: Call) -> object:
    root = call.sim.root or call.sim.world
    if root is None:
        raise CommandError("mcsim: no server folder for ops.json")
    return root


@handler("op:targets")
def op(call: Call, node: AstCommand) -> int:
    from pathlib import Path

    world = _server_dir(call)
    assert isinstance(world, Path)
    level = int(call.sim.properties.get("op-permission-level", "4") or 4)
    count = 0
    for uuid, name in _profiles(call, node):
        if add_op(world, uuid, name, max(0, min(4, level))):
            count += 1
            call.feedback(f"Made {name} a server operator")
    if count == 0:
        raise CommandError("Nothing changed. The player already is an operator")
    return count


@handler("deop:targets")
def deop(call: Call, node: AstCommand) -> int:
    from pathlib import Path

    world = _server_dir(call)
    assert isinstance(world, Path)
    count = 0
    for uuid, name in _profiles(call, node):
        if remove_op(world, uuid):
            count += 1
            call.feedback(f"Made {name} no longer a server operator")
    if count == 0:
        raise CommandError("Nothing changed. The player is not an operator")
    return count

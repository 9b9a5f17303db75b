"""Carpet's `/player <name> spawn|kill` for fake players (a raw-line command: mecha lacks it).

From gnembon/fabric-carpet `carpet/commands/PlayerCommand.java`:
    player <name> spawn
    player <name> spawn in <gamemode>
    player <name> spawn at <x y z> [facing <yaw pitch> [in <dimension> [in <gamemode>]]]
    player <name> kill
Position, rotation and dimension default to the source's. Refusals are chat messages with result
0, not errors: "Player <name> is already logged on", "Player name: <name> is too long",
"Can only manipulate existing players", "Only fake players can be moved or killed".
A fake player joins like a client (log lines, saved data) with `[local]` as its address, and a
killed one is disconnected with the reason "Killed" (so leave_game counts it).
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

from mcsim.commands.entity import kill_entities
from mcsim.coordinates import resolve_rotation, resolve_vec3
from mcsim.dimensions import require_dimension
from mcsim.errors import CommandError, CommandSyntaxError, UnsupportedCommand
from mcsim.playerdata import join_player
from mcsim.rawcommands import raw_handler
from mcsim.registry import Call

__all__ = ["MAX_NAME", "player_command"]

log = logging.getLogger(__name__)

MAX_NAME = 16
_GAMEMODES = ("survival", "creative", "adventure", "spectator")


@lru_cache(maxsize=1)
def _mecha() -> Any:
    from mcsim.textcomponents import _mecha as shared

    return shared()


def _parse(parser: str, text: str) -> Any:
    try:
        return _mecha().parse(text, using=parser)
    except Exception as exc:
        raise CommandSyntaxError(f"Incorrect argument for command: {text}") from exc


def _world(call: Call) -> Path:
    world = call.sim.world
    if world is None:
        raise CommandError("mcsim: this server has no world folder for player data")
    return world


@raw_handler("player")
def player_command(call: Call, line: str) -> int:
    words = (line[1:] if line.startswith("/") else line).split()
    if len(words) < 3:
        raise CommandSyntaxError("Unknown or incomplete command. See below for error")
    name, action, rest = words[1], words[2], words[3:]
    if action == "spawn":
        return _spawn(call, name, rest)
    if action == "kill" and not rest:
        return _kill(call, name)
    raise UnsupportedCommand(f"player {action}")


def _spawn(call: Call, name: str, rest: list[str]) -> int:
    source = call.source
    pos: tuple[float, ...] = source.pos
    rot = source.rot
    dimension = source.dimension
    if rest[:1] == ["in"] and len(rest) == 2:
        _gamemode(rest[1], call)
    elif rest[:1] == ["at"] and len(rest) >= 4:
        pos = resolve_vec3(_parse("vec3", " ".join(rest[1:4])), source)
        tail = rest[4:]
        if tail[:1] == ["facing"] and len(tail) >= 3:
            rot = resolve_rotation(_parse("rotation", " ".join(tail[1:3])), source)
            tail = tail[3:]
            if tail[:1] == ["in"] and len(tail) >= 2:
                node = _parse("command:argument:minecraft:dimension", tail[1])
                dimension = require_dimension(
                    call.sim, f"{node.namespace or 'minecraft'}:{node.path}"
                )
                tail = tail[2:]
                if tail[:1] == ["in"] and len(tail) == 2:
                    _gamemode(tail[1], call)
                    tail = []
        if tail:
            raise CommandSyntaxError("Incorrect argument for command")
    elif rest:
        raise CommandSyntaxError("Incorrect argument for command")
    sim = call.sim
    if sim.entities.player(name) is not None:
        call.feedback(f"Player {name} is already logged on")
        return 0
    if len(name) > MAX_NAME:
        call.feedback(f"Player name: {name} is too long")
        return 0
    if not (abs(pos[0]) < 30_000_000 and abs(pos[2]) < 30_000_000 and abs(pos[1]) < 20_000_000):
        call.feedback(f"Player {name} cannot be placed outside of the world")
        return 0
    join_player(
        sim,
        _world(call),
        name,
        pos=(pos[0], pos[1], pos[2]),
        dimension=dimension,
        rot=rot,
        fake=True,
    )
    return 1


def _gamemode(mode: str, call: Call) -> None:
    if mode not in _GAMEMODES:
        raise CommandSyntaxError(f"Unknown game mode: {mode}")
    if call.source.level < 2:
        raise CommandSyntaxError("Incorrect argument for command")


def _kill(call: Call, name: str) -> int:
    player = call.sim.entities.player(name)
    if player is None:
        call.feedback("Can only manipulate existing players")
        return 0
    if not player.fake:
        call.feedback("Only fake players can be moved or killed")
        return 0
    kill_entities(call, [player])
    return 1

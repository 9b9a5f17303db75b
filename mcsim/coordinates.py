"""Coordinate arguments resolved against a command source: vec3 (absolute, `~`, `^`) and rotation.

Shared by the entity, player and execute command families (Vec3ArgumentType.getPos and
RotationArgumentType in 1.21.11), so that no family imports another for them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mecha.ast import AstCoordinate, AstVector2, AstVector3

    from mcsim.context import Source

__all__ = ["resolve_rotation", "resolve_vec3"]

_EYE_HEIGHT = {"minecraft:player": 1.62, "minecraft:zombie": 1.74, "minecraft:marker": 0.0}


def _anchor_pos(source: Source) -> tuple[float, float, float]:
    x, y, z = source.pos
    if source.anchor == "eyes" and source.entity is not None:
        y += _EYE_HEIGHT.get(source.entity.type, 0.0)
    return (x, y, z)


def resolve_vec3(node: AstVector3, source: Source, *, center: bool = True) -> tuple[float, ...]:
    """Vec3ArgumentType.getPos: absolute, `~` relative or `^` local coordinates."""
    coords: list[AstCoordinate] = [node.x, node.y, node.z]
    if coords[0].type == "local":
        left, up, forwards = (float(c.value) for c in coords)
        yaw, pitch = source.rot
        rad = math.pi / 180.0
        f = math.cos((yaw + 90.0) * rad)
        g = math.sin((yaw + 90.0) * rad)
        h = math.cos(-pitch * rad)
        i = math.sin(-pitch * rad)
        j = math.cos((-pitch + 90.0) * rad)
        k = math.sin((-pitch + 90.0) * rad)
        fwd = (f * h, i, g * h)
        upv = (f * j, k, g * j)
        # left = -(fwd x up)
        lft = (
            -(fwd[1] * upv[2] - fwd[2] * upv[1]),
            -(fwd[2] * upv[0] - fwd[0] * upv[2]),
            -(fwd[0] * upv[1] - fwd[1] * upv[0]),
        )
        base = _anchor_pos(source)
        return tuple(base[a] + fwd[a] * forwards + upv[a] * up + lft[a] * left for a in range(3))
    out: list[float] = []
    for axis, coord in enumerate(coords):
        value = float(coord.value)
        if coord.type == "relative":
            out.append(source.pos[axis] + value)
        elif center and axis != 1 and isinstance(coord.value, int):
            out.append(value + 0.5)
        else:
            out.append(value)
    return tuple(out)


def resolve_rotation(node: AstVector2, source: Source) -> tuple[float, float]:
    """RotationArgumentType: (yaw, pitch); `~` is relative to the source's rotation."""
    yaw = float(node.x.value) + (source.rot[0] if node.x.type == "relative" else 0.0)
    pitch = float(node.y.value) + (source.rot[1] if node.y.type == "relative" else 0.0)
    return (yaw, pitch)

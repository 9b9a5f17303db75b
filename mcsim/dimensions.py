"""Dimensions: the three vanilla ones plus those the enabled packs define at start-up.

Packs define dimensions in `data/<ns>/dimension/<path>.json` (a `type`, given as a dimension
type id or inline, and a generator mcsim ignores). The dimension registry is read only when the
server starts: vanilla needs a restart for a new dimension, so `/reload` and `datapack enable`
leave the list alone. What mcsim keeps of each is the dimension type's `coordinate_scale`, which
`execute in` applies to the position (the nether's 8).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mcsim.errors import CommandError

if TYPE_CHECKING:
    from mcsim.packs import Pack
    from mcsim.state import SimState

__all__ = [
    "VANILLA_DIMENSIONS",
    "dimension_folder",
    "load_dimensions",
    "require_dimension",
]

log = logging.getLogger(__name__)

# Dimension id -> coordinate scale, in the server's world order (overworld first).
VANILLA_DIMENSIONS: dict[str, float] = {
    "minecraft:overworld": 1.0,
    "minecraft:the_nether": 8.0,
    "minecraft:the_end": 1.0,
}

# Built-in dimension types (data/minecraft/dimension_type) and their coordinate_scale.
_VANILLA_TYPES: dict[str, float] = {
    "minecraft:overworld": 1.0,
    "minecraft:overworld_caves": 1.0,
    "minecraft:the_nether": 8.0,
    "minecraft:the_end": 1.0,
}


def _resource_id(text: str) -> str:
    return text if ":" in text else f"minecraft:{text}"


def _json_files(packs: Iterable[Pack], folder: str, server_log: Any) -> dict[str, Any]:
    """id -> parsed JSON of `data/<ns>/<folder>/<path>.json` over the packs (later packs win)."""
    found: dict[str, Any] = {}

    def wanted(name: str) -> bool:
        parts = name.split("/")
        return len(parts) >= 4 and parts[2] == folder and name.endswith(".json")

    for pack in packs:
        for name, content in pack.files("data", wanted):
            parts = name.split("/")
            rid = f"{parts[1]}:{'/'.join(parts[3:])[: -len('.json')]}"
            try:
                found[rid] = json.loads(content.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                server_log.error(f"Couldn't parse data file '{rid}' from '{name}': {e}")
    return found


def load_dimensions(packs: list[Pack], server_log: Any) -> dict[str, float]:
    """Vanilla's dimensions, then the packs' (sorted by id), each with its coordinate scale."""
    types = dict(_VANILLA_TYPES)
    for tid, body in _json_files(packs, "dimension_type", server_log).items():
        given = body.get("coordinate_scale") if isinstance(body, dict) else None
        if isinstance(given, int | float) and not isinstance(given, bool) and given > 0:
            types[tid] = float(given)
        else:
            server_log.error(f"Invalid dimension type {tid}: no valid coordinate_scale; skipped")
    dimensions = dict(VANILLA_DIMENSIONS)
    defined = _json_files(packs, "dimension", server_log)
    for did in sorted(defined):
        body = defined[did]
        kind = body.get("type") if isinstance(body, dict) else None
        scale: float | None = None
        if isinstance(kind, str):
            scale = types.get(_resource_id(kind))
        elif isinstance(kind, dict):
            raw = kind.get("coordinate_scale")
            if isinstance(raw, int | float) and not isinstance(raw, bool) and raw > 0:
                scale = float(raw)
        if scale is None:
            # Vanilla refuses the whole registry; mcsim only drops this dimension (a gap).
            server_log.error(f"Invalid dimension {did}: unknown or invalid type {kind!r}; skipped")
            continue
        dimensions[did] = scale
    return dimensions


def require_dimension(sim: SimState, dimension: str) -> str:
    """The dimension if the server has it; DimensionArgument's error otherwise."""
    if dimension not in sim.dimensions:
        raise CommandError(f"Unknown dimension '{dimension}'")
    return dimension


def dimension_folder(dimension: str) -> str:
    """The chunk storage folder name a world's save lines show (its directory's last part)."""
    if dimension == "minecraft:the_nether":
        return "DIM-1"
    if dimension == "minecraft:the_end":
        return "DIM1"
    # DimensionType.getSaveDirectory: dimensions/<ns>/<path>; the folder's own name.
    return dimension.split(":", 1)[1].rsplit("/", 1)[-1]

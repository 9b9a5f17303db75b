"""Target selectors, player names and UUIDs, resolved as vanilla's EntitySelector does.

Read from `command/EntitySelector.java`, `EntitySelectorReader.java` and
`EntitySelectorOptions.java` of the 1.21.11 decompile:
- @a @p @r select players only (no alive check); @e @n any entity that is alive; @s the source.
- Default sorts: @p and @n nearest, @r random, @e/@a arbitrary (load order); limit after sort.
- Position arguments (x y z dx dy dz distance) restrict the search to the source's dimension;
  without them every dimension is searched (players: in join order, whatever their dimension).
- A selector that cannot select non-players (@a @p @r, type=player, gamemode=, level=) searches
  the player list; a player name finds the online player; a UUID any loaded entity.
"""

from __future__ import annotations

import random
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mecha.ast import (
    AstNode,
    AstPlayerName,
    AstRange,
    AstSelector,
    AstString,
    AstUUID,
    AstWord,
)

from mcsim.entities import Entities, Entity, wrap_degrees
from mcsim.errors import CommandError, UnsupportedCommand

if TYPE_CHECKING:
    from mcsim.context import Source

__all__ = [
    "ENTITY_NOT_FOUND",
    "NOT_ALLOWED",
    "PLAYER_NOT_FOUND",
    "TOO_MANY_ENTITIES",
    "TOO_MANY_PLAYERS",
    "CompiledSelector",
    "ScoreLookup",
    "compile_selector",
    "display_names",
    "resolve_targets",
    "score_holder_name",
    "select_entities",
    "select_one_entity",
    "select_one_player",
    "select_players",
]

ENTITY_NOT_FOUND = "No entity was found"
PLAYER_NOT_FOUND = "No player was found"
TOO_MANY_ENTITIES = "Only one entity is allowed, but the provided selector allows more than one"
TOO_MANY_PLAYERS = "Only one player is allowed, but the provided selector allows more than one"
NOT_ALLOWED = "Selector not allowed"

# Order of server.getWorlds(): the dimension registry order.
_WORLD_ORDER = {"minecraft:overworld": 0, "minecraft:the_nether": 1, "minecraft:the_end": 2}
# Bounding boxes (width, height) of the modelled types, for dx/dy/dz volumes.
_SIZES = {
    "minecraft:player": (0.6, 1.8),
    "minecraft:zombie": (0.6, 1.95),
    "minecraft:marker": (0.0, 0.0),
}

Predicate = Callable[[Entity], bool]
Sorter = Callable[[tuple[float, float, float], list[Entity], random.Random], None]


class ScoreLookup(Protocol):
    """The part of mcsim.scoreboard.Scoreboard that `scores=` needs."""

    def get(self, holder: str, objective: str) -> int | None: ...


def score_holder_name(entity: Entity) -> str:
    """Vanilla's score holder name: a player's name, any other entity's UUID string."""
    return entity.name if entity.is_player() else entity.uuid


def display_names(entities: list[Entity]) -> str:
    """`Texts.join(entities, getDisplayName)` as plain text: names joined by ", "."""
    return ", ".join(e.name for e in entities)


def _sq_dist(e: Entity, pos: tuple[float, float, float]) -> float:
    return (e.pos[0] - pos[0]) ** 2 + (e.pos[1] - pos[1]) ** 2 + (e.pos[2] - pos[2]) ** 2


def _arbitrary(pos: tuple[float, float, float], ents: list[Entity], rng: random.Random) -> None:
    return None


def _nearest(pos: tuple[float, float, float], ents: list[Entity], rng: random.Random) -> None:
    ents.sort(key=lambda e: _sq_dist(e, pos))  # stable, as Java's List.sort


def _furthest(pos: tuple[float, float, float], ents: list[Entity], rng: random.Random) -> None:
    ents.sort(key=lambda e: -_sq_dist(e, pos))


def _random(pos: tuple[float, float, float], ents: list[Entity], rng: random.Random) -> None:
    rng.shuffle(ents)


_SORTERS: dict[str, Sorter] = {
    "arbitrary": _arbitrary,
    "nearest": _nearest,
    "furthest": _furthest,
    "random": _random,
}


def _in_range(rng: AstRange, value: float) -> bool:
    return (rng.min is None or value >= rng.min) and (rng.max is None or value <= rng.max)


def _resource(node: Any) -> str:
    ns = node.namespace or "minecraft"
    return f"{ns}:{node.path}"


@dataclass(slots=True)
class CompiledSelector:
    """One parsed selector, reusable across executions (AST nodes are immutable)."""

    text: str
    limit: int = 2**31 - 1
    players_only: bool = False
    local_world_only: bool = False
    sender_only: bool = False
    alive_only: bool = False
    player_name: str | None = None
    uuid: str | None = None
    sorter: Sorter = _arbitrary
    x: float | None = None
    y: float | None = None
    z: float | None = None
    dx: float | None = None
    dy: float | None = None
    dz: float | None = None
    distance: AstRange | None = None
    predicates: list[Predicate] = field(default_factory=list)
    scores: list[tuple[str, AstRange]] = field(default_factory=list)
    uses_at: bool = False

    def position(self, origin: tuple[float, float, float]) -> tuple[float, float, float]:
        return (
            origin[0] if self.x is None else self.x,
            origin[1] if self.y is None else self.y,
            origin[2] if self.z is None else self.z,
        )

    def box(self, pos: tuple[float, float, float]) -> tuple[float, ...] | None:
        if self.dx is None and self.dy is None and self.dz is None:
            if self.distance is not None and self.distance.max is not None:
                d = float(self.distance.max)
                return (
                    pos[0] - d,
                    pos[1] - d,
                    pos[2] - d,
                    pos[0] + d + 1,
                    pos[1] + d + 1,
                    pos[2] + d + 1,
                )
            return None
        lo, hi = [], []
        for origin, delta in zip(pos, (self.dx, self.dy, self.dz), strict=True):
            d = 0.0 if delta is None else delta
            lo.append(origin + (d if d < 0 else 0.0))
            hi.append(origin + (0.0 if d < 0 else d) + 1.0)
        return (lo[0], lo[1], lo[2], hi[0], hi[1], hi[2])

    def matcher(self, pos: tuple[float, float, float], scoreboard: ScoreLookup | None) -> Predicate:
        box = self.box(pos)
        dist = self.distance
        checks = list(self.predicates)
        if self.alive_only:
            checks.insert(0, lambda e: e.alive)
        if box is not None:
            checks.append(lambda e: _intersects(box, e))
        if dist is not None:
            lo = None if dist.min is None else float(dist.min) ** 2
            hi = None if dist.max is None else float(dist.max) ** 2

            def in_distance(e: Entity) -> bool:
                d = _sq_dist(e, pos)
                return (lo is None or d >= lo) and (hi is None or d <= hi)

            checks.append(in_distance)
        if self.scores:
            scores = self.scores

            def has_scores(e: Entity) -> bool:
                if scoreboard is None:
                    return False
                holder = score_holder_name(e)
                for objective, rng in scores:
                    try:
                        value = scoreboard.get(holder, objective)
                    except CommandError:  # unknown objective: no match, as vanilla
                        return False
                    if value is None or not _in_range(rng, value):
                        return False
                return True

            checks.append(has_scores)
        return lambda e: all(check(e) for check in checks)


def _intersects(box: tuple[float, ...], e: Entity) -> bool:
    width, height = _SIZES.get(e.type, (0.0, 0.0))
    x, y, z = e.pos
    half = width / 2
    return (
        box[0] < x + half
        and box[3] > x - half
        and box[1] < y + height
        and box[4] > y
        and box[2] < z + half
        and box[5] > z - half
    )


def compile_selector(node: AstNode) -> CompiledSelector:
    """Turn a mecha selector/name/UUID node into a CompiledSelector (cached per node)."""
    cached = _CACHE.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    compiled = _compile(node)
    if len(_CACHE) > 4096:
        _CACHE.clear()
    _CACHE[id(node)] = (node, compiled)
    return compiled


_CACHE: dict[int, tuple[AstNode, CompiledSelector]] = {}


def _compile(node: AstNode) -> CompiledSelector:
    if isinstance(node, AstUUID):
        return CompiledSelector(text=str(node.value), limit=1, uuid=str(node.value))
    if isinstance(node, AstPlayerName | AstWord | AstString):
        text = str(node.value)
        try:
            return CompiledSelector(text=text, limit=1, uuid=str(uuidlib.UUID(text)))
        except ValueError:
            return CompiledSelector(text=text, limit=1, players_only=True, player_name=text)
    if not isinstance(node, AstSelector):
        raise CommandError(f"mcsim: not an entity argument: {type(node).__name__}")
    sel = CompiledSelector(text="@" + node.variable, uses_at=True)
    var = node.variable
    if var == "a":
        sel.limit, sel.players_only = 2**31 - 1, True
    elif var == "e":
        sel.limit, sel.alive_only = 2**31 - 1, True
    elif var == "n":
        sel.limit, sel.alive_only, sel.sorter = 1, True, _nearest
    elif var == "p":
        sel.limit, sel.players_only, sel.sorter = 1, True, _nearest
    elif var == "r":
        sel.limit, sel.players_only, sel.sorter = 1, True, _random
    elif var == "s":
        sel.limit, sel.sender_only = 1, True
    else:
        raise CommandError(f"Unknown selector type '@{var}'")
    for arg in node.arguments:
        _apply_argument(sel, arg.key.value, arg.inverted, arg.value)
    return sel


def _apply_argument(sel: CompiledSelector, key: str, inverted: bool, value: Any) -> None:
    add = sel.predicates.append
    if key == "name":
        name = str(value.value)
        add(lambda e: (e.name == name) != inverted)
    elif key == "tag":
        tag = "" if value is None else str(value.value)
        if tag == "":
            add(lambda e: (not e.tags) != inverted)
        else:
            add(lambda e: (tag in e.tags) != inverted)
    elif key == "type":
        if value.is_tag:
            raise UnsupportedCommand("selector type=#tag")
        type_id = _resource(value)
        if type_id == "minecraft:player" and not inverted:
            sel.players_only = True
        add(lambda e: (e.type == type_id) != inverted)
    elif key == "limit":
        sel.limit = int(value.value)
    elif key == "sort":
        sel.sorter = _SORTERS[value.value]
    elif key in ("x", "y", "z", "dx", "dy", "dz"):
        sel.local_world_only = True
        setattr(sel, key, float(value.value))
    elif key == "distance":
        sel.local_world_only = True
        sel.distance = value
    elif key == "scores":
        sel.scores = [(str(m.key.value), m.value) for m in value.scores]
    elif key == "team":
        # mcsim models no teams: every entity's team is "" (vanilla's value for no team)
        team = "" if value is None else str(value.value)
        add(lambda e: (team == "") != inverted)
    elif key == "gamemode":
        # every mcsim player is in survival (server.properties gamemode default)
        sel.players_only = True
        mode = str(value.value)
        add(lambda e: e.is_player() and ((mode == "survival") != inverted))
    elif key == "level":
        sel.players_only = True
        rng = value
        add(lambda e: e.is_player() and _in_range(rng, 0))
    elif key in ("x_rotation", "y_rotation"):
        lo = wrap_degrees(float(value.min if value.min is not None else 0.0))
        hi = wrap_degrees(float(value.max if value.max is not None else 359.0))
        index = 1 if key == "x_rotation" else 0

        def in_rotation(e: Entity, lo: float = lo, hi: float = hi, i: int = index) -> bool:
            h = wrap_degrees(e.rot[i])
            return (h >= lo or h <= hi) if lo > hi else lo <= h <= hi

        add(in_rotation)
    elif key == "nbt":
        from mcsim.nbt import from_mecha, nbt_matches

        pattern = from_mecha(value)
        add(lambda e: nbt_matches(pattern, e.to_nbt()) != inverted)
    else:
        raise UnsupportedCommand(f"selector argument {key}=")


def _world_key(dimension: str) -> tuple[int, str]:
    return (_WORLD_ORDER.get(dimension, 3), dimension)


def resolve_targets(
    node: AstNode,
    source: Source,
    entities: Entities,
    rng: random.Random,
    *,
    scoreboard: ScoreLookup | None = None,
    players_only: bool = False,
) -> list[Entity]:
    """Entities selected by `node` for `source`; empty is not an error here.

    `players_only` is the argument type's players() flavour (tellraw, /player...): the search
    goes through the player list as vanilla's getPlayers does.
    """
    sel = compile_selector(node)
    if sel.uses_at and source.level < 2:
        raise CommandError(NOT_ALLOWED)
    if sel.player_name is not None:
        player = entities.player(sel.player_name)
        return [player] if player is not None else []
    if sel.uuid is not None:
        found = entities.by_uuid(sel.uuid)
        if found is None or ((players_only or sel.players_only) and not found.is_player()):
            return []
        return [found]
    pos = sel.position(source.pos)
    match = sel.matcher(pos, scoreboard)
    if sel.sender_only:
        me = source.entity
        if me is None or not match(me) or (players_only and not me.is_player()):
            return []
        return [me]
    if sel.players_only or players_only:
        pool = entities.players()
        if sel.local_world_only:
            pool = [e for e in pool if e.dimension == source.dimension]
    elif sel.local_world_only:
        pool = [e for e in entities.all() if e.dimension == source.dimension]
    else:
        pool = sorted(entities.all(), key=lambda e: _world_key(e.dimension))  # stable
    found_list = [e for e in pool if match(e)]
    if len(found_list) > 1:
        sel.sorter(pos, found_list, rng)
    return found_list[: sel.limit]


def select_entities(
    node: AstNode,
    source: Source,
    entities: Entities,
    rng: random.Random,
    *,
    scoreboard: ScoreLookup | None = None,
) -> list[Entity]:
    """EntityArgumentType.getEntities: empty -> "No entity was found"."""
    found = resolve_targets(node, source, entities, rng, scoreboard=scoreboard)
    if not found:
        raise CommandError(ENTITY_NOT_FOUND)
    return found


def select_players(
    node: AstNode,
    source: Source,
    entities: Entities,
    rng: random.Random,
    *,
    scoreboard: ScoreLookup | None = None,
) -> list[Entity]:
    """EntityArgumentType.getPlayers: empty -> "No player was found"."""
    found = resolve_targets(node, source, entities, rng, scoreboard=scoreboard, players_only=True)
    if not found:
        raise CommandError(PLAYER_NOT_FOUND)
    return found


def select_one_entity(
    node: AstNode,
    source: Source,
    entities: Entities,
    rng: random.Random,
    *,
    scoreboard: ScoreLookup | None = None,
) -> Entity:
    """EntityArgumentType.getEntity: none -> "No entity was found", several -> too many."""
    found = resolve_targets(node, source, entities, rng, scoreboard=scoreboard)
    if not found:
        raise CommandError(ENTITY_NOT_FOUND)
    if len(found) > 1:
        raise CommandError(TOO_MANY_ENTITIES)
    return found[0]


def select_one_player(
    node: AstNode,
    source: Source,
    entities: Entities,
    rng: random.Random,
    *,
    scoreboard: ScoreLookup | None = None,
) -> Entity:
    """EntityArgumentType.getPlayer: anything but exactly one -> "No player was found"."""
    found = resolve_targets(node, source, entities, rng, scoreboard=scoreboard, players_only=True)
    if len(found) != 1:
        raise CommandError(PLAYER_NOT_FOUND)
    return found[0]

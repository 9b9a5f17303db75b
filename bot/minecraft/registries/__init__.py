"""The ids of Minecraft's registries (items, blocks, entity types, effects, enchantments,
sounds, particles, biomes) for each release, and the first id in a parsed command that its
release does not have.

The lists come from PrismarineJS's minecraft-data (see __main__.py, which writes ids.json.gz):
the maintained source of every release's ids, and the one that can be installed here (Mojang's
own reports need the server jar). Only `minecraft:` ids are checked: a mod or a data pack may
add ids of its own namespace (and data packs may add enchantments and biomes), which the bot
cannot see. A release the data does not have is checked with the next newer one of its minor
version (a hotfix, such as 1.21.7 with 1.21.8's lists); a release newer than the data, or an
unknown version, is not checked at all, since a new id would be refused wrongly.
"""

from __future__ import annotations

__all__ = ["REGISTRY_NOUNS", "RegistryIds", "UnknownId", "ids_for_version", "unknown_id"]

import gzip
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from bot.i18n import Text, lazy

if TYPE_CHECKING:
    from mecha import AstCommand, AstNode, AstResourceLocation
    from mecha.config import CommandTree

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")
# what a moderator calls an id of each registry
REGISTRY_NOUNS: Final[dict[str, Text]] = {
    "item": lazy("item"),
    "block": lazy("block"),
    "entity_type": lazy("entity type"),
    "mob_effect": lazy("effect"),
    "enchantment": lazy("enchantment"),
    "sound_event": lazy("sound"),
    "particle_type": lazy("particle"),
    "worldgen/biome": lazy("biome"),
}
# argument parsers whose value is an id of the registry named by the node's `registry`
_RESOURCE_PARSERS: Final = frozenset(
    {
        "minecraft:resource",
        "minecraft:resource_key",
        "minecraft:resource_or_tag",
        "minecraft:resource_or_tag_key",
    }
)
_SOUND_COMMANDS: Final = frozenset({"playsound", "stopsound"})


@cache
def _data() -> dict[str, Any]:
    raw = resources.files(__name__).joinpath("ids.json.gz").read_bytes()
    loaded: dict[str, Any] = json.loads(gzip.decompress(raw))
    return loaded


def _key(version: str) -> tuple[int, int, int] | None:
    found = _VERSION.match(version.strip())
    if found is None:
        return None
    return int(found[1]), int(found[2]), int(found[3] or 0)


@dataclass(frozen=True, slots=True)
class RegistryIds:
    """The ids of a server of `version`; `release` names the release whose lists they are."""

    version: str
    release: str
    lists: dict[str, frozenset[str]]

    def names(self, registry: str) -> frozenset[str] | None:
        """The ids (without `minecraft:`) of `registry`, or None when it is not checked."""
        return self.lists.get(registry)


@cache
def ids_for_version(version: str | None) -> RegistryIds | None:
    """The ids a server of `version` has (see the module docstring), or None: not checked."""
    wanted = _key(version or "")
    if wanted is None:
        return None
    data = _data()
    releases = sorted((k, v) for v in data["versions"] if (k := _key(v)) is not None)
    same_minor = [(k, v) for k, v in releases if k[:2] == wanted[:2] and k >= wanted]
    if not same_minor:
        return None
    release = same_minor[0][1]
    sets = data["sets"]
    lists = {registry: frozenset(sets[key]) for registry, key in data["versions"][release].items()}
    return RegistryIds(str(version).strip(), release, lists)


@dataclass(frozen=True, slots=True)
class UnknownId:
    """An id its release does not have: where it starts in the command (0-based), its
    registry, the id as written, the nearest known one (None: nothing near), the server's
    version."""

    pos: int
    registry: str
    given: str
    nearest: str | None
    release: str

    @property
    def message(self) -> Text:
        noun = REGISTRY_NOUNS.get(self.registry, lazy("id"))
        if self.nearest is None:
            return lazy(
                "Minecraft {release} has no {noun} `{id}`.",
                release=self.release,
                noun=noun,
                id=self.given,
            )
        return lazy(
            "Minecraft {release} has no {noun} `{id}`: did you mean `{nearest}`?",
            release=self.release,
            noun=noun,
            id=self.given,
            nearest=self.nearest,
        )


def _registry_of(tree: CommandTree, path: list[str]) -> str | None:
    """The registry of the argument node at `path` in the command tree, or None."""
    node = tree.get(*path)
    if node is None or node.type != "argument":
        return None
    parser = node.parser or ""
    if parser in ("minecraft:item_stack", "minecraft:item_predicate"):
        return "item"
    if parser in ("minecraft:block_state", "minecraft:block_predicate"):
        return "block"
    if parser == "minecraft:particle":
        return "particle_type"
    if parser in _RESOURCE_PARSERS:
        registry = str((node.properties or {}).get("registry", ""))
        return registry.removeprefix("minecraft:") or None
    if (
        parser == "minecraft:resource_location"
        and path[0] in _SOUND_COMMANDS
        and path[-1] == "sound"
    ):
        return "sound_event"
    return None


def _id_node(argument: AstNode) -> AstResourceLocation | None:
    from mecha import (
        AstBlock,
        AstItemPredicate,
        AstItemStack,
        AstParticle,
        AstResourceLocation,
    )

    if isinstance(argument, AstItemStack | AstItemPredicate | AstBlock):
        found: object = argument.identifier
    elif isinstance(argument, AstParticle):
        found = argument.name
    else:
        found = argument
    return found if isinstance(found, AstResourceLocation) else None


def _arguments(tree: CommandTree, command: AstCommand) -> list[tuple[list[str], AstNode]]:
    """Each argument of `command` with its path in the tree (its literals skipped)."""
    segments = command.identifier.split(":")
    pairs: list[tuple[list[str], AstNode]] = []
    arguments = iter(command.arguments)
    for depth in range(1, len(segments) + 1):
        node = tree.get(*segments[:depth])
        if node is None:
            break
        if node.type == "argument":
            argument = next(arguments, None)
            if argument is None:
                break
            pairs.append((segments[:depth], argument))
    return pairs


def unknown_id(tree: CommandTree, parsed: AstCommand, ids: RegistryIds) -> UnknownId | None:
    """The first `minecraft:` id in `parsed` (its nested commands too) that `ids` lacks."""
    from mecha import AstCommand

    from bot.i18n.refusals import nearest

    for command in parsed.walk():
        if not isinstance(command, AstCommand):
            continue
        for path, argument in _arguments(tree, command):
            registry = _registry_of(tree, path)
            location = _id_node(argument) if registry is not None else None
            if registry is None or location is None or location.is_tag:
                continue
            known = ids.names(registry)
            if known is None or (location.namespace or "minecraft") != "minecraft":
                continue
            if location.path in known:
                continue
            near = nearest(location.path, known)
            return UnknownId(
                int(location.location.pos),
                registry,
                location.get_canonical_value(),
                None if near is None else f"minecraft:{near}",
                ids.version,
            )
    return None

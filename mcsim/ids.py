"""Registry ids as vanilla 1.21.11's argument parsers check them while a line is parsed: an item
(ItemStringReader, item predicates too), a block (BlockArgumentParser), a particle, and an
element of a registry read by RegistryEntryReferenceArgumentType (`minecraft:resource`: entity
types, effects, enchantments...). An unknown id refuses the whole line, with vanilla's message
and its cursor. Read from the 1.21.11 decompile: ItemStringReader puts the cursor back at the
item id's start; RegistryEntryReferenceArgumentType throws with the cursor after the id.
Inferred, not read: blocks (BlockArgumentParser) at the id's start as items, and item and block
predicates (a PEG parser in 1.21, ItemPredicateParsing) as their stack/state counterparts; an
unknown tag (vanilla: "Unknown item tag") is not refused. Sounds are not checked (playsound
takes any id), nor the registries read as keys.

The ids are 1.21.11's, from PrismarineJS's minecraft-data (registries.json.gz, written by
`python -m bot.minecraft.registries`). Data packs may add enchantments, which mcsim does not
load: only `minecraft:` enchantments are checked.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from mecha import (
    AstBlock,
    AstCommand,
    AstItemPredicate,
    AstItemStack,
    AstParticle,
    AstResourceLocation,
)

if TYPE_CHECKING:
    from mecha import AstNode
    from mecha.config import CommandTree

__all__ = ["unknown_id"]

_DATA_DRIVEN = frozenset({"enchantment"})


@cache
def _ids() -> dict[str, frozenset[str]]:
    raw = resources.files("mcsim").joinpath("registries.json.gz").read_bytes()
    return {k: frozenset(v) for k, v in json.loads(gzip.decompress(raw)).items()}


def _check_of(tree: CommandTree, path: list[str]) -> tuple[str, str, bool] | None:
    """(registry, vanilla's message pattern, cursor after the id) for the argument at `path`."""
    node = tree.get(*path)
    if node is None or node.type != "argument":
        return None
    parser = node.parser or ""
    if parser in ("minecraft:item_stack", "minecraft:item_predicate"):
        return "item", "Unknown item '{id}'", False
    if parser in ("minecraft:block_state", "minecraft:block_predicate"):
        return "block", "Unknown block type '{id}'", False
    if parser == "minecraft:particle":
        return "particle_type", "Unknown particle: {id}", True
    if parser == "minecraft:resource":
        registry = str((node.properties or {}).get("registry", ""))
        message = "Can't find element '{id}' of type '" + registry + "'"
        return registry.removeprefix("minecraft:"), message, True
    return None


def _location(argument: AstNode) -> AstResourceLocation | None:
    found: object = argument
    if isinstance(argument, AstItemStack | AstItemPredicate | AstBlock):
        found = argument.identifier
    elif isinstance(argument, AstParticle):
        found = argument.name
    return found if isinstance(found, AstResourceLocation) else None


def unknown_id(tree: CommandTree, parsed: AstCommand) -> tuple[str, int] | None:
    """Vanilla's message and cursor for the first unknown id in `parsed`, or None."""
    ids = _ids()
    for command in parsed.walk():
        if not isinstance(command, AstCommand):
            continue
        segments = command.identifier.split(":")
        arguments = iter(command.arguments)
        for depth in range(1, len(segments) + 1):
            node = tree.get(*segments[:depth])
            if node is None or node.type != "argument":
                continue
            argument = next(arguments, None)
            check = _check_of(tree, segments[:depth]) if argument is not None else None
            location = _location(argument) if check is not None and argument else None
            if check is None or location is None or location.is_tag:
                continue
            registry, message, after = check
            namespace = location.namespace or "minecraft"
            known = ids.get(registry)
            if known is None or (registry in _DATA_DRIVEN and namespace != "minecraft"):
                continue
            if namespace == "minecraft" and location.path in known:
                continue
            cursor = location.end_location.pos if after else location.location.pos
            return message.format(id=location.get_canonical_value()), int(cursor)
    return None

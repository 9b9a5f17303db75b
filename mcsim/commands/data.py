"""`data get|merge|modify|remove` on storage and entities (S/DataCommand.java)."""

from __future__ import annotations

import logging
from typing import Any

from mecha.ast import AstCommand, AstNode, AstResourceLocation
from nbtlib.tag import Compound

from mcsim.context import Source
from mcsim.errors import CommandError, UnsupportedCommand
from mcsim.nbt import (
    NbtPath,
    copy_tag,
    data_get_value,
    format_snbt,
    from_mecha,
    merge_compound,
    modify,
    string_source,
)
from mcsim.registry import Call, handler
from mcsim.state import SimState

__all__ = ["DataObject", "data_object", "read_data_object"]

log = logging.getLogger(__name__)

NOTHING_CHANGED = "Nothing changed. The specified properties already have these values"


def _java_double(value: float) -> str:
    from mcsim.nbt import java_double_str

    return str(java_double_str(value))


class DataObject:
    """A storage or an entity seen as an NBT compound (vanilla's DataCommandObject)."""

    def __init__(self, sim: SimState, kind: str, key: Any) -> None:
        self.sim = sim
        self.kind = kind
        self.key = key  # storage id, or the Entity

    def get_nbt(self) -> Compound:
        if self.kind == "storage":
            found = self.sim.storage.get(self.key)
            return found if found is not None else Compound()
        nbt: Compound = self.key.to_nbt()
        return nbt

    def set_nbt(self, nbt: Compound) -> None:
        if self.kind == "storage":
            self.sim.storage[self.key] = nbt
        else:
            if self.key.is_player():
                raise CommandError("Unable to modify player data")
            self.key.apply_nbt(nbt)

    def check_writable(self) -> None:
        if self.kind == "entity" and self.key.is_player():
            raise CommandError("Unable to modify player data")

    def modified(self) -> str:
        if self.kind == "storage":
            return f"Modified storage {self.key}"
        return f"Modified entity data of {self.key.name}"

    def query(self, tag: Any) -> str:
        if self.kind == "storage":
            return f"Storage {self.key} has the following contents: {format_snbt(tag)}"
        return f"{self.key.name} has the following entity data: {format_snbt(tag)}"

    def get_scaled(self, path: NbtPath, scale: float, value: int) -> str:
        if self.kind == "storage":
            return (
                f"{path} in storage {self.key} after scale factor of {_java_double(scale)} "
                f"is {value}"
            )
        return f"{path} on {self.key.name} after scale factor of {_java_double(scale)} is {value}"


def data_object(sim: SimState, source: Source, kind: str, node: AstNode) -> DataObject:
    if kind == "storage":
        assert isinstance(node, AstResourceLocation)
        return DataObject(sim, "storage", f"{node.namespace or 'minecraft'}:{node.path}")
    if kind == "entity":
        from mcsim.selectors import select_one_entity

        entity = select_one_entity(node, source, sim.entities, sim.rng, scoreboard=sim.scoreboard)
        return DataObject(sim, "entity", entity)
    raise UnsupportedCommand(f"data ... {kind}")


def read_data_object(sim: SimState, source: Source, kind: str, node: AstNode) -> Compound:
    """The whole compound of a `storage <id>` / `entity <target>` source (function ... with)."""
    return data_object(sim, source, kind, node).get_nbt()


def _single(path: NbtPath, root: Compound) -> Any:
    values = path.get(root)
    if len(values) > 1:
        raise CommandError("This argument accepts a single NBT value")
    return values[0]


@handler("data:get:")
def data_get(call: Call, node: AstCommand) -> int:
    parts = node.identifier.split(":")  # data:get:<kind>:target[:path[:scale]]
    obj = data_object(call.sim, call.source, parts[2], node.arguments[0])
    root = obj.get_nbt()
    if len(node.arguments) == 1:
        call.feedback(lambda: obj.query(root), broadcast=False)
        return 1
    path = NbtPath.from_mecha(node.arguments[1])
    tag = _single(path, root)
    if len(node.arguments) == 3:
        scale = float(node.arguments[2].value)  # type: ignore[attr-defined]
        value = data_get_value(tag, scale, path=path)
        call.feedback(lambda: obj.get_scaled(path, scale, value), broadcast=False)
        return value
    value = data_get_value(tag, None, path=path)
    call.feedback(lambda: obj.query(tag), broadcast=False)
    return value


@handler("data:merge:")
def data_merge(call: Call, node: AstCommand) -> int:
    kind = node.identifier.split(":")[2]
    obj = data_object(call.sim, call.source, kind, node.arguments[0])
    obj.check_writable()
    patch = from_mecha(node.arguments[1])
    assert isinstance(patch, Compound)
    current = obj.get_nbt()
    merged = copy_tag(current)
    assert isinstance(merged, Compound)
    if not merge_compound(merged, patch):
        raise CommandError(NOTHING_CHANGED)
    obj.set_nbt(merged)
    call.feedback(obj.modified())
    return 1


@handler("data:remove:")
def data_remove(call: Call, node: AstCommand) -> int:
    kind = node.identifier.split(":")[2]
    obj = data_object(call.sim, call.source, kind, node.arguments[0])
    obj.check_writable()
    path = NbtPath.from_mecha(node.arguments[1])
    root = obj.get_nbt()
    removed = path.remove(root)
    if removed == 0:
        raise CommandError(NOTHING_CHANGED)
    obj.set_nbt(root)
    call.feedback(obj.modified())
    return removed


def _source_values(call: Call, ident: list[str], args: list[Any], at: int) -> list[Any]:
    """The source tags of a modify: `value <v>`, `from <obj> [path]`, `string <obj> [path] ..`."""
    how = ident[at]
    if how == "value":
        return [from_mecha(args[-1])]
    kind = ident[at + 1]
    # ident after the mode: value:value | from:<kind>:source[:sourcePath] |
    # string:<kind>:source[:sourcePath[:start[:end]]]
    pos = len(args) - (len(ident) - at - 2)  # index of the source object argument
    src_obj = data_object(call.sim, call.source, kind, args[pos])
    root = src_obj.get_nbt()
    rest = args[pos + 1 :]
    if how == "from":
        if rest:
            return list(NbtPath.from_mecha(rest[0]).get(root))
        return [root]
    if how == "string":
        tags = list(NbtPath.from_mecha(rest[0]).get(root)) if rest else [root]
        start = int(rest[1].value) if len(rest) > 1 else None
        end = int(rest[2].value) if len(rest) > 2 else None
        return [string_source(t, start, end) for t in tags]
    raise UnsupportedCommand(":".join(ident))


@handler("data:modify:")
def data_modify(call: Call, node: AstCommand) -> int:
    ident = node.identifier.split(":")
    args = list(node.arguments)
    # data:modify:<kind>:target:targetPath:<mode>[:index]:<how>...
    obj = data_object(call.sim, call.source, ident[2], args[0])
    obj.check_writable()
    path = NbtPath.from_mecha(args[1])
    mode = ident[5]
    index = None
    at = 6
    if mode == "insert":
        index = int(args[2].value)  # type: ignore[attr-defined]
        at = 7
    values = _source_values(call, ident, args, at)
    root = obj.get_nbt()
    if obj.kind == "storage" and obj.key not in call.sim.storage:
        call.sim.storage[obj.key] = root  # edits are live, even if a later step fails
    try:
        changed = modify(root, path, mode, values, index)
    finally:
        if obj.kind == "entity":
            obj.set_nbt(root)
    if changed == 0:
        raise CommandError(NOTHING_CHANGED)
    obj.set_nbt(root)
    call.feedback(obj.modified())
    return changed

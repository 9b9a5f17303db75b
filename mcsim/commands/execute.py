"""`execute` stages and conditions (S/ExecuteCommand.java).

Stages map one context to the contexts that go on; the executor runs them breadth-first.
Conditions give a count: mid-chain they keep or drop the context, last in the chain they are the
command's result ("Test passed"/"Test failed").
"""

from __future__ import annotations

import logging
from typing import Any

from mecha.ast import AstCommand, AstNode, AstResourceLocation

from mcsim.context import Source
from mcsim.errors import CommandError, UnsupportedCommand
from mcsim.registry import Call, handler, modifier

__all__ = ["condition_count"]

log = logging.getLogger(__name__)


def _targets(call: Call, node: AstNode) -> list[Any]:
    from mcsim.selectors import resolve_targets

    sim = call.sim
    return resolve_targets(node, call.source, sim.entities, sim.rng, scoreboard=sim.scoreboard)


def _dimension(node: Any) -> str:
    assert isinstance(node, AstResourceLocation)
    return f"{node.namespace or 'minecraft'}:{node.path}"


def _vec3(node: Any, source: Source) -> tuple[float, float, float]:
    from mcsim.coordinates import resolve_vec3

    x, y, z = resolve_vec3(node, source)
    return (x, y, z)


# -- stages ---------------------------------------------------------------------------------------


@modifier("execute:as:targets:subcommand", forking=True)
def as_(call: Call, node: AstCommand) -> list[Source]:
    src = call.source
    return [src.with_(entity=e, name=e.name) for e in _targets(call, node.arguments[0])]


@modifier("execute:at:targets:subcommand", forking=True)
def at(call: Call, node: AstCommand) -> list[Source]:
    src = call.source
    return [
        src.with_(pos=e.pos, rot=e.rot, dimension=e.dimension)
        for e in _targets(call, node.arguments[0])
    ]


@modifier("execute:positioned:as:targets:subcommand", forking=True)
def positioned_as(call: Call, node: AstCommand) -> list[Source]:
    return [call.source.with_(pos=e.pos) for e in _targets(call, node.arguments[0])]


@modifier("execute:rotated:as:targets:subcommand", forking=True)
def rotated_as(call: Call, node: AstCommand) -> list[Source]:
    return [call.source.with_(rot=e.rot) for e in _targets(call, node.arguments[0])]


@modifier("execute:positioned:pos:subcommand", forking=False)
def positioned(call: Call, node: AstCommand) -> list[Source]:
    return [call.source.with_(pos=_vec3(node.arguments[0], call.source))]


@modifier("execute:rotated:rot:subcommand", forking=False)
def rotated(call: Call, node: AstCommand) -> list[Source]:
    vec = node.arguments[0]
    yaw0, pitch0 = call.source.rot
    yaw = float(vec.x.value) + (yaw0 if vec.x.type == "relative" else 0.0)  # type: ignore[attr-defined]
    pitch = float(vec.y.value) + (pitch0 if vec.y.type == "relative" else 0.0)  # type: ignore[attr-defined]
    return [call.source.with_(rot=(yaw, pitch))]


@modifier("execute:in:dimension:subcommand", forking=False)
def in_(call: Call, node: AstCommand) -> list[Source]:
    from mcsim.dimensions import require_dimension

    sim = call.sim
    dim = require_dimension(sim, _dimension(node.arguments[0]))
    # Vanilla scales the position by the dimensions' coordinate scales (nether 8:1).
    x, y, z = call.source.pos
    scale = sim.dimensions.get(call.source.dimension, 1.0) / sim.dimensions[dim]
    return [call.source.with_(dimension=dim, pos=(x * scale, y, z * scale))]


@modifier("execute:anchored:anchor:subcommand", forking=False)
def anchored(call: Call, node: AstCommand) -> list[Source]:
    anchor = str(node.arguments[0].value)  # type: ignore[attr-defined]
    return [call.source.with_(anchor="eyes" if anchor == "eyes" else "feet")]


# -- conditions ---------------------------------------------------------------------------------


def _score_value(call: Call, holder_node: AstNode, obj_node: Any) -> int | None:
    from mcsim.commands.scoreboard import get_objective, score_holders

    holders = score_holders(call.sim, call.source, holder_node)
    if len(holders) > 1:
        raise CommandError(
            "Only one entity is allowed, but the provided selector allows more than one"
        )
    obj = get_objective(call.sim.scoreboard, str(obj_node.value))
    return call.sim.scoreboard.get(holders[0], obj.name)


def _in_range(rng: Any, value: int) -> bool:
    lo, hi = rng.min, rng.max
    return (lo is None or value >= lo) and (hi is None or value <= hi)


_COMPARE = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "=": lambda a, b: a == b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def condition_count(call: Call, node: AstCommand) -> int:
    """The count a condition gives (0 = failed) for `if`; the caller inverts for `unless`."""
    parts = node.identifier.split(":")
    kind = parts[2]
    args = node.arguments
    if kind == "entity":
        return len(_targets(call, args[0]))
    if kind == "score":
        a = _score_value(call, args[0], args[1])
        if parts[5] == "matches":
            return 1 if a is not None and _in_range(args[2], a) else 0
        b = _score_value(call, args[2], args[3])
        if a is None or b is None:
            return 0
        return 1 if _COMPARE[parts[5]](a, b) else 0
    if kind == "data":
        from mcsim.commands.data import data_object
        from mcsim.nbt import NbtPath

        obj = data_object(call.sim, call.source, parts[3], args[0])
        return NbtPath.from_mecha(args[1]).count(obj.get_nbt())
    if kind == "dimension":
        from mcsim.dimensions import require_dimension

        wanted = require_dimension(call.sim, _dimension(args[0]))
        return 1 if call.source.dimension == wanted else 0
    raise UnsupportedCommand(node.identifier)


def _passes(call: Call, node: AstCommand) -> int:
    """1 or the count when the if/unless condition holds, else 0."""
    count = condition_count(call, node)
    if node.identifier.split(":")[1] == "unless":
        return 1 if count == 0 else 0
    return count


@modifier(
    "execute:if:entity:",
    "execute:unless:entity:",
    "execute:if:score:",
    "execute:unless:score:",
    "execute:if:data:",
    "execute:unless:data:",
    "execute:if:dimension:",
    "execute:unless:dimension:",
    forking=True,
)
def conditional(call: Call, node: AstCommand) -> list[Source]:
    return [call.source] if _passes(call, node) else []


@modifier("execute:if:function:", "execute:unless:function:", forking=True)
def if_function(call: Call, node: AstCommand) -> list[Source]:
    """Runs the function(s) silently; passes when one returned non-zero (sum for tags)."""
    from mcsim.commands.function import lookup_functions

    executor = call.sim.executor
    assert executor is not None
    budget = executor.current_budget
    assert budget is not None
    loc = node.arguments[0]
    assert isinstance(loc, AstResourceLocation)
    _, functions = lookup_functions(executor, loc)
    quiet = call.source.with_(silent=True, callbacks=())
    passed = False
    for fn in functions:
        if fn.is_macro:
            raise CommandError(
                f"Failed to instantiate function {fn.id}: Missing arguments to function {fn.id}"
            )
        returned = executor.call_function(fn, fn.lines, quiet, budget)
        if returned is not None and returned[1] != 0:
            passed = True
    if node.identifier.split(":")[1] == "unless":
        passed = not passed
    return [call.source] if passed else []


# Conditions last in the chain: the command's own result.
@handler(
    "execute:if:entity:entities",
    "execute:unless:entity:entities",
    "execute:if:score:",
    "execute:unless:score:",
    "execute:if:data:",
    "execute:unless:data:",
    "execute:if:dimension:dimension",
    "execute:unless:dimension:dimension",
)
def conditional_last(call: Call, node: AstCommand) -> int:
    count = _passes(call, node)
    kind = node.identifier.split(":")[2]
    counted = kind in ("entity", "data") and node.identifier.split(":")[1] == "if"
    if count == 0:
        raise CommandError("Test failed")
    call.feedback(f"Test passed. Count: {count}" if counted else "Test passed", broadcast=False)
    return count


# -- store ----------------------------------------------------------------------------------------


@modifier("execute:store:", forking=False)
def store(call: Call, node: AstCommand) -> list[Source]:
    parts = node.identifier.split(":")
    want_result = parts[2] == "result"
    kind = parts[3]
    args = node.arguments
    sim = call.sim
    src = call.source
    if kind == "score":
        from mcsim.commands.scoreboard import get_objective, score_holders

        holders = score_holders(sim, src, args[0])
        obj = get_objective(sim.scoreboard, str(args[1].value))  # type: ignore[attr-defined]
        table = sim.scoreboard.scores[obj.name]

        def to_score(success: bool, result: int) -> None:
            value = result if want_result else (1 if success else 0)
            for h in holders:
                table[h] = value

        return [src.with_(callbacks=(*src.callbacks, to_score))]
    if kind in ("storage", "entity"):
        from mcsim.commands.data import data_object
        from mcsim.nbt import NbtPath, store_value

        obj_ = data_object(sim, src, kind, args[0])
        obj_.check_writable()
        path = NbtPath.from_mecha(args[1])
        num_type = parts[6]
        scale = float(args[2].value)  # type: ignore[attr-defined]

        def to_nbt(success: bool, result: int) -> None:
            value = result if want_result else (1 if success else 0)
            try:
                root = obj_.get_nbt()
                path.set(root, store_value(num_type, value * scale))
                obj_.set_nbt(root)
            except CommandError:
                pass  # vanilla swallows store errors

        return [src.with_(callbacks=(*src.callbacks, to_nbt))]
    raise UnsupportedCommand(node.identifier)

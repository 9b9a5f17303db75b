"""`scoreboard objectives|players ...` (S/ScoreboardCommand.java), Java int arithmetic."""

from __future__ import annotations

import logging
import re
from typing import Any

from mecha.ast import AstCommand, AstNode

from mcsim.context import Source
from mcsim.errors import CommandError, UnsupportedCommand
from mcsim.registry import Call, handler
from mcsim.scoreboard import Objective, Scoreboard
from mcsim.state import SimState

__all__ = ["apply_operation", "get_objective", "score_holders", "wrap_int"]

log = logging.getLogger(__name__)

_OBJECTIVE_NAME = re.compile(r"[0-9A-Za-z_.+\-]+")


def wrap_int(value: int) -> int:
    return (value + 0x80000000) % 0x100000000 - 0x80000000


def _java_div(a: int, b: int) -> int:
    return a // b  # Math.floorDiv


def _java_mod(a: int, b: int) -> int:
    return a % b  # Math.floorMod: sign of the divisor, as Python's %


def apply_operation(op: str, a: int, b: int) -> tuple[int, int]:
    """(new target, new source) for one operator; raises "Cannot divide by zero"."""
    if op == "=":
        return b, b
    if op == "+=":
        return wrap_int(a + b), b
    if op == "-=":
        return wrap_int(a - b), b
    if op == "*=":
        return wrap_int(a * b), b
    if op in ("/=", "%="):
        if b == 0:
            raise CommandError("Cannot divide by zero")
        return wrap_int(_java_div(a, b) if op == "/=" else _java_mod(a, b)), b
    if op == "<":
        return min(a, b), b
    if op == ">":
        return max(a, b), b
    if op == "><":
        return b, a
    raise UnsupportedCommand(f"scoreboard operation {op}")


def get_objective(board: Scoreboard, name: str) -> Objective:
    obj = board.objectives.get(name)
    if obj is None:
        raise CommandError(f"Unknown scoreboard objective '{name}'")
    return obj


def score_holders(
    sim: SimState, source: Source, node: AstNode, objective: str | None = None
) -> list[str]:
    """Score holder names for a holder argument: name, `*`, selector or UUID."""
    kind = type(node).__name__
    if kind == "AstWildcard":
        found = sim.scoreboard.holders()
        if not found:
            raise CommandError("No relevant score holders could be found")
        return found
    if kind == "AstPlayerName":
        return [str(node.value)]  # type: ignore[attr-defined]
    from mcsim.selectors import resolve_targets, score_holder_name

    if kind == "AstUUID":
        entity = sim.entities.by_uuid(str(node.value))  # type: ignore[attr-defined]
        return [score_holder_name(entity) if entity is not None else str(node.value)]  # type: ignore[attr-defined]
    entities = resolve_targets(node, source, sim.entities, sim.rng, scoreboard=sim.scoreboard)
    if not entities:
        raise CommandError("No entity was found")
    return [score_holder_name(e) for e in entities]


def _one_holder(call: Call, node: AstNode) -> str:
    holders = score_holders(call.sim, call.source, node)
    if len(holders) > 1:
        raise CommandError(
            "Only one entity is allowed, but the provided selector allows more than one"
        )
    return holders[0]


def _objective_arg(call: Call, node: Any) -> Objective:
    return get_objective(call.sim.scoreboard, str(node.value))


def _display(obj: Objective) -> str:
    return f"[{obj.display_name}]"


def _text_value(node: Any) -> str:
    from mcsim.nbt import from_mecha

    tag = from_mecha(node)
    if isinstance(tag, str):
        return str(tag)
    if isinstance(tag, dict) and "text" in tag:
        return str(tag["text"])
    return str(tag)


# -- objectives ---------------------------------------------------------------------------------


@handler("scoreboard:objectives:add:objective:criteria", "scoreboard:objectives:add:")
def objectives_add(call: Call, node: AstCommand) -> int:
    args = node.arguments
    name = str(args[0].value)  # type: ignore[attr-defined]
    criteria = str(args[1].value)  # type: ignore[attr-defined]
    board = call.sim.scoreboard
    if not _OBJECTIVE_NAME.fullmatch(name):
        raise CommandError("Invalid name")
    if name in board.objectives:
        raise CommandError("An objective already exists by that name")
    display = _text_value(args[2]) if len(args) > 2 else name
    obj = board.add_objective(name, criteria, display)
    call.feedback(f"Created new objective {_display(obj)}")
    return len(board.objectives)


@handler("scoreboard:objectives:remove:objective")
def objectives_remove(call: Call, node: AstCommand) -> int:
    obj = _objective_arg(call, node.arguments[0])
    call.sim.scoreboard.remove_objective(obj.name)
    call.feedback(f"Removed objective {_display(obj)}")
    return len(call.sim.scoreboard.objectives)


@handler("scoreboard:objectives:list")
def objectives_list(call: Call, node: AstCommand) -> int:
    objs = list(call.sim.scoreboard.objectives.values())
    if not objs:
        call.feedback("There are no objectives", broadcast=False)
    else:
        call.feedback(
            lambda: f"There are {len(objs)} objective(s): {', '.join(_display(o) for o in objs)}",
            broadcast=False,
        )
    return len(objs)


@handler("scoreboard:objectives:modify:objective:displayname:displayName")
def objectives_displayname(call: Call, node: AstCommand) -> int:
    obj = _objective_arg(call, node.arguments[0])
    obj.display_name = _text_value(node.arguments[1])
    call.feedback(f"Changed the display name of {obj.name} to {_display(obj)}")
    return 0


# -- players ------------------------------------------------------------------------------------


@handler("scoreboard:players:set:targets:objective:score")
def players_set(call: Call, node: AstCommand) -> int:
    holders = score_holders(call.sim, call.source, node.arguments[0])
    obj = _objective_arg(call, node.arguments[1])
    value = int(node.arguments[2].value)  # type: ignore[attr-defined]
    table = call.sim.scoreboard.scores[obj.name]
    for h in holders:
        table[h] = value
    if len(holders) == 1:
        call.feedback(f"Set {_display(obj)} for {holders[0]} to {value}")
    else:
        call.feedback(f"Set {_display(obj)} for {len(holders)} entities to {value}")
    return wrap_int(value * len(holders))


def _add(call: Call, node: AstCommand, sign: int) -> int:
    holders = score_holders(call.sim, call.source, node.arguments[0])
    obj = _objective_arg(call, node.arguments[1])
    amount = int(node.arguments[2].value)  # type: ignore[attr-defined]
    table = call.sim.scoreboard.scores[obj.name]
    total = 0
    for h in holders:
        table[h] = wrap_int(table.get(h, 0) + sign * amount)
        total += table[h]
    verb = "Added" if sign > 0 else "Removed"
    prep = "to" if sign > 0 else "from"
    if len(holders) == 1:
        call.feedback(f"{verb} {amount} {prep} {_display(obj)} for {holders[0]} (now {total})")
    else:
        call.feedback(f"{verb} {amount} {prep} {_display(obj)} for {len(holders)} entities")
    return wrap_int(total)


@handler("scoreboard:players:add:targets:objective:score")
def players_add(call: Call, node: AstCommand) -> int:
    return _add(call, node, 1)


@handler("scoreboard:players:remove:targets:objective:score")
def players_remove(call: Call, node: AstCommand) -> int:
    return _add(call, node, -1)


@handler("scoreboard:players:get:target:objective")
def players_get(call: Call, node: AstCommand) -> int:
    holder = _one_holder(call, node.arguments[0])
    obj = _objective_arg(call, node.arguments[1])
    value = call.sim.scoreboard.get(holder, obj.name)
    if value is None:
        raise CommandError(f"Can't get value of {obj.name} for {holder}; none is set")
    call.feedback(f"{holder} has {value} {_display(obj)}", broadcast=False)
    return value


@handler("scoreboard:players:reset:targets", "scoreboard:players:reset:targets:objective")
def players_reset(call: Call, node: AstCommand) -> int:
    holders = score_holders(call.sim, call.source, node.arguments[0])
    board = call.sim.scoreboard
    if len(node.arguments) == 1:
        for h in holders:
            board.reset(h)
        if len(holders) == 1:
            call.feedback(f"Reset all scores for {holders[0]}")
        else:
            call.feedback(f"Reset all scores for {len(holders)} entities")
        return len(holders)
    obj = _objective_arg(call, node.arguments[1])
    for h in holders:
        board.reset(h, obj.name)
    if len(holders) == 1:
        call.feedback(f"Reset {_display(obj)} for {holders[0]}")
    else:
        call.feedback(f"Reset {_display(obj)} for {len(holders)} entities")
    return len(holders)


@handler("scoreboard:players:list")
def players_list(call: Call, node: AstCommand) -> int:
    holders = call.sim.scoreboard.holders()
    if not holders:
        call.feedback("There are no tracked entities", broadcast=False)
    else:
        call.feedback(
            lambda: f"There are {len(holders)} tracked entity/entities: {', '.join(holders)}",
            broadcast=False,
        )
    return len(holders)


@handler("scoreboard:players:list:target")
def players_list_target(call: Call, node: AstCommand) -> int:
    holder = _one_holder(call, node.arguments[0])
    board = call.sim.scoreboard
    scores = [(board.objectives[o], t[holder]) for o, t in board.scores.items() if holder in t]
    if not scores:
        call.feedback(f"{holder} has no scores to show", broadcast=False)
    else:
        call.feedback(f"{holder} has {len(scores)} score(s):", broadcast=False)
        for obj, value in scores:
            call.feedback(f"{_display(obj)}: {value}", broadcast=False)
    return len(scores)


@handler("scoreboard:players:operation:targets:targetObjective:operation:source:sourceObjective")
def players_operation(call: Call, node: AstCommand) -> int:
    args = node.arguments
    targets = score_holders(call.sim, call.source, args[0])
    t_obj = _objective_arg(call, args[1])
    op = str(args[2].value)  # type: ignore[attr-defined]
    sources = score_holders(call.sim, call.source, args[3])
    s_obj = _objective_arg(call, args[4])
    board = call.sim.scoreboard
    t_table, s_table = board.scores[t_obj.name], board.scores[s_obj.name]
    total = 0
    for t in targets:
        t_table.setdefault(t, 0)
        for s in sources:
            s_table.setdefault(s, 0)
            # Earlier pairs stay applied when a later one divides by zero, as in vanilla.
            new_t, new_s = apply_operation(op, t_table[t], s_table[s])
            if op == "><":
                s_table[s] = new_s
            t_table[t] = new_t
        total += t_table[t]
    if len(targets) == 1:
        call.feedback(f"Set {_display(t_obj)} for {targets[0]} to {wrap_int(total)}")
    else:
        call.feedback(f"Updated {_display(t_obj)} for {len(targets)} entities")
    return wrap_int(total)

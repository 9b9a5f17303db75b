"""`time query|set|add` (S/TimeCommand.java): game time and day time."""

from __future__ import annotations

import logging
import math
from typing import Any

from mecha.ast import AstCommand

from mcsim.registry import Call, handler

__all__ = ["ticks_of"]

log = logging.getLogger(__name__)

_INT_MAX = 2**31 - 1
_UNITS = {"tick": 1, "second": 20, "day": 24000}
_NAMED = {"day": 1000, "noon": 6000, "night": 13000, "midnight": 18000}


def ticks_of(node: Any) -> int:
    """An AstTime in ticks (TimeArgumentType: Math.round(value * unit))."""
    value = float(node.value) * _UNITS.get(str(getattr(node, "unit", "tick") or "tick"), 1)
    return math.floor(value + 0.5)


@handler("time:query:")
def time_query(call: Call, node: AstCommand) -> int:
    what = node.identifier.split(":")[2]
    sim = call.sim
    if what == "gametime":
        value = sim.game_time % _INT_MAX
    elif what == "daytime":
        value = sim.day_time % 24000
    else:
        value = (sim.day_time // 24000) % _INT_MAX
    call.feedback(f"The time is {value}", broadcast=False)
    return value


def _set_day_time(call: Call, value: int) -> int:
    call.sim.day_time = value
    result = call.sim.day_time % 24000
    return result


@handler("time:set:time", "time:set:day", "time:set:noon", "time:set:night", "time:set:midnight")
def time_set(call: Call, node: AstCommand) -> int:
    what = node.identifier.split(":")[2]
    value = ticks_of(node.arguments[0]) if what == "time" else _NAMED[what]
    result = _set_day_time(call, value)
    call.feedback(f"Set the time to {value}")
    return result


@handler("time:add:time")
def time_add(call: Call, node: AstCommand) -> int:
    result = _set_day_time(call, call.sim.day_time + ticks_of(node.arguments[0]))
    call.feedback(f"Set the time to {result}")
    return result

"""`schedule function|clear` (S/ScheduleCommand.java, world/timer/Timer.java).

Events live in `sim.schedules` (name, due game time, is tag); the world tick fires those due, each
as its own top-level call (macro functions are skipped silently, as vanilla's FunctionTimerCallback
skips them). They are saved in level.dat's ScheduledEvents.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from mecha.ast import AstCommand, AstResourceLocation

from mcsim.commands.function import lookup_functions, resource_id
from mcsim.commands.time import ticks_of
from mcsim.errors import CommandError
from mcsim.registry import Call, handler

__all__ = ["ScheduledEvent"]

log = logging.getLogger(__name__)

_INT_MAX = 2**31 - 1


@dataclass(slots=True)
class ScheduledEvent:
    name: str  # "ns:f", or "#ns:tag" for a tag (vanilla's event name)
    due: int
    is_tag: bool


@handler("schedule:function:")
def schedule_function(call: Call, node: AstCommand) -> int:
    sim = call.sim
    executor = sim.executor
    assert executor is not None
    loc = node.arguments[0]
    assert isinstance(loc, AstResourceLocation)
    delay = ticks_of(node.arguments[1])
    if delay == 0:
        raise CommandError("Can't schedule for current tick")
    _, functions = lookup_functions(executor, loc)
    name = ("#" if loc.is_tag else "") + resource_id(loc)
    if not loc.is_tag and functions and functions[0].is_macro:
        raise CommandError("Can't schedule a macro")
    mode = node.identifier.split(":")[-1]
    due = sim.game_time + delay
    if mode != "append":  # replace is the default
        sim.schedules[:] = [e for e in sim.schedules if e.name != name]
    sim.schedules.append(ScheduledEvent(name, due, loc.is_tag))
    what = "tag" if loc.is_tag else "function"
    shown = name[1:] if loc.is_tag else name
    call.feedback(f"Scheduled {what} '{shown}' in {delay} tick(s) at gametime {due}")
    return due % _INT_MAX


@handler("schedule:clear:function")
def schedule_clear(call: Call, node: AstCommand) -> int:
    sim = call.sim
    loc = node.arguments[0]
    assert isinstance(loc, AstResourceLocation)
    # Vanilla matches the text as written (a string argument), "#" included for tags.
    name = ("#" if loc.is_tag else "") + (f"{loc.namespace}:" if loc.namespace else "") + loc.path
    before = len(sim.schedules)
    sim.schedules[:] = [e for e in sim.schedules if e.name != name]
    removed = before - len(sim.schedules)
    if removed == 0:
        raise CommandError(f"No schedules with id {name}")
    call.feedback(f"Removed {removed} schedule(s) with id {name}")
    return removed

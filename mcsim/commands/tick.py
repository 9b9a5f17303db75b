"""`tick query|freeze|unfreeze|step|rate` (S/TickCommand.java, server/ServerTickManager.java).

Stepping sets a pending-step count that the game loop consumes (at once after the command in
manual mode); each stepped tick is a full tick.
"""

from __future__ import annotations

import logging

from mecha.ast import AstCommand

from mcsim.commands.time import ticks_of
from mcsim.errors import CommandError
from mcsim.registry import Call, handler

__all__: list[str] = []

log = logging.getLogger(__name__)


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.1f}"


@handler("tick:query")
def tick_query(call: Call, node: AstCommand) -> int:
    sim = call.sim
    rate = sim.tick_rate
    target_ns = 1e9 / rate
    times = sorted(sim.tick_times)
    avg = sum(times) / len(times) if times else 0.0
    if sim.frozen:
        call.feedback("The game is frozen", broadcast=False)
    elif avg > target_ns:
        call.feedback(
            "The game is running, but can't keep up with the target tick rate", broadcast=False
        )
    else:
        call.feedback("The game is running normally", broadcast=False)
    call.feedback(
        f"Target tick rate: {rate:.1f} per second.\nAverage time per tick: {_ms(avg)}ms "
        f"(Target: {_ms(target_ns)}ms)",
        broadcast=False,
    )

    def pct(p: float) -> str:
        return _ms(times[min(len(times) - 1, int(p * len(times)))]) if times else "0.0"

    call.feedback(
        f"Percentiles: P50: {pct(0.5)}ms P95: {pct(0.95)}ms P99: {pct(0.99)}ms. "
        f"Sample: {len(times)}",
        broadcast=False,
    )
    return int(rate)


@handler("tick:freeze")
def tick_freeze(call: Call, node: AstCommand) -> int:
    call.sim.frozen = True
    call.feedback("The game is frozen")
    return 1


@handler("tick:unfreeze")
def tick_unfreeze(call: Call, node: AstCommand) -> int:
    call.sim.frozen = False
    call.sim.pending_steps = 0
    call.feedback("The game is running normally")
    return 0


@handler("tick:step", "tick:step:time")
def tick_step(call: Call, node: AstCommand) -> int:
    sim = call.sim
    steps = ticks_of(node.arguments[0]) if node.arguments else 1
    if not sim.frozen:
        # Vanilla sends this as an error line yet the command still returns 1.
        if not call.source.silent and call.source.sink is not None:
            call.source.sink.send("Unable to step the game - the game must be frozen first")
        return 1
    sim.pending_steps = steps
    call.feedback(f"Stepping {steps} tick(s)")
    return 1


@handler("tick:step:stop")
def tick_step_stop(call: Call, node: AstCommand) -> int:
    if call.sim.pending_steps <= 0:
        if not call.source.silent and call.source.sink is not None:
            call.source.sink.send("No tick step in progress")
        return 0
    call.sim.pending_steps = 0
    call.feedback("Interrupted the current tick step")
    return 1


@handler("tick:rate:rate")
def tick_rate(call: Call, node: AstCommand) -> int:
    rate = float(node.arguments[0].value)  # type: ignore[attr-defined]
    if not 1.0 <= rate <= 10000.0:
        raise CommandError(f"Float must not be less than 1.0, found {rate}")
    call.sim.tick_rate = rate
    call.feedback(f"Set the target tick rate to {rate:.1f} per second")
    return int(rate)

"""`gamerule <rule> [value]` with both the 1.21.11 snake_case and the older camelCase names."""

from __future__ import annotations

import logging

from mecha.ast import AstCommand

from mcsim.errors import CommandError
from mcsim.registry import Call, handler
from mcsim.state import GAMERULE_DEFAULTS, gamerule_name

__all__ = ["format_rule"]

log = logging.getLogger(__name__)


def format_rule(value: int | bool) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@handler("gamerule:")
def gamerule(call: Call, node: AstCommand) -> int:
    parts = node.identifier.split(":")
    written = parts[1]
    name = gamerule_name(written)
    rules = call.sim.gamerules
    if len(parts) == 2:
        if name not in rules and name not in GAMERULE_DEFAULTS:
            raise CommandError(f"mcsim does not know the default of game rule {written}")
        value = rules.get(name, GAMERULE_DEFAULTS.get(name, 0))
        call.feedback(
            f"Gamerule {written} is currently set to: {format_rule(value)}", broadcast=False
        )
        return int(value)
    raw = node.arguments[0].value  # type: ignore[attr-defined]
    value = raw if isinstance(raw, bool) else int(raw)
    rules[name] = value
    call.feedback(f"Gamerule {written} is now set to: {format_rule(value)}")
    return int(value)

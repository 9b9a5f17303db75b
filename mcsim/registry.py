"""Command handlers keyed by mecha's command identifier, one module per family.

`@handler("say:message")` registers an exact identifier; `@handler("tick:")` a prefix. The longest
match wins; an identifier with no handler raises UnsupportedCommand (strict by default).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcsim.errors import UnsupportedCommand

if TYPE_CHECKING:
    from mecha.ast import AstCommand

    from mcsim.context import Source
    from mcsim.state import SimState

__all__ = ["Call", "CommandHandler", "find_handler", "handler", "registered"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Call:
    """One command execution in one context."""

    sim: SimState
    source: Source

    def feedback(self, text: str) -> None:
        """Send a line to the source (RCON/console caller) unless it is silent."""
        src = self.source
        if not src.silent and src.sink is not None:
            src.sink.send(text)

    def broadcast_to_players(self, text: str) -> None:
        for player in self.sim.entities.players():
            self.sim.chat.setdefault(player.name, []).append(text)


CommandHandler = Callable[[Call, "AstCommand"], int]

_exact: dict[str, CommandHandler] = {}
_prefix: dict[str, CommandHandler] = {}
_resolved: dict[str, CommandHandler | None] = {}


def handler(*identifiers: str) -> Callable[[CommandHandler], CommandHandler]:
    def register(fn: CommandHandler) -> CommandHandler:
        for ident in identifiers:
            table = _prefix if ident.endswith(":") else _exact
            if ident in table:
                log.warning("handler for %s replaced by %s", ident, fn.__qualname__)
            table[ident] = fn
        _resolved.clear()
        return fn

    return register


def find_handler(identifier: str) -> CommandHandler:
    """The handler for a mecha identifier; raises UnsupportedCommand when none is registered."""
    try:
        found = _resolved[identifier]
    except KeyError:
        found = _exact.get(identifier)
        if found is None:
            best = -1
            for prefix, fn in _prefix.items():
                if identifier.startswith(prefix) and len(prefix) > best:
                    best, found = len(prefix), fn
        _resolved[identifier] = found
    if found is None:
        raise UnsupportedCommand(identifier)
    return found


def registered() -> list[str]:
    """Every registered identifier and prefix (for docs and tests)."""
    return sorted([*_exact, *_prefix])

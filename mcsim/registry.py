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

__all__ = [
    "Call",
    "CommandHandler",
    "Modifier",
    "ModifierSpec",
    "find_handler",
    "find_modifier",
    "handler",
    "modifier",
    "registered",
]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Call:
    """One command execution in one context."""

    sim: SimState
    source: Source

    @property
    def wants_feedback(self) -> bool:
        """Whether a feedback line would reach anyone (functions run silent)."""
        return not self.source.silent and self.source.sink is not None

    def feedback(self, text: str | Callable[[], str], *, broadcast: bool = True) -> None:
        """Send a line to the source (RCON/console caller) unless it is silent.

        `text` may be a callable, formatted only when someone hears it: vanilla's
        sendFeedback takes a Supplier<Text> for the same reason (`data get` inside a function
        must not print a big compound nobody reads).
        broadcast=False for vanilla's query feedback (sendFeedback(..., false)), which is not
        echoed to operators or the log.
        """
        src = self.source
        if not src.silent and src.sink is not None:
            if not isinstance(text, str):
                text = text()
            if broadcast:
                src.sink.broadcast(text)
            else:
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


# -- execute modifiers ------------------------------------------------------------------------
# `execute` stages (identifiers ending in ":subcommand") map a context to the contexts that go
# on. `forking` marks vanilla's fork-capable nodes: after one, later errors are silent per context.
# Budget: every stage costs 1 once, forking or not (see the executor and mcsim/README.md).

Modifier = Callable[[Call, "AstCommand"], "list[Source]"]


@dataclass(frozen=True, slots=True)
class ModifierSpec:
    apply: Modifier
    forking: bool


_modifiers: dict[str, ModifierSpec] = {}


def modifier(*identifiers: str, forking: bool) -> Callable[[Modifier], Modifier]:
    """Register an execute stage for identifiers (exact, or prefixes ending in ":")."""

    def register(fn: Modifier) -> Modifier:
        for ident in identifiers:
            _modifiers[ident] = ModifierSpec(fn, forking)
        _modifiers_resolved.clear()
        return fn

    return register


_modifiers_resolved: dict[str, ModifierSpec | None] = {}


def find_modifier(identifier: str) -> ModifierSpec:
    try:
        found = _modifiers_resolved[identifier]
    except KeyError:
        found = _resolve_modifier(identifier)
        _modifiers_resolved[identifier] = found
    if found is None:
        raise UnsupportedCommand(identifier)
    return found


def _resolve_modifier(identifier: str) -> ModifierSpec | None:
    found = _modifiers.get(identifier)
    if found is None:
        best = -1
        for prefix, spec in _modifiers.items():
            if prefix.endswith(":") and identifier.startswith(prefix) and len(prefix) > best:
                best, found = len(prefix), spec
    return found

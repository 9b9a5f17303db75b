"""The execution context of one command: vanilla's CommandSourceStack, immutable.

`execute` replaces it step by step (`with_`); handlers read it. `callbacks` carries the pending
`store`/`return run` consumers, which vanilla keeps on the source too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mcsim.entities import Entity

__all__ = ["FeedbackSink", "ResultCallback", "Source", "server_source"]

# Called with (success, result) once per command executed in a context (vanilla's
# ReturnValueConsumer): `execute store` and `return run` hang these on the source.
ResultCallback = Callable[[bool, int], None]


class FeedbackSink:
    """Collects the lines a command source receives (what RCON sends back).

    `broadcast` is vanilla's sendFeedback(..., broadcastToOps=true): the line also goes to
    `on_broadcast` (the server logs it as `[Rcon: ...]` when the rules say so).
    """

    __slots__ = ("lines", "on_broadcast")

    def __init__(self, on_broadcast: Callable[[str], None] | None = None) -> None:
        self.lines: list[str] = []
        self.on_broadcast = on_broadcast

    def send(self, text: str) -> None:
        self.lines.append(text)

    def broadcast(self, text: str) -> None:
        self.lines.append(text)
        if self.on_broadcast is not None:
            self.on_broadcast(text)


@dataclass(frozen=True, slots=True)
class Source:
    entity: Entity | None
    pos: tuple[float, float, float]
    rot: tuple[float, float]
    dimension: str
    anchor: Literal["feet", "eyes"]
    level: int
    name: str
    silent: bool
    sink: FeedbackSink | None
    callbacks: tuple[ResultCallback, ...] = field(default=())

    def with_(self, **changes: Any) -> Source:
        # dataclasses.replace re-runs __init__ through keyword plumbing; this is a hot path
        # (every function call and execute stage), so copy the slots directly.
        new = object.__new__(Source)
        for name in _FIELDS:
            object.__setattr__(new, name, changes[name] if name in changes else getattr(self, name))
        if len(changes) > 0 and not changes.keys() <= _FIELD_SET:
            raise TypeError(f"unknown Source fields: {sorted(changes.keys() - _FIELD_SET)}")
        return new


_FIELDS = tuple(f.name for f in dataclasses.fields(Source))
_FIELD_SET = frozenset(_FIELDS)


def server_source(name: str = "Server", sink: FeedbackSink | None = None) -> Source:
    """The console/RCON source: level 4 at world spawn (0, 0, 0 here) in the overworld."""
    return Source(
        entity=None,
        pos=(0.0, 0.0, 0.0),
        rot=(0.0, 0.0),
        dimension="minecraft:overworld",
        anchor="feet",
        level=4,
        name=name,
        silent=False,
        sink=sink,
    )

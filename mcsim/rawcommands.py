"""Commands that mecha's vanilla tree does not know (Carpet's `/player`), handled on the raw line.

The executor asks `find_raw_handler(line)` before parsing a line with mecha; a handler gets the
line without its leading `/` and returns the command's result (raises CommandError to fail).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcsim.registry import Call

__all__ = ["RawHandler", "find_raw_handler", "raw_handler", "raw_roots"]

log = logging.getLogger(__name__)

RawHandler = Callable[["Call", str], int]

_raw: dict[str, RawHandler] = {}


def raw_handler(root: str) -> Callable[[RawHandler], RawHandler]:
    """Register a handler for every line whose first word is `root`."""

    def register(fn: RawHandler) -> RawHandler:
        if root in _raw:
            log.warning("raw handler for %s replaced by %s", root, fn.__qualname__)
        _raw[root] = fn
        return fn

    return register


def find_raw_handler(line: str) -> RawHandler | None:
    """The raw handler for this command line (leading `/` allowed), or None."""
    text = line[1:] if line.startswith("/") else line
    root, _, _ = text.partition(" ")
    return _raw.get(root)


def raw_roots() -> list[str]:
    return sorted(_raw)

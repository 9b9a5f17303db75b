"""The command trees mecha ships, and which one checks a server's version.

Found on disk without importing mecha (~0.7 s): `check`, the log line and /status name the tree
a server's commands are checked against, and most commands of `python -m bot` never parse one.
"""

from __future__ import annotations

__all__ = ["NEWEST_TREE", "available_trees", "tree_for_version"]

import re
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from bot.i18n import Text, lazy

_TREE_FILE = re.compile(r"(\d+)_(\d+)\.json")


@cache
def available_trees() -> tuple[str, ...]:
    """The versions mecha has a command tree for, oldest first ("1.20", "1.21")."""
    spec = find_spec("mecha")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("mecha is not installed", name="mecha")
    folder = Path(next(iter(spec.submodule_search_locations))) / "resources"
    names = [p.name for p in folder.iterdir()]
    found = [(int(m[1]), int(m[2])) for n in names if (m := _TREE_FILE.fullmatch(n))]
    return tuple(f"{a}.{b}" for a, b in sorted(found))


NEWEST_TREE = available_trees()[-1]


def tree_for_version(version: str) -> tuple[str, Text | None]:
    """mecha's tree for a server version ("1.21.4" -> "1.21"), and why it fell back, if it did."""
    trees = available_trees()
    match = re.match(r"^\s*(\d+)\.(\d+)", version or "")
    if match is not None:
        wanted = f"{int(match[1])}.{int(match[2])}"
        if wanted in trees:
            return wanted, None
    reason = lazy(
        "no command tree for Minecraft {version} (known: {trees}); checking commands against "
        "{newest}, the newest",
        version=repr(version),
        trees=", ".join(trees),
        newest=NEWEST_TREE,
    )
    return NEWEST_TREE, reason

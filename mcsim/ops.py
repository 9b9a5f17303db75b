"""Server operators: `ops.json` in the server folder, as vanilla keeps them (OperatorList).

A player's own commands run at their operator level (the entry's `level`, written from
`op-permission-level` when `op` added it), or 0 when they are not an operator
(PlayerManager.getPermissionLevel / ServerPlayerEntity.getCommandSource).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

__all__ = ["OPS_FILE", "add_op", "op_level", "read_ops", "remove_op"]

log = logging.getLogger(__name__)

OPS_FILE = "ops.json"


def read_ops(server_dir: Path) -> list[dict[str, object]]:
    """The entries of ops.json; a missing or unreadable file is an empty list (vanilla logs and
    starts with no operators)."""
    path = server_dir / OPS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as e:
        log.warning("could not read %s: %s", path, e)
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


def _write(server_dir: Path, entries: list[dict[str, object]]) -> None:
    # ServerConfigList.save: a pretty-printed JSON array.
    text = json.dumps(entries, indent=2)
    (server_dir / OPS_FILE).write_text(text, encoding="utf-8")


def op_level(server_dir: Path, uuid: str, name: str) -> int:
    """The operator level of a player (matched by UUID, or by name for hand-written entries)."""
    for entry in read_ops(server_dir):
        if entry.get("uuid") == uuid or (
            "uuid" not in entry and str(entry.get("name", "")).lower() == name.lower()
        ):
            level = entry.get("level", 4)
            return max(0, min(4, level)) if isinstance(level, int) else 4
    return 0


def add_op(server_dir: Path, uuid: str, name: str, level: int) -> bool:
    """Make the player an operator at `level`; False if they already are one."""
    entries = read_ops(server_dir)
    if any(e.get("uuid") == uuid for e in entries):
        return False
    entries.append({"uuid": uuid, "name": name, "level": level, "bypassesPlayerLimit": False})
    _write(server_dir, entries)
    return True


def remove_op(server_dir: Path, uuid: str) -> bool:
    """Take operator status away; False if the player was not an operator."""
    entries = read_ops(server_dir)
    kept = [e for e in entries if e.get("uuid") != uuid]
    if len(kept) == len(entries):
        return False
    _write(server_dir, kept)
    return True

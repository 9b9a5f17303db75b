"""Server administration: `reload`, `datapack list|enable|disable`, `save-all`, `stop`.

The work itself (reading packs, writing files, shutting down) belongs to the server; these
handlers ask for it through `sim.server` and answer with vanilla's texts.
"""

from __future__ import annotations

import logging
from typing import Any

from mecha.ast import AstCommand

from mcsim.errors import CommandError
from mcsim.registry import Call, handler

__all__ = ["pack_text"]

log = logging.getLogger(__name__)


def _server(call: Call) -> Any:
    server = getattr(call.sim, "server", None)
    if server is None:
        raise CommandError("mcsim: no server attached to this world")
    return server


def pack_text(pack_id: str) -> str:
    """ResourcePackProfile.getInformationText: `[id (source)]`."""
    # Built-in packs have no `file/` prefix: vanilla's, and Paper's `paper`.
    source = "world" if pack_id.startswith("file/") else "built-in"
    return f"[{pack_id} ({source})]"


@handler("reload")
def reload(call: Call, node: AstCommand) -> int:
    call.feedback("Reloading!")
    _server(call).request_reload()
    return 0


def _available(call: Call) -> list[str]:
    server = _server(call)
    enabled = set(call.sim.enabled_packs)
    return [p for p in server.available_packs() if p not in enabled]


@handler("datapack:list", "datapack:list:available", "datapack:list:enabled")
def datapack_list(call: Call, node: AstCommand) -> int:
    which = node.identifier.split(":")[2] if node.identifier.count(":") >= 2 else "all"
    total = 0
    if which in ("all", "available"):
        available = _available(call)
        if available:
            joined = ", ".join(pack_text(p) for p in available)
            call.feedback(
                f"There are {len(available)} data pack(s) available: {joined}", broadcast=False
            )
        else:
            call.feedback("There are no more data packs available", broadcast=False)
        total = len(available)
    if which in ("all", "enabled"):
        enabled = list(call.sim.enabled_packs)
        if enabled:
            joined = ", ".join(pack_text(p) for p in enabled)
            call.feedback(
                f"There are {len(enabled)} data pack(s) enabled: {joined}", broadcast=False
            )
        else:
            call.feedback("There are no data packs enabled", broadcast=False)
        total = len(enabled)
    return total


def _pack_name(node: AstCommand) -> str:
    return str(node.arguments[0].value)  # type: ignore[attr-defined]


@handler("datapack:enable:")
def datapack_enable(call: Call, node: AstCommand) -> int:
    server = _server(call)
    name = _pack_name(node)
    sim = call.sim
    if name in sim.enabled_packs:
        raise CommandError(f"Pack '{name}' is already enabled!")
    if name not in server.available_packs():
        raise CommandError(f"Unknown data pack '{name}'")
    where = node.identifier.split(":")[3] if node.identifier.count(":") >= 3 else "last"
    order = list(sim.enabled_packs)
    if where == "first":
        order.insert(1 if order and order[0] == "vanilla" else 0, name)
    elif where in ("before", "after"):
        other = str(node.arguments[1].value)  # type: ignore[attr-defined]
        if other not in order:
            raise CommandError(f"Pack '{other}' is not enabled!")
        i = order.index(other)
        order.insert(i if where == "before" else i + 1, name)
    else:
        order.append(name)
    sim.enabled_packs = order
    if name in sim.disabled_packs:
        sim.disabled_packs.remove(name)
    call.feedback(f"Enabling data pack {pack_text(name)}")
    server.request_reload()
    return len(order)


@handler("datapack:disable:name")
def datapack_disable(call: Call, node: AstCommand) -> int:
    server = _server(call)
    name = _pack_name(node)
    sim = call.sim
    if name not in sim.enabled_packs:
        if name not in server.available_packs():
            raise CommandError(f"Unknown data pack '{name}'")
        raise CommandError(f"Pack '{name}' is not enabled!")
    sim.enabled_packs = [p for p in sim.enabled_packs if p != name]
    if name not in sim.disabled_packs:
        sim.disabled_packs.append(name)
    call.feedback(f"Disabling data pack {pack_text(name)}")
    server.request_reload()
    return len(sim.enabled_packs)


@handler("version")
def version(call: Call, node: AstCommand) -> int:
    """VersionCommand: sendMessage of each line (not broadcast to operators)."""
    from mcsim.flavours import version_lines

    for line in version_lines(_server(call).flavour.game_version):
        call.feedback(line, broadcast=False)
    return 1


@handler("save-all", "save-all:flush")
def save_all(call: Call, node: AstCommand) -> int:
    # SaveAllCommand: the first line is not broadcast, the second is; saveAll(true, flush, true)
    # suppresses the per-level lines but logs the flush ones.
    call.feedback("Saving the game (this may take a moment!)", broadcast=False)
    _server(call).save(flush=node.identifier.endswith(":flush"))
    call.feedback("Saved the game")
    return 1


@handler("stop")
def stop(call: Call, node: AstCommand) -> int:
    call.feedback("Stopping the server")
    _server(call).request_stop()
    return 1

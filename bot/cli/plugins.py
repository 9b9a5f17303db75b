"""`python -m bot plugins`: every installed plugin with its state (loaded, failed, incompatible,
disabled) and why, as the bot would load it. It runs beside a bot: it loads the plugins into
operations of its own over the database alone (no server), so a plugin's setup must not need
one."""

from __future__ import annotations

__all__ = ["plugins"]

from typing import TYPE_CHECKING, TextIO

from bot.cli.serve import in_shell
from bot.i18n import N_, _
from bot.plugins import API_VERSION, PluginState, load_plugins

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.operations import Caller, Operations
    from bot.services import Services

_STATES = {
    "loaded": N_("loaded"),
    "failed": N_("failed"),
    "incompatible": N_("incompatible"),
    "disabled": N_("disabled"),
}


async def plugins(settings: Settings, out: TextIO) -> int:
    """0 when every plugin that should load did; 1 otherwise (a script can tell)."""
    states: list[PluginState] = []

    async def work(services: Services, ops: Operations, caller: Caller) -> int:
        states.extend(await load_plugins(ops, settings))
        return 0

    await in_shell(settings, work)
    print(_("Plugin API version {version}.", version=API_VERSION), file=out)
    if not states:
        print(_("No plugins are installed."), file=out)
    for s in states:
        line = f"{s.name} {s.version}".strip() + f": {_(_STATES[s.state])}"
        if s.why:
            line += f" ({s.why})"
        if s.operations:
            line += " " + _("operations: {names}", names=", ".join(f"/{n}" for n in s.operations))
        print(line, file=out)
    return 1 if any(s.state in ("failed", "incompatible") for s in states) else 0

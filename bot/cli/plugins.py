"""`python -m bot plugins`: every installed plugin with its state (loaded, failed, incompatible,
disabled) and why, as the bot would load it. It runs beside a bot: it loads the plugins into
operations of its own over the database alone (no server), so a plugin's setup must not need
one. `python -m bot plugins new NAME DIR` writes a new plugin's project (bot.plugins.template)."""

from __future__ import annotations

__all__ = ["new", "plugins"]

import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.cli.serve import in_shell
from bot.errors import BotError
from bot.i18n import N_, _
from bot.plugins import API_VERSION, PluginState, load_plugins
from bot.plugins.template import new_plugin

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
        if s.pages:
            line += " " + _("pages: {path}", path=s.pages)
        print(line, file=out)
    return 1 if any(s.state in ("failed", "incompatible") for s in states) else 0


def new(words: list[str], out: TextIO) -> int:
    """`new NAME DIR`: the project written, its files named; 2 with the reason otherwise."""
    if len(words) != 2:
        print(_("usage: plugins new NAME DIR"), file=sys.stderr)
        return 2
    name, folder = words[0], Path(words[1])
    try:
        written = new_plugin(name, folder)
    except BotError as exc:
        print(exc, file=sys.stderr)
        return 2
    for path in written:
        print(path, file=out)
    print(
        _(
            "Plugin {name} written to {folder}: pip install {folder} into the bot's environment, "
            "then python -m bot plugins lists it; pytest in {folder} runs its tests.",
            name=name,
            folder=folder,
        ),
        file=sys.stderr,
    )
    return 0

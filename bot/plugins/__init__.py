"""The plugin host: installed plugins found by entry point, loaded one by one, each one's state.

A plugin is a distribution with an entry point in the group :data:`GROUP` naming a
:class:`Plugin` (or a function returning one). What it brings: operations (each every face's at
once, through the registry: a slash and console command, an API route), dashboard pages (a
Quart blueprint, mounted under ``/x/<name>/`` with no cog behind it) and a ``setup`` coroutine.
It imports only :mod:`bot.api`.

Isolation, as the best hosts do it (Red-DiscordBot's load timeout, Pelican's "incompatible"
state): one that fails to import, is not a Plugin, supports other API versions, needs a plugin
that is not loaded, takes longer than :data:`SETUP_TIMEOUT` in setup, or brings an operation the
registry refuses is not loaded, with the reason; the others are. Load order follows `needs`.
"""

from __future__ import annotations

__all__ = [
    "API_VERSION",
    "GROUP",
    "RELOAD",
    "SETUP_TIMEOUT",
    "STATES",
    "Plugin",
    "PluginState",
    "load_plugins",
    "reload_plugin",
]

import asyncio
import importlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from bot import errors
from bot.i18n import N_, _, add_texts
from bot.operations.ranks import Rank
from bot.operations.registry import OperationSpec

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.events.event import Event
    from bot.operations.base import Operations
    from bot.operations.caller import Caller

log = logging.getLogger(__name__)

GROUP = "doom_schedule.plugins"
API_VERSION = 1  # bot.api's: raised when a name leaves it or changes meaning
SETUP_TIMEOUT = 30.0  # seconds a plugin's setup may take (Red's cog load limit)

State = Literal["loaded", "failed", "incompatible", "disabled"]
STATES: tuple[State, ...] = get_args(State)


@dataclass(frozen=True)
class Plugin:
    """What a plugin is and brings. `api`: the API versions it works with (inclusive);
    `needs`: plugins that must load first; `setup(ops)`: run once at load."""

    name: str
    version: str
    api: tuple[int, int] = (API_VERSION, API_VERSION)
    operations: tuple[OperationSpec[Any], ...] = ()
    needs: tuple[str, ...] = ()
    setup: Callable[[Operations], Awaitable[None]] | None = None
    # its dashboard pages: a function making a Quart Blueprint (the [web] extra's), called when
    # the plugin loads; the pages are at /x/<the blueprint's name>/, `label` in the navigation
    pages: Callable[[], Any] | None = None
    label: str = ""
    # Discord extensions (modules with `async def setup(bot)`: cogs, listeners) the Discord bot
    # loads after DOOM_EXTENSIONS'; nothing without Discord
    cogs: tuple[str, ...] = ()
    # called with each event of every server as it passes (the pack's, and the bot's own alerts),
    # on every face: a listener that fails is logged and keeps its place
    on_event: Callable[[Operations, Event], Awaitable[None]] | None = None
    # its background work: each started with the bot (after setup), cancelled when it stops
    tasks: tuple[Callable[[Operations], Awaitable[None]], ...] = ()
    # a folder of its texts' translations, <folder>/<locale>/LC_MESSAGES/*.po (as the bot's)
    texts: str | None = None


@dataclass(frozen=True)
class PluginState:
    """One plugin as the host sees it: `why` says what kept it from loading."""

    name: str
    version: str
    state: State
    why: str = ""
    source: str = ""  # the distribution and entry point it came from
    operations: tuple[str, ...] = field(default_factory=tuple)
    pages: str = ""  # where its dashboard pages are (/x/<name>/), when it has some
    cogs: tuple[str, ...] = ()  # the Discord extensions it brings
    # the plugin itself, when loaded: its listeners and tasks run from it (bot.plugins.runtime)
    plugin: Plugin | None = field(default=None, repr=False, compare=False)


def _found(eps: Iterable[EntryPoint]) -> list[tuple[str, EntryPoint]]:
    return sorted(((ep.name, ep) for ep in eps), key=lambda pair: pair[0])


def _source(ep: EntryPoint) -> str:
    dist = ep.dist
    where = f"{dist.name} {dist.version}" if dist is not None else "?"
    return f"{where}: {ep.value}"


def _plugin_of(ep: EntryPoint) -> Plugin:
    loaded = ep.load()
    made = loaded() if callable(loaded) and not isinstance(loaded, Plugin) else loaded
    if not isinstance(made, Plugin):
        raise TypeError(f"{ep.value} is a {type(made).__name__}, not a bot.api.Plugin")
    return made


def _ordered(plugins: dict[str, Plugin]) -> list[Plugin]:
    """Every plugin, each after the ones it needs; the members of a cycle are all there, and
    each fails its needs check."""
    done: list[Plugin] = []
    seen: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in seen or name in path or name not in plugins:
            return
        for need in plugins[name].needs:
            visit(need, (*path, name))
        if name not in seen:
            seen.add(name)
            done.append(plugins[name])

    for name in sorted(plugins):
        visit(name, ())
    return done


async def load_plugins(
    ops: Operations,
    settings: Settings,
    *,
    found: Iterable[EntryPoint] | None = None,
    setup_limit: float = SETUP_TIMEOUT,
) -> list[PluginState]:
    """Load the installed plugins (or `found`) into `ops`; every one's state, by name."""
    states: dict[str, PluginState] = {}
    plugins: dict[str, Plugin] = {}
    sources: dict[str, str] = {}
    eps = found if found is not None else entry_points(group=GROUP)
    for name, ep in _found(eps):
        wanted = settings.plugins_autoload or name in settings.plugins_enabled
        if name in settings.plugins_disabled or not wanted:
            states[name] = PluginState(name, "", "disabled", "turned off in the settings")
            continue
        ops.plugin_entries[name] = ep  # where it comes from, to reload it
        try:
            plugin = _plugin_of(ep)
        except Exception as exc:  # a plugin's own bug: said, and the others load
            log.exception("plugin %s did not import", name)
            states[name] = PluginState(name, "", "failed", f"import: {exc!r}", _source(ep))
            continue
        plugins[name] = plugin
        sources[name] = _source(ep)
    for plugin in _ordered(plugins):
        states[plugin.name] = await _load(
            ops, plugin, states, sources.get(plugin.name, ""), setup_limit
        )
    return [states[n] for n in sorted(states)]


async def _load(
    ops: Operations,
    plugin: Plugin,
    states: dict[str, PluginState],
    source: str,
    setup_limit: float,
) -> PluginState:
    def state(kind: State, why: str = "", pages: str = "") -> PluginState:
        loaded = kind == "loaded"
        names = tuple(s.name for s in plugin.operations) if loaded else ()
        cogs = plugin.cogs if loaded else ()
        made = plugin if loaded else None
        return PluginState(plugin.name, plugin.version, kind, why, source, names, pages, cogs, made)

    low, high = plugin.api
    if not low <= API_VERSION <= high:
        return state("incompatible", f"supports API {low}-{high}; this bot's is {API_VERSION}")
    missing = [n for n in plugin.needs if states.get(n) is None or states[n].state != "loaded"]
    if missing:
        return state("incompatible", f"needs {', '.join(missing)}, which did not load")
    if plugin.setup is not None:
        try:
            await asyncio.wait_for(plugin.setup(ops), setup_limit)
        except TimeoutError:
            return state("failed", f"setup took over {setup_limit:g} s")
        except Exception as exc:
            log.exception("plugin %s: setup failed", plugin.name)
            return state("failed", f"setup: {exc!r}")
    blueprint = None
    if plugin.pages is not None:
        try:
            blueprint = plugin.pages()
        except Exception as exc:  # the [web] extra missing, or the plugin's own bug
            log.exception("plugin %s: its pages failed", plugin.name)
            return state("failed", f"pages: {exc!r}")
        if blueprint.name in ops.pages:
            return state("failed", f"pages: /x/{blueprint.name}/ is another plugin's")
    if plugin.texts is not None:
        try:
            add_texts(Path(plugin.texts))
        except Exception as exc:  # a catalog that does not read: said, as any other fault
            log.exception("plugin %s: its texts failed", plugin.name)
            return state("failed", f"texts: {exc!r}")
    added: list[str] = []
    try:
        for spec in plugin.operations:
            # the audit names the plugin that brought it
            ops.registry.add(replace(spec, plugin=plugin.name))
            added.append(spec.name)
    except ValueError as exc:
        for name in added:  # all of a plugin's operations, or none
            ops.registry.remove(name)
        return state("failed", f"operation refused: {exc}")
    where = ""
    if blueprint is not None:
        ops.pages[blueprint.name] = (plugin.label or plugin.name, blueprint)
        where = f"/x/{blueprint.name}/"
    log.info("plugin %s %s loaded (%s)", plugin.name, plugin.version, source)
    return state("loaded", pages=where)


async def reload_plugin(
    ops: Operations, name: str, *, setup_limit: float = SETUP_TIMEOUT
) -> PluginState:
    """One installed plugin again from its code as it is now (after an upgrade, or a fix): what
    it brought taken out (operations, pages), its module reloaded, loaded as at start; then each
    face that holds more of it is told (the Discord bot reloads its cogs). NotFound for a name
    that is not installed; a plugin turned off in the settings stays off."""
    ep = ops.plugin_entries.get(name)
    if ep is None:
        known = ", ".join(sorted(ops.plugin_entries)) or _("none")
        raise errors.NotFound(
            _(
                "There is no installed plugin called {name} (installed: {known}).",
                name=repr(name),
                known=known,
            )
        )
    states = {s.name: s for s in ops.plugins}
    old = states.get(name)
    for operation in old.operations if old is not None else ():
        ops.registry.remove(operation)
    if old is not None and old.pages:
        ops.pages.pop(old.pages.strip("/").split("/")[-1], None)
    try:
        importlib.reload(importlib.import_module(ep.module))
        plugin = _plugin_of(ep)
    except Exception as exc:  # a plugin's own bug: said, and the rest go on
        log.exception("plugin %s did not import again", name)
        new = PluginState(name, "", "failed", f"import: {exc!r}", _source(ep))
    else:
        new = await _load(ops, plugin, states, _source(ep), setup_limit)
    ops.plugins = (
        [new if s.name == name else s for s in ops.plugins] if old else [*ops.plugins, new]
    )
    for told in list(ops.plugin_reloaded):
        await told(new)
    return new


class ReloadRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, description="The plugin's name.")


async def _reload(ops: Operations, caller: Caller, req: ReloadRequest) -> str:
    done = await reload_plugin(ops, req.name)
    if done.state == "loaded":
        return _("Reloaded the plugin {name} {version}.", name=done.name, version=done.version)
    return _(
        "The plugin {name} did not load again: {state} ({why}).",
        name=done.name,
        state=_(done.state),
        why=done.why,
    )


RELOAD = OperationSpec(
    name="plugin reload",
    summary=N_("Reload one installed plugin: its commands, pages and Discord cogs."),
    request=ReloadRequest,
    rank=Rank.ADMIN,
    handler=_reload,
    changes=True,
)

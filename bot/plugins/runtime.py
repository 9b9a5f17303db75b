"""What loaded plugins do while the bot runs: their listeners hear every server's events as they
pass (the pack's, and the bot's own alerts; when several processes share a database, of the
servers this process reads: each event is heard once in the fleet), and their background tasks
run. Started with the core's background work (bot.core.Core.start), on every face, and cancelled
when it stops. A listener or a task that fails is logged and stops nothing else: the plugin's
own fault."""

from __future__ import annotations

__all__ = ["start_plugin_work"]

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from bot.events.event import Event
    from bot.operations.base import Operations
    from bot.plugins import Plugin
    from bot.services import ServerServices

log = logging.getLogger(__name__)


def start_plugin_work(ops: Operations) -> list[asyncio.Task[None]]:
    """One reader of each server's events for the loaded plugins' listeners (none when no
    plugin listens), and each plugin's background tasks."""
    plugins = [s.plugin for s in ops.plugins if s.state == "loaded" and s.plugin is not None]
    started: list[asyncio.Task[None]] = []
    listeners = [p for p in plugins if p.on_event is not None]
    if listeners:
        for server in ops.services.servers.values():
            if server.events is not None:
                work = _listen(ops, server, listeners)
                started.append(asyncio.create_task(work, name=f"plugins: {server.name} events"))
    for plugin in plugins:
        for task in plugin.tasks:
            work = _guarded(plugin, task, ops)
            started.append(asyncio.create_task(work, name=f"plugin {plugin.name}"))
    return started


async def _listen(ops: Operations, server: ServerServices, plugins: list[Plugin]) -> None:
    assert server.events is not None
    async with ops.services.bus.subscribe(server.name, server.events) as stream:
        async for event in stream:
            if event.relayed:  # another process read it: its plugins hear it, once
                continue
            for plugin in plugins:
                await _heard(ops, plugin, event)


async def _heard(ops: Operations, plugin: Plugin, event: Event) -> None:
    assert plugin.on_event is not None
    try:
        await plugin.on_event(ops, event)
    except Exception:  # a plugin's own bug: logged, and the next event still comes
        log.exception("plugin %s: its listener failed on %s", plugin.name, event.type)


async def _guarded(
    plugin: Plugin, task: Callable[[Operations], Awaitable[None]], ops: Operations
) -> None:
    try:
        await task(ops)
    except asyncio.CancelledError:
        raise
    except Exception:  # a plugin's own bug: logged, the bot goes on
        log.exception("plugin %s: a background task failed", plugin.name)

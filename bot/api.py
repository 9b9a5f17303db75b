"""The public API for plugins: the only names a plugin imports from ``bot`` (and its tests
from ``bot.testkit``).

The list is closed (``__all__``, pinned by ``tests/plugins/test_plugin_host.py``): a name leaves
it only with a new :data:`API_VERSION`, which a plugin's ``api`` range says it supports or not
(bot.plugins); a name added keeps the version. What a plugin brings is a :class:`Plugin`; its
operations are :class:`OperationSpec`\\ s, every face's at once; a handler gets the
:class:`Operations` (the clock through ``ops.now()``) and the :class:`Caller`, and answers with
a sentence or an :class:`Outcome` (its facts as data, its :class:`Section`\\ s, its
:class:`File`\\ s). :func:`run` runs any registered operation as the caller (the built-in ones
too: ``await run(ops, caller, "time", {})`` reads a server's game time), with its rank check.
:func:`data_of` is the plugin's own data: JSON values under its keys, in the bot's database;
:func:`settings_of` its settings, the environment's ``DOOM_<NAME>_*`` variables.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from bot.errors import BotError, NotAllowed, NotFound, ServerUnavailable, ValidationError
from bot.i18n import N_, _, lazy
from bot.operations.base import Operations
from bot.operations.caller import Caller
from bot.operations.ranks import Rank
from bot.operations.registry import Done, File, OperationSpec, Outcome, run
from bot.operations.sections import Field, Section
from bot.plugins import API_VERSION, Plugin
from bot.store.plugin_data import PluginData

__all__ = [
    "API_VERSION",
    "N_",
    "BotError",
    "Caller",
    "Done",
    "Field",
    "File",
    "NotAllowed",
    "NotFound",
    "OperationSpec",
    "Operations",
    "Outcome",
    "Plugin",
    "PluginData",
    "Rank",
    "Section",
    "ServerUnavailable",
    "ValidationError",
    "_",
    "data_of",
    "lazy",
    "run",
    "settings_of",
]


def data_of(ops: Operations, plugin: str) -> PluginData:
    """The plugin's own data (named by its `Plugin.name`), kept in the bot's database."""
    return PluginData(ops.services.db, plugin)


def settings_of(plugin: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The plugin's settings: each environment variable ``DOOM_<NAME>_<KEY>`` (the plugin's name
    in capitals) as ``{"key": value}``, beside the bot's own ``DOOM_`` settings."""
    prefix = f"DOOM_{plugin.upper()}_"
    found = os.environ if environ is None else environ
    return {k[len(prefix) :].lower(): v for k, v in found.items() if k.startswith(prefix)}

"""The public API for plugins: the only names a plugin imports from ``bot``.

The list is closed (``__all__``, pinned by ``tests/bot/test_api.py``): a name leaves it only with
a new :data:`API_VERSION`, which a plugin's ``api`` range says it supports or not
(bot.plugins). What a plugin brings is a :class:`Plugin`; its operations are
:class:`OperationSpec`\\ s, every face's at once; a handler gets the :class:`Operations` (the
servers through ``ops.server(name)``, the clock through ``ops.now()``) and the :class:`Caller`.
"""

from __future__ import annotations

from bot.errors import BotError, NotAllowed, NotFound, ServerUnavailable, ValidationError
from bot.i18n import N_, _, lazy
from bot.operations.base import Operations
from bot.operations.caller import Caller
from bot.operations.ranks import Rank
from bot.operations.registry import OperationSpec
from bot.plugins import API_VERSION, Plugin

__all__ = [
    "API_VERSION",
    "N_",
    "BotError",
    "Caller",
    "NotAllowed",
    "NotFound",
    "OperationSpec",
    "Operations",
    "Plugin",
    "Rank",
    "ServerUnavailable",
    "ValidationError",
    "_",
    "lazy",
]

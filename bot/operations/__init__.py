"""The application layer: every operation a face offers, once.

Each operation is a typed request (a pydantic model that refuses unknown fields) and a typed
outcome; the operation checks the caller's rank, checks the command, does the work through the
services and records the audit entry. The faces (the cogs for Discord, the console, the web
pages and the JSON API) only turn their input into a request and the outcome into their output;
each is declared once in the registry (:mod:`bot.operations.registry`, the built-ins in
:mod:`bot.operations.builtin`).

- :mod:`bot.operations.ranks`: who may do what (no Discord types: the web uses it too).
- :mod:`bot.operations.caller`: who asks, from which face.
- :mod:`bot.operations.base`: :class:`Operations`, what every operation works with.
- :mod:`bot.operations.schedule`: making game-time tasks and wall-clock rows.
- :mod:`bot.operations.queue`: changing what is queued or planned (cancel, pause, ...).
- :mod:`bot.operations.reads`: the game clock, a page of a list, one task.
- :mod:`bot.operations.runs`: running a task once now, and its run history.
- :mod:`bot.operations.status`: how each server is doing.
- :mod:`bot.operations.admin`: installing the pack, the selftest.
- :mod:`bot.operations.calendar`: the calendar feed's address, and the feed.
- :mod:`bot.operations.plan`: the plan file's export and import.
- :mod:`bot.operations.groups`: one request for a group of servers, each server's outcome.
- :mod:`bot.operations.access`: API tokens and login links made without Discord.
- :mod:`bot.operations.discord_events`: Discord scheduled events with their in-game tasks.
"""

from bot.operations import access, admin, calendar, groups, plan, queue, reads, schedule
from bot.operations.base import Auditor, Operations
from bot.operations.caller import Caller, Face
from bot.operations.ranks import Rank, rank_for

__all__ = [
    "Auditor",
    "Caller",
    "Face",
    "Operations",
    "Rank",
    "access",
    "admin",
    "calendar",
    "groups",
    "plan",
    "queue",
    "rank_for",
    "reads",
    "schedule",
]

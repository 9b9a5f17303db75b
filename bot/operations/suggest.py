"""What to offer while an option is typed, on every face (Discord's autocomplete, the console's
completion): servers and groups, live task ids (planned rows first, then the pack's lists),
time zones. Task ids only for moderators: anyone else would read the queue, and cost a round
trip a keystroke."""

from __future__ import annotations

__all__ = ["BUDGET", "LIMIT", "Suggest"]

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING

from bot import errors
from bot.config import ALL_SERVERS
from bot.operations.ranks import Rank
from bot.times.zones import canonical_zones

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.services import ServerServices

LIMIT = 25  # Discord's most choices, and as many as a terminal's menu shows well
MAX_VALUE = 100  # Discord's longest choice
# Discord drops an autocomplete answer after 3 s and it cannot be deferred: past this budget
# the ids the server gave last time are offered instead of waiting for a slow server
BUDGET = 2.0


def _ranked(names: list[str], typed: str) -> list[str]:
    """The names starting with what was typed, then the ones containing it."""
    low = typed.lower()
    first = [n for n in names if n.lower().startswith(low)]
    return first + [n for n in names if low in n.lower() and n not in first]


class _IdCache:
    """Task ids a server gave lately, and the one lookup in flight per server.

    One lookup at a time per server: keystrokes on a slow server share it instead of piling up
    round trips; past the budget the answer comes from the ids seen before, and the lookup's
    answer still arrives and refreshes them for the next keystroke.
    """

    def __init__(self) -> None:
        self.recent: dict[str, list[str]] = {}
        self.inflight: dict[str, tuple[str, asyncio.Task[list[str]]]] = {}

    def _remember(self, server: str, done: asyncio.Task[list[str]]) -> None:
        if not done.cancelled() and done.exception() is None:
            self.recent[server] = sorted({*self.recent.get(server, []), *done.result()})[-500:]

    async def lookup(self, server: ServerServices, current: str, budget: float) -> list[str]:
        low = current.lower()
        prefix, task = self.inflight.get(server.name, (current, None))
        if task is None or task.done():
            prefix = current
            task = asyncio.ensure_future(server.pack.task_ids(current, limit=LIMIT))
            task.add_done_callback(lambda done: self._remember(server.name, done))
            self.inflight[server.name] = (prefix, task)
        try:
            ids = await asyncio.wait_for(asyncio.shield(task), budget)
        except TimeoutError:
            return [i for i in self.recent.get(server.name, []) if i.lower().startswith(low)]
        # a lookup started for another keystroke: keep what also fits this one
        return ids if prefix == current else [i for i in ids if low in i.lower()]


class Suggest:
    """The values to offer for an option of an operation, by the option's name."""

    def __init__(self, ops: Operations) -> None:
        self.ops = ops
        self.budget = BUDGET  # seconds a slow server's ids are waited for
        self._ids = _IdCache()

    async def values(
        self, caller: Caller, option: str, typed: str, given: Mapping[str, object]
    ) -> list[str]:
        """What to offer for `option` (its field's name) as `typed` so far, the options
        already given beside it (`server` says where an id is looked for)."""
        if option == "server":
            return self.servers(typed, groups=True)
        if option == "timezone":
            return _ranked(list(canonical_zones()), typed)[:LIMIT]
        if option == "id":
            return await self.task_ids(caller, typed, given.get("server"))
        return []

    def servers(self, typed: str, *, groups: bool) -> list[str]:
        """Configured server names; with `groups`, then the server groups and `all`."""
        found = _ranked(sorted(self.ops.services.servers), typed)
        if groups and len(self.ops.services.servers) > 1:
            names = [*sorted(self.ops.services.settings.server_groups), ALL_SERVERS]
            found += [n for n in names if typed.lower() in n.lower()]
        return found[:LIMIT]

    async def task_ids(self, caller: Caller, typed: str, server: object) -> list[str]:
        """Task ids starting with what was typed on the server named (a group's servers):
        planned rows first (the bot's own database, no round trip), then the pack's lists."""
        if caller.rank < Rank.MODERATOR:
            return []
        name = server if isinstance(server, str) else None
        try:
            servers = self.ops.group(name) or [self.ops.server(name)]
        except errors.BotError:
            return []  # an unknown server offers nothing; the command will say why
        ids: list[str] = []
        scheduler = self.ops.services.scheduler
        if scheduler is not None:
            for target in servers:
                found = await scheduler.task_ids(target.name, typed, LIMIT)
                ids += [i for i in found if i not in ids]
        # a group's servers are asked at once: the budget is for the whole answer
        looked = await asyncio.gather(
            *(self._ids.lookup(s, typed, self.budget) for s in servers), return_exceptions=True
        )
        for found_ids in looked:
            if isinstance(found_ids, errors.BotError):
                continue  # an unreachable server offers only the planned ids
            if isinstance(found_ids, BaseException):
                raise found_ids
            ids += [i for i in found_ids if i not in ids]
        low = typed.lower()
        ids.sort(key=lambda i: not i.lower().startswith(low))  # stable: prefix matches first
        return [i for i in ids if 0 < len(i) <= MAX_VALUE][:LIMIT]

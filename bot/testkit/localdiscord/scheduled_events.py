"""Guild scheduled events on the local Discord: the HTTP routes discord.py calls, answered with the
JSON Discord returns, and the gateway events Discord sends about them, fed through discord.py's own
parsers (``ConnectionState.parsers["GUILD_SCHEDULED_EVENT_UPDATE"]`` ...), exactly as its gateway
would after a moderator moves, cancels, deletes or presses Interested on an event in the client.

Routes (discord/http.py): ``POST /guilds/{guild_id}/scheduled-events``, ``GET``/``PATCH``/``DELETE
.../scheduled-events/{id}``, ``GET .../scheduled-events/{id}/users``, and the member role routes
``PUT``/``DELETE /guilds/{guild_id}/members/{user_id}/roles/{role_id}`` that reminders use. The JSON
follows Discord's Guild Scheduled Event object (developer docs, "Guild Scheduled Event").
"""

from __future__ import annotations

__all__ = ["UNHANDLED", "LocalScheduledEvents", "describe_event"]

import asyncio
import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.slash.limits import DiscordError

if TYPE_CHECKING:
    from bot.testkit.localdiscord.emulator import LocalDiscord, Sent
    from bot.testkit.localdiscord.http_session import Request

log = logging.getLogger(__name__)

UNHANDLED = object()
# kept in the data folder as Discord keeps them: an event made before a restart of the console
# is still there after it (the bot would otherwise find 404s for its bound events)
STORE_FILE = "local_discord_scheduled_events.json"
_BASE = "/guilds/{guild_id}/scheduled-events"
_ROLE = "/guilds/{guild_id}/members/{user_id}/roles/{role_id}"
# status transitions Discord allows: SCHEDULED -> ACTIVE | CANCELED, ACTIVE -> COMPLETED
_TRANSITIONS = {1: {2, 4}, 2: {3}}
_STATUS = {1: "scheduled", 2: "active", 3: "completed", 4: "canceled"}


@dataclass(slots=True)
class _Failure:
    method: str
    path: str
    status: int
    code: int
    message: str


class _Refused(Exception):
    """Raised inside a route handler; answered as Discord's error (discord.py raises it then)."""

    def __init__(self, error: DiscordError) -> None:
        super().__init__(error.body.get("message"))
        self.error = error


def _error(status: int, code: int, message: str) -> _Refused:
    return _Refused(DiscordError.json(status, code, message))


def describe_event(payload: dict[str, Any]) -> str:
    """A scheduled event's JSON as a line of text (the console shows what Discord got)."""
    location = (payload.get("entity_metadata") or {}).get("location", "")
    parts = [f"Discord event {payload.get('name', '?')!r}"]
    if payload.get("scheduled_start_time"):
        parts.append(f"from {payload['scheduled_start_time']}")
    if payload.get("scheduled_end_time"):
        parts.append(f"to {payload['scheduled_end_time']}")
    if location:
        parts.append(f"at {location}")
    if "status" in payload:
        parts.append(f"status {_STATUS.get(int(payload['status']), payload['status'])}")
    return " ".join(parts)


class LocalScheduledEvents:
    """The scheduled events of the local guild, and who pressed Interested on each."""

    def __init__(self, local: LocalDiscord) -> None:
        self.local = local
        self.events: dict[int, dict[str, Any]] = {}
        self.interested: dict[int, dict[int, dict[str, Any]]] = {}
        self.deleted: set[int] = set()
        self.path = Path(local.bot.settings.data_dir) / STORE_FILE
        self._load()
        self._users: dict[int, discord.User] = {}  # strong refs: discord.py caches users weakly
        self._failures: list[_Failure] = []
        self.failed: list[tuple[str, str]] = []  # (method, route template) of fail_next answers
        self._handlers: set[asyncio.Task[Any]] = set()

    # -- kept across restarts -------------------------------------------------------------------

    def _load(self) -> None:
        try:
            kept = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.warning(
                "local Discord: %s unreadable (%s): starting with no events", self.path, exc
            )
            return
        self.events = {int(k): v for k, v in kept.get("events", {}).items()}
        self.interested = {
            int(k): {int(u): user for u, user in people.items()}
            for k, people in kept.get("interested", {}).items()
        }

    def _save(self) -> None:
        kept = {
            "events": {str(k): v for k, v in self.events.items()},
            "interested": {
                str(k): {str(u): user for u, user in people.items()}
                for k, people in self.interested.items()
            },
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(json.dumps(kept), encoding="utf-8")
            temporary.replace(self.path)
        except OSError as exc:
            log.warning("local Discord: events not kept in %s: %s", self.path, exc)

    def payloads(self) -> list[dict[str, Any]]:
        """The guild's events as GUILD_CREATE carries them."""
        return [dict(e) for e in self.events.values()]

    # -- test controls ----------------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        path: str = _BASE,
        *,
        status: int = 403,
        code: int = 50013,
        message: str = "Missing Permissions",
    ) -> None:
        """The next `method` request on the route template `path` fails as Discord would."""
        self._failures.append(_Failure(method, path, status, code, message))

    @property
    def requests(self) -> list[Sent]:
        return [s for s in self.local.sent if s.kind == "scheduled_event"]

    def live(self) -> list[dict[str, Any]]:
        return [e for e in self.events.values() if int(e["status"]) in (1, 2)]

    # -- what a moderator does in Discord's UI (gateway events out) -------------------------------

    async def move(self, event_id: int, start: datetime, end: datetime | None = None) -> None:
        event = self.events[event_id]
        event["scheduled_start_time"] = start.astimezone(UTC).isoformat()
        if end is not None:
            event["scheduled_end_time"] = end.astimezone(UTC).isoformat()
        await self.gateway("GUILD_SCHEDULED_EVENT_UPDATE", dict(event))

    async def set_status(self, event_id: int, status: int) -> None:
        self.events[event_id]["status"] = status
        await self.gateway("GUILD_SCHEDULED_EVENT_UPDATE", dict(self.events[event_id]))

    async def delete(self, event_id: int) -> None:
        event = self.events.pop(event_id)
        self.deleted.add(event_id)
        await self.gateway("GUILD_SCHEDULED_EVENT_DELETE", dict(event))

    async def interest(self, event_id: int, user_id: int, *, added: bool = True) -> None:
        """`user_id` presses (or un-presses) Interested."""
        user = self.local.member_payload(user_id, ())["user"]
        state = self.local.bot._connection
        self._users[user_id] = state.store_user(user)
        people = self.interested.setdefault(event_id, {})
        if added:
            people[user_id] = user
        else:
            people.pop(user_id, None)
        self.events[event_id]["user_count"] = len(people)
        kind = "ADD" if added else "REMOVE"
        await self.gateway(
            f"GUILD_SCHEDULED_EVENT_USER_{kind}",
            {
                "guild_scheduled_event_id": str(event_id),
                "user_id": str(user_id),
                "guild_id": str(self.local.guild_id),
            },
        )

    async def gateway(self, name: str, data: dict[str, Any]) -> None:
        """Hand one gateway dispatch to discord.py's parser; wait for the bot's handlers."""
        self._save()  # every change a gateway event tells of is a change to what Discord keeps
        await self.settle()  # what Discord sent before (the create of this event) comes first
        self._dispatch(name, data)
        await self.settle()

    def _dispatch(self, name: str, data: dict[str, Any]) -> None:
        before = asyncio.all_tasks()
        self.local.bot._connection.parsers[name](data)
        self._handlers |= {
            t for t in asyncio.all_tasks() - before if t.get_name().startswith("discord.py: on_")
        }

    async def settle(self, limit: float = 10.0) -> None:
        """Wait until every handler of the gateway events sent so far has finished."""
        me = asyncio.current_task()
        async with asyncio.timeout(limit):
            while self._handlers - {me}:
                pending = list(self._handlers - {me})
                self._handlers -= set(pending)
                await asyncio.gather(*pending, return_exceptions=True)
                await asyncio.sleep(0)

    def _echo(self, name: str, data: dict[str, Any]) -> None:
        self._save()

        # Discord tells every connected client (the bot too) about a change the bot made itself,
        # a moment after answering the request
        async def later() -> None:
            await asyncio.sleep(0)
            self._dispatch(name, data)

        self._handlers.add(asyncio.get_running_loop().create_task(later()))

    # -- the HTTP routes --------------------------------------------------------------------------

    def answer(self, request: Request) -> Any:
        """The answer to a scheduled-event or member-role request, or UNHANDLED for others."""
        if not request.path.startswith(_BASE) and request.path != _ROLE:
            return UNHANDLED
        from bot.testkit.localdiscord.emulator import Sent

        body = request.body if isinstance(request.body, dict) else {}
        path = request.path.format(**request.params)
        self.local._record(Sent(request.method, path, "scheduled_event", dict(body)))
        try:
            return self._answer(request, body)
        except _Refused as refused:
            return refused.error

    def _answer(self, request: Request, body: dict[str, Any]) -> Any:
        for failure in self._failures:
            if failure.method == request.method and failure.path == request.path:
                self._failures.remove(failure)
                self.failed.append((failure.method, failure.path))
                raise _error(failure.status, failure.code, failure.message)
        if request.path == _ROLE:
            return None  # 204: the role was given or taken
        if request.path == _BASE:
            if request.method == "POST":
                return self._create(body)
            return list(self.events.values())
        event_id = int(request.params["guild_scheduled_event_id"])
        event = self.events.get(event_id)
        if event is None:
            raise _error(404, 10070, "Unknown Guild Scheduled Event")
        if request.path.endswith("/users"):
            return self._users_page(event_id, request.query)
        if request.method == "GET":
            found = dict(event)
            if not int(request.query.get("with_user_count", 0)):
                found.pop("user_count", None)
            return found
        if request.method == "DELETE":
            self.events.pop(event_id)
            self.deleted.add(event_id)
            self._echo("GUILD_SCHEDULED_EVENT_DELETE", dict(event))
            return None
        return self._edit(event, body)

    def _create(self, body: dict[str, Any]) -> dict[str, Any]:
        if int(body.get("entity_type", 0)) == 3 and not body.get("scheduled_end_time"):
            raise _error(400, 50035, "scheduled_end_time is required for external events")
        event_id = self.local.next_id()
        event: dict[str, Any] = {
            "id": str(event_id),
            "guild_id": str(self.local.guild_id),
            "channel_id": None,
            "creator_id": self.local.bot_user["id"],
            "creator": self.local.bot_user,
            "name": body["name"],
            "description": body.get("description"),
            "scheduled_start_time": body["scheduled_start_time"],
            "scheduled_end_time": body.get("scheduled_end_time"),
            "privacy_level": body.get("privacy_level", 2),
            "status": 1,
            "entity_type": body["entity_type"],
            "entity_id": None,
            "entity_metadata": body.get("entity_metadata"),
            "user_count": 0,
            "image": None,
            "recurrence_rule": None,
        }
        self.events[event_id] = event
        self._echo("GUILD_SCHEDULED_EVENT_CREATE", dict(event))
        return dict(event)

    def _edit(self, event: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        if "status" in body:
            old, new = int(event["status"]), int(body["status"])
            if new != old and new not in _TRANSITIONS.get(old, set()):
                raise _error(400, 180000, "Cannot update event status: invalid transition")
        for key in (
            "name",
            "description",
            "scheduled_start_time",
            "scheduled_end_time",
            "status",
            "entity_metadata",
            "privacy_level",
        ):
            if key in body:
                event[key] = body[key]
        self._echo("GUILD_SCHEDULED_EVENT_UPDATE", dict(event))
        return dict(event)

    def _users_page(self, event_id: int, params: dict[str, Any]) -> list[dict[str, Any]]:
        people = sorted(self.interested.get(event_id, {}).items())
        if params.get("before") is not None:
            people = [p for p in people if p[0] < int(params["before"])][::-1]
        elif params.get("after") is not None:
            people = [p for p in people if p[0] > int(params["after"])]
        limit = min(int(params.get("limit", 100)), 100)
        return [
            {"guild_scheduled_event_id": str(event_id), "user": user} for _, user in people[:limit]
        ]

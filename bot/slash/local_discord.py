"""A local Discord: the other end of the connection, in process, for tests and the console.

:class:`LocalDiscord` plays Discord's side of the connection for a bot that never logs in: it
builds interaction payloads exactly as Discord sends them (slash commands, autocomplete, button
presses), hands them to discord.py's own dispatch (``ConnectionState.parse_interaction_create`` ->
``CommandTree`` / ``ViewStore``), and answers the HTTP requests discord.py makes back (interaction
callbacks, webhook follow-ups and edits, channel messages) by recording them. The test harness and
the console both use it, so a line typed in the terminal runs the same code path as a Discord user.
"""

from __future__ import annotations

__all__ = ["Exchange", "LocalDiscord", "Sent", "buttons", "render"]

import asyncio
import itertools
import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.slash.local_scheduled_events import UNHANDLED, LocalScheduledEvents

if TYPE_CHECKING:
    from bot.app import DoomBot

log = logging.getLogger(__name__)

APPLICATION_ID = 1_100_000_000_000_000_001
GUILD_ID = 1_100_000_000_000_000_002
CHANNEL_ID = 1_100_000_000_000_000_003
EPHEMERAL = 64
_OPTION_TYPES = {
    discord.AppCommandOptionType.string: 3,
    discord.AppCommandOptionType.integer: 4,
    discord.AppCommandOptionType.boolean: 5,
    discord.AppCommandOptionType.number: 10,
}


@dataclass(slots=True)
class Sent:
    """One request discord.py made towards Discord, as Discord would have received it."""

    method: str
    path: str
    kind: str  # response, autocomplete, followup, edit, delete, channel, channel_edit,
    # scheduled_event, other
    payload: dict[str, Any]
    token: str | None = None  # the interaction's, for interaction routes
    message_id: int | None = None
    channel_id: int | None = None
    files: list[tuple[str, bytes]] = field(default_factory=list)

    @property
    def data(self) -> dict[str, Any]:
        """The message part: callbacks nest it under ``data``, other routes send it bare."""
        inner = self.payload.get("data") if self.path.endswith("/callback") else None
        return inner if isinstance(inner, dict) else self.payload


@dataclass(slots=True)
class Exchange:
    """What one interaction sent back: its response, follow-ups and edits, in order."""

    token: str
    user_id: int
    sent: list[Sent] = field(default_factory=list)
    task: asyncio.Task[Any] | None = None

    async def done(self, limit: float = 10.0) -> Exchange:
        if self.task is not None:
            await asyncio.wait_for(asyncio.shield(self.task), limit)
        return self

    @property
    def messages(self) -> list[Sent]:
        return [s for s in self.sent if s.kind in ("response", "followup", "edit")]

    @property
    def text(self) -> str:
        """Every content and embed text sent, joined: what the user read."""
        return "\n".join(t for t in (render(s.data) for s in self.messages) if t)

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return [e for s in self.messages for e in s.data.get("embeds") or []]

    @property
    def ephemeral(self) -> bool:
        first = next((s for s in self.sent if s.kind == "response"), None)
        return first is not None and bool(first.data.get("flags", 0) & EPHEMERAL)

    @property
    def choices(self) -> list[dict[str, Any]]:
        auto = [s for s in self.sent if s.kind == "autocomplete"]
        return list(auto[-1].data.get("choices", [])) if auto else []


class _Adapter(AsyncWebhookAdapter):
    def __init__(self, owner: LocalDiscord) -> None:
        super().__init__()
        self.owner = owner

    async def request(self, route: Route, session: Any, **kwargs: Any) -> Any:
        return self.owner._answer(route, kwargs.get("payload"), kwargs.get("multipart"), kwargs)


class LocalDiscord:
    """Discord's side of the connection, in process; see the module docstring."""

    def __init__(
        self,
        bot: DoomBot,
        *,
        roles: Mapping[int, str] | None = None,
        guild_id: int = GUILD_ID,
        channel_id: int = CHANNEL_ID,
    ) -> None:
        self.bot = bot
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.roles = dict(roles or {})
        self.sent: list[Sent] = []
        self.messages: dict[int, dict[str, Any]] = {}  # as Discord stores them, by id
        self.exchanges: dict[str, Exchange] = {}
        self.listeners: list[Callable[[Sent], None]] = []
        self._ids = itertools.count(discord.utils.time_snowflake(datetime.now(UTC)))
        self._original: dict[str, int] = {}  # interaction token -> original response message id
        self._component_message: dict[int, int] = {}  # component interaction id -> its message
        self._loading: set[str] = set()  # tokens whose response is still "thinking..."
        self._adapter = _Adapter(self)
        self._changed = asyncio.Event()
        self.scheduled = LocalScheduledEvents(self)  # guild scheduled events, their gateway events
        # what the bot's own role allows in the guild (/status and /event read it from guild.me)
        self.bot_permissions = discord.Permissions(
            view_channel=True, send_messages=True, create_events=True, manage_events=True
        )
        self.bot_user = {"id": str(APPLICATION_ID), "username": "doom", "discriminator": "0",
                         "global_name": "doom.schedule", "avatar": None, "bot": True}  # fmt: skip

    # -- lifecycle ---------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bring the bot up as if it had logged in and received its guild, then run setup_hook."""
        self._install()
        bot = self.bot
        await bot._async_setup_hook()
        state = bot._connection
        state.user = discord.ClientUser(state=state, data=self.bot_user)  # type: ignore[arg-type]
        state.application_id = APPLICATION_ID
        state._add_guild_from_data(self.guild_payload())  # type: ignore[arg-type]
        await bot.setup_hook()

    async def close(self) -> None:
        self._install()
        await self.bot.close()

    async def __aenter__(self) -> LocalDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _install(self) -> None:
        # discord.py looks the webhook adapter up in a context variable, so setting it here covers
        # every task this one starts (command invokers, views, cog loops)
        async_context.set(self._adapter)
        self.bot.http.request = self._http_request  # type: ignore[method-assign]

    # -- payloads as Discord sends them ------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def guild_payload(self) -> dict[str, Any]:
        roles = [{"id": str(self.guild_id), "name": "@everyone", "permissions": "0", "position": 0}]
        roles += [
            {"id": str(rid), "name": name, "permissions": "0", "position": i + 1}
            for i, (rid, name) in enumerate(self.roles.items())
        ]
        bot_role = self.guild_id + 1  # the bot's managed role, holding its permissions
        roles.append({"id": str(bot_role), "name": "doom.schedule", "position": len(roles),
                      "permissions": str(self.bot_permissions.value)})  # fmt: skip
        for role in roles:
            role.update(color=0, hoist=False, managed=False, mentionable=False, flags=0)
        me = self.member_payload(APPLICATION_ID, [bot_role])
        me["user"] = self.bot_user
        return {
            "id": str(self.guild_id), "name": "local", "owner_id": "1", "roles": roles,
            "channels": [self.channel_payload()], "members": [me], "features": [], "emojis": [],
            "stickers": [], "member_count": 1, "preferred_locale": "en-US",
        }  # fmt: skip

    def channel_payload(self) -> dict[str, Any]:
        return {"id": str(self.channel_id), "type": 0, "guild_id": str(self.guild_id),
                "name": "general", "position": 0, "permission_overwrites": [], "nsfw": False,
                "parent_id": None, "topic": None, "rate_limit_per_user": 0}  # fmt: skip

    def member_payload(self, user_id: int, role_ids: Sequence[int]) -> dict[str, Any]:
        return {
            "user": {"id": str(user_id), "username": f"user{user_id}", "discriminator": "0",
                     "global_name": None, "avatar": None},
            "roles": [str(r) for r in role_ids], "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False, "mute": False, "flags": 0, "pending": False, "nick": None,
            "avatar": None, "permissions": str(discord.Permissions.general().value),
        }  # fmt: skip

    def interaction_payload(
        self, type_: int, data: dict[str, Any], user_id: int, role_ids: Sequence[int]
    ) -> dict[str, Any]:
        return {
            "id": str(self.next_id()), "application_id": str(APPLICATION_ID), "type": type_,
            "token": f"tok-{self.next_id()}", "version": 1, "guild_id": str(self.guild_id),
            "guild": {"id": str(self.guild_id), "locale": "en-US", "features": []},
            "channel_id": str(self.channel_id), "channel": self.channel_payload(),
            "member": self.member_payload(user_id, role_ids), "data": data,
            "locale": "en-US", "guild_locale": "en-US", "entitlements": [],
            "app_permissions": str(discord.Permissions.text().value),
            "authorizing_integration_owners": {"0": str(self.guild_id)}, "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }  # fmt: skip

    def command(self, name: str) -> app_commands.Command[Any, ..., Any]:
        """`/name`, or a group's subcommand as `group sub`."""
        head, *subs = name.split()
        cmd: Any = self.bot.tree.get_command(head)
        for sub in subs:
            cmd = cmd.get_command(sub) if isinstance(cmd, app_commands.Group) else None
        if not isinstance(cmd, app_commands.Command):
            raise KeyError(f"no slash command /{name}")
        return cmd

    def options_payload(
        self, name: str, values: Mapping[str, object], focused: str | None = None
    ) -> list[dict[str, Any]]:
        """Typed options in the command's own order, as the client sends them."""
        out: list[dict[str, Any]] = []
        params = {p.name: p for p in self.command(name).parameters}
        unknown = set(values) - set(params)
        if unknown:
            raise KeyError(f"/{name} has no option {', '.join(sorted(unknown))}")
        for pname, param in params.items():
            if pname not in values:
                continue
            value = values[pname]
            option: dict[str, Any] = {"name": pname, "type": _OPTION_TYPES[param.type]}
            if pname == focused:
                option.update(value=str(value), focused=True)  # partial input arrives as text
            else:
                option["value"] = value
            out.append(option)
        return out

    def command_data(
        self, name: str, values: Mapping[str, object], focused: str | None = None
    ) -> dict[str, Any]:
        """The `data` of an application command interaction; a subcommand nests its options
        under the group's, as Discord sends them (option type 1 = SUB_COMMAND)."""
        head, *subs = name.split()
        options = self.options_payload(name, values, focused)
        for sub in reversed(subs):
            options = [{"name": sub, "type": 1, "options": options}]
        return {"id": str(abs(hash(head)) % 10**18), "name": head, "type": 1, "options": options}

    # -- driving the bot ---------------------------------------------------------------------------

    async def invoke(
        self, name: str, user_id: int, role_ids: Sequence[int] = (), /, **options: object
    ) -> Exchange:
        """Run ``/name`` (or ``/group sub``) as that user and wait until its callback returned."""
        data = self.command_data(name, options)
        return await self._dispatch(self.interaction_payload(2, data, user_id, role_ids))

    async def autocomplete(
        self, name: str, focused: str, user_id: int, role_ids: Sequence[int] = (), /,
        **options: object,
    ) -> list[dict[str, Any]]:  # fmt: skip
        """The choices the bot offers while the user types ``focused``."""
        data = self.command_data(name, options, focused)
        exchange = await self._dispatch(self.interaction_payload(4, data, user_id, role_ids))
        return exchange.choices

    async def press(
        self, message_id: int, button: str, user_id: int, role_ids: Sequence[int] = ()
    ) -> Exchange:
        """Click the button with this label or custom_id on a stored message."""
        message = self.messages[message_id]
        found = [b for b in buttons(message) if button in (b.get("label"), b.get("custom_id"))]
        if not found:
            raise KeyError(f"no button {button!r} on message {message_id}")
        data = {"custom_id": found[0]["custom_id"], "component_type": 2}
        payload = self.interaction_payload(3, data, user_id, role_ids)
        payload["message"] = message
        self._component_message[int(payload["id"])] = message_id
        return await self._dispatch(payload)

    async def _dispatch(self, payload: dict[str, Any]) -> Exchange:
        self._install()
        exchange = Exchange(payload["token"], int(payload["member"]["user"]["id"]))
        self.exchanges[exchange.token] = exchange
        before = asyncio.all_tasks()
        self.bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        spawned = [
            t for t in asyncio.all_tasks() - before
            if t.get_name().startswith(("CommandTree-invoker", "discord-ui-view-dispatch"))
        ]  # fmt: skip
        if spawned:
            exchange.task = spawned[0]
            await exchange.done()
        return exchange

    async def wait_for(self, predicate: Callable[[], bool], limit: float = 5.0) -> None:
        """Wait until something the bot sends makes ``predicate`` true (bounded)."""
        async with asyncio.timeout(limit):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

    # -- Discord's answers -------------------------------------------------------------------------

    def _message(
        self, channel_id: int, data: Mapping[str, Any], mid: int | None = None
    ) -> dict[str, Any]:
        mid = mid or self.next_id()
        old = self.messages.get(mid, {})
        message: dict[str, Any] = {
            "id": str(mid), "channel_id": str(channel_id), "guild_id": str(self.guild_id),
            "author": self.bot_user, "content": "", "embeds": [], "components": [],
            "attachments": [], "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [],
            "mention_roles": [], "pinned": False, "type": 0, "flags": 0,
        }  # fmt: skip
        message.update(old)
        message.update({k: v for k, v in data.items() if k in message and v is not None})
        if old:
            message["edited_timestamp"] = datetime.now(UTC).isoformat()
        self.messages[mid] = message
        return message

    def _record(self, sent: Sent) -> None:
        self.sent.append(sent)
        if sent.token and sent.token in self.exchanges:
            self.exchanges[sent.token].sent.append(sent)
        for listener in self.listeners:
            listener(sent)
        self._changed.set()

    def _answer(self, route: Route, payload: Any, multipart: Any, kwargs: Mapping[str, Any]) -> Any:
        body, files = _body(payload, multipart, kwargs.get("files"))
        token = str(route.webhook_token) if route.webhook_token else None
        if token is None:
            return None
        if route.path.endswith("/callback"):
            return self._callback(route, token, body, files)
        return self._webhook(route, token, body, files)

    def _callback(
        self, route: Route, token: str, body: dict[str, Any], files: list[tuple[str, bytes]]
    ) -> Any:
        """POST /interactions/{id}/{token}/callback: the first response to an interaction."""
        kind = "autocomplete" if body.get("type") == 8 else "response"
        sent = Sent(route.method, route.path, kind, body, token, files=files)
        answer: dict[str, Any] = {"id": str(route.webhook_id), "type": 2}
        if body.get("type") in (4, 5):  # a message (or a "thinking..." one) is created
            message = self._message(self.channel_id, body.get("data") or {})
            self._original[token] = sent.message_id = int(message["id"])
            answer.update(response_message_id=message["id"])
            answer["response_message_loading"] = body.get("type") == 5
            if body.get("type") == 5:
                self._loading.add(token)
            self._record(sent)
            resource = {"type": body["type"], "message": message}
            return {"interaction": answer, "resource": resource}
        if body.get("type") in (6, 7):  # update the message the button sits on
            mid = self._component_message.get(int(route.webhook_id or 0))
            if mid is not None:
                self._original[token] = mid
                if body.get("type") == 7:
                    self._message(self.channel_id, body.get("data") or {}, mid)
                sent.message_id, sent.kind = mid, "edit" if body.get("type") == 7 else "other"
        self._record(sent)
        return {"interaction": answer}

    def _webhook(
        self, route: Route, token: str, body: dict[str, Any], files: list[tuple[str, bytes]]
    ) -> Any:
        """/webhooks/{app}/{token}[/messages/...]: follow-ups, edits, fetches, deletes."""
        mid: int | None = None
        if "/messages/" in route.path:
            tail = str(route.url).rsplit("/", 1)[-1]
            mid = self._original.get(token) if tail == "@original" else _int(tail)
        kind = {"POST": "followup", "PATCH": "edit", "DELETE": "delete"}.get(route.method, "other")
        if kind == "other":
            return self.messages.get(mid or 0)
        sent = Sent(route.method, route.path, kind, body, token, mid, self.channel_id, files)
        if kind == "delete":
            self._record(sent)
            return None
        if kind == "followup":
            # the first follow-up after a deferral fills the "thinking..." message, as Discord does
            mid = self._original.get(token) if token in self._loading else None
        self._loading.discard(token)
        message = self._message(self.channel_id, body, mid)
        self._original.setdefault(token, int(message["id"]))
        sent.message_id = int(message["id"])
        self._record(sent)
        return message

    async def _http_request(self, route: Route, **kwargs: Any) -> Any:
        body, files = _body(kwargs.get("json"), kwargs.get("form"), kwargs.get("files"))
        answer = self.scheduled.answer(route, body, dict(kwargs.get("params") or {}))
        if answer is not UNHANDLED:
            return answer
        channel_id = _int(route.channel_id)
        if route.method == "POST" and route.path == "/channels/{channel_id}/messages":
            message = self._message(channel_id or 0, body)
            self._record(Sent("POST", route.path, "channel", body, None, int(message["id"]),
                              channel_id, files))  # fmt: skip
            return message
        if route.method == "PATCH" and route.path.startswith("/channels/{channel_id}/messages/"):
            mid = _int(str(route.url).rsplit("/", 1)[-1])
            message = self._message(channel_id or 0, body, mid)
            self._record(Sent("PATCH", route.path, "channel_edit", body, None, mid, channel_id))
            return message
        self._record(Sent(route.method, route.path, "other", body, channel_id=channel_id))
        return {}

    # -- reading what was sent ---------------------------------------------------------------------

    def channel_posts(self, channel_id: int) -> list[Sent]:
        return [s for s in self.sent if s.kind == "channel" and s.channel_id == channel_id]


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def _body(
    payload: Any, multipart: Any, files: Any
) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    """The JSON body and attached files of a request, however discord.py packed it."""
    body: dict[str, Any] = dict(payload) if isinstance(payload, Mapping) else {}
    for part in multipart or []:
        if part.get("name") == "payload_json":
            body = json.loads(part["value"])
    out: list[tuple[str, bytes]] = []
    for f in files or []:
        f.reset()
        out.append((f.filename or "file", f.fp.read()))
    return body, out


def buttons(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The buttons of a message payload, across its action rows."""
    return [c for row in message.get("components") or [] for c in row.get("components", [])
            if c.get("type") == 2]  # fmt: skip


_TIMESTAMP = re.compile(r"<t:(-?\d+)(?::([tTdDfFR]))?>")


def _timestamp(match: re.Match[str]) -> str:
    when = datetime.fromtimestamp(int(match.group(1)))
    if match.group(2) == "R":
        delta = int(match.group(1)) - int(datetime.now().timestamp())
        ago = f"in {delta}s" if delta >= 0 else f"{-delta}s ago"
        return f"{when:%H:%M:%S} ({ago})"
    return f"{when:%Y-%m-%d %H:%M:%S}"


def render(data: Mapping[str, Any]) -> str:
    """A message payload as terminal text: content, embeds, buttons, attachments."""
    lines: list[str] = []
    if data.get("content"):
        lines.append(str(data["content"]))
    for embed in data.get("embeds") or []:
        if embed.get("title"):
            lines.append(f"== {embed['title']} ==")
        if embed.get("description"):
            lines.append(str(embed["description"]))
        lines += [f"  {f['name']}: {f['value']}" for f in embed.get("fields", [])]
        if embed.get("footer", {}).get("text"):
            lines.append(f"  -- {embed['footer']['text']}")
    labels = [f"[{b.get('label')}]{' (disabled)' if b.get('disabled') else ''}"
              for b in buttons(data)]  # fmt: skip
    if labels:
        lines.append(" ".join(labels))
    lines += [f"(attached: {a.get('filename')})" for a in data.get("attachments") or []]
    return _TIMESTAMP.sub(_timestamp, "\n".join(lines))

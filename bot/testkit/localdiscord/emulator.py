"""A local Discord: the other end of the connection, in process, for the tests (the test kit).

:class:`LocalDiscord` plays Discord's side of the connection for a bot that never logs in: it
builds interaction payloads exactly as Discord sends them (slash commands, autocomplete, button
presses), hands them to discord.py's own dispatch (``ConnectionState.parse_interaction_create`` ->
``CommandTree`` / ``ViewStore``), and answers the HTTP requests discord.py makes back (interaction
callbacks, webhook follow-ups and edits, channel messages, the command sync) by recording them.

It holds the bot to Discord's rules, the way Discord does: every request goes through
discord.py's own HTTP handling down to the aiohttp session (``http_session``), every body is
checked against Discord's documented limits (:mod:`bot.discord.slash.limits`) and refused with
Discord's status and JSON error, the command tree is synced (and checked) at start, an
interaction's first response must come within 3 seconds of the injected ``clock`` (else 10062 and
the user sees the failure), only once (40060), follow-ups work for 15 minutes, and channel posts
meet per-route rate-limit buckets with 429s. Every refusal is kept in :attr:`LocalDiscord.refused`.
"""

from __future__ import annotations

__all__ = ["Exchange", "LocalDiscord", "Refusal", "Sent", "VirtualClock", "buttons", "render"]

import asyncio
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.discord.slash import limits
from bot.testkit.localdiscord import http_session as http
from bot.testkit.localdiscord.attachments import Files, forget, uploaded
from bot.testkit.localdiscord.http_session import LocalFile, RateLimits, Request, Response
from bot.testkit.localdiscord.message_text import buttons, render
from bot.testkit.localdiscord.records import Exchange, Refusal, Sent, VirtualClock
from bot.testkit.localdiscord.scheduled_events import UNHANDLED, LocalScheduledEvents

if TYPE_CHECKING:
    from bot.discord.app import DoomBot

log = logging.getLogger(__name__)

APPLICATION_ID = 1_100_000_000_000_000_001
GUILD_ID = 1_100_000_000_000_000_002
CHANNEL_ID = 1_100_000_000_000_000_003
# What the local Discord keeps, so a console left running for days does not grow without end
# (about 9 KB a command otherwise): Discord's client loads a channel's 50 newest messages at a
# time, the console answers only the newest buttons, and a test reads back far fewer than this.
KEEP_MESSAGES = 200  # per channel, the newest
KEEP_SENT = 1000  # requests in `sent`, the newest
KEEP_EXCHANGES = 200  # finished interactions (a running one is always kept)
_OPTION_TYPES = {
    discord.AppCommandOptionType.string: 3,
    discord.AppCommandOptionType.integer: 4,
    discord.AppCommandOptionType.boolean: 5,
    discord.AppCommandOptionType.number: 10,
    discord.AppCommandOptionType.attachment: 11,
}


class LocalDiscord:
    """Discord's side of the connection, in process; see the module docstring."""

    def __init__(
        self,
        bot: DoomBot,
        *,
        roles: Mapping[int, str] | None = None,
        guild_id: int = GUILD_ID,
        channel_id: int = CHANNEL_ID,
        clock: Callable[[], float] = time.monotonic,
        rate_limits: RateLimits | None = None,
        sync: bool = True,
        locale: str = "en-US",
        guild_locale: str = "en-US",
    ) -> None:
        self.bot = bot
        self.locale = locale  # the client's language, sent as each interaction's `locale`
        self.guild_locale = guild_locale  # the guild's preferred locale
        self.clock = clock  # interaction deadlines (3 s, 15 min) are measured on it
        self.rate_limits = rate_limits or RateLimits()
        self.sync = sync  # sync (and so check) the command tree at start, as a bot would
        self.refused: list[Refusal] = []
        self.synced: dict[int | None, list[dict[str, Any]]] = {}  # guild id (None: global)
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.roles = dict(roles or {})
        self.sent: deque[Sent] = deque(maxlen=KEEP_SENT)
        self.messages: dict[int, dict[str, Any]] = {}  # as Discord stores them, by id
        self._channel_messages: dict[int, deque[int]] = {}  # channel -> its kept message ids
        self.exchanges: dict[str, Exchange] = {}
        self.listeners: list[Callable[[Sent], None]] = []
        self._ids = itertools.count(discord.utils.time_snowflake(datetime.now(UTC)))
        self._original: dict[str, int] = {}  # interaction token -> original response message id
        self._component_message: dict[int, int] = {}  # component interaction id -> its message
        self._loading: set[str] = set()  # tokens whose response is still "thinking..."
        self._born: dict[str, float] = {}  # token -> clock() when the interaction was sent
        self._session = http.Session(self._handle)
        self._changed = asyncio.Event()
        # members' roles as GET .../members/{id} answers: set by each interaction and set_roles
        self.members: dict[int, list[int]] = {}
        self.names: dict[int, str] = {}  # display names (global_name) of users who set one
        self.scheduled = LocalScheduledEvents(self)  # guild scheduled events, their gateway events
        # what the bot's own role allows in the guild (/status and /event read it from guild.me)
        self.bot_permissions = discord.Permissions(
            view_channel=True, send_messages=True, create_events=True, manage_events=True
        )
        self.bot_user = {
            "id": str(APPLICATION_ID),
            "username": "doom",
            "discriminator": "0",
            "global_name": "doom.schedule",
            "avatar": None,
            "bot": True,
        }

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
        if self.sync and not bot.sync_commands:
            # what a bot does once with Discord; here every start checks the tree against
            # Discord's rules (CommandSyncFailure names the command and field that broke one)
            await bot.tree.sync()

    async def close(self) -> None:
        self._install()
        await self.bot.close()

    async def __aenter__(self) -> LocalDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _install(self) -> None:
        # the session static_login would have made: discord.py's HTTPClient (channel messages,
        # sync, with its rate-limit buckets) and every Interaction/webhook request use it
        http = self.bot.http
        http._HTTPClient__session = self._session  # type: ignore[attr-defined]
        if not isinstance(http._global_over, asyncio.Event):
            http._global_over = asyncio.Event()
            http._global_over.set()

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
        roles.append(
            {
                "id": str(bot_role),
                "name": "doom.schedule",
                "position": len(roles),
                "permissions": str(self.bot_permissions.value),
            }
        )
        for role in roles:
            role.update(color=0, hoist=False, managed=False, mentionable=False, flags=0)
        me = self.member_payload(APPLICATION_ID, [bot_role])
        me["user"] = self.bot_user
        return {
            "id": str(self.guild_id),
            "name": "local",
            "owner_id": "1",
            "roles": roles,
            "channels": [self.channel_payload()],
            "members": [me],
            "features": [],
            "emojis": [],
            "stickers": [],
            "member_count": 1,
            "preferred_locale": self.guild_locale,
            "guild_scheduled_events": self.scheduled.payloads(),
        }

    def channel_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.channel_id),
            "type": 0,
            "guild_id": str(self.guild_id),
            "name": "general",
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "rate_limit_per_user": 0,
        }

    def member_payload(self, user_id: int, role_ids: Sequence[int]) -> dict[str, Any]:
        return {
            "user": {
                "id": str(user_id),
                "username": f"user{user_id}",
                "discriminator": "0",
                "global_name": self.names.get(user_id),
                "avatar": None,
            },
            "roles": [str(r) for r in role_ids],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "avatar": None,
            "permissions": str(discord.Permissions.general().value),
        }

    def set_roles(self, user_id: int, role_ids: Sequence[int] | None) -> None:
        """Give a member these roles now (None: the user left the guild)."""
        if role_ids is None:
            self.members.pop(user_id, None)
        else:
            self.members[user_id] = list(role_ids)

    def interaction_payload(
        self, type_: int, data: dict[str, Any], user_id: int, role_ids: Sequence[int]
    ) -> dict[str, Any]:
        self.members[user_id] = list(role_ids)
        return {
            "id": str(self.next_id()),
            "application_id": str(APPLICATION_ID),
            "type": type_,
            "token": f"tok-{self.next_id()}",
            "version": 1,
            "guild_id": str(self.guild_id),
            "guild": {"id": str(self.guild_id), "locale": self.guild_locale, "features": []},
            "channel_id": str(self.channel_id),
            "channel": self.channel_payload(),
            "member": self.member_payload(user_id, role_ids),
            "data": data,
            "locale": self.locale,
            "guild_locale": self.guild_locale,
            "entitlements": [],
            "app_permissions": str(discord.Permissions.text().value),
            "authorizing_integration_owners": {"0": str(self.guild_id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }

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
        self,
        name: str,
        values: Mapping[str, object],
        focused: str | None = None,
        resolved: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Typed options in the command's own order, as the client sends them; an attached
        file (LocalFile) goes to the CDN and into `resolved`, the option holds its id."""
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
            elif isinstance(value, LocalFile) and resolved is not None:
                option["value"] = self._attach(value, resolved)
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
        resolved: dict[str, Any] = {}
        options = self.options_payload(name, values, focused, resolved)
        for sub in reversed(subs):
            options = [{"name": sub, "type": 1, "options": options}]
        data = {"id": str(abs(hash(head)) % 10**18), "name": head, "type": 1, "options": options}
        return {**data, "resolved": resolved} if resolved else data

    def _attach(self, file: LocalFile, resolved: dict[str, Any]) -> str:
        aid = str(self.next_id())
        url = f"{http.CDN}{self.channel_id}/{aid}/{file.filename}"
        self._session.files[url] = file.data
        resolved.setdefault("attachments", {})[aid] = {
            "id": aid,
            "filename": file.filename,
            "size": len(file.data),
            "url": url,
            "proxy_url": url,
        }
        return aid

    # -- driving the bot ---------------------------------------------------------------------------

    async def invoke(
        self, name: str, user_id: int, role_ids: Sequence[int] = (), /, **options: object
    ) -> Exchange:
        """Run ``/name`` (or ``/group sub``) as that user and wait until its callback returned."""
        return await self.begin(name, user_id, role_ids, **options).done()

    def begin(
        self, name: str, user_id: int, role_ids: Sequence[int] = (), /, **options: object
    ) -> Exchange:
        """`invoke` returning at once: the console waits on ``exchange.task`` as it likes."""
        data = self.command_data(name, options)
        return self._begin(self.interaction_payload(2, data, user_id, role_ids))

    async def autocomplete(
        self,
        name: str,
        focused: str,
        user_id: int,
        role_ids: Sequence[int] = (),
        /,
        **options: object,
    ) -> list[dict[str, Any]]:
        """The choices the bot offers while the user types ``focused``."""
        data = self.command_data(name, options, focused)
        exchange = await self._begin(self.interaction_payload(4, data, user_id, role_ids)).done()
        return exchange.choices

    async def press(
        self, message_id: int, button: str, user_id: int, role_ids: Sequence[int] = ()
    ) -> Exchange:
        """Click the button with this label or custom_id on a stored message."""
        return await self.begin_press(message_id, button, user_id, role_ids).done()

    def begin_press(
        self, message_id: int, button: str, user_id: int, role_ids: Sequence[int] = ()
    ) -> Exchange:
        """`press` without waiting for the bot's callback (see `begin`)."""
        message = self.messages[message_id]
        found = [b for b in buttons(message) if button in (b.get("label"), b.get("custom_id"))]
        if not found:
            raise KeyError(f"no button {button!r} on message {message_id}")
        data = {"custom_id": found[0]["custom_id"], "component_type": 2}
        payload = self.interaction_payload(3, data, user_id, role_ids)
        payload["message"] = message
        self._component_message[int(payload["id"])] = message_id
        return self._begin(payload)

    def _begin(self, payload: dict[str, Any]) -> Exchange:
        self._install()
        exchange = Exchange(payload["token"], int(payload["member"]["user"]["id"]))
        exchange.type = int(payload["type"])
        self._forget_exchanges()
        self.exchanges[exchange.token] = exchange
        self._born[exchange.token] = self.clock()
        before = asyncio.all_tasks()
        self.bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        spawned = [
            t
            for t in asyncio.all_tasks() - before
            if t.get_name().startswith(("CommandTree-invoker", "discord-ui-view-dispatch"))
        ]
        if spawned:
            exchange.task = spawned[0]
        return exchange

    def _forget_exchanges(self) -> None:
        """Drop the oldest finished interactions past KEEP_EXCHANGES, and what was kept for
        them (their tokens' birth, original message, loading state)."""
        excess = len(self.exchanges) - KEEP_EXCHANGES + 1
        if excess <= 0:
            return
        finished = [
            token for token, ex in self.exchanges.items() if ex.task is None or ex.task.done()
        ][:excess]
        for token in finished:
            del self.exchanges[token]
            self._born.pop(token, None)
            self._original.pop(token, None)
            self._loading.discard(token)
        while len(self._component_message) > KEEP_EXCHANGES:
            del self._component_message[next(iter(self._component_message))]

    async def wait_for(self, predicate: Callable[[], bool], limit: float = 5.0) -> None:
        """Wait until something the bot sends makes ``predicate`` true (bounded)."""
        async with asyncio.timeout(limit):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

    # -- Discord's answers -------------------------------------------------------------------------

    def _message(
        self, channel_id: int, data: Mapping[str, Any], mid: int | None = None, files: Files = ()
    ) -> dict[str, Any]:
        mid = mid or self.next_id()
        old = self.messages.get(mid, {})
        if (listed := data.get("attachments")) is not None:
            made = uploaded(self.next_id, self._session.files, channel_id, listed, files, old)
            data = {**data, "attachments": made}
        message: dict[str, Any] = {
            "id": str(mid),
            "channel_id": str(channel_id),
            "guild_id": str(self.guild_id),
            "author": self.bot_user,
            "content": "",
            "embeds": [],
            "components": [],
            "attachments": [],
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
        }
        message.update(old)
        message.update({k: v for k, v in data.items() if k in message and v is not None})
        if old:
            message["edited_timestamp"] = datetime.now(UTC).isoformat()
        else:
            kept = self._channel_messages.setdefault(channel_id, deque())
            kept.append(mid)
            while len(kept) > KEEP_MESSAGES:
                forget(self._session.files, self.messages.pop(kept.popleft(), {}))
        self.messages[mid] = message
        return message

    def _record(self, sent: Sent) -> None:
        self.sent.append(sent)
        if sent.token and sent.token in self.exchanges:
            self.exchanges[sent.token].sent.append(sent)
        for listener in self.listeners:
            listener(sent)
        self._changed.set()

    async def _handle(self, request: Request) -> Response:
        """Every request discord.py sends, answered as Discord would (see the module docstring)."""
        interaction = request.path.startswith(("/interactions/", "/webhooks/"))
        headers, limited = self.rate_limits.take(request, interaction=interaction)
        if limited is not None:
            return limited
        answer = self._route(request)
        if isinstance(answer, limits.DiscordError):
            token = request.param("webhook_token")
            refusal = Refusal(
                request.method, request.path, answer.status, answer.body, request.body, token
            )
            self.refused.append(refusal)
            if token in self.exchanges:
                self.exchanges[token].refused.append(refusal)
            log.info("refused %s %s: %s", request.method, request.path, answer.body)
            notice = f"(Discord would refuse this: {answer.status} {answer.body})"
            for listener in self.listeners:  # the console shows it; it is not in self.sent
                listener(Sent(request.method, request.path, "refused", {"content": notice}, token))
            self._changed.set()
            return Response(answer.status, answer.body, headers)
        return Response(200 if answer is not None else 204, answer, headers)

    def _route(self, request: Request) -> Any:
        token = request.param("webhook_token")
        if request.path.startswith("/interactions/") and token is not None:
            return self._callback(request, token)
        if request.path.startswith("/webhooks/") and token is not None:
            return self._webhook(request, token)
        if request.path.startswith("/applications/"):
            return self._commands(request)
        scheduled = self.scheduled.answer(request)
        if scheduled is not UNHANDLED:
            return scheduled
        body = request.body if isinstance(request.body, dict) else {}
        channel_id = _int(request.param("channel_id"))
        mid = _int(request.param("message_id"))
        if request.key == "POST /channels/{channel_id}/messages":
            error = limits.check_message(body, request.files)
            if error is not None:
                return error
            message = self._message(channel_id or 0, body, None, request.files)
            self._record(
                Sent(
                    "POST",
                    request.path,
                    "channel",
                    body,
                    None,
                    int(message["id"]),
                    channel_id,
                    request.files,
                )
            )
            return message
        if request.key == "PATCH /channels/{channel_id}/messages/{message_id}":
            error = limits.check_message(body, request.files, creating=False)
            if error is not None:
                return error
            message = self._message(channel_id or 0, body, mid, request.files)
            self._record(Sent("PATCH", request.path, "channel_edit", body, None, mid, channel_id))
            return message
        if request.key == "GET /guilds/{guild_id}/members/{member_id}":
            # a member's current roles (the dashboard re-checks them on every action)
            member_id = _int(request.param("member_id")) or 0
            self._record(Sent("GET", request.path, "other", body))
            if member_id not in self.members:
                return limits.DiscordError.json(404, 10007, "Unknown Member")
            return self.member_payload(member_id, self.members[member_id])
        self._record(Sent(request.method, request.path, "other", body, channel_id=channel_id))
        return {}

    def _callback(self, request: Request, token: str) -> Any:
        """POST /interactions/{id}/{token}/callback: the one initial response to an interaction."""
        body = request.body if isinstance(request.body, dict) else {}
        exchange = self.exchanges.get(token)
        if exchange is not None and exchange.acknowledged:
            return limits.ALREADY_ACKNOWLEDGED
        born = self._born.get(token)
        if born is None or self.clock() - born > limits.LIMITS["response.window"]:
            return limits.UNKNOWN_INTERACTION  # the token was invalidated at 3 s
        error = limits.check_callback(body, request.files)
        if error is not None:
            return error
        if exchange is not None:
            exchange.acknowledged = True
        kind = "autocomplete" if body.get("type") == 8 else "response"
        sent = Sent(request.method, request.path, kind, body, token, files=request.files)
        answer: dict[str, Any] = {"id": request.param("interaction_id"), "type": 2}
        if body.get("type") in (4, 5):  # a message (or a "thinking..." one) is created
            message = self._message(self.channel_id, body.get("data") or {}, None, request.files)
            self._original[token] = sent.message_id = int(message["id"])
            answer.update(response_message_id=message["id"])
            answer["response_message_loading"] = body.get("type") == 5
            if body.get("type") == 5:
                self._loading.add(token)
            self._record(sent)
            resource = {"type": body["type"], "message": message}
            return {"interaction": answer, "resource": resource}
        if body.get("type") in (6, 7):  # update the message the button sits on
            mid = self._component_message.get(_int(request.param("interaction_id")) or 0)
            if mid is not None:
                self._original[token] = mid
                if body.get("type") == 7:
                    self._message(self.channel_id, body.get("data") or {}, mid, request.files)
                sent.message_id, sent.kind = mid, "edit" if body.get("type") == 7 else "other"
        self._record(sent)
        return {"interaction": answer}

    def _webhook(self, request: Request, token: str) -> Any:
        """/webhooks/{app}/{token}[/messages/...]: follow-ups, edits, fetches, deletes."""
        born = self._born.get(token)
        exchange = self.exchanges.get(token)
        if born is None or exchange is None:
            return limits.UNKNOWN_WEBHOOK
        if self.clock() - born > limits.LIMITS["followup.window"]:
            return limits.INVALID_WEBHOOK_TOKEN
        if not exchange.acknowledged:
            return limits.UNKNOWN_WEBHOOK  # no initial response in time: the token is void
        body = request.body if isinstance(request.body, dict) else {}
        tail = request.param("message_id")
        mid = self._original.get(token) if tail == "@original" else _int(tail)
        kind = {"POST": "followup", "PATCH": "edit", "DELETE": "delete"}.get(
            request.method, "other"
        )
        if kind == "other":
            found = self.messages.get(mid or 0)
            return found if found is not None else limits.UNKNOWN_MESSAGE
        if kind != "delete":
            error = limits.check_message(body, request.files, creating=kind == "followup")
            if error is not None:
                return error
        sent = Sent(
            request.method, request.path, kind, body, token, mid, self.channel_id, request.files
        )
        if kind == "delete":
            self._record(sent)
            return None
        if kind == "followup":
            # the first follow-up after a deferral fills the "thinking..." message, as Discord does
            mid = self._original.get(token) if token in self._loading else None
        self._loading.discard(token)
        message = self._message(self.channel_id, body, mid, request.files)
        self._original.setdefault(token, int(message["id"]))
        sent.message_id = int(message["id"])
        self._record(sent)
        return message

    def _commands(self, request: Request) -> Any:
        """PUT (bulk overwrite) and GET of the global or a guild's commands."""
        guild_id = _int(request.param("guild_id"))
        if request.method == "PUT":
            commands = request.body if isinstance(request.body, list) else []
            error = limits.check_commands(commands)
            if error is not None:
                return error
            self.synced[guild_id] = [
                {
                    **c,
                    "id": str(self.next_id()),
                    "application_id": str(APPLICATION_ID),
                    "version": str(self.next_id()),
                    "type": c.get("type", 1),
                    **({"guild_id": str(guild_id)} if guild_id else {}),
                }
                for c in commands
            ]
            self._record(Sent("PUT", request.path, "sync", {"commands": commands}))
        return self.synced.get(guild_id, [])

    # -- reading what was sent ---------------------------------------------------------------------

    def channel_posts(self, channel_id: int) -> list[Sent]:
        return [s for s in self.sent if s.kind == "channel" and s.channel_id == channel_id]


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None

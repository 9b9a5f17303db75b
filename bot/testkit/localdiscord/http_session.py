"""The wire under LocalDiscord: an aiohttp-shaped session that answers discord.py in process.

discord.py sends every request through ``aiohttp.ClientSession.request`` -- the bot's own
``HTTPClient.request`` (channel messages, command sync) with its per-route rate-limit buckets and
429 retries, and ``AsyncWebhookAdapter.request`` (interaction callbacks, follow-ups, edits). By
answering there, and not above, every request passes through discord.py's real handling of the
answer: status codes become ``HTTPException`` / ``NotFound`` / ``Forbidden`` with Discord's JSON
``code``, and ``X-RateLimit-*`` headers and 429s drive its buckets and retries exactly as on
Discord (discord.py 2.7 ``http.py`` ``HTTPClient.request``, ``Ratelimit.update``;
``webhook/async_.py`` ``AsyncWebhookAdapter.request``).

:class:`RateLimits` models Discord's per-route buckets (developers/topics/rate-limits.mdx in
discord/discord-api-docs): per route and top-level resource (channel, guild, webhook), with the
``X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket`` headers on every answer, and on a 429 the
``retry_after`` body, ``Retry-After`` and ``X-RateLimit-Scope`` headers, plus the global 50
requests per second that interaction endpoints are exempt from.
"""

from __future__ import annotations

__all__ = ["CDN", "LocalFile", "RateLimits", "Request", "Response", "Session", "parse_request"]

import hashlib
import io
import json
import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import aiohttp
from discord.http import Route
from multidict import CIMultiDict

# "Via" is on every answer from Discord's edge; discord.py treats a 429 without it as a
# Cloudflare ban and raises instead of retrying (http.py: `if not response.headers.get('Via')`)
_BASE_HEADERS = {"Content-Type": "application/json", "Via": "1.1 google"}

_ROUTES: list[tuple[str, str]] = [
    ("POST", "/interactions/{interaction_id}/{webhook_token}/callback"),
    ("POST", "/webhooks/{webhook_id}/{webhook_token}"),
    ("*", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"),
    ("*", "/channels/{channel_id}/messages"),
    ("*", "/channels/{channel_id}/messages/{message_id}"),
    ("*", "/applications/{application_id}/commands"),
    ("*", "/applications/{application_id}/guilds/{guild_id}/commands"),
    ("GET", "/guilds/{guild_id}/members/{member_id}"),
    # guild scheduled events and the member roles their reminders give (discord/http.py)
    ("*", "/guilds/{guild_id}/scheduled-events"),
    ("*", "/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}"),
    ("GET", "/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}/users"),
    ("*", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}"),
]
_PATTERNS = [
    (method, path, re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", path) + "$"))
    for method, path in _ROUTES
]


@dataclass(slots=True)
class Request:
    """One request as Discord receives it: the route template, its parameters, body and files."""

    method: str
    path: str  # the template, e.g. /channels/{channel_id}/messages
    params: dict[str, str]
    body: Any
    files: list[tuple[str, bytes]] = field(default_factory=list)
    query: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def major(self) -> str:
        """The top-level resources a bucket is kept per (rate-limits.mdx)."""
        names = ("channel_id", "guild_id", "webhook_id", "webhook_token")
        return "+".join(self.params[k] for k in names if k in self.params)

    def param(self, name: str) -> str | None:
        return self.params.get(name)


def parse_request(method: str, url: str, data: Any, query: Mapping[str, Any] | None) -> Request:
    """Turn what discord.py hands aiohttp back into a :class:`Request`."""
    path = url.removeprefix(Route.BASE).split("?", 1)[0]
    body, files = _decode(data)
    for want, template, pattern in _PATTERNS:
        match = pattern.match(path)
        if match and want in ("*", method):
            params = {k: unquote(v) for k, v in match.groupdict().items()}
            return Request(method, template, params, body, files, dict(query or {}))
    return Request(method, path, {}, body, files, dict(query or {}))


def _decode(data: Any) -> tuple[Any, list[tuple[str, bytes]]]:
    """A JSON string, or a multipart form (payload_json + files[n]), as discord.py builds it."""
    if data is None:
        return None, []
    if isinstance(data, str | bytes):
        return json.loads(data), []
    if isinstance(data, aiohttp.FormData):
        body: Any = {}
        files: list[tuple[str, bytes]] = []
        # FormData keeps its parts as (options, headers, value) until aiohttp serialises them
        for options, _headers, value in data._fields:
            if options.get("name") == "payload_json":
                body = json.loads(value)
            elif isinstance(value, io.IOBase) or hasattr(value, "read"):
                files.append((str(options.get("filename") or "file"), value.read()))
        return body, files
    raise TypeError(f"LocalDiscord cannot read a request body of type {type(data).__name__}")


CDN = "https://cdn.discordapp.com/attachments/"  # where attachments are read from


@dataclass(frozen=True, slots=True)
class LocalFile:
    """A file a user attaches to a slash command's `discord.Attachment` option."""

    filename: str
    data: bytes


class Response:
    """The parts of ``aiohttp.ClientResponse`` discord.py reads."""

    def __init__(
        self, status: int, body: Any, headers: Mapping[str, str] | None = None, raw: bytes = b""
    ) -> None:
        self.raw = raw  # a file's bytes (an attachment read from the CDN), not JSON
        self.status = status
        self.reason = _REASONS.get(status, "")
        self._text = "" if body is None else json.dumps(body)
        self.headers: CIMultiDict[str] = CIMultiDict(headers or {})
        if body is not None:
            self.headers.update(_BASE_HEADERS)
        else:
            self.headers["Via"] = _BASE_HEADERS["Via"]

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text

    async def json(self) -> Any:
        return json.loads(self._text) if self._text else None

    async def read(self) -> bytes:
        return self.raw or self._text.encode()

    def release(self) -> None:
        return None


_REASONS = {
    200: "OK",
    204: "No Content",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    413: "Payload Too Large",
    429: "Too Many Requests",
}

Handler = Callable[[Request], Awaitable[Response]]


class _Call:
    def __init__(self, handler: Handler, request: Request) -> None:
        self.handler = handler
        self.request = request

    async def __aenter__(self) -> Response:
        return await self.handler(self.request)

    async def __aexit__(self, *exc: object) -> None:
        return None


class _File:
    def __init__(self, response: Response) -> None:
        self.response = response

    async def __aenter__(self) -> Response:
        return self.response

    async def __aexit__(self, *exc: object) -> None:
        return None


class Session:
    """Stands in for the bot's ``aiohttp.ClientSession``; every request goes to ``handler``."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.closed = False
        self.files: dict[str, bytes] = {}  # CDN address -> the attachment's bytes

    def get(self, url: str, **kwargs: Any) -> _Call | _File:
        """An attachment from the CDN (Attachment.read); anything else is a request."""
        if url.startswith(CDN):
            found = self.files.get(url)
            return _File(Response(200 if found is not None else 404, None, raw=found or b""))
        return self.request("GET", url, **kwargs)

    def request(self, method: str, url: str, **kwargs: Any) -> _Call:
        return _Call(
            self.handler, parse_request(method, url, kwargs.get("data"), kwargs.get("params"))
        )

    async def close(self) -> None:
        self.closed = True


@dataclass(slots=True)
class _Bucket:
    limit: int
    per: float
    remaining: int = 0
    resets: float = 0.0  # on the rate-limit clock


# Discord publishes no numbers ("rate limits should not be hard coded", rate-limits.mdx); these
# are what its headers report for these routes, per channel, and clients must read the headers,
# as discord.py does. Tests pass shorter windows so a flood takes milliseconds.
DEFAULT_RULES: dict[str, tuple[int, float]] = {
    "POST /channels/{channel_id}/messages": (5, 5.0),
    "PATCH /channels/{channel_id}/messages/{message_id}": (5, 5.0),
}
GLOBAL_RULE = (50, 1.0)  # rate-limits.mdx "All bots can make up to 50 requests per second"


class RateLimits:
    """Per-route buckets with Discord's headers, and the 429 answer when one is empty.

    ``clock`` is the one discord.py sleeps on (the event loop's monotonic time), so the waits it
    computes from ``Reset-After`` line up with the buckets' windows.
    """

    def __init__(
        self,
        rules: Mapping[str, tuple[int, float]] | None = None,
        *,
        global_rule: tuple[int, float] | None = GLOBAL_RULE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rules = dict(DEFAULT_RULES if rules is None else rules)
        self.global_rule = global_rule
        self.clock = clock
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self.limited: list[tuple[str, float]] = []  # (route key, retry_after) of every 429 sent

    def _bucket(self, key: str, major: str, rule: tuple[int, float]) -> _Bucket:
        bucket = self._buckets.get((key, major))
        if bucket is None:
            bucket = self._buckets[(key, major)] = _Bucket(*rule)
        now = self.clock()
        if now >= bucket.resets:
            bucket.remaining, bucket.resets = bucket.limit, now + bucket.per
        return bucket

    def spend(self, key: str, major: str, count: int = 1) -> None:
        """Use up requests of a bucket as another client of the same bot token would (another
        process, a shard): discord.py's idea of the bucket is then stale and it meets a 429."""
        rule = self.rules[key]
        bucket = self._bucket(key, major, rule)
        bucket.remaining = max(0, bucket.remaining - count)

    def take(
        self, request: Request, *, interaction: bool
    ) -> tuple[dict[str, str], Response | None]:
        """The rate-limit headers for this request, and the 429 to send if it is over a limit."""
        if self.global_rule is not None and not interaction:
            glob = self._bucket("global", "", self.global_rule)
            if glob.remaining <= 0:
                return {}, self._too_many(request.key, glob, scope="global")
            glob.remaining -= 1
        rule = self.rules.get(request.key)
        if rule is None:
            return {}, None
        bucket = self._bucket(request.key, request.major, rule)
        headers = self._headers(request.key, bucket)
        if bucket.remaining <= 0:
            return headers, self._too_many(request.key, bucket, scope="user", headers=headers)
        bucket.remaining -= 1
        headers["X-RateLimit-Remaining"] = str(bucket.remaining)
        return headers, None

    def _headers(self, key: str, bucket: _Bucket) -> dict[str, str]:
        after = max(0.0, bucket.resets - self.clock())
        return {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(bucket.remaining),
            "X-RateLimit-Reset": f"{time.time() + after:.3f}",
            "X-RateLimit-Reset-After": f"{after:.3f}",
            "X-RateLimit-Bucket": hashlib.sha1(key.encode()).hexdigest()[:16],
        }

    def _too_many(
        self, key: str, bucket: _Bucket, *, scope: str, headers: dict[str, str] | None = None
    ) -> Response:
        retry_after = round(max(0.001, bucket.resets - self.clock()), 3)
        self.limited.append((key, retry_after))
        out = dict(headers or {})
        out.update({"Retry-After": str(math.ceil(retry_after)), "X-RateLimit-Scope": scope})
        if scope == "global":
            out["X-RateLimit-Global"] = "true"
        body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": scope == "global",
        }
        return Response(429, body, out)

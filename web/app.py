"""The app factory, and the plugin host: an extension (cog) with a ``web_blueprint`` attribute
brings pages, mounted under ``/x/<blueprint name>/`` while it is loaded.

Quart (like Flask) cannot register a blueprint once it has served a request, so each
extension's blueprint gets a small Quart app of its own sharing the dashboard's state, session
and templates; :class:`HostApp` hands it the requests under its prefix. The set of mounted
blueprints is read from ``bot.cogs`` on each request, so loading, reloading and unloading an
extension mount and unmount its pages with no hook to forget.
"""

from __future__ import annotations

__all__ = ["HostApp", "create_app"]

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from markupsafe import Markup, escape
from quart import Blueprint, Quart, Response, redirect, render_template, request
from quart_rate_limiter import RateLimiter, RateLimitExceeded
from quart_schema import QuartSchema, RequestSchemaValidationError, hide
from quart_schema.validation import (
    QUART_SCHEMA_QUERYSTRING_ATTRIBUTE,
    QUART_SCHEMA_REQUEST_ATTRIBUTE,
    QuerystringValidationError,
)
from werkzeug.exceptions import HTTPException

from bot import errors
from bot.aio import cancel_and_wait
from bot.config import Settings
from bot.i18n import N_, _
from bot.store.web_sessions import WebSessionStore
from web import (
    admin,
    api,
    api_events,
    api_groups,
    api_ops,
    api_plan,
    audit,
    auth,
    calendar,
    discord_events,
    events,
    extensions,
    flashes,
    groups,
    history,
    i18n,
    inputs,
    metrics,
    picker,
    plan,
    preferences,
    program_repeats,
    programs,
    servers,
    tasks,
    tokens,
    triggers,
)
from web.auth import LoginLinks, Sessions, csrf_token
from web.context import EXTENSION, HostBot, WebError, WebState
from web.inputs import too_large
from web.markup import discord_html, discord_inline, plain_json
from web.rate_store import DatabaseRateStore

if TYPE_CHECKING:
    from bot.operations import Operations
    from bot.services import Services

log = logging.getLogger(__name__)


class _TemplateCode(BytecodeCache):
    """The compiled templates, kept for the process: each app made in it (the tests make
    hundreds) compiles a template once, not once per app. Jinja checks each entry against
    the template's source before using it."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_TEMPLATE_CODE = _TemplateCode()

HERE = Path(__file__).resolve().parent
PLUGIN_PREFIX = "/x/"
SHARED_CONFIG = (
    "SECRET_KEY",
    "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_SAMESITE",
    "SESSION_COOKIE_SECURE",
    "SESSION_COOKIE_NAME",
    "MAX_CONTENT_LENGTH",
    "MAX_FORM_MEMORY_SIZE",
)


def ticks(text: object) -> Markup:
    """The outcome sentences mark ids with `backticks` (Discord's code spans): escaped, then
    shown as <code> in the page."""
    return Markup(re.sub(r"`([^`\n]+)`", r"<code>\1</code>", str(escape(str(text)))))


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


TITLES = {
    400: N_("Not understood"),
    401: N_("Log in first"),
    403: N_("Not allowed"),
    404: N_("Not found"),
    405: N_("Not allowed"),
    413: N_("Too large"),
    429: N_("Slow down"),
}


async def _error_page(status: int, message: object, field: str | None = None) -> Any:
    """The one shape of a refusal: JSON `{"error", "field"}` for the API, else a page."""
    text = str(message)  # a lazy text comes out in the request's locale here
    if _wants_json():
        return {"error": text, "field": field}, status
    title = _(TITLES.get(status, N_("Something went wrong")))
    return await render_template("message.html", title=title, message=text), status


def _http_message(exc: HTTPException) -> str:
    if exc.code == 413:
        return too_large()
    if exc.code == 405:
        return _("This address does not take {method} requests.", method=request.method)
    if exc.code == 400:
        return _("The request could not be read: {error}", error=exc.description or "")
    return str(exc.description or exc.name)


def _install_handlers(app: Quart) -> None:
    app.before_request(inputs.limit_body)

    @app.errorhandler(WebError)
    async def web_error(exc: WebError) -> Any:
        return await _error_page(exc.status, exc.message, exc.field)

    @app.errorhandler(RateLimitExceeded)
    async def too_many(exc: RateLimitExceeded) -> Any:
        said = _("Too many attempts in a short time: wait a minute.")
        body, status = await _error_page(429, said)
        return body, status, {"Retry-After": str(exc.retry_after)}

    @app.errorhandler(RequestSchemaValidationError)
    async def bad_body(exc: RequestSchemaValidationError) -> Any:
        view = app.view_functions.get(request.endpoint or "")
        which = (
            QUART_SCHEMA_QUERYSTRING_ATTRIBUTE
            if isinstance(exc, QuerystringValidationError)
            else QUART_SCHEMA_REQUEST_ATTRIBUTE
        )
        model = getattr(view, which, None)
        model = model[0] if isinstance(model, tuple) else model  # (model, source) for bodies
        text, field = inputs.body_refusal(exc.validation_error, model)
        if isinstance(exc, QuerystringValidationError):
            error = _("The query string does not fit: {error}", error=text)
        else:
            error = _("The request body does not fit the schema: {error}", error=text)
        return await _error_page(400, error, field)

    @app.errorhandler(errors.ValidationError)
    async def refused(exc: errors.ValidationError) -> Any:
        return await _error_page(400, exc)

    @app.errorhandler(errors.BotError)
    async def unavailable(exc: errors.BotError) -> Any:  # the Minecraft server's side failed
        return await _error_page(503, exc)

    @app.errorhandler(HTTPException)
    async def http_error(exc: HTTPException) -> Any:
        # without this the handler for Exception below would turn every 4xx Quart raises
        # (413 too large, 405, a body that is not JSON) into a 500
        return await _error_page(exc.code or 500, _http_message(exc))

    @app.errorhandler(404)
    async def not_found(exc: Exception) -> Any:
        return await _error_page(404, _("There is no such page."))

    @app.errorhandler(Exception)
    async def unexpected(exc: Exception) -> Any:
        ref = secrets.token_hex(4)
        log.exception("web: unexpected error %s on %s %s", ref, request.method, request.path)
        return await _error_page(500, _("Unexpected error; quote {ref} to the admins.", ref=ref))

    app.jinja_env.bytecode_cache = _TEMPLATE_CODE
    app.jinja_env.filters["ticks"] = ticks
    app.jinja_env.globals["server_choices"] = picker.choices  # the pages' server picker
    # the messages a write flashed, kept on the server (web.flashes), not in the cookie
    app.jinja_env.globals["get_flashed_messages"] = flashes.get_flashed_messages
    # the outcomes flashed are the sentences Discord gets: bold, code, <t:…> times
    app.jinja_env.filters["discord"] = discord_html
    app.jinja_env.filters["discord_inline"] = discord_inline

    @app.context_processor
    async def common() -> dict[str, Any]:
        host = app if isinstance(app, HostApp) else app.config.get("DOOM_HOST")
        plugins = host.plugins() if isinstance(host, HostApp) else []
        return {"csrf_token": csrf_token, "plugins": plugins}

    @app.after_request
    async def plain_api(response: Response) -> Response:
        # the API speaks JSON, not Discord: the sentences without markup, times in ISO 8601
        api = request.path.startswith("/api/") and request.path != "/api/openapi.json"
        if api and response.mimetype == "application/json":
            body = await response.get_json()
            response.set_data(app.json.dumps(plain_json(body)))
        return response

    @app.after_request
    async def headers(response: Response) -> Response:
        # no framing (clickjacking), no sniffing, nothing loaded from elsewhere
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if not request.path.startswith("/api/docs"):
            response.headers.setdefault(
                "Content-Security-Policy",
                "default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
            )
        return response


class HostApp(Quart):
    """The dashboard app; requests under /x/<name>/ go to a loaded extension's own app."""

    bot: HostBot | None  # None: no Discord, so no cogs and no pages of theirs
    serving: asyncio.Event  # set once Hypercorn has started the app
    _mounted: dict[int, Quart]

    def _cogs(self) -> list[Any]:
        return [] if self.bot is None else list(self.bot.cogs.values())

    def plugins(self) -> list[tuple[str, str]]:
        """(label, path) of every mounted extension page, for the navigation."""
        return [(label, f"{PLUGIN_PREFIX}{name}/") for name, (label, _b) in self._pages().items()]

    def _pages(self) -> dict[str, tuple[str, Blueprint]]:
        """The pages of the loaded plugins (bot.plugins, with no cog behind them) and of the
        loaded cogs that bring a `web_blueprint`, by their path's name."""
        found: dict[str, tuple[str, Blueprint]] = dict(self.extensions[EXTENSION].ops.pages)
        for cog in self._cogs():
            blueprint: Blueprint | None = getattr(cog, "web_blueprint", None)
            if blueprint is not None:
                found[blueprint.name] = (getattr(cog, "web_label", blueprint.name), blueprint)
        return found

    def _blueprints(self) -> dict[str, Blueprint]:
        return {name: blueprint for name, (_label, blueprint) in self._pages().items()}

    async def _mount(self, blueprint: Blueprint) -> Quart:
        sub = self._mounted.get(id(blueprint))
        if sub is None:
            sub = Quart(
                blueprint.import_name, template_folder=str(HERE / "templates"), static_folder=None
            )
            for key in SHARED_CONFIG:
                sub.config[key] = self.config.get(key)
            sub.config["DOOM_HOST"] = self
            sub.extensions[EXTENSION] = self.extensions[EXTENSION]
            sub.secret_key = self.secret_key
            i18n.install(sub)
            _install_handlers(sub)
            sub.register_blueprint(blueprint, url_prefix=PLUGIN_PREFIX + blueprint.name)
            await sub.startup()
            self._mounted[id(blueprint)] = sub
            log.info(
                "web: mounted the pages of %s at %s%s/",
                blueprint.import_name,
                PLUGIN_PREFIX,
                blueprint.name,
            )
        return sub

    async def _unmount_stale(self, live: dict[str, Blueprint]) -> None:
        keep = {id(b) for b in live.values()}
        for key in [k for k in self._mounted if k not in keep]:
            sub = self._mounted.pop(key)
            with contextlib.suppress(Exception):
                await sub.shutdown()
            log.info("web: unmounted %s", sub.import_name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        path: str = scope.get("path", "")
        if scope.get("type") == "http" and path.startswith(PLUGIN_PREFIX):
            live = self._blueprints()
            await self._unmount_stale(live)
            name = path[len(PLUGIN_PREFIX) :].split("/", 1)[0]
            if name in live:
                sub = await self._mount(live[name])
                await sub(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


def create_app(
    services: Services,
    *,
    bot: HostBot | None,
    ops: Operations | None = None,
    settings: Settings | None = None,
    clock: Callable[[], float] = time.time,
    secret: bytes | None = None,
    base_url: str = "",
) -> HostApp:
    """The dashboard for these services and the core's operations `ops` (default: the bot's);
    `bot` is the Discord bot when one runs. `clock` (epoch seconds) drives link and session
    expiry; `secret` signs cookies, links and tokens (default: the key kept in the database,
    read when the app starts, so every process serving the dashboard accepts the others'
    cookies and links, and a restart logs no one out)."""
    from web.metrics import Metrics

    settings = settings or services.settings
    store = WebSessionStore(services.db)
    app = HostApp(__name__, template_folder="templates", static_folder="static")
    app.bot = bot
    app._mounted = {}
    app.serving = asyncio.Event()
    app.secret_key = None
    https = (settings.web_url or base_url).startswith("https://")
    app.config.update(
        SESSION_COOKIE_NAME="doom_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",  # sent when following a link in, never on cross-site posts
        SESSION_COOKIE_SECURE=https,
        # one limit for every body (DOOM_WEB_MAX_BODY): Quart's for the whole body, and its
        # limit for one form field's value, which would otherwise be 500,000 bytes
        MAX_CONTENT_LENGTH=settings.web_max_body,
        MAX_FORM_MEMORY_SIZE=settings.web_max_body,
        QUART_SCHEMA_CONVERSION_PREFERENCE="pydantic",
    )
    found_ops = ops if ops is not None else getattr(bot, "ops", None)
    if found_ops is None:
        raise ValueError("the dashboard needs the core's operations, or a bot holding them")
    web = WebState(
        services,
        found_ops,
        bot,
        settings,
        LoginLinks(store, clock),
        Sessions(store, clock),
        Metrics(services, found_ops),
        clock,
        base_url,
    )
    app.extensions[EXTENSION] = web

    def keyed(key: bytes) -> None:
        app.secret_key = key
        web.links.keyed(key)
        web.sessions.keyed(key)

    if secret is not None:
        keyed(secret)

    @app.before_serving
    async def signing_key() -> None:
        if app.secret_key is None:
            keyed(await store.signing_key(clock()))

    app.jinja_env.filters["ticks"] = ticks
    QuartSchema(
        # the API's reference at /api/docs (ReDoc, served by quart-schema from the document)
        app,
        openapi_path="/api/openapi.json",
        swagger_ui_path=None,
        redoc_ui_path="/api/docs",
        scalar_ui_path=None,
        info={"title": "doom.schedule dashboard API", "version": "1"},
        security_schemes={"bearer": {"type": "http", "scheme": "bearer"}},
        security=[{"bearer": []}],
    )
    i18n.install(app)  # first: the rate limiter's refusal is a page in the reader's language
    # counted in the database: the limits hold across every process serving the dashboard
    RateLimiter(app, store=DatabaseRateStore(services.db))
    pages = (
        auth,
        servers,
        tasks,
        groups,
        history,
        plan,
        admin,
        events,
        discord_events,
        programs,
        program_repeats,
        triggers,
        audit,
        calendar,
        extensions,
        tokens,
        preferences,
        picker,
    )
    for module in (*pages, api, api_events, api_groups, api_plan, metrics):
        app.register_blueprint(module.blueprint)
    app.register_blueprint(api_ops.blueprint_for(web.ops.registry))

    @app.get("/favicon.ico")
    async def favicon() -> Any:  # for clients that ask before reading the page's <link rel=icon>
        return redirect("/static/favicon.svg", 301)

    for rule in app.url_map.iter_rules():  # the OpenAPI document is the API's, not the pages'
        if not rule.rule.startswith("/api/"):
            view = app.view_functions[rule.endpoint]
            hide(getattr(view, "__func__", view))  # send_static_file is a bound method
    _install_handlers(app)
    watchers: list[asyncio.Task[None]] = []

    @app.before_serving
    async def watch_events() -> None:
        await web.metrics.start()
        app.serving.set()
        # the bus keeps the recent history and counts by type while someone listens: listen
        # for as long as the dashboard runs, whether or not the alerts cog is loaded
        for name, server in services.servers.items():
            if server.events is not None:
                watchers.append(asyncio.create_task(_listen(services, name, server.events)))

    @app.after_serving
    async def stop_watching() -> None:
        await cancel_and_wait(*watchers)
        watchers.clear()
        for sub in list(app._mounted.values()):
            with contextlib.suppress(Exception):
                await sub.shutdown()
        app._mounted.clear()

    return app


async def _listen(services: Services, name: str, source: Any) -> None:
    async with services.bus.subscribe(name, source, maxsize=1) as sub:
        async for _ in sub:
            pass  # the bus itself counts and keeps history

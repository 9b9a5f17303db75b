"""Login without a password: a one-time link from `/dashboard` (or, with no Discord, from
``python -m bot login``) opens a session; scripts send an API token.

The link carries a signed claim (itsdangerous' timestamped serializer: the project writes no
crypto) with a nonce that is good once and for :data:`LINK_TTL` seconds. Opening it shows a
"Log in" button and only pressing it spends the nonce, so a link preview that fetches the URL
cannot use it up. The session lives in the database (bot.store.web_sessions), so every process
serving the dashboard knows it and a logout ends it in all; the cookie holds only its id, signed
by Quart with the key the database keeps for all of them. CSRF tokens and a session's API
tokens are the session's secrets, signed; a long-lived API token (``python -m bot token new``)
and a ``login`` link are kept hashed in the database (bot.operations.access) and carry their
own rank.
"""

from __future__ import annotations

__all__ = [
    "LINK_TTL",
    "LinkClaim",
    "LoginLinks",
    "Sessions",
    "WebSession",
    "action",
    "api_token",
    "blueprint",
    "csrf_token",
    "current_user",
    "page",
    "write_limit",
]

import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from itsdangerous import (
    BadSignature,
    SignatureExpired,
    TimestampSigner,
    URLSafeSerializer,
    URLSafeTimedSerializer,
)
from quart import Blueprint, g, redirect, render_template, request, session
from quart_rate_limiter import RateLimit, rate_limit
from werkzeug.exceptions import HTTPException

from bot.i18n import N_, _
from bot.operations import access
from bot.operations.ranks import Rank
from bot.store.access import TOKEN_PREFIX
from bot.store.web_sessions import SessionRow, WebSessionStore
from web.context import WebError, WebUser, state

log = logging.getLogger(__name__)

LINK_TTL = 300  # seconds a login link stays good
SESSION_TTL = 12 * 3600.0
P = ParamSpec("P")
R = TypeVar("R")
_LOADED = "doom_web_session"  # the request's session once read (in quart.g)

blueprint = Blueprint("auth", __name__)


@dataclass(frozen=True, slots=True)
class LinkClaim:
    user_id: int
    guild_id: int
    name: str


class LoginLinks:
    """Signed one-time login tokens; `clock` (epoch seconds) is injectable for tests. A link is
    good once whichever process opens it: its nonce is marked spent in the database."""

    def __init__(self, store: WebSessionStore, clock: Callable[[], float]) -> None:
        self._store = store
        self._clock = clock
        self._serializer: URLSafeTimedSerializer | None = None

    def keyed(self, secret: bytes) -> None:
        """Sign with `secret` (the key every process shares, or one a test gives)."""
        clock = self._clock

        class _Signer(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(clock())

        self._serializer = URLSafeTimedSerializer(secret, salt="doom-login", signer=_Signer)

    @property
    def serializer(self) -> URLSafeTimedSerializer:
        if self._serializer is None:
            raise RuntimeError("the dashboard has no signing key yet: it is read when it starts")
        return self._serializer

    def issue(self, user_id: int, guild_id: int, name: str) -> str:
        nonce = secrets.token_urlsafe(16)
        token: str = self.serializer.dumps({"u": user_id, "g": guild_id, "n": name, "k": nonce})
        return token

    async def check(self, token: str, *, spend: bool) -> LinkClaim:
        """The claim of a good link; WebError(403) with the reason otherwise."""
        try:
            data = self.serializer.loads(token, max_age=LINK_TTL)
        except SignatureExpired:
            raise WebError(
                403,
                _(
                    "This login link has expired (links last 5 minutes): "
                    "run /dashboard again for a new one."
                ),
            ) from None
        except BadSignature:
            raise WebError(
                403, _("This is not a valid login link: run /dashboard for one.")
            ) from None
        nonce = data.get("k") if isinstance(data, dict) else None
        now = self._clock()
        if not isinstance(nonce, str) or (
            not await self._store.spend_link(nonce, now, now + LINK_TTL)
            if spend
            else await self._store.link_spent(nonce)
        ):
            raise WebError(
                403,
                _(
                    "This login link was already used (each link works once): "
                    "run /dashboard again for a new one."
                ),
            )
        return LinkClaim(int(data["u"]), int(data["g"]), str(data["n"]))

    def signed_by_us(self, token: str) -> tuple[int, str] | None:
        """(user id, link nonce) of a token this bot signed, however old or used; None for
        any other text. The login rate limits count by these, never by a forged claim."""
        try:
            data = self.serializer.loads(token)
            return int(data["u"]), str(data["k"])
        except (BadSignature, KeyError, TypeError, ValueError):
            return None


@dataclass(eq=False)
class WebSession:
    sid: str
    user_id: int
    guild_id: int
    name: str
    expires: float
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    rank: Rank | None = None
    rank_at: float = 0.0
    # the rank a login link made without Discord gives, fixed (no roles to ask again)
    fixed_rank: Rank | None = None
    # the messages kept for it when it was read (web.flashes takes them from the database)
    flashes: list[tuple[str, str]] = field(default_factory=list)


def _rank(value: int | None) -> Rank | None:
    return None if value is None else Rank(value)


class Sessions:
    """Sessions in the database, by id, shared by every process serving the dashboard; ended
    by logout (in all of them), by expiry, or when roles are gone."""

    def __init__(self, store: WebSessionStore, clock: Callable[[], float]) -> None:
        self.store = store
        self._clock = clock
        self._csrf: URLSafeSerializer | None = None
        self._api: URLSafeSerializer | None = None

    def keyed(self, secret: bytes) -> None:
        self._csrf = URLSafeSerializer(secret, salt="doom-csrf")
        self._api = URLSafeSerializer(secret, salt="doom-api")

    def _signers(self) -> tuple[URLSafeSerializer, URLSafeSerializer]:
        if self._csrf is None or self._api is None:
            raise RuntimeError("the dashboard has no signing key yet: it is read when it starts")
        return self._csrf, self._api

    async def open(self, claim: LinkClaim, rank: Rank | None = None) -> WebSession:
        """A session for the claim's user; `rank` fixes their rank (a `login` link's)."""
        now = self._clock()
        sid = secrets.token_urlsafe(24)
        found = WebSession(sid, claim.user_id, claim.guild_id, claim.name, now + SESSION_TTL)
        found.fixed_rank = rank
        row = SessionRow(
            sid, found.user_id, found.guild_id, found.name, found.expires, found.csrf, rank
        )
        await self.store.open(row, now)
        return found

    async def get(self, sid: object) -> WebSession | None:
        if not isinstance(sid, str) or not sid:
            return None
        row = await self.store.get(sid, self._clock())
        if row is None:
            return None
        found = WebSession(sid, row.user_id, row.guild_id, row.name, row.expires, row.csrf)
        found.fixed_rank = _rank(row.rank)
        found.rank, found.rank_at = _rank(row.seen_rank), row.seen_at
        found.flashes = row.flashes
        return found

    async def end(self, sid: str) -> None:
        await self.store.end(sid)

    async def seen(self, found: WebSession) -> None:
        """Keep what Discord said of the user (name, rank) for the next reads, in any process."""
        if found.rank is not None and not found.sid.startswith("token:"):
            await self.store.seen(found.sid, found.name, int(found.rank), found.rank_at)

    def csrf_token(self, found: WebSession) -> str:
        token: str = self._signers()[0].dumps(found.csrf)
        return token

    def csrf_ok(self, found: WebSession, token: str | None) -> bool:
        if not token:
            return False
        try:
            value = self._signers()[0].loads(token)
        except BadSignature:
            return False
        return isinstance(value, str) and hmac.compare_digest(value, found.csrf)

    def api_token(self, found: WebSession) -> str:
        token: str = self._signers()[1].dumps(found.sid)
        return token

    async def by_api_token(self, token: str) -> WebSession | None:
        try:
            sid = self._signers()[1].loads(token)
        except BadSignature:
            return None
        return await self.get(sid)


# -- who is asking ---------------------------------------------------------------------------


async def cookie_session() -> WebSession | None:
    """The server-side session the request's cookie names, if it is open (read from the
    database once per request)."""
    if _LOADED not in g:
        setattr(g, _LOADED, await state().sessions.get(session.get("sid")))
    found: WebSession | None = getattr(g, _LOADED)
    return found


def _forget_loaded() -> None:
    g.pop(_LOADED, None)


async def current_user(*, fresh: bool = False) -> WebUser:
    """The logged-in user with their current rank; WebError(401/403) otherwise."""
    web = state()
    header = request.headers.get("Authorization", "")
    by_token = header.startswith("Bearer ")
    found = await _by_bearer(header[7:].strip()) if by_token else await cookie_session()
    if found is None:
        raise WebError(401, not_logged_in())
    rank = await web.rank(found, fresh=fresh)
    if rank < Rank.MODERATOR:
        await web.sessions.end(found.sid)
        _forget_loaded()
        log.info("web session of user %s ended: no dashboard role any more", found.user_id)
        raise WebError(
            403, _("Your Discord roles no longer allow the dashboard; you were logged out.")
        )
    return WebUser(found.user_id, found.name, found.guild_id, rank, found, by_token)


def not_logged_in() -> str:
    """How to log in, said for what runs here: Discord's /dashboard, or the CLI's."""
    if state().bot is None:
        return _(
            "You are not logged in: an admin of this server runs 'python -m bot login' for a "
            "one-time link, or 'python -m bot token new NAME' for an API token."
        )
    return _("You are not logged in: run /dashboard in Discord for a login link.")


async def _by_bearer(token: str) -> WebSession | None:
    """A session's own API token, or a long-lived one (kept hashed in the database)."""
    web = state()
    if not token.startswith(TOKEN_PREFIX):
        return await web.sessions.by_api_token(token)
    grant = await access.token_grant(web.ops, token)
    if grant is None:
        return None
    # no session is kept for it: each request shows the token, revoking it ends it at once
    found = WebSession(f"token:{grant.name}", 0, 0, _("token {name}", name=grant.name), 0.0)
    found.fixed_rank = access.rank_of(grant.rank)
    return found


def _need(user: WebUser, rank: Rank, what: str) -> None:
    if user.rank < rank:
        log.info("web: refused %s to user %s (rank %s)", what, user.id, user.rank.name)
        raise WebError(403, _("You need the admin role to {what}.", what=_(what)))


def page(
    rank: Rank = Rank.MODERATOR, what: str = N_("see this")
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """A read: needs a session whose roles (asked at most every few seconds) give `rank`;
    `what` (marked with N_, translated when refused) ends "You need the admin role to …"."""

    def decorator(func: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            g.user = await current_user()
            _need(g.user, rank, what)
            return await func(*args, **kwargs)

        return wrapper

    return decorator


def action(
    rank: Rank = Rank.MODERATOR, what: str = N_("do this")
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """A write: a CSRF token (form field or X-CSRF-Token; not for bearer tokens) and the roles
    Discord reports right now."""

    def decorator(func: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            web = state()
            header = request.headers.get("Authorization", "")
            if not header.startswith("Bearer "):
                found = await cookie_session()
                token = request.headers.get("X-CSRF-Token")
                if token is None and request.mimetype != "application/json":
                    token = (await request.form).get("csrf_token")
                if found is not None and not web.sessions.csrf_ok(found, token):
                    raise WebError(
                        403,
                        _(
                            "The form's security token is missing or wrong: "
                            "reload the page and try again."
                        ),
                    )
            g.user = await current_user(fresh=True)
            _need(g.user, rank, what)
            return await func(*args, **kwargs)

        return wrapper

    return decorator


async def csrf_token() -> str:
    """For templates (which await it): the CSRF token of the current session ('' when logged
    out)."""
    found = await cookie_session()
    return state().sessions.csrf_token(found) if found is not None else ""


def api_token(user: WebUser) -> str:
    return state().sessions.api_token(user.session)


async def _login_token() -> str:
    if request.method != "POST":
        return request.args.get("t", "")
    try:
        form = await request.form
    except HTTPException:  # too large: web.inputs answers 413; the limits count the address
        return ""
    return str(form.get("t", ""))


async def _link_key() -> str:
    """A link this bot signed counts by itself; any other text by the client's address (the
    one a trusted proxy names, DOOM_WEB_TRUSTED_PROXIES): one person's typos behind a proxy
    lock out neither the other people behind it nor anyone's real link."""
    signed = state().links.signed_by_us(await _login_token())
    return f"link:{signed[1]}" if signed else f"addr:{request.remote_addr}"


async def _user_key() -> str:
    signed = state().links.signed_by_us(await _login_token())
    return f"user:{signed[0]}" if signed else f"addr:{request.remote_addr}"


# a login link: 10 tries a minute for one link (or one address sending no link of ours), 20
# for all the links of one user
login_limit = rate_limit(
    limits=[
        RateLimit(10, timedelta(minutes=1), _link_key),
        RateLimit(20, timedelta(minutes=1), _user_key),
    ]
)


# -- routes ----------------------------------------------------------------------------------


async def _code_claim(code: str, *, spend: bool) -> tuple[LinkClaim, Rank]:
    """The claim of a good `python -m bot login` link; WebError(403) otherwise."""
    grant = await access.login_grant(state().ops, code, spend=spend)
    if grant is None:
        raise WebError(
            403,
            _(
                "This login link has expired or was already used (each link works once, for 5 "
                "minutes): run 'python -m bot login' again for a new one."
            ),
        )
    return LinkClaim(0, 0, grant.name), access.rank_of(grant.rank)


@blueprint.get("/login")
@login_limit
async def login_form() -> Any:
    code = request.args.get("c", "")
    if code:
        claim, _rank = await _code_claim(code, spend=False)
        return await render_template("login.html", field="c", token=code, claim=claim)
    token = request.args.get("t", "")
    claim = await state().links.check(token, spend=False)
    return await render_template("login.html", field="t", token=token, claim=claim)


@blueprint.post("/login")
@login_limit
async def login() -> Any:
    form = await request.form
    rank: Rank | None = None
    if form.get("c"):
        claim, rank = await _code_claim(str(form["c"]), spend=True)
    else:
        claim = await state().links.check(form.get("t", ""), spend=True)
    opened = await state().sessions.open(claim, rank)
    _forget_loaded()
    session.clear()
    session["sid"] = opened.sid
    log.info("web login: user %s", claim.user_id)
    return redirect("/servers", 303)


@blueprint.post("/logout")
async def logout() -> Any:
    web = state()
    found = await cookie_session()
    if found is not None:
        if not web.sessions.csrf_ok(found, (await request.form).get("csrf_token")):
            raise WebError(403, _("The form's security token is missing or wrong."))
        await web.sessions.end(found.sid)  # in every process: they read it from the database
        _forget_loaded()
    session.clear()
    return redirect("/logged-out", 303)  # an address that opens again, unlike a POST's


@blueprint.get("/logged-out")
async def logged_out() -> Any:
    if await cookie_session() is not None:
        return redirect("/servers", 303)  # not logged out (another tab logged in again)
    message = (
        _("You are logged out. /dashboard gives a new link.")
        if state().bot is not None
        else _("You are logged out. 'python -m bot login' gives a new link.")
    )
    return await render_template("message.html", title=_("Logged out"), message=message)


async def _writer_key() -> str:
    header = request.headers.get("Authorization", "")
    who = header[-24:] if header.startswith("Bearer ") else session.get("sid")
    return f"write:{who or request.remote_addr}"


# writes per session (or token): generous for a person, a brake on a runaway script
write_limit = rate_limit(60, timedelta(minutes=1), key_function=_writer_key)

"""Login without a password: a one-time link from `/dashboard` (or, with no Discord, from
``python -m bot login``) opens a session; scripts send an API token.

The link carries a signed claim (itsdangerous' timestamped serializer: the project writes no
crypto) with a nonce that is good once and for :data:`LINK_TTL` seconds. Opening it shows a
"Log in" button and only pressing it spends the nonce, so a link preview that fetches the URL
cannot use it up. The session lives on the server (logout ends it everywhere); the cookie holds
only its id, signed by Quart. CSRF tokens and a session's API tokens are the session's
secrets, signed; a long-lived API token (``python -m bot token new``) and a ``login`` link
are kept hashed in the database (bot.operations.access) and carry their own rank.
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
from web.context import WebError, WebUser, state

log = logging.getLogger(__name__)

LINK_TTL = 300  # seconds a login link stays good
SESSION_TTL = 12 * 3600.0
P = ParamSpec("P")
R = TypeVar("R")

blueprint = Blueprint("auth", __name__)


@dataclass(frozen=True, slots=True)
class LinkClaim:
    user_id: int
    guild_id: int
    name: str


class LoginLinks:
    """Signed one-time login tokens; `clock` (epoch seconds) is injectable for tests."""

    def __init__(self, secret: bytes, clock: Callable[[], float]) -> None:
        class _Signer(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(clock())

        self._clock = clock
        self._serializer = URLSafeTimedSerializer(secret, salt="doom-login", signer=_Signer)
        self._pending: dict[str, float] = {}  # nonce -> expiry

    def issue(self, user_id: int, guild_id: int, name: str) -> str:
        now = self._clock()
        self._pending = {n: t for n, t in self._pending.items() if t > now}
        nonce = secrets.token_urlsafe(16)
        self._pending[nonce] = now + LINK_TTL
        token: str = self._serializer.dumps({"u": user_id, "g": guild_id, "n": name, "k": nonce})
        return token

    def check(self, token: str, *, spend: bool) -> LinkClaim:
        """The claim of a good link; WebError(403) with the reason otherwise."""
        try:
            data = self._serializer.loads(token, max_age=LINK_TTL)
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
        if nonce not in self._pending or self._pending[nonce] <= self._clock():
            raise WebError(
                403,
                _(
                    "This login link was already used (each link works once): "
                    "run /dashboard again for a new one."
                ),
            )
        if spend:
            del self._pending[nonce]
        return LinkClaim(int(data["u"]), int(data["g"]), str(data["n"]))

    def signed_by_us(self, token: str) -> tuple[int, str] | None:
        """(user id, link nonce) of a token this bot signed, however old or used; None for
        any other text. The login rate limits count by these, never by a forged claim."""
        try:
            data = self._serializer.loads(token)
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
    flashes: list[tuple[str, str]] = field(default_factory=list)  # web.flashes: (category, text)


class Sessions:
    """Sessions on the server, by id; ended by logout, by expiry, or when roles are gone."""

    def __init__(self, secret: bytes, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._by_id: dict[str, WebSession] = {}
        self._csrf = URLSafeSerializer(secret, salt="doom-csrf")
        self._api = URLSafeSerializer(secret, salt="doom-api")

    def open(self, claim: LinkClaim, rank: Rank | None = None) -> WebSession:
        """A session for the claim's user; `rank` fixes their rank (a `login` link's)."""
        sid = secrets.token_urlsafe(24)
        found = WebSession(
            sid, claim.user_id, claim.guild_id, claim.name, self._clock() + SESSION_TTL
        )
        found.fixed_rank = rank
        self._by_id[sid] = found
        return found

    def get(self, sid: object) -> WebSession | None:
        found = self._by_id.get(sid) if isinstance(sid, str) else None
        if found is not None and found.expires <= self._clock():
            self.end(found.sid)
            return None
        return found

    def end(self, sid: str) -> None:
        self._by_id.pop(sid, None)

    def csrf_token(self, found: WebSession) -> str:
        token: str = self._csrf.dumps(found.csrf)
        return token

    def csrf_ok(self, found: WebSession, token: str | None) -> bool:
        if not token:
            return False
        try:
            value = self._csrf.loads(token)
        except BadSignature:
            return False
        return isinstance(value, str) and hmac.compare_digest(value, found.csrf)

    def api_token(self, found: WebSession) -> str:
        token: str = self._api.dumps(found.sid)
        return token

    def by_api_token(self, token: str) -> WebSession | None:
        try:
            sid = self._api.loads(token)
        except BadSignature:
            return None
        return self.get(sid)


# -- who is asking ---------------------------------------------------------------------------


def cookie_session() -> WebSession | None:
    """The server-side session the request's cookie names, if it is open."""
    return state().sessions.get(session.get("sid"))


async def current_user(*, fresh: bool = False) -> WebUser:
    """The logged-in user with their current rank; WebError(401/403) otherwise."""
    web = state()
    header = request.headers.get("Authorization", "")
    by_token = header.startswith("Bearer ")
    found = await _by_bearer(header[7:].strip()) if by_token else cookie_session()
    if found is None:
        raise WebError(401, not_logged_in())
    rank = await web.rank(found, fresh=fresh)
    if rank < Rank.MODERATOR:
        web.sessions.end(found.sid)
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
        return web.sessions.by_api_token(token)
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
                found = cookie_session()
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


def csrf_token() -> str:
    """For templates: the CSRF token of the current session ('' when logged out)."""
    found = cookie_session()
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
    claim = state().links.check(token, spend=False)
    return await render_template("login.html", field="t", token=token, claim=claim)


@blueprint.post("/login")
@login_limit
async def login() -> Any:
    form = await request.form
    rank: Rank | None = None
    if form.get("c"):
        claim, rank = await _code_claim(str(form["c"]), spend=True)
    else:
        claim = state().links.check(form.get("t", ""), spend=True)
    opened = state().sessions.open(claim, rank)
    session.clear()
    session["sid"] = opened.sid
    log.info("web login: user %s", claim.user_id)
    return redirect("/servers", 303)


@blueprint.post("/logout")
async def logout() -> Any:
    web = state()
    found = cookie_session()
    if found is not None:
        if not web.sessions.csrf_ok(found, (await request.form).get("csrf_token")):
            raise WebError(403, _("The form's security token is missing or wrong."))
        web.sessions.end(found.sid)
    session.clear()
    return redirect("/logged-out", 303)  # an address that opens again, unlike a POST's


@blueprint.get("/logged-out")
async def logged_out() -> Any:
    if cookie_session() is not None:
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

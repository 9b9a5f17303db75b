"""One SSH connection per server for its files over SFTP (asyncssh, an asyncio SSH library).

Rented servers (Pterodactyl, Pelican, shared hosting) give the bot no local file access but an
SFTP login whose root is the server's folder. The session connects on first use and again after
a drop, with a doubling wait capped at `backoff_max`; its state (connected, reconnecting since
when, the last error) is what /status says about it.

The host's key must be in the configured known_hosts file: an unknown or changed key is refused
with its SHA256 fingerprint and what to do, never trusted on first use. asyncssh is imported only
here, and only when a server has sftp_url, with the DSA deprecation warning cryptography gives on
its import silenced: it concerns asyncssh's support of DSA keys, which the bot never uses.
"""

from __future__ import annotations

__all__ = ["FileError", "SftpError", "SftpSession", "SftpState", "dropped", "is_missing"]

import asyncio
import logging
import time
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, TypeVar

from bot.config import ServerConfig, SftpTarget
from bot.errors import BotError
from bot.i18n import Text, lazy

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="DSA is deprecated")
    import asyncssh

if TYPE_CHECKING:
    from asyncssh import SFTPClient, SSHClientConnection

log = logging.getLogger(__name__)
T = TypeVar("T")

FileError = asyncssh.SFTPError  # what a file operation raises for a missing or forbidden file
# what a dropped or refused connection raises under an SFTP call: connect again
_DROPPED: tuple[type[BaseException], ...] = (
    asyncssh.DisconnectError,
    asyncssh.SFTPConnectionLost,
    asyncssh.SFTPNoConnection,
    ConnectionError,
    EOFError,
)


class SftpError(BotError):
    """The server's files cannot be reached over SFTP; the text says why and what to do."""


@dataclass(frozen=True, slots=True)
class SftpState:
    """What /status says: `connected`, or since when it has been reconnecting and why."""

    connected: bool
    failing_since: float | None  # wall clock of the first failure of the current outage
    last_error: str | None


class _HostKeyCatcher(asyncssh.SSHClient):
    """Keeps the key a host offered that known_hosts did not list, to name its fingerprint."""

    def __init__(self) -> None:
        self.offered: asyncssh.SSHKey | None = None

    def validate_host_public_key(self, host: str, addr: str, port: int, key: Any) -> bool:
        self.offered = key
        return False  # never trusted on first use


class SftpSession:
    """The SFTP client of one server, connected on first use; `call` runs one operation."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        connect_timeout: float = 15.0,
        backoff_initial: float = 1.0,
        backoff_max: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        target = config.sftp
        assert target is not None, "an SFTP session needs sftp_url"
        self.target: SftpTarget = target
        self.server = config.name
        self._password = config.sftp_password
        self._key_file = config.sftp_key_file
        self._known_hosts = config.sftp_known_hosts
        self.connect_timeout = connect_timeout
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self._clock = clock
        self._conn: SSHClientConnection | None = None
        self._sftp: SFTPClient | None = None
        self._lock = asyncio.Lock()
        self._failing_since: float | None = None
        self._last_error: str | None = None
        self.connects = 0  # successful connections, for tests

    @property
    def root(self) -> PurePosixPath:
        return PurePosixPath(self.target.path)

    def path(self, *parts: str) -> PurePosixPath:
        """A path under the server's root folder."""
        return self.root.joinpath(*parts)

    @property
    def state(self) -> SftpState:
        return SftpState(self._sftp is not None, self._failing_since, self._last_error)

    # -- the connection ----------------------------------------------------------------------

    async def client(self) -> SFTPClient:
        """The SFTP client, connecting if there is none (SftpError when it cannot)."""
        async with self._lock:
            if self._sftp is not None:
                return self._sftp
            try:
                self._sftp = await self._connect()
            except SftpError as exc:
                self.failed(exc)
                raise
            self._failing_since = None
            self.connects += 1
            log.info("%s: connected to %s", self.server, self.target)
            return self._sftp

    async def _connect(self) -> SFTPClient:
        known = self._read_known_hosts()
        keys = self._read_key() if self._key_file is not None else None
        catcher = _HostKeyCatcher()
        where = f"{self.target.host}:{self.target.port}"
        try:
            async with asyncio.timeout(self.connect_timeout):
                conn = await asyncssh.connect(
                    self.target.host,
                    self.target.port,
                    username=self.target.user,
                    password=None if self._password is None else self._password.get_secret_value(),
                    client_keys=keys,
                    known_hosts=known,
                    client_factory=lambda: catcher,
                    agent_path=None,  # only the configured key or password
                    config=None,  # never the user's ~/.ssh/config
                    preferred_auth="publickey" if keys else "password,keyboard-interactive",
                )
                try:
                    sftp = await conn.start_sftp_client()
                except BaseException:
                    conn.close()
                    raise
        except asyncssh.HostKeyNotVerifiable:
            raise SftpError(self._host_key_refusal(known, catcher.offered)) from None
        except asyncssh.PermissionDenied:
            raise SftpError(
                lazy(
                    "{where} refused the login of {user}: check {setting} of server {server} "
                    "(on Pterodactyl or Pelican: the panel account's password, and the user "
                    "shown under Settings > SFTP Details).",
                    where=where,
                    user=self.target.user,
                    setting="sftp_key_file" if keys else "sftp_password",
                    server=self.server,
                )
            ) from None
        except TimeoutError:
            raise SftpError(
                lazy(
                    "{where} did not answer within {seconds:g} s (SFTP of server {server}).",
                    where=where,
                    seconds=self.connect_timeout,
                    server=self.server,
                )
            ) from None
        except (OSError, asyncssh.Error) as exc:
            raise SftpError(
                lazy(
                    "Cannot open SFTP to {where} for server {server}: {error}",
                    where=where,
                    server=self.server,
                    error=_reason(exc),
                )
            ) from None
        self._conn = conn
        return sftp

    def _read_known_hosts(self) -> asyncssh.SSHKnownHosts:
        assert self._known_hosts is not None  # ServerConfig requires it with sftp_url
        try:
            return asyncssh.read_known_hosts(str(self._known_hosts))
        except (OSError, ValueError, asyncssh.Error) as exc:
            raise SftpError(
                lazy(
                    "Cannot read sftp_known_hosts {path} of server {server}: {error}",
                    path=self._known_hosts,
                    server=self.server,
                    error=_reason(exc),
                )
            ) from None

    def _read_key(self) -> list[asyncssh.SSHKey]:
        assert self._key_file is not None
        try:
            return [asyncssh.read_private_key(str(self._key_file))]
        except asyncssh.KeyEncryptionError:
            raise SftpError(
                lazy(
                    "sftp_key_file {path} of server {server} is protected by a passphrase; the "
                    "bot needs a key without one (ssh-keygen -t ed25519 -N '' -f <file>).",
                    path=self._key_file,
                    server=self.server,
                )
            ) from None
        except (OSError, ValueError, asyncssh.Error) as exc:
            raise SftpError(
                lazy(
                    "Cannot read sftp_key_file {path} of server {server}: {error}",
                    path=self._key_file,
                    server=self.server,
                    error=_reason(exc),
                )
            ) from None

    def _host_key_refusal(
        self, known: asyncssh.SSHKnownHosts, offered: asyncssh.SSHKey | None
    ) -> Text:
        host, port = self.target.host, self.target.port
        fingerprint = offered.get_fingerprint("sha256") if offered is not None else "?"
        scan = f"ssh-keyscan -p {port} {host} >> {self._known_hosts}"
        listed = bool(known.match(host, "", port)[0])
        if listed:
            return lazy(
                "The SFTP host {host}:{port} of server {server} showed a key that is NOT the one "
                "in {known_hosts} (it offered {fingerprint}). Either the host was reinstalled "
                "or someone is in between: ask the host which fingerprint is right; only if it "
                "is this one, remove the old line for {host} from {known_hosts} and run: {scan}",
                host=host,
                port=port,
                server=self.server,
                known_hosts=self._known_hosts,
                fingerprint=fingerprint,
                scan=scan,
            )
        return lazy(
            "The SFTP host {host}:{port} of server {server} is not in {known_hosts} (its key's "
            "fingerprint is {fingerprint}), so the bot did not connect. Add it with: {scan} "
            "and check with your host (the panel, or its support) that the fingerprint is "
            "{fingerprint}.",
            host=host,
            port=port,
            server=self.server,
            known_hosts=self._known_hosts,
            fingerprint=fingerprint,
            scan=scan,
        )

    def failed(self, exc: BaseException) -> None:
        """Note a failure (for /status) and drop the connection so the next call connects."""
        if self._failing_since is None:
            self._failing_since = self._clock()
        self._last_error = str(exc) if isinstance(exc, BotError) else _reason(exc)
        self._drop()

    def _note(self, exc: BaseException) -> None:
        if self._failing_since is None:
            self._failing_since = self._clock()
        self._last_error = _reason(exc)

    def succeeded(self) -> None:
        """An operation worked: the outage, if any, is over (the last error stays, for /status)."""
        self._failing_since = None

    def _drop(self) -> None:
        if self._sftp is not None:
            self._sftp.exit()
        if self._conn is not None:
            self._conn.close()
        self._sftp = None
        self._conn = None

    async def close(self) -> None:
        conn = self._conn
        self._drop()
        if conn is not None:
            try:
                async with asyncio.timeout(5):
                    await conn.wait_closed()
            except (TimeoutError, OSError, asyncssh.Error):
                pass

    # -- operations --------------------------------------------------------------------------

    async def call(self, op: Callable[[SFTPClient], Awaitable[T]]) -> T:
        """Run `op` once; a dropped connection raises SftpError (the next call connects again).
        File errors (no such file, permission denied) are asyncssh.SFTPError, for the caller."""
        sftp = await self.client()
        try:
            result = await op(sftp)
        except _DROPPED as exc:
            error = SftpError(
                lazy(
                    "The SFTP connection of server {server} dropped: {error}",
                    server=self.server,
                    error=_reason(exc),
                )
            )
            self.failed(error)
            raise error from None
        self.succeeded()
        return result

    async def retrying(self, op: Callable[[SFTPClient], Awaitable[T]]) -> T:
        """Run `op` until it works, connecting again after each failure with a doubling wait
        (capped). For the log's reader, which must neither stop nor skip."""
        wait = self.backoff_initial
        while True:
            try:
                return await self.call(op)
            except SftpError as exc:
                log.warning("%s: %s; again in %.1f s", self.server, exc, wait)
            except FileError as exc:  # a file the op did not expect to fail: said, not fatal
                self._note(exc)
                log.warning("%s: SFTP: %s; again in %.1f s", self.server, _reason(exc), wait)
            await asyncio.sleep(wait)
            wait = min(wait * 2, self.backoff_max)


def _reason(exc: BaseException) -> str:
    """An exception as the few words that say what went wrong (no traceback, no secret)."""
    text = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc)
    return str(text) or type(exc).__name__


def dropped(exc: BaseException) -> bool:
    """The connection is gone (asyncssh says so with an SFTPError too): connect again."""
    return isinstance(exc, _DROPPED)


def is_missing(exc: BaseException) -> bool:
    """The SFTP server says there is no such file or folder."""
    return isinstance(exc, asyncssh.SFTPNoSuchFile)

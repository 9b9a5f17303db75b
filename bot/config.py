"""The bot's settings, read from the environment and a `.env` file (pydantic-settings).

Every variable starts with `DOOM_`; nested values use `__` (`DOOM_SERVERS__0__RCON_PORT`).

Servers can be given two ways (pydantic-settings itself only understands the first; the second
is turned into a list here because a JSON blob is awkward in a container's env list):

- `DOOM_SERVERS='[{"name": "main", "rcon_password": "...", "world_dir": "/srv/mc/world"}]'`
- `DOOM_SERVERS__0__NAME=main`, `DOOM_SERVERS__0__RCON_PASSWORD=...`, `DOOM_SERVERS__1__NAME=...`

The two forms do not mix: if DOOM_SERVERS is set, indexed variables are refused with an error
rather than silently ignored (which is what pydantic-settings would do).

Lists of ids or command names take JSON (`[1, 2]`) or commas (`1,2`).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import unquote, urlsplit

from dotenv import dotenv_values
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    IPvAnyNetwork,
    PrivateAttr,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic import ValidationError as PydanticValidationError
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from bot.errors import ConfigError
from bot.i18n import available_locales, negotiate

__all__ = [
    "ALL_SERVERS",
    "DEFAULT_DENY",
    "ENV_PREFIX",
    "RENAMED_EXTENSIONS",
    "ServerConfig",
    "Settings",
    "SftpTarget",
    "load_settings",
    "parse_sftp_url",
]

log = logging.getLogger(__name__)

ENV_PREFIX = "DOOM_"
# cogs renamed for what they hold: a DOOM_EXTENSIONS written with an old name loads the new
# module, and the loader (bot.discord.app) logs that the setting should say the new one
RENAMED_EXTENSIONS: Mapping[str, str] = {
    "cogs.tasks": "cogs.reads",
    "cogs.events": "cogs.discord_events",  # Discord's scheduled events, not the server's
}

# Root commands a scheduled task may not run unless an admin allows them per server: they change
# who may do what (op, whitelist, bans), stop or stall the server or the scheduler itself (stop,
# save-off, reload, datapack, tick, gamerule budgets), or leak/alter server internals (debug, perf,
# jfr, publish, transfer, setidletimeout).
ALL_SERVERS = "all"  # the group of every configured server
DEFAULT_DENY: list[str] = [
    "op",
    "deop",
    "stop",
    "ban",
    "ban-ip",
    "banlist",
    "pardon",
    "pardon-ip",
    "whitelist",
    "kick",
    "save-off",
    "reload",
    "datapack",
    "debug",
    "perf",
    "jfr",
    "publish",
    "transfer",
    "setidletimeout",
    "tick",
    "gamerule",
]

_ALLOWED_ENTRY = re.compile(r"/?[a-z0-9_-]+|function:[a-z0-9_.-]+")
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
_VERSION = re.compile(r"^[A-Za-z0-9_.+-]{1,32}$")  # releases, snapshots (25w14a), pre-releases


def _split_list(value: object) -> object:
    """Accept a JSON list or a comma-separated string for list settings."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"is not a valid JSON list ({e.msg} at char {e.pos})") from None
    return [part.strip() for part in text.split(",") if part.strip()]


IntList = Annotated[list[int], NoDecode]
StrList = Annotated[list[str], NoDecode]
NetworkList = Annotated[list[IPvAnyNetwork], NoDecode]


class ServerConfig(BaseModel):
    """One Minecraft server the bot drives."""

    model_config = ConfigDict(extra="forbid")

    name: str
    rcon_host: str = "127.0.0.1"
    rcon_port: int = Field(default=25575, ge=1, le=65535)
    rcon_password: SecretStr
    world_dir: Path | None = None
    log_path: Path | None = None
    event_source: Literal["log", "rcon", "auto"] = "auto"
    # the pack says each event in chat (and so in the log); false: the ring buffer only, read
    # over RCON. None: true when the events are read from the log, else as the pack has it
    events_in_chat: bool | None = None
    # the server's root folder over SFTP (bot.minecraft.sftp): sftp://user@host:port/path
    sftp_url: str | None = None
    sftp_password: SecretStr | None = None
    sftp_key_file: Path | None = None
    sftp_known_hosts: Path | None = None  # an OpenSSH known_hosts file naming the host's key
    deny_commands: list[str] | None = None
    allow_commands: list[str] = []
    function_namespaces: list[str] | None = None
    alert_channel_id: int | None = None
    audit_channel_id: int | None = None
    # used when the server's log cannot be read (it states the version at every start)
    minecraft_version: str | None = None
    # the language of texts the bot makes players read in game (bot.i18n); English by default
    locale: str = "en"
    # what members type to join (shown as the location of Discord events), e.g. mc.example.org
    public_address: str | None = Field(default=None, max_length=100)

    @field_validator("name")
    @classmethod
    def _check_name(cls, v: str) -> str:
        if not _SERVER_NAME.match(v):
            raise ValueError("must be 1-32 characters of letters, digits, '_', '.' or '-'")
        return v

    @field_validator("rcon_password")
    @classmethod
    def _check_password(cls, v: SecretStr) -> SecretStr:
        # Vanilla does not start RCON with an empty password, so an empty one is a typo.
        if not v.get_secret_value():
            raise ValueError("must not be empty (vanilla refuses RCON without a password)")
        return v

    @field_validator("deny_commands", "allow_commands", "function_namespaces", mode="before")
    @classmethod
    def _lists(cls, v: object) -> object:
        return _split_list(v)

    @field_validator("minecraft_version")
    @classmethod
    def _check_version(cls, v: str | None) -> str | None:
        if v is not None and not _VERSION.match(v):
            raise ValueError("must be a Minecraft version such as 1.21.11")
        return v

    @field_validator("locale")
    @classmethod
    def _check_locale(cls, v: str) -> str:
        return _known_locale(v)

    @field_validator("sftp_url")
    @classmethod
    def _check_sftp_url(cls, v: str | None) -> str | None:
        if v is not None:
            parse_sftp_url(v)  # raises ValueError with the sentence
        return v

    @model_validator(mode="after")
    def _check_event_source(self) -> ServerConfig:
        if self.event_source == "log" and not (self.log_path or self.world_dir or self.sftp_url):
            raise ValueError(
                "event_source 'log' needs log_path (the server's logs/latest.log), world_dir "
                "or sftp_url"
            )
        if self.event_source == "log" and self.events_in_chat is False:
            raise ValueError(
                "events_in_chat false keeps the pack's events out of the log (they are only said "
                "in chat, and so in the log, when it is on); set event_source to rcon or auto"
            )
        return self

    @model_validator(mode="after")
    def _check_sftp(self) -> ServerConfig:
        given = [
            n for n in ("sftp_password", "sftp_key_file", "sftp_known_hosts") if getattr(self, n)
        ]
        if self.sftp_url is None:
            if given:
                raise ValueError(f"{given[0]} is set but sftp_url is not")
            return self
        if (self.sftp_password is None) == (self.sftp_key_file is None):
            raise ValueError(
                "sftp_url needs one of sftp_password (the panel account's password) or "
                "sftp_key_file (a private key file), not both and not neither"
            )
        if self.sftp_known_hosts is None:
            raise ValueError(
                "sftp_url needs sftp_known_hosts: an OpenSSH known_hosts file with the host's "
                "key (ssh-keyscan -p <port> <host> > known_hosts, then check its fingerprint "
                "with the host), so the bot never trusts an unknown host"
            )
        return self

    @property
    def sftp(self) -> SftpTarget | None:
        """Where the server's root folder is over SFTP, when sftp_url is set."""
        return None if self.sftp_url is None else parse_sftp_url(self.sftp_url)

    def denied_commands(self, global_deny: list[str]) -> list[str]:
        """The deny-list in force for this server: its own or the global one, minus allowed."""
        base = self.deny_commands if self.deny_commands is not None else global_deny
        allowed = {c.lower() for c in self.allow_commands}
        return [c for c in base if c.lower() not in allowed]


@dataclass(frozen=True, slots=True)
class SftpTarget:
    """The parts of an sftp:// URL: who logs in where, and the server's root folder there."""

    user: str
    host: str
    port: int
    path: str  # absolute, "/" when the SFTP root is the server's root (Pterodactyl, Pelican)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"sftp://{self.user}@{host}:{self.port}{self.path}"


def parse_sftp_url(url: str) -> SftpTarget:
    """`sftp://user@host:port/path` (port 22 and path / by default), or ValueError saying why."""
    parts = urlsplit(url.strip())
    if parts.scheme != "sftp":
        raise ValueError(
            "must start with sftp:// (e.g. sftp://steve.1a2b3c4d@panel.example.org:2022/)"
        )
    if parts.password is not None:
        raise ValueError("must not hold the password: put it in sftp_password")
    if not parts.username:
        raise ValueError("must name the user: sftp://user@host:port/path")
    if not parts.hostname:
        raise ValueError("must name the host: sftp://user@host:port/path")
    try:
        port = 22 if parts.port is None else parts.port
    except ValueError:
        raise ValueError("its port must be a number from 1 to 65535") from None
    if not 1 <= port <= 65535:
        raise ValueError("its port must be a number from 1 to 65535")
    if parts.query or parts.fragment:
        raise ValueError("must not have a ?query or #fragment")
    path = unquote(parts.path) or "/"
    return SftpTarget(unquote(parts.username), parts.hostname, port, path)


def _or_old_name(name: str, old: str) -> AliasChoices:
    """The variable DOOM_<NAME>, or DOOM_<OLD>, its name before it said what it is about, so a
    .env written then keeps working (an alias is a variable's whole name: no prefix added)."""
    return AliasChoices(f"{ENV_PREFIX}{name}".lower(), f"{ENV_PREFIX}{old}".lower())


class Settings(BaseSettings):
    """All settings; see `.env.example` for each one explained."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # `DOOM_X=` in .env.example means "not set", not ""
        extra="forbid",
        populate_by_name=True,  # Settings(field=...) in code, beside the variables' names
    )

    discord_token: SecretStr | None = None
    guild_ids: IntList = []
    moderator_role_ids: IntList = []
    admin_role_ids: IntList = []
    moderator_user_ids: IntList = []
    admin_user_ids: IntList = []
    alert_channel_id: int | None = None
    audit_channel_id: int | None = None
    alert_mention_role_ids: IntList = []
    deny_commands: StrList = Field(default_factory=lambda: list(DEFAULT_DENY))
    # when set, the only commands a task may run: roots (`say`) and function namespaces
    # (`function:myevents`); the deny-list and every other rule still apply
    allowed_commands: StrList | None = None
    servers: list[ServerConfig] = []
    # named groups of configured servers: `server: <group>` (and `all`) makes a command act on,
    # or read, each of them (bot.operations.groups)
    server_groups: dict[str, list[str]] = {}
    data_dir: Path = Path("data")
    # where the store's tables are: unset, <data_dir>/bot.sqlite3 (one process); a PostgreSQL
    # URL (postgresql://user:password@host/database) for several processes and failover
    database_url: SecretStr | None = None
    # several processes on one PostgreSQL database: seconds a process holds a server's lease
    # without renewing it; a dead process's servers are taken over within about this long
    lease_ttl: float = Field(default=10.0, ge=3, le=300)
    extensions: StrList = [
        "cogs.schedule",
        "cogs.reads",
        "cogs.alerts",
        "cogs.admin",
        "cogs.dashboard",
        "cogs.discord_events",
    ]
    # plugins (bot.plugins): installed ones load unless autoload is off (then only those named
    # in plugins_enabled); plugins_disabled are never loaded
    plugins_autoload: bool = True
    plugins_enabled: StrList = []
    plugins_disabled: StrList = []
    log_poll_interval: float = Field(default=0.5, gt=0)
    rcon_poll_interval: float = Field(default=2.0, gt=0)
    rcon_timeout: float = Field(default=5.0, gt=0)
    # wall-clock schedules: the zone `when`/`repeat` are read in when none is given,
    # and how late (seconds) a run may still start after the bot or the server was away
    timezone: str = "UTC"
    max_late: float = Field(default=600.0, gt=0)
    # seconds of game time the pack holds its due tasks after each load until the crash guard
    # has compared them with the ledger (cfg.hold); 0: no hold
    crash_hold: float = Field(default=30.0, ge=0, le=3600)
    # days the run history (/history, the dashboard's history page) keeps a run
    history_days: float = Field(default=30.0, gt=0, le=3650)
    # health alerts (bot.background.health): each fires once its fault lasted its minutes, and says
    # all clear once the fault has been gone `alert_quiet_minutes` (a flapping fault is one alert)
    health_interval: float = Field(default=30.0, ge=1, le=3600)  # seconds between checks
    alert_tps_below: float = Field(default=15.0, gt=0, le=20)
    alert_tps_minutes: float = Field(default=5.0, ge=0, le=1440)
    alert_unreachable_minutes: float = Field(default=2.0, ge=0, le=1440)
    alert_pack_check_minutes: float = Field(default=10.0, gt=0, le=1440)
    alert_stuck_minutes: float = Field(default=10.0, ge=0, le=1440)
    alert_silent_minutes: float = Field(default=10.0, ge=0, le=1440)
    alert_quiet_minutes: float = Field(default=5.0, ge=0, le=1440)
    # --- the web dashboard (web/): served only when web_port is set ---
    web_port: int | None = Field(default=None, ge=0, le=65535)
    # the console without web_port serves the dashboard on 127.0.0.1, any free port
    # (console.front); false: no dashboard there either
    console_dashboard: bool = True
    web_host: str = "127.0.0.1"
    web_url: str | None = None  # the public base URL for login links; default http://host:port
    # bytes a request body may have (JSON, form or any other); a larger one is refused with 413
    web_max_body: int = Field(default=64 * 1024, ge=1024, le=16 * 1024 * 1024)
    # reverse proxies (addresses or networks, 10.0.0.0/8) whose X-Forwarded-For names the client;
    # from any other peer the header is ignored
    web_trusted_proxies: NetworkList = []
    # the IANA zone the dashboard shows times in until a reader picks their own (Time zone page);
    # unset: DOOM_TIMEZONE
    web_timezone: str | None = None

    @field_validator("web_url")
    @classmethod
    def _web_url(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", v):
            raise ValueError("must be an http:// or https:// URL, e.g. https://dash.example.org")
        return v.rstrip("/")

    # alerts, event texts and the console in this language (bot.i18n); None: the guild's
    # preferred locale for alerts, the system locale for the console, else English
    locale: str | None = None

    @field_validator("locale")
    @classmethod
    def _check_locale(cls, v: str | None) -> str | None:
        return None if v is None else _known_locale(v)

    # /event reminders (Discord's scheduled events) go here (default: the alert channel); with a
    # role, interested members get it and the reminder mentions the role instead of each member
    discord_event_channel_id: int | None = Field(
        default=None, validation_alias=_or_old_name("discord_event_channel_id", "event_channel_id")
    )
    discord_event_role_id: int | None = Field(
        default=None, validation_alias=_or_old_name("discord_event_role_id", "event_role_id")
    )

    @field_validator(
        "guild_ids",
        "moderator_role_ids",
        "admin_role_ids",
        "moderator_user_ids",
        "admin_user_ids",
        "alert_mention_role_ids",
        "deny_commands",
        "allowed_commands",
        "extensions",
        "plugins_enabled",
        "plugins_disabled",
        "web_trusted_proxies",
        mode="before",
    )
    @classmethod
    def _lists(cls, v: object) -> object:
        return _split_list(v)

    @field_validator("allowed_commands")
    @classmethod
    def _check_allowed(cls, v: list[str] | None) -> list[str] | None:
        for entry in v or []:
            if not _ALLOWED_ENTRY.fullmatch(entry.strip().lower()):
                raise ValueError(
                    f"{entry!r} is neither a command (say, give) nor function:<namespace> "
                    "(function:myevents)"
                )
        return v

    @field_validator("timezone", "web_timezone")
    @classmethod
    def _check_timezone(cls, v: str | None) -> str | None:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        if v is None:
            return v
        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{v!r} is not an IANA time zone (e.g. Europe/Berlin)") from None
        return v

    @field_validator("servers", mode="before")
    @classmethod
    def _indexed_servers(cls, v: object) -> object:
        # DOOM_SERVERS__0__NAME arrives as {"0": {"name": ...}}: make it a list in index order.
        if isinstance(v, Mapping):
            keys = list(v)
            if not all(isinstance(k, str) and k.isdigit() for k in keys):
                raise ValueError(
                    "use DOOM_SERVERS__<index>__<FIELD> with index 0, 1, ... "
                    "or DOOM_SERVERS as a JSON list"
                )
            by_index: dict[int, object] = {}
            for k in keys:
                if int(k) in by_index:
                    raise ValueError(f"server index {int(k)} is given twice")
                by_index[int(k)] = v[k]
            if sorted(by_index) != list(range(len(by_index))):
                raise ValueError(
                    f"server indexes must be 0, 1, 2, ... without gaps, got {sorted(by_index)}"
                )
            return [by_index[i] for i in range(len(by_index))]
        return v

    _renamed_extensions: list[tuple[str, str]] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _current_extension_names(self) -> Settings:
        # every reader (the loader, /reload, the dashboard's extensions page) sees the names
        # the modules have now, each once
        self._renamed_extensions = [
            (name, RENAMED_EXTENSIONS[name])
            for name in self.extensions
            if name in RENAMED_EXTENSIONS
        ]
        if self._renamed_extensions:
            current = (RENAMED_EXTENSIONS.get(name, name) for name in self.extensions)
            self.extensions = list(dict.fromkeys(current))
        return self

    @property
    def renamed_extensions(self) -> list[tuple[str, str]]:
        """(old, new) for each extension the settings named by a name it had before."""
        return list(self._renamed_extensions)

    @model_validator(mode="after")
    def _unique_names(self) -> Settings:
        names = [s.name for s in self.servers]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"server names must be unique; repeated: {', '.join(dupes)}")
        for group, members in self.server_groups.items():
            # a group's name is typed in commands and sits in the dashboard's links
            if not _SERVER_NAME.match(group):
                raise ValueError(
                    f"server group {group!r}: a name is 1-32 characters of letters, digits, "
                    "'_', '.' or '-'"
                )
            if group == ALL_SERVERS or group in names:
                raise ValueError(
                    f"server group {group!r}: the name is taken (a server, or `{ALL_SERVERS}`)"
                )
            unknown = [m for m in members if m not in names]
            if not members or unknown:
                raise ValueError(
                    f"server group {group!r} must name configured servers"
                    + (f"; unknown: {', '.join(unknown)}" if unknown else "; it is empty")
                )
        return self

    def server(self, name: str) -> ServerConfig:
        """The configured server of that name (KeyError if none)."""
        for s in self.servers:
            if s.name == name:
                return s
        raise KeyError(name)


def _env_name(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    items: list[str] = []
    for i, p in enumerate(loc):
        if isinstance(p, int) and not (i == 1 and loc[0] == "servers"):
            items.append(f"item {p + 1}")  # an element of a list value, not a variable of its own
        elif p != "__root__":
            # a field read under an alias is located by the variable's whole name
            parts.append(str(p).upper().removeprefix(ENV_PREFIX))
    name = ENV_PREFIX + "__".join(parts) if parts else ENV_PREFIX + "*"
    return f"{name} ({', '.join(items)})" if items else name


_FRIENDLY = {
    "missing": "is required but not set",
    "extra_forbidden": "is not a known setting (a typo?)",
}


def _describe(err: Mapping[str, Any]) -> str:
    # Only the message and location: pydantic's `input` may hold a password, so it is never used.
    msg = _FRIENDLY.get(str(err.get("type")), str(err.get("msg", "is invalid")))
    msg = msg.removeprefix("Value error, ")
    return f"{_env_name(tuple(err.get('loc', ())))}: {msg}"


def _mixed_server_forms(env_file: Path | None) -> None:
    """Refuse DOOM_SERVERS together with DOOM_SERVERS__n__* (pydantic would drop the latter)."""
    names: set[str] = {k.upper() for k in os.environ}
    if env_file is not None and env_file.is_file():
        names |= {k.upper() for k in dotenv_values(env_file)}
    whole = f"{ENV_PREFIX}SERVERS"
    indexed = sorted(n for n in names if n.startswith(whole + "__"))
    if whole in names and indexed:
        raise ConfigError(
            f"{indexed[0]}: set servers either as {whole} (JSON) or as {whole}__<n>__<FIELD> "
            "variables, not both"
        )


def _known_locale(tag: str) -> str:
    """A language the bot has a catalog for ("zh-CN" -> "zh_CN"), else a clear refusal."""
    found = negotiate(tag)
    if found is None:
        known = ", ".join(available_locales())
        raise ValueError(f"{tag!r} is not a language the bot speaks (available: {known})")
    return found


def load_settings(env_file: Path | None = Path(".env")) -> Settings:
    """Read the settings, or raise one ConfigError naming each bad variable (never a value)."""
    _mixed_server_forms(env_file)
    try:
        return Settings(_env_file=env_file)  # type: ignore[call-arg]
    except PydanticValidationError as e:
        lines = [_describe(err) for err in e.errors(include_input=False, include_url=False)]
        raise ConfigError("Invalid settings:\n" + "\n".join(lines)) from None
    except SettingsError as e:
        # Raised while decoding a JSON value; its text names the field, never the value.
        m = re.search(r'field "([^"]+)"', str(e))
        field = m.group(1).upper() if m else "*"
        cause = e.__cause__
        detail = f" ({cause.msg})" if isinstance(cause, json.JSONDecodeError) else ""
        raise ConfigError(
            f"Invalid settings:\n{ENV_PREFIX}{field}: is not valid JSON{detail}"
        ) from None

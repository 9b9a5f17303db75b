"""Drive the bot as Discord would: interaction payloads in, recorded HTTP requests out.

Built on :class:`bot.testkit.localdiscord.emulator.LocalDiscord` (the test kit's local Discord),
with named users holding the configured roles: ``await h.run("cancel", MOD, id="x")``.
"""

from __future__ import annotations

__all__ = [
    "ADMIN",
    "ADMIN_BY_ID",
    "ADMIN_ROLE",
    "ALERT_CHANNEL",
    "AUDIT_CHANNEL",
    "MENTION_ROLE",
    "MOD",
    "MOD_BY_ID",
    "MOD_ROLE",
    "NOBODY",
    "Harness",
    "User",
    "make_settings",
]

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.config import ServerConfig, Settings
from bot.core import Core
from bot.discord.app import DoomBot
from bot.services import Services
from bot.testkit.localdiscord.emulator import Exchange, LocalDiscord, Sent, buttons

ADMIN_ROLE = 5001
MOD_ROLE = 5002
OTHER_ROLE = 5003
MENTION_ROLE = 5004
ALERT_CHANNEL = 6001
AUDIT_CHANNEL = 6002


@dataclass(frozen=True)
class User:
    id: int
    roles: tuple[int, ...] = ()


ADMIN = User(7001, (ADMIN_ROLE,))
MOD = User(7002, (MOD_ROLE, OTHER_ROLE))
NOBODY = User(7003, (OTHER_ROLE,))
ADMIN_BY_ID = User(7004)
MOD_BY_ID = User(7005)


def make_settings(
    tmp_path: Path, servers: list[ServerConfig] | None = None, **extra: Any
) -> Settings:
    values: dict[str, Any] = {
        "admin_role_ids": [ADMIN_ROLE],
        "moderator_role_ids": [MOD_ROLE],
        "admin_user_ids": [ADMIN_BY_ID.id],
        "moderator_user_ids": [MOD_BY_ID.id],
        "alert_channel_id": ALERT_CHANNEL,
        "audit_channel_id": AUDIT_CHANNEL,
        "alert_mention_role_ids": [MENTION_ROLE],
        "servers": servers or [],
        "data_dir": tmp_path / "data",
        # the health checks' RCON commands, every 30 s, would move the round trips that tests
        # count and the server's state they read: a test of them sets its own interval
        "health_interval": 3600,
    }
    values.update(extra)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


class Harness:
    """A started bot and its local Discord."""

    def __init__(self, settings: Settings, services: Services, core: Core | None = None) -> None:
        self.settings = settings
        self.services = services
        # `core`: one built with its plugins (bot.core.build_core), not started: the bot starts it
        self.bot = DoomBot(settings, services, core=core)
        # a test that reads the audit channel waits with bot.audit_posted(); the rest need not
        # wait at shutdown for posts Discord paces at 5 per 5 s (10 s a test otherwise)
        self.bot.audit_drain = 1.0
        roles = {
            ADMIN_ROLE: "admin",
            MOD_ROLE: "moderator",
            OTHER_ROLE: "player",
            MENTION_ROLE: "on-call",
        }
        self.discord = LocalDiscord(self.bot, roles=roles)

    async def start(self) -> Harness:
        await self.discord.start()
        return self

    async def close(self) -> None:
        await self.discord.close()
        # every test is also a test of Discord's rules: a request Discord would refuse fails it
        # (a test that provokes refusals on purpose clears discord.refused after checking them)
        refused = self.discord.refused
        assert not refused, "Discord would refuse: " + "; ".join(
            f"{r.method} {r.path} -> {r.status} {r.error}" for r in refused
        )

    async def run(self, name: str, user: User = MOD, /, **options: object) -> Exchange:
        return await self.discord.invoke(name, user.id, user.roles, **options)

    async def run_in(
        self, locale: str, name: str, user: User = MOD, /, **options: object
    ) -> Exchange:
        """``run`` from a Discord client set to ``locale`` (the payload's ``locale`` field)."""
        before, self.discord.locale = self.discord.locale, locale
        try:
            return await self.run(name, user, **options)
        finally:
            self.discord.locale = before

    async def press_in(
        self, locale: str, message_id: int, button: str, user: User = MOD
    ) -> Exchange:
        before, self.discord.locale = self.discord.locale, locale
        try:
            return await self.press(message_id, button, user)
        finally:
            self.discord.locale = before

    async def autocomplete(
        self, name: str, focused: str, user: User = MOD, /, **options: object
    ) -> list[dict[str, Any]]:
        return await self.discord.autocomplete(name, focused, user.id, user.roles, **options)

    async def press(self, message_id: int, button: str, user: User = MOD) -> Exchange:
        return await self.discord.press(message_id, button, user.id, user.roles)

    def message(self, message_id: int) -> dict[str, Any]:
        return self.discord.messages[message_id]

    def buttons(self, message_id: int) -> list[dict[str, Any]]:
        return buttons(self.message(message_id))

    def posts(self, channel_id: int) -> list[Sent]:
        return self.discord.channel_posts(channel_id)

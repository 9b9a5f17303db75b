"""/event in the console (command groups, the Discord event shown), and the readiness checks of
`/status` and `python -m bot check` (the Create Events permission and the intent)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
from discord.http import Route
from pydantic import SecretStr

from bot.cli.check import check_discord
from bot.core import Core
from bot.services import build_services
from bot.testkit.harness import ADMIN, MOD, make_settings
from console.session import parse_line, run_console
from tests.cogs.discord_events_fixture import EventHarness, event_harness
from tests.console.typed import typed_by


@pytest.fixture
async def ev(tmp_path: Path) -> AsyncIterator[EventHarness]:
    async for h in event_harness(tmp_path, guild_ids=[1_100_000_000_000_000_002]):
        yield h


async def test_the_console_parses_a_group_subcommand(ev: EventHarness) -> None:
    registry = ev.bot.ops.registry
    command, values = parse_line("/event create name:Build Battle start:in 10m end:2h", registry)
    assert (command.name, values) == (
        "event create",
        {"name": "Build Battle", "start": "in 10m", "end": "2h"},
    )
    with pytest.raises(ValueError, match="/event needs one of: create, edit, cancel, list, show"):
        parse_line("/event frobnicate name:x", registry)
    with pytest.raises(ValueError, match="/event create needs start"):
        parse_line("/event create name:x", registry)


async def test_the_console_says_discord_events_need_discord(tmp_path: Path) -> None:
    """The console runs with no Discord connection: /event says so, and what to do instead."""
    core = Core.around(await build_services(make_settings(tmp_path, discord_token=None)))
    try:
        stdin = io.StringIO("/event create name:Build Battle start:in 10m end:2h\n/event list\n")
        out = io.StringIO()
        await run_console(core.ops, stdin, out, typed_by(MOD))
    finally:
        await core.close()
    text = out.getvalue()
    said = "Discord is not configured here (no DOOM_DISCORD_TOKEN), so there are no Discord events"
    assert text.count(said) == 2, text
    assert "**" not in text


@pytest.mark.slow
async def test_status_says_when_the_event_permission_is_missing(ev: EventHarness) -> None:
    reply = await ev.run("status", ADMIN)
    assert "Discord events: ok (the bot may create and manage events" in reply.text
    ev.discord.bot_permissions = discord.Permissions(send_messages=True)
    ev.discord.bot._connection._add_guild_from_data(ev.discord.guild_payload())  # type: ignore[arg-type]
    reply = await ev.run("status", ADMIN)
    assert (
        "The bot lacks the Create Events permission in local: give its role Create Events"
        in reply.text
    )
    assert "Traceback" not in reply.text


def _discord_http(permissions: int, *, member_status: int = 200) -> discord.http.HTTPClient:
    """discord.py's HTTP client with the Discord edge answered here (the only mock)."""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    guild = "1100000000000000002"

    async def request(route: Route, **kwargs: Any) -> Any:
        if route.path == "/users/@me":
            return {"id": "42", "username": "doom", "discriminator": "0", "avatar": None}
        if route.path == "/guilds/{guild_id}/members/{member_id}":
            if member_status != 200:
                from types import SimpleNamespace

                raise discord.NotFound(
                    SimpleNamespace(status=404, reason="Not Found"),  # type: ignore[arg-type]
                    {"code": 10004, "message": "Unknown Guild"},
                )
            return {"user": {"id": "42"}, "roles": ["77"]}
        if route.path == "/guilds/{guild_id}/roles":
            return [
                {"id": guild, "permissions": "0"},
                {"id": "77", "permissions": str(permissions)},
            ]
        raise AssertionError(route.path)

    http.request = request  # type: ignore[method-assign]
    return http


@pytest.mark.parametrize(
    ("permissions", "member_status", "ok", "line"),
    [
        (
            discord.Permissions(create_events=True).value,
            200,
            True,
            "guild 1100000000000000002: may create and manage events",
        ),
        (
            discord.Permissions(send_messages=True).value,
            200,
            False,
            "The bot lacks the Create Events permission in guild 1100000000000000002",
        ),
        (discord.Permissions(administrator=True).value, 200, True, "may create and manage events"),
        (0, 404, False, "guild 1100000000000000002 NOT readable (404): is the bot in it?"),
    ],
)
async def test_check_reads_the_event_permission_over_http(
    ev: EventHarness, permissions: int, member_status: int, ok: bool, line: str
) -> None:
    settings = ev.settings.model_copy(update={"discord_token": SecretStr("secret-token")})
    out = io.StringIO()
    http = _discord_http(permissions, member_status=member_status)
    assert await check_discord(settings, out, http) is ok
    assert line in out.getvalue(), out.getvalue()
    assert "guild_scheduled_events intent is requested" in out.getvalue()
    assert "secret-token" not in out.getvalue()

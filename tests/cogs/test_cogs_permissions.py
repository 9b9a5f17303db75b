"""Every command is checked at run time against the configured roles and user ids."""

from __future__ import annotations

import logging

import pytest
from discord import app_commands

from bot.testkit.harness import ADMIN, ADMIN_BY_ID, MOD, MOD_BY_ID, NOBODY, Harness, User

# the fewest options each command needs to get past Discord's own validation
REQUIRED: dict[str, dict[str, object]] = {
    "schedule": {"run": "say hi", "time": 5, "unit": "tick"},
    "schedule_dynamic": {"run": "say hi", "time": 5, "unit": "tick"},
    "cancel": {"id": "a"},
    "cancel_all": {"id": "a"},
    "clear": {},
    "pause": {"id": "a"},
    "resume": {"id": "a"},
    "time": {},
    "list": {},
    "show": {"id": "a"},
    "status": {},
    "setup": {},
}
MODERATOR_COMMANDS = [n for n in REQUIRED if n not in ("status", "setup", "clear")]
# /clear removes everyone's tasks: admins only, as the dashboard and the README have it
ADMIN_COMMANDS = ["status", "setup", "reload", "clear"]
NO_SERVER = "No Minecraft server is configured"


@pytest.mark.parametrize("name", MODERATOR_COMMANDS)
async def test_moderator_commands_refuse_others(bare: Harness, name: str) -> None:
    reply = await bare.run(name, NOBODY, **REQUIRED[name])
    assert reply.ephemeral
    assert reply.text == f"You need the moderator role to use /{name}."
    # nothing else happened: the refusal was the only thing sent
    assert [s.kind for s in reply.sent] == ["response"]


@pytest.mark.parametrize("user", [MOD, MOD_BY_ID, ADMIN, ADMIN_BY_ID], ids=lambda u: str(u.id))
@pytest.mark.parametrize("name", MODERATOR_COMMANDS)
async def test_moderator_commands_let_moderators_and_admins_through(
    bare: Harness, name: str, user: User
) -> None:
    reply = await bare.run(name, user, **REQUIRED[name])
    # past the check, the command itself says why it cannot go on
    assert NO_SERVER in reply.text


@pytest.mark.parametrize("user", [MOD, MOD_BY_ID, NOBODY], ids=lambda u: str(u.id))
@pytest.mark.parametrize("name", ADMIN_COMMANDS)
async def test_admin_commands_refuse_moderators(bare: Harness, name: str, user: User) -> None:
    options = REQUIRED.get(name, {"extension": "cogs.reads"})
    reply = await bare.run(name, user, **options)
    assert reply.ephemeral
    assert reply.text == f"You need the admin role to use /{name}."


@pytest.mark.parametrize("user", [ADMIN, ADMIN_BY_ID], ids=lambda u: str(u.id))
async def test_admin_commands_let_admins_through(bare: Harness, user: User) -> None:
    assert NO_SERVER in (await bare.run("status", user)).text
    assert NO_SERVER in (await bare.run("setup", user)).text
    assert (await bare.run("reload", user, extension="cogs.reads")).text == "Reloaded cogs.reads."
    assert NO_SERVER in (await bare.run("clear", user)).text


async def test_settings_are_read_at_run_time(bare: Harness) -> None:
    assert "You need the moderator role" in (await bare.run("time", NOBODY)).text
    bare.bot.settings.moderator_user_ids.append(NOBODY.id)
    assert NO_SERVER in (await bare.run("time", NOBODY)).text


async def test_commands_are_hinted_guild_only(bare: Harness) -> None:
    for command in bare.bot.tree.get_commands():
        if command.name != "help":
            payload = command.to_dict(bare.bot.tree)
            assert payload["contexts"] == [0], command.name


async def test_unexpected_error_shows_only_an_id(
    bare: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    @app_commands.command(description="Fails like a bug would.")
    async def boom(interaction: object) -> None:
        raise RuntimeError("secret internals /home/x")

    bare.bot.tree.add_command(boom)
    with caplog.at_level(logging.ERROR, logger="bot.discord.slash.errors_ui"):
        reply = await bare.run("boom", MOD)
    assert reply.ephemeral
    assert "secret" not in reply.text and "Traceback" not in reply.text
    error_id = reply.text.split("error id `")[1].split("`")[0]
    assert len(error_id) == 8
    logged = [r for r in caplog.records if error_id in r.getMessage()]
    assert logged and logged[0].exc_info is not None

"""The command tree: every command present, each valid as Discord's sync would send it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from bot.services import Services
from bot.store.audit import AuditStore
from bot.testkit.harness import ADMIN, MOD, NOBODY, Harness, make_settings

EXPECTED = {
    "schedule",
    "schedule_dynamic",
    "plugin",
    "cancel",
    "cancel_all",
    "clear",
    "pause",
    "resume",
    "run_now",
    "history",
    "time",
    "list",
    "show",
    "help",
    "setup",
    "status",
    "reload",
    "selftest",
    "dashboard",
    "calendar",
    "plan",
    "event",
    "whoami",  # the registry's (bot.operations.registry)
    "dryrun",
    "program",  # the registry's group (bot.operations.programs)
    "trigger",  # the registry's group (bot.operations.triggers)
}
# the tree as Discord receives it, dumped before the cogs' shared helpers were factored out
# (cogs/ -> bot/discord/slash/cog_helpers.py): refactoring must not change a name, option or
# description
GOLDEN = Path(__file__).with_name("command_tree.json")


async def test_every_command_is_registered_and_serialisable(bare: Harness) -> None:
    commands = bare.bot.tree.get_commands()
    assert {c.name for c in commands} == EXPECTED
    for command in commands:
        payload = command.to_dict(bare.bot.tree)
        assert 1 <= len(payload["name"]) <= 32 and payload["name"].islower()
        assert 1 <= len(payload["description"]) <= 100
        options = payload.get("options", [])
        assert len(options) <= 25
        required_done = False
        for option in options:  # Discord rejects a required option after an optional one
            if not option.get("required"):
                required_done = True
            assert not (required_done and option.get("required")), (command.name, option)
            assert len(option.get("choices", [])) <= 25
    assert not bare.bot.failed_extensions


async def test_a_cogs_old_extension_name_loads_it_under_its_new_name(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # a .env written before the cogs were renamed for what they hold
    settings = make_settings(tmp_path, extensions=["cogs.tasks", "cogs.events", "cogs.admin"])
    services = Services(settings, {}, AuditStore(tmp_path / "audit.sqlite3"))
    with caplog.at_level(logging.WARNING, logger="bot.discord.app"):
        harness = await Harness(settings, services).start()
    try:
        assert set(harness.bot.extensions) == {"cogs.reads", "cogs.discord_events", "cogs.admin"}
        assert not harness.bot.failed_extensions
        shown = (await harness.run("help", NOBODY)).text
        assert "/time**" in shown and "/event create**" in shown  # the renamed cogs' commands
        # /reload and its choices know the module by the name it has now, once
        assert (await harness.run("reload", ADMIN, extension="cogs.reads")).text == (
            "Reloaded cogs.reads."
        )
        choices = await harness.autocomplete("reload", "extension", ADMIN, extension="cogs.")
        assert [c["value"] for c in choices] == ["cogs.admin", "cogs.discord_events", "cogs.reads"]
    finally:
        await harness.close()
    assert "DOOM_EXTENSIONS: cogs.tasks is a deprecated name, loading cogs.reads" in caplog.text
    assert "cogs.events is a deprecated name, loading cogs.discord_events" in caplog.text


async def test_reload_loads_a_cog_that_failed_at_start_and_refuses_unknown_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    cog = tmp_path / "doom_test_flaky_cog.py"
    cog.write_text("async def setup(bot):\n    raise RuntimeError('not yet')\n")
    settings = make_settings(tmp_path, extensions=["cogs.admin", "doom_test_flaky_cog"])
    services = Services(settings, {}, AuditStore(tmp_path / "audit.sqlite3"))
    harness = await Harness(settings, services).start()
    try:
        assert set(harness.bot.failed_extensions) == {"doom_test_flaky_cog"}
        failed = (await harness.run("reload", ADMIN, extension="doom_test_flaky_cog")).text
        assert failed == "Reloading doom_test_flaky_cog failed: not yet"
        assert "doom_test_flaky_cog" in harness.bot.failed_extensions
        cog.write_text("async def setup(bot):\n    pass\n")
        done = (await harness.run("reload", ADMIN, extension="doom_test_flaky_cog")).text
        assert done == "Reloaded doom_test_flaky_cog."
        assert not harness.bot.failed_extensions
        assert "doom_test_flaky_cog" in harness.bot.extensions
        before = set(harness.bot.extensions)
        unknown = (await harness.run("reload", ADMIN, extension="os")).text
        assert unknown == "Unknown extension 'os'."
        assert set(harness.bot.extensions) == before
    finally:
        await harness.close()


async def test_schedule_offers_every_unit(bare: Harness) -> None:
    schedule = bare.bot.tree.get_command("schedule")
    assert schedule is not None
    unit = next(o for o in schedule.to_dict(bare.bot.tree)["options"] if o["name"] == "unit")
    assert [(c["name"], c["value"]) for c in unit["choices"]] == [
        ("tick", "tick"),
        ("second", "second"),
        ("minute", "minute"),
        ("hour", "hour"),
        ("day", "day"),
        ("game_day", "game_day"),
    ]


async def test_dryrun_derived_from_the_task_model_reads_as_schedule_does(bare: Harness) -> None:
    """/dryrun is made from its request alone (bot.discord.slash.registered): each option it
    shares with /schedule has /schedule's description, and the DST choices their shown names
    ("second" is also a unit of time), so both read the same in every language."""
    tree = bare.bot.tree
    schedule_cmd, dryrun_cmd = tree.get_command("schedule"), tree.get_command("dryrun")
    assert schedule_cmd is not None and dryrun_cmd is not None
    ours = {o["name"]: o for o in schedule_cmd.to_dict(tree)["options"]}
    derived = {o["name"]: o for o in dryrun_cmd.to_dict(tree)["options"]}
    assert set(derived) == set(ours)
    for name, option in derived.items():
        if name != "server":  # /schedule's comes from the cog's server helper, with groups
            assert option["description"] == ours[name]["description"], name
        assert option["description"] != name
    for name in ("dst_repeated", "dst_skipped", "unit", "if_not", "after_wait", "on_doubt"):
        shown = sorted((c["name"], c["value"]) for c in derived[name]["choices"])
        assert shown == sorted((c["name"], c["value"]) for c in ours[name]["choices"]), name
    assert ("second pass", "second") in [
        (c["name"], c["value"]) for c in derived["dst_repeated"]["choices"]
    ]


async def test_help_lists_every_command_to_anyone(bare: Harness) -> None:
    reply = await bare.run("help", NOBODY)
    assert reply.ephemeral
    for name in EXPECTED - {"event", "plan", "plugin", "program", "trigger"}:
        assert f"/{name}**" in reply.text
    assert "/plugin reload**" in reply.text and "/trigger add**" in reply.text
    for sub in ("save", "start", "list", "show", "cancel", "pause", "resume"):
        assert f"/program {sub}**" in reply.text
    for sub in ("create", "edit", "cancel", "list", "show"):  # a group lists its subcommands
        assert f"/event {sub}**" in reply.text
    for sub in ("export", "import"):
        assert f"/plan {sub}**" in reply.text


async def test_no_server_configured_is_a_clear_ephemeral_error(bare: Harness) -> None:
    reply = await bare.run("time", MOD)
    assert reply.ephemeral
    assert "No Minecraft server is configured" in reply.text
    reply = await bare.run("status", ADMIN)
    assert "No Minecraft server is configured" in reply.text


async def test_tree_payload_matches_the_recorded_one(bare: Harness) -> None:
    # as sync sends it: with the zh-CN names, descriptions and choices of the translator;
    # remade with `python -m bot.catalogs tree > tests/cogs/command_tree.json`
    tree = bare.bot.tree
    assert tree.translator is not None
    dump = {
        c.name: await c.get_translated_payload(tree, tree.translator) for c in tree.get_commands()
    }
    assert json.loads(json.dumps(dump)) == json.loads(GOLDEN.read_text())

"""The built-in operations through the registry (bot.operations.builtin), against mcsim with
the pack over TCP RCON: each answers with its sentence and its facts as data (ids, counts,
instants in ISO 8601), is audited once, and the registry holds every command the Discord face
has."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml

from bot import errors
from bot.core import Core
from bot.operations import Operations
from bot.operations.registry import run
from mcsim.server import Server

# the application on mcsim with an auditor that keeps what it is told: test_operations' fixture
from tests.bot.conftest import Recorder
from tests.bot.test_operations import ADMIN, MOD, queued

TREE = Path(__file__).parents[1] / "cogs" / "command_tree.json"
# what only a Discord face has: its own help, its dashboard link, reloading its cogs
DISCORD_ONLY = {"help", "dashboard", "reload"}


async def test_every_command_of_the_discord_face_is_a_registered_operation(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    tree = json.loads(TREE.read_text())
    commands = set()
    for name, command in tree.items():
        subs = [o["name"] for o in command.get("options", []) if o.get("type") == 1]
        commands |= {f"{name} {sub}" for sub in subs} if subs else {name}
    core = Core.around(ops[0].services)  # the core adds the plugin host's own operation
    names = {spec.name for spec in core.ops.registry}
    assert commands - DISCORD_ONLY == names, (commands - names, names - commands)


async def test_a_game_time_task_through_the_registry_is_said_and_given_as_data(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    made = await run(
        operations, MOD, "schedule", {"run": "say hi", "time": 100, "unit": "tick", "id": "greet"}
    )
    assert made.text.startswith("Scheduled `greet` on main.")
    assert made.facts["id"] == "greet" and made.facts["server"] == "main"
    assert made.facts["task"]["due_tick"] > 0 and made.facts["planned"] is None
    datetime.fromisoformat(made.facts["task"]["due_at"])  # an instant, as data
    assert queued(server) == ["greet"]
    # audited once: by the operation, naming the server (not again by the registry)
    assert [(e[1], e[2]) for e in recorder.entries] == [("main", "schedule")]

    listed = await run(operations, MOD, "list", {})
    assert [t["id"] for t in listed.facts["tasks"]] == ["greet"] and listed.facts["total"] == 1
    assert "queue on main: 1 task(s)" in listed.full_text and "say hi" in listed.full_text
    shown = await run(operations, MOD, "show", {"id": "greet"})
    assert shown.facts["task"]["run"] == "say hi" and "Task `greet`" in shown.full_text
    clock = await run(operations, MOD, "time", {})
    assert isinstance(clock.facts["ticks"], int) and clock.facts["day"] >= 0

    cancelled = await run(operations, MOD, "cancel", {"id": "greet"})
    assert cancelled.facts["done"] is True and queued(server) == []
    missing = await run(operations, MOD, "cancel", {"id": "greet"})
    assert missing.facts["done"] is False and missing.text == "No task `greet` on main."
    gone = await run(operations, MOD, "show", {"id": "greet"})
    assert gone.facts["task"] is None and gone.text == "No task `greet` on main."


async def test_a_wall_clock_row_through_the_registry_has_its_next_runs_as_instants(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, _server = ops
    made = await run(
        operations, MOD, "schedule", {"run": "say later", "when": "in 2 hours", "id": "later"}
    )
    runs = [datetime.fromisoformat(t) for t in made.facts["next_runs"]]
    assert runs and timedelta(hours=1) < runs[0] - datetime.now(runs[0].tzinfo) < timedelta(hours=3)
    assert made.facts["planned"]["task_id"] == "later" and made.facts["task"] is None
    shown = await run(operations, MOD, "show", {"id": "later"})
    assert shown.facts["planned"]["run"] == "say later" and "Planned `later`" in shown.full_text
    listed = await run(operations, MOD, "list", {"which": "planned"})
    assert [r["task_id"] for r in listed.facts["planned"]] == ["later"]


async def test_a_refusal_through_the_registry_changes_nothing(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, recorder, server = ops
    with pytest.raises(errors.NotAllowed):
        await run(operations, MOD, "clear", {})
    with pytest.raises(errors.ValidationError, match="Discord is not configured"):
        await run(operations, MOD, "event create", {"name": "Raid", "start": "in 1 hour"})
    with pytest.raises(errors.ValidationError, match="unit"):
        await run(operations, MOD, "schedule", {"run": "say a", "time": 5, "unit": "year"})
    assert recorder.entries == [] and queued(server) == []


async def test_the_plan_export_is_a_file_and_a_group_gives_each_servers_outcome(
    ops: tuple[Operations, Recorder, Server],
) -> None:
    operations, _recorder, _server = ops
    await run(
        operations, ADMIN, "schedule", {"run": "say a", "time": 999, "unit": "second", "id": "a"}
    )
    exported = await run(operations, MOD, "plan export", {})
    [file] = exported.files
    assert file.name == "plan-main.yaml"
    document = yaml.safe_load(file.content)
    assert [t["id"] for t in document["tasks"]] == ["a"]
    assert exported.facts["document"] == file.content.decode()
    fanned = await run(operations, MOD, "time", {"server": "all"})
    assert fanned.facts["group"] == "all"
    assert [(s["server"], s["ok"]) for s in fanned.facts["servers"]] == [("main", True)]


# options a person gives only outside Discord: Discord pages with buttons and previews an import
# with its question, where the console and the API take the page or the dry run as an option
NOT_IN_DISCORD = {("list", "page"), ("history", "page"), ("plan import", "dry_run")}


def test_each_cogs_slash_options_are_its_operations() -> None:
    """A built-in's slash command is the cog's (buttons, embeds, paging), but its options are the
    operation's declared ones: the same names, the same required ones, none of its own. A field
    added to a request and not to the cog (or the other way round) fails here."""
    from bot.operations.builtin import BUILTIN
    from bot.operations.registry import options

    tree = json.loads(TREE.read_text())
    slash: dict[str, dict[str, bool]] = {}
    for name, command in tree.items():
        subs = [o for o in command.get("options", []) if o.get("type") == 1]
        for sub in subs or [command]:
            key = f"{name} {sub['name']}" if subs else name
            slash[key] = {o["name"]: bool(o.get("required")) for o in sub.get("options", [])}
    for spec in BUILTIN:
        declared = {o.name: o.required for o in options(spec)}
        for option in [o for o in declared if (spec.name, o) in NOT_IN_DISCORD]:
            declared.pop(option)
        assert slash[spec.name] == declared, spec.name

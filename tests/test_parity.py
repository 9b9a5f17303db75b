"""Every operation of the application layer has a face in Discord (and in the console, which reads
the same registry), in the JSON API and in the dashboard's pages.
A new operation fails this test until every face has it; a face's command or route that is gone
fails it too."""

from __future__ import annotations

import inspect
from pathlib import Path

from bot.operations import (
    admin,
    calendar,
    discord_events,
    groups,
    plan,
    queue,
    reads,
    runs,
    schedule,
    status,
)
from bot.testkit.harness import Harness, make_settings

AREAS = (admin, calendar, discord_events, groups, plan, queue, reads, runs, schedule, status)
# the steps a face takes before the operation itself (the question before a confirm button, the
# check that answers a typo at once): part of their operation, not operations of their own
STEPS = {
    "queue.count",
    "queue.size",
    "schedule.check",
    "schedule.preview",
    "discord_events.check",
    "groups.count",
    # a registry operation's fan-out over a group (/dryrun's): the registry gives it every face
    "groups.read",
}

# operation -> the slash command(s) that call it
DISCORD: dict[str, set[str]] = {
    "schedule.schedule": {"schedule"},
    "schedule.schedule_dynamic": {"schedule_dynamic"},
    "queue.cancel": {"cancel"},
    "queue.pause": {"pause"},
    "queue.resume": {"resume"},
    "queue.cancel_all": {"cancel_all"},
    "runs.run_now": {"run_now"},
    "runs.history": {"history"},
    "queue.clear": {"clear"},
    # a planned row is changed by its id in Discord: /cancel, /pause and /resume find it first
    "queue.change_planned": {"cancel", "pause", "resume"},
    "reads.game_time": {"time"},
    "reads.page": {"list"},
    "reads.show": {"show"},
    "status.status": {"status"},
    "admin.setup": {"setup"},
    "admin.selftest": {"selftest"},
    "discord_events.create": {"event create"},
    "discord_events.edit": {"event edit"},
    "discord_events.cancel": {"event cancel"},
    "discord_events.find": {"event show"},
    "discord_events.listed": {"event list"},
    "calendar.calendar": {"calendar"},
    "plan.export": {"plan export"},
    "plan.import_plan": {"plan import"},
    # `server:` naming a group: the same commands, each server answering for itself
    "groups.schedule": {"schedule"},
    "groups.schedule_dynamic": {"schedule_dynamic"},
    "groups.cancel": {"cancel"},
    "groups.pause": {"pause"},
    "groups.resume": {"resume"},
    "groups.cancel_all": {"cancel_all"},
    "groups.run_now": {"run_now"},
    "groups.clear": {"clear"},
    "groups.game_time": {"time"},
    "groups.page": {"list"},
    "groups.show": {"show"},
    "groups.history": {"history"},
}
# operation -> the API route that calls it (method, rule)
API: dict[str, tuple[str, str]] = {
    "schedule.schedule": ("POST", "/api/servers/<name>/tasks"),
    "schedule.schedule_dynamic": ("POST", "/api/servers/<name>/tasks/dynamic"),
    "queue.cancel": ("POST", "/api/servers/<name>/tasks/<task_id>/<verb>"),
    "queue.pause": ("POST", "/api/servers/<name>/tasks/<task_id>/<verb>"),
    "queue.resume": ("POST", "/api/servers/<name>/tasks/<task_id>/<verb>"),
    "queue.cancel_all": ("POST", "/api/servers/<name>/tasks/<task_id>/<verb>"),
    "runs.run_now": ("POST", "/api/servers/<name>/tasks/<task_id>/<verb>"),
    "runs.history": ("GET", "/api/servers/<name>/history/<task_id>"),
    "queue.clear": ("POST", "/api/servers/<name>/clear"),
    "queue.change_planned": ("POST", "/api/servers/<name>/planned/<plan_id>/<verb>"),
    "reads.game_time": ("GET", "/api/servers/<name>/time"),
    "reads.page": ("GET", "/api/servers/<name>/lists/<which>"),
    "reads.show": ("GET", "/api/servers/<name>/tasks/<task_id>"),
    "status.status": ("GET", "/api/servers"),
    "admin.setup": ("POST", "/api/servers/<name>/setup"),
    "admin.selftest": ("POST", "/api/servers/<name>/selftest"),
    "discord_events.create": ("POST", "/api/discord-events"),
    "discord_events.edit": ("POST", "/api/discord-events/<event>/edit"),
    "discord_events.cancel": ("POST", "/api/discord-events/<event>/cancel"),
    "discord_events.find": ("GET", "/api/discord-events"),
    "discord_events.listed": ("GET", "/api/discord-events"),
    "calendar.calendar": ("POST", "/api/calendar"),
    "plan.export": ("GET", "/api/servers/<name>/plan"),
    "plan.import_plan": ("POST", "/api/servers/<name>/plan"),
    "groups.schedule": ("POST", "/api/groups/<group>/tasks"),
    "groups.schedule_dynamic": ("POST", "/api/groups/<group>/tasks/dynamic"),
    "groups.cancel": ("POST", "/api/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.pause": ("POST", "/api/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.resume": ("POST", "/api/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.cancel_all": ("POST", "/api/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.run_now": ("POST", "/api/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.clear": ("POST", "/api/groups/<group>/clear"),
    "groups.game_time": ("GET", "/api/groups/<group>/time"),
    "groups.page": ("GET", "/api/groups/<group>/lists/<which>"),
    "groups.show": ("GET", "/api/groups/<group>/tasks/<task_id>"),
    "groups.history": ("GET", "/api/groups/<group>/history/<task_id>"),
}

# operation -> the page route (method, rule) that calls it: a form's POST or a page's GET
PAGES: dict[str, tuple[str, str]] = {
    # the queue page's schedule form: either kind, a new unique id (`prefix`), a group (`target`)
    "schedule.schedule": ("POST", "/servers/<name>/queue"),
    "schedule.schedule_dynamic": ("POST", "/servers/<name>/queue"),
    "queue.cancel": ("POST", "/servers/<name>/tasks/<task_id>/<verb>"),
    "queue.pause": ("POST", "/servers/<name>/tasks/<task_id>/<verb>"),
    "queue.resume": ("POST", "/servers/<name>/tasks/<task_id>/<verb>"),
    "runs.run_now": ("POST", "/servers/<name>/tasks/<task_id>/<verb>"),
    # after its question, GET /servers/<name>/tasks/<task_id>/cancel_all (queue.count)
    "queue.cancel_all": ("POST", "/servers/<name>/tasks/<task_id>/<verb>"),
    "runs.history": ("GET", "/servers/<name>/history/<task_id>"),
    "queue.clear": ("POST", "/servers/<name>/clear"),
    "queue.change_planned": ("POST", "/servers/<name>/planned/<plan_id>/<verb>"),
    "reads.game_time": ("GET", "/servers"),  # on each server's card
    "reads.page": ("GET", "/servers/<name>/<which>"),
    "reads.show": ("GET", "/servers/<name>/tasks/<task_id>"),
    "status.status": ("GET", "/servers"),
    "admin.setup": ("POST", "/servers/<name>/setup"),
    "admin.selftest": ("POST", "/servers/<name>/selftest"),
    "discord_events.create": ("POST", "/discord-events"),
    "discord_events.edit": ("POST", "/discord-events/<event>/edit"),
    "discord_events.cancel": ("POST", "/discord-events/<event>/cancel"),
    "discord_events.find": ("GET", "/discord-events/<event>"),
    "discord_events.listed": ("GET", "/discord-events"),
    "calendar.calendar": ("POST", "/calendar"),
    "plan.export": ("GET", "/servers/<name>/plan/download"),
    "plan.import_plan": ("POST", "/servers/<name>/plan"),
    # a group's pages (the server picker offers the groups); its queue page's schedule form
    # (a server's form with a group as its `target` calls them too)
    "groups.schedule": ("POST", "/groups/<group>/queue"),
    "groups.schedule_dynamic": ("POST", "/groups/<group>/queue"),
    "groups.cancel": ("POST", "/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.pause": ("POST", "/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.resume": ("POST", "/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.run_now": ("POST", "/groups/<group>/tasks/<task_id>/<verb>"),
    # after its question, GET /groups/<group>/tasks/<task_id>/cancel_all (groups.count)
    "groups.cancel_all": ("POST", "/groups/<group>/tasks/<task_id>/<verb>"),
    "groups.clear": ("POST", "/groups/<group>/clear"),
    "groups.game_time": ("GET", "/groups/<group>"),  # on each server's card, as /servers
    "groups.page": ("GET", "/groups/<group>/<which>"),
    "groups.show": ("GET", "/groups/<group>/tasks/<task_id>"),
    "groups.history": ("GET", "/groups/<group>/history/<task_id>"),
}


def operations() -> set[str]:
    """Every operation: a public coroutine function of an area taking (ops, caller, request)."""
    found = set()
    for area in AREAS:
        name = area.__name__.rsplit(".", 1)[1]
        for attr, value in vars(area).items():
            if attr.startswith("_") or not inspect.iscoroutinefunction(value):
                continue
            if value.__module__ != area.__name__:
                continue
            if list(inspect.signature(value).parameters)[:2] == ["ops", "caller"]:
                found.add(f"{name}.{attr}")
    return found - STEPS


def test_every_operation_has_a_discord_an_api_and_a_page_face() -> None:
    ops = operations()
    assert len(ops) >= 19, ops
    assert ops - set(DISCORD) == set(), "operations without a slash command"
    assert ops - set(API) == set(), "operations without an API route"
    assert ops - set(PAGES) == set(), "operations without a page"
    assert set(DISCORD) - ops == set() and set(API) - ops == set(), "faces of no operation"
    assert set(PAGES) - ops == set(), "pages of no operation"
    assert not [r for _, r in PAGES.values() if r.startswith("/api/")], "a page is not the API"


async def test_the_faces_named_here_exist(tmp_path: Path) -> None:
    from bot.services import Services
    from bot.store.audit import AuditStore

    settings = make_settings(tmp_path, web_port=0)
    harness = await Harness(settings, Services(settings, {}, AuditStore(tmp_path / "a.db"))).start()
    try:
        tree = {c.qualified_name for c in harness.bot.tree.walk_commands()}
        for operation, commands in DISCORD.items():
            assert commands <= tree, (operation, commands - tree)
        from web.app import create_app

        app = create_app(harness.services, bot=harness.bot)
        rules = {(m, r.rule) for r in app.url_map.iter_rules() for m in r.methods or ()}
        for operation, route in API.items():
            assert route in rules, (operation, route)
        for operation, route in PAGES.items():
            assert route in rules, (operation, route)
    finally:
        await harness.close()

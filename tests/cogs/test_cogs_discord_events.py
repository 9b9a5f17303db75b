"""/event at the Discord HTTP edge and through discord.py's gateway parser, on an injected clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import discord
import pytest

from bot.testkit.harness import ALERT_CHANNEL, MOD, NOBODY
from tests.cogs.discord_events_fixture import NOW, EventHarness, event_harness


@pytest.fixture
async def ev(tmp_path: Path) -> AsyncIterator[EventHarness]:
    async for h in event_harness(tmp_path):
        yield h


async def test_create_posts_the_discord_event_and_binds_its_tasks(ev: EventHarness) -> None:
    options = {"description": "Bring blocks", "start_run": "say go", "end_run": "say stop"}
    reply = await ev.run("event create", MOD, name="Build Battle", start="in 2h", **options)
    assert "Event #1 **Build Battle** made" in reply.text, reply.text
    posts = [s for s in ev.discord.scheduled.requests if s.method == "POST"]
    assert len(posts) == 1
    assert posts[0].path == f"/guilds/{ev.discord.guild_id}/scheduled-events"
    start = NOW + timedelta(hours=2)
    assert posts[0].payload == {
        "name": "Build Battle",
        "description": "Bring blocks",
        "privacy_level": 2,
        "scheduled_start_time": start.isoformat(),
        "scheduled_end_time": (start + timedelta(hours=1)).isoformat(),
        "entity_type": 3,
        "entity_metadata": {"location": "mc.example.org"},
    }
    start_task, end_task = ev.tasks.active()
    assert (start_task.command, start_task.due, start_task.announce) == ("say go", start, (600, 60))
    assert (end_task.command, end_task.due, end_task.announce) == (
        "say stop",
        start + timedelta(hours=1),
        (),
    )
    assert (start_task.task_id, end_task.task_id) == ("Build_Battle.e1", "Build_Battle.e1.end")


async def _create(ev: EventHarness, **options: object) -> int:
    values: dict[str, object] = {"name": "Build Battle", "start": "in 2h"}
    values.update(options)
    reply = await ev.run("event create", MOD, **values)
    assert "made" in reply.text, reply.text
    return int(ev.discord.scheduled.live()[-1]["id"])


def _nothing_made(ev: EventHarness) -> None:
    assert not ev.discord.scheduled.live()
    assert not ev.tasks.active()


async def test_a_default_announcement_before_now_is_left_out_and_said(ev: EventHarness) -> None:
    reply = await ev.run("event create", MOD, name="Quick", start="in 3m")
    assert "Event #1 **Quick** made" in reply.text, reply.text
    assert (
        "The default announcement 10m before the start was left out: the event starts sooner "
        "than that." in reply.text
    ), reply.text
    start_task, _end = ev.tasks.active()
    assert start_task.announce == (60,)  # the 1m one still fits
    # an offset the moderator gave is still refused
    refused = await ev.run("event create", MOD, name="Late", start="in 3m", announce="10m")
    assert "The announce offset 10m is longer than the time until the start (3m)" in refused.text
    assert len(ev.discord.scheduled.live()) == 1


async def _rows(ev: EventHarness) -> list[object]:
    return list(await ev.cog.events.store.in_states(("creating", "scheduled", "active")))


async def test_end_defaults_to_one_hour_and_takes_a_length(ev: EventHarness) -> None:
    await _create(ev, end="90m", announce="none")
    body = ev.discord.scheduled.requests[-1].payload
    assert body["scheduled_end_time"] == (NOW + timedelta(hours=3, minutes=30)).isoformat()
    assert "description" not in body
    assert ev.tasks.active()[0].announce == ()


BAD = [
    ({"start": "in 5m ago"}, "is not a duration"),
    ({"start": "2020-01-01 10:00"}, "is in the past"),
    ({"start": "yesterday 10:00"}, "is not a day"),
    ({"end": "2026-12-05 13:00"}, "is not after the start"),
    ({"end": "in 1h"}, "is not after the start"),
    ({"name": "x" * 101}, "The event name is 101 characters long; Discord allows at most 100."),
    ({"name": "   "}, "The event name is empty"),
    (
        {"description": "d" * 1001},
        "The description is 1001 characters long; Discord allows at most 1000.",
    ),
    ({"server": "nether"}, "There is no server called 'nether'"),
    ({"announce": "3h"}, "The announce offset 3h is longer than the time until the start (2h)"),
    ({"announce": "10m,,1m"}, "`announce` '10m,,1m' has an empty item"),
    ({"reminders": "1d"}, "The reminder offset 1d is longer than the time until the start (2h)"),
    ({"reminders": "5x"}, "has an unknown unit 'x'"),
    ({"repeat": "30m"}, "The event lasts 1h but repeats every 30m"),
    ({"repeat": "61 * * * *"}, "is not a valid cron expression"),
    ({"timezone": "Mars/Olympus"}, "'Mars/Olympus' is not a time zone I know"),
    ({"start_run": "op Steve"}, "Refused"),
    ({"end_run": "sya hi"}, "does not parse"),
]


@pytest.mark.parametrize(("options", "sentence"), BAD, ids=[str(i) for i in range(len(BAD))])
async def test_bad_input_is_refused_with_a_sentence_and_nothing_made(
    ev: EventHarness, options: dict[str, object], sentence: str
) -> None:
    values: dict[str, object] = {"name": "Build Battle", "start": "in 2h"}
    values.update(options)
    reply = await ev.run("event create", MOD, **values)
    assert reply.ephemeral
    assert sentence in reply.text, reply.text
    assert not ev.discord.scheduled.requests
    _nothing_made(ev)
    assert not await _rows(ev)


async def test_only_moderators_may_use_events(ev: EventHarness) -> None:
    reply = await ev.run("event create", NOBODY, name="x", start="in 1h")
    assert reply.text == "You need the moderator role to use /event create."
    assert not ev.discord.scheduled.requests


async def test_missing_create_events_permission_is_a_sentence(ev: EventHarness) -> None:
    ev.discord.bot_permissions = type(ev.discord.bot_permissions)(send_messages=True)
    ev.discord.bot._connection._add_guild_from_data(ev.discord.guild_payload())  # type: ignore[arg-type]
    reply = await ev.run("event create", MOD, name="x", start="in 1h")
    assert "The bot lacks the Create Events permission in local" in reply.text
    assert not ev.discord.scheduled.requests
    _nothing_made(ev)


async def test_discord_refusing_the_create_leaves_no_tasks(ev: EventHarness) -> None:
    ev.discord.scheduled.fail_next("POST", status=403, code=50013, message="Missing Permissions")
    reply = await ev.run("event create", MOD, name="Build Battle", start="in 2h")
    assert (
        "Discord refused to create the event 'Build Battle': Missing Permissions (HTTP 403)"
        in reply.text
    )
    assert "Nothing was made." in reply.text
    _nothing_made(ev)
    assert not await _rows(ev)


@pytest.mark.parametrize("failing", [1, 2], ids=["start task", "end task"])
async def test_tasks_failing_after_the_discord_event_remove_it(
    ev: EventHarness, failing: int
) -> None:
    ev.tasks.fail_schedules.append(failing)
    reply = await ev.run("event create", MOD, name="Build Battle", start="in 2h")
    assert "could not be stored (the schedule table is locked (test))" in reply.text, reply.text
    assert "its Discord event was removed again. Nothing was made." in reply.text
    methods = [s.method for s in ev.discord.scheduled.requests]
    assert methods == ["POST", "DELETE"]
    _nothing_made(ev)
    assert not await _rows(ev)


async def test_failing_undo_is_an_alert_naming_the_event(ev: EventHarness) -> None:
    ev.tasks.fail_schedules.append(1)
    ev.discord.scheduled.fail_next(
        "DELETE",
        "/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}",
        status=403,
        code=50013,
        message="Missing Permissions",
    )
    await ev.run("event create", MOD, name="Build Battle", start="in 2h")
    alert = ev.posts(ALERT_CHANNEL)[-1].payload["embeds"][0]["description"]
    assert "Event **Build Battle**" in alert and "delete the event in Discord by hand" in alert


async def test_edit_moves_discord_and_the_tasks(ev: EventHarness) -> None:
    event_id = await _create(ev)
    reply = await ev.run("event edit", MOD, event="1", start="in 3h", name="Big Build")
    assert "Event #1 **Big Build** now runs" in reply.text, reply.text
    patch = ev.discord.scheduled.requests[-1]
    assert patch.method == "PATCH"
    assert patch.path == f"/guilds/{ev.discord.guild_id}/scheduled-events/{event_id}"
    start = NOW + timedelta(hours=3)
    assert patch.payload == {
        "name": "Big Build",
        "scheduled_start_time": start.isoformat(),
        "scheduled_end_time": (start + timedelta(hours=1)).isoformat(),
    }
    await ev.discord.scheduled.settle()  # the gateway echo of the bot's own edit moves nothing
    assert [(t.due, t.state) for t in ev.tasks.rows.values()] == [
        (NOW + timedelta(hours=2), "cancelled"),
        (NOW + timedelta(hours=3), "cancelled"),
        (start, "active"),
        (start + timedelta(hours=1), "active"),
    ]


async def test_discord_refusing_an_edit_keeps_the_old_tasks(ev: EventHarness) -> None:
    await _create(ev)
    ev.discord.scheduled.fail_next(
        "PATCH",
        "/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}",
        status=400,
        code=50035,
        message="Invalid Form Body",
    )
    reply = await ev.run("event edit", MOD, event="Build Battle", start="in 3h")
    assert (
        "Discord refused the change to 'Build Battle': Invalid Form Body (HTTP 400). "
        "Nothing was changed." in reply.text
    )
    assert [t.due for t in ev.tasks.active()] == [
        NOW + timedelta(hours=2),
        NOW + timedelta(hours=3),
    ]
    assert len(ev.tasks.rows) == 4  # the two new ones were made and cancelled again
    row = (await ev.cog.events.store.in_states(("scheduled",)))[0]
    assert row.start == NOW + timedelta(hours=2)


async def test_cancel_deletes_the_discord_event_and_the_tasks(ev: EventHarness) -> None:
    event_id = await _create(ev)
    reply = await ev.run("event cancel", MOD, event="#1")
    assert "cancelled: the Discord event and its tasks" in reply.text
    assert ev.discord.scheduled.requests[-1].method == "DELETE"
    assert event_id in ev.discord.scheduled.deleted
    _nothing_made(ev)


async def test_discord_refusing_the_cancel_keeps_the_tasks(ev: EventHarness) -> None:
    await _create(ev)
    ev.discord.scheduled.fail_next(
        "DELETE", "/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}"
    )
    reply = await ev.run("event cancel", MOD, event="1")
    assert "Discord refused to delete 'Build Battle'" in reply.text
    assert len(ev.tasks.active()) == 2 and len(ev.discord.scheduled.live()) == 1


async def test_a_move_in_discord_moves_every_bound_task(ev: EventHarness) -> None:
    event_id = await _create(ev, reminders="1h")
    start = NOW + timedelta(minutes=5)
    await ev.discord.scheduled.move(event_id, start, start + timedelta(minutes=30))
    active = ev.tasks.active()
    # the 10 min countdown no longer fits before the new start
    assert [(t.due, t.announce) for t in active] == [
        (start, (60,)),
        (start + timedelta(minutes=30), ()),
    ]
    notice = ev.posts(ALERT_CHANNEL)[-1].payload["embeds"][0]["description"]
    assert "it was moved in Discord" in notice and "Countdowns longer" in notice


@pytest.mark.parametrize("how", ["delete", "cancel"])
async def test_a_cancel_or_delete_in_discord_cancels_the_tasks(ev: EventHarness, how: str) -> None:
    event_id = await _create(ev)
    if how == "delete":
        await ev.discord.scheduled.delete(event_id)
    else:
        await ev.discord.scheduled.set_status(event_id, 4)
    _nothing_made(ev)
    ev.clock.advance(3 * 3600)
    assert ev.tasks.run_due() == []  # nothing left to run
    row = (await ev.cog.events.store.in_states(("cancelled",)))[0]
    assert row.name == "Build Battle"


async def test_interested_clicks_change_the_count(ev: EventHarness) -> None:
    event_id = await _create(ev)
    for user in (8001, 8002):
        await ev.discord.scheduled.interest(event_id, user)
    listed = await ev.run("event list", MOD)
    assert "2 interested" in listed.text
    await ev.discord.scheduled.interest(event_id, 8001, added=False)
    listed = await ev.run("event list", MOD)
    assert "1 interested" in listed.text
    shown = await ev.run("event show", MOD, event="1")
    fields = {f["name"]: f["value"] for f in shown.embeds[0]["fields"]}
    assert fields["interested"] == "1"
    assert fields["start task"].endswith("active")
    assert fields["starts"].startswith(f"<t:{int((NOW + timedelta(hours=2)).timestamp())}:F>")


async def test_reminders_mention_the_interested_members(ev: EventHarness) -> None:
    event_id = await _create(ev, reminders="1h,5m")
    for user in (8001, 8002):
        await ev.discord.scheduled.interest(event_id, user)
    await ev.advance(59 * 60)
    assert not ev.posts(ALERT_CHANNEL)[1:]  # nothing yet: one minute before the first reminder
    await ev.advance(60)
    reminder = ev.posts(ALERT_CHANNEL)[-1].payload
    stamp = int((NOW + timedelta(hours=2)).timestamp())
    assert reminder["content"] == (
        f"Reminder: **Build Battle** starts <t:{stamp}:R> (<t:{stamp}:F>) at mc.example.org."
        " <@8001> <@8002>"
    )
    assert sorted(reminder["allowed_mentions"]["users"]) == [8001, 8002]
    assert reminder["allowed_mentions"]["parse"] == []
    users = [s for s in ev.discord.scheduled.requests if s.path.endswith("/users")]
    assert len(users) == 1
    await ev.advance(55 * 60)
    assert ev.posts(ALERT_CHANNEL)[-1].payload["content"].startswith("Reminder: **Build Battle**")
    assert (
        len([p for p in ev.posts(ALERT_CHANNEL) if "Reminder" in p.payload.get("content", "")]) == 2
    )


async def test_a_process_without_the_gateway_runs_no_event_timer(ev: EventHarness) -> None:
    """Several `run` processes on one database: the one holding Discord's gateway sends the
    reminders and makes the next occurrences (bot.discord.gateway); another's timers wait, and
    take over when the gateway comes to it."""

    def reminders() -> int:
        return len(
            [p for p in ev.posts(ALERT_CHANNEL) if "Reminder" in p.payload.get("content", "")]
        )

    await _create(ev, reminders="5m")
    ev.bot.acting = False
    ev.cog.timers.start()  # the loop itself, on the harness's clock
    try:
        ev.clock.advance(116 * 60)  # past the reminder
        for _ in range(20):
            await asyncio.sleep(0.01)
        await ev.discord.scheduled.settle()
        assert reminders() == 0
        ev.bot.acting = True
        ev.clock.advance(1)  # the idle look comes round
        for _ in range(200):
            await ev.discord.scheduled.settle()
            if reminders():
                break
            await asyncio.sleep(0.01)
        assert reminders() == 1
    finally:
        await ev.cog.timers.stop()


async def test_start_and_end_set_the_discord_status_and_repeat_makes_the_next(
    ev: EventHarness,
) -> None:
    event_id = await _create(ev, repeat="1d", reminders="5m")
    await ev.advance(2 * 3600)
    assert ev.discord.scheduled.events[event_id]["status"] == 2
    assert ev.tasks.run_due()[0].command.startswith("tellraw @a")
    await ev.advance(3600)
    assert ev.tasks.run_due()[0].command.startswith("tellraw @a")  # the end task
    assert ev.discord.scheduled.events[event_id]["status"] == 3
    nxt = ev.discord.scheduled.live()
    assert len(nxt) == 1 and int(nxt[0]["id"]) != event_id
    start = NOW + timedelta(days=1, hours=2)
    assert nxt[0]["scheduled_start_time"] == start.isoformat()
    assert [t.due for t in ev.tasks.active()] == [start, start + timedelta(hours=1)]
    row = (await ev.cog.events.store.in_states(("scheduled",)))[0]
    assert (row.occurrence, row.previous_id, row.reminders) == (2, 1, (300,))


async def test_a_failed_start_command_is_an_alert_naming_the_event(ev: EventHarness) -> None:
    await _create(ev)
    ev.clock.advance(2 * 3600)
    ev.tasks.run_due(outcome="failed: unknown_function")
    await ev.advance(31)
    alert = ev.posts(ALERT_CHANNEL)[-1].payload["embeds"][0]
    assert alert["title"] == "Event problem"
    assert alert["description"] == (
        "Event **Build Battle** (#1 on main): its start command did not run as it should: "
        "failed: unknown_function."
    )


async def test_the_binding_failing_to_store_undoes_both_halves(
    ev: EventHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ev.cog.events.store
    real = store.update

    async def update(event_id: int, **changes: object) -> object:
        if changes.get("state") == "scheduled":
            raise OSError("disk full (test)")
        return await real(event_id, **changes)

    monkeypatch.setattr(store, "update", update)
    reply = await ev.run("event create", MOD, name="Build Battle", start="in 2h")
    assert "Something went wrong on our side (error id" in reply.text
    assert [s.method for s in ev.discord.scheduled.requests] == ["POST", "DELETE"]
    _nothing_made(ev)


async def test_a_create_cut_short_by_a_crash_is_undone_on_start(ev: EventHarness) -> None:
    """What a bot that died between the Discord call and the binding left: a `creating` row,
    its Discord event and its start task. On start-up all three go."""
    from bot.store.guild_events import NewEvent

    events, store = ev.cog.events, ev.cog.events.store
    start, end = NOW + timedelta(hours=2), NOW + timedelta(hours=3)
    row = await store.insert(
        NewEvent(
            "main",
            ev.discord.guild_id,
            "Build Battle",
            None,
            "here",
            start,
            end,
            "say x",
            "say y",
            (),
            (),
            None,
            None,
            "UTC",
            1,
            "x",
        ),
        NOW,
    )
    guild = ev.discord.bot.get_guild(ev.discord.guild_id)
    assert guild is not None
    made = await guild.create_scheduled_event(
        name="Build Battle",
        start_time=start,
        end_time=end,
        location="here",
        entity_type=discord.EntityType.external,
        privacy_level=discord.PrivacyLevel.guild_only,
    )
    await store.update(row.id, discord_id=made.id)
    task = await ev.tasks.schedule(
        server="main",
        task_id="Build_Battle.e1",
        command="say x",
        due=start,
        announce=(),
        by_id=1,
        by_name="x",
    )
    assert await events.recover() == 1
    assert ev.tasks.rows[task].state == "cancelled"
    assert made.id in ev.discord.scheduled.deleted
    assert await store.get(row.id) is None


async def test_a_discord_id_another_row_keeps_is_not_bound_twice(ev: EventHarness) -> None:
    """One row per Discord event id (the database's unique index): a create whose new id a row
    already holds (another process bound it) stores nothing, leaves that row and its Discord
    event alone, and says so."""
    first = await _create(ev, name="First")
    store = ev.cog.events.store
    [kept] = await _rows(ev)
    taken = first + 1000
    await store.update(kept.id, discord_id=taken)  # as another process's binding left it
    local = ev.discord

    class SameId:  # the Discord edge: the next event Discord makes gets the id already kept
        def next_id(self) -> int:
            return taken

        def __getattr__(self, name: str) -> object:
            return getattr(local, name)

    ev.discord.scheduled.local = SameId()  # type: ignore[assignment]
    reply = await ev.run("event create", MOD, name="Second", start="in 3h")
    assert (
        f"Discord gave 'Second' the event id {taken}, which the bot already keeps for another"
        " event: 'Second' was not stored, and that Discord event was left to the other one."
        in reply.text
    ), reply.text
    await ev.discord.scheduled.settle()
    assert taken not in ev.discord.scheduled.deleted
    assert [(r.name, r.discord_id, r.state) for r in await _rows(ev)] == [
        ("First", taken, "scheduled")
    ]
    assert len(ev.tasks.active()) == 2  # First's two, none made for Second


async def test_with_a_role_reminders_give_it_and_mention_it(tmp_path: Path) -> None:
    async for ev in event_harness(
        tmp_path, discord_event_role_id=5555, discord_event_channel_id=6100
    ):
        event_id = await _create(ev, reminders="5m")
        for user in (8001, 8002):
            await ev.discord.scheduled.interest(event_id, user)
        await ev.advance(115 * 60)
        roles = [s.path for s in ev.discord.scheduled.requests if s.method == "PUT"]
        guild = ev.discord.guild_id
        # given when they pressed Interested, and again (idempotent) at the reminder
        assert roles.count(f"/guilds/{guild}/members/8001/roles/5555") >= 1
        assert f"/guilds/{guild}/members/8002/roles/5555" in roles
        (reminder,) = ev.posts(6100)
        assert reminder.payload["content"].endswith(" <@&5555>")
        assert reminder.payload["allowed_mentions"]["roles"] == [5555]


EDIT_BAD = [
    ({"start": "2020-01-01 10:00"}, "is in the past"),
    ({"end": "2026-12-05 13:00"}, "is not after the start"),
    ({"name": "n" * 101}, "The event name is 101 characters long"),
    ({"start": "in 5m"}, "The announce offset 10m is longer than the time until the start (5m)"),
    ({}, "Nothing to change"),
    ({"event": "nope"}, "There is no event 'nope': see /event list for the ids."),
]


@pytest.mark.parametrize(("options", "sentence"), EDIT_BAD, ids=[str(i) for i in range(6)])
async def test_a_bad_edit_changes_nothing(
    ev: EventHarness, options: dict[str, object], sentence: str
) -> None:
    await _create(ev)
    before = len(ev.discord.scheduled.requests)
    values: dict[str, object] = {"event": "1"}
    values.update(options)
    reply = await ev.run("event edit", MOD, **values)
    assert sentence in reply.text, reply.text
    assert len(ev.discord.scheduled.requests) == before
    assert [t.due for t in ev.tasks.active()] == [
        NOW + timedelta(hours=2),
        NOW + timedelta(hours=3),
    ]
    assert len(ev.tasks.rows) == 2


def test_mentions_are_split_into_messages_discord_accepts() -> None:
    from bot.discord.guildevents.timers import mention_chunks

    mentions = [f"<@{10**18 + i}>" for i in range(200)]
    chunks = mention_chunks("Reminder: **x** starts soon.", mentions)
    assert len(chunks) > 1 and all(len(c) <= 2000 for c in chunks)
    assert " ".join(chunks).split()[4:] == mentions  # every member, once, in order


async def test_event_ids_autocomplete_from_live_events(ev: EventHarness) -> None:
    await _create(ev)
    await _create(ev, name="Quiz Night")
    choices = await ev.autocomplete("event show", "event", MOD, event="quiz")
    assert choices == [{"name": "#2 Quiz Night", "value": "2"}]
    assert await ev.autocomplete("event show", "event", NOBODY, event="quiz") == []
    await ev.run("event cancel", MOD, event="2")
    assert await ev.autocomplete("event show", "event", MOD, event="quiz") == []


async def test_with_the_members_intent_the_gateway_clicks_count(ev: EventHarness) -> None:
    """discord.py caches users only with the (privileged) members intent; where it does, its
    parser delivers the user add/remove events and the stored count follows them."""
    import types

    from discord.state import ConnectionState

    state = ev.bot._connection
    state.store_user = types.MethodType(ConnectionState.store_user, state)  # type: ignore[method-assign]
    event_id = await _create(ev)
    store = ev.cog.events.store
    await ev.discord.scheduled.interest(event_id, 8001)
    await ev.discord.scheduled.interest(event_id, 8002)
    assert (await store.get(1)).interested == 2  # type: ignore[union-attr]
    await ev.discord.scheduled.interest(event_id, 8002, added=False)
    assert (await store.get(1)).interested == 1  # type: ignore[union-attr]


@pytest.mark.parametrize("reminders", ["5m", None], ids=["at-the-reminder", "at-the-start"])
async def test_a_404_for_a_bound_event_is_its_deletion(
    ev: EventHarness, reminders: str | None
) -> None:
    # deleted in Discord while the bot was not listening: no gateway delete ever came
    options = {"reminders": reminders} if reminders else {}
    event_id = await _create(ev, **options)
    del ev.discord.scheduled.events[event_id]
    posts_before = len(ev.posts(ALERT_CHANNEL))
    await ev.advance(2 * 3600 - (300 if reminders else 0))
    assert {(r.status, r.code) for r in ev.discord.refused} == {(404, 10070)}
    ev.discord.refused.clear()
    said = [p.payload for p in ev.posts(ALERT_CHANNEL)[posts_before:]]
    assert not [p for p in said if "Reminder" in (p.get("content") or "")], said
    notices = [p["embeds"][0] for p in said if p.get("embeds")]
    assert len(notices) == 1, said
    assert "it was deleted in Discord, so its in-game tasks were cancelled" in str(notices[0])
    assert notices[0]["title"] != "Event problem"
    row = await ev.cog.events.store.get(1)
    assert row is not None and row.state == "cancelled"
    start = NOW + timedelta(hours=2)
    # found at the reminder: both tasks cancelled; at the start, the start task is due that
    # very moment (the scheduler runs it), so the end task is what is left to cancel
    assert [t.due for t in ev.tasks.active()] == ([] if reminders else [start])
    await ev.advance(2 * 3600)
    assert len([p for p in ev.posts(ALERT_CHANNEL)[posts_before:] if p.payload.get("embeds")]) == 1


async def test_the_local_discord_keeps_its_events_across_a_restart(tmp_path: Path) -> None:
    async for first in event_harness(tmp_path):
        event_id = await _create(first, reminders="5m")
        await first.discord.scheduled.interest(event_id, 8001)
    async for again in event_harness(tmp_path):  # the same data folder: a console restarted
        assert [int(e["id"]) for e in again.discord.scheduled.live()] == [event_id]
        guild = again.bot.get_guild(again.discord.guild_id)
        assert guild is not None and guild.get_scheduled_event(event_id) is not None
        await again.advance(2 * 3600 - 300)
        reminders = [
            p for p in again.posts(ALERT_CHANNEL) if "Reminder" in (p.payload.get("content") or "")
        ]
        assert len(reminders) == 1 and reminders[0].payload["content"].endswith("<@8001>")
        row = await again.cog.events.store.get(1)
        assert row is not None and row.state == "scheduled"

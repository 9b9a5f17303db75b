"""Every command against the real pack client over RCON to mcsim."""

from __future__ import annotations

import asyncio

import pytest

from bot.minecraft.installer import bundled_datapack, pack_version_of
from bot.minecraft.pack_tasks import TASK_LISTS
from bot.minecraft.server_files import version_from_logs
from bot.testkit.harness import ADMIN, AUDIT_CHANNEL, MOD, NOBODY, Harness
from bot.testkit.localdiscord.http_session import RateLimits
from mcsim.server import Server
from tests.fixtures import sent_to


async def test_confirm_cancel_all_only_by_the_invoker(live: Harness, mc: Server) -> None:
    for _ in range(3):
        await live.run("schedule", MOD, run="say x", time=1000, unit="tick", id="x")
    prompt = await live.run("cancel_all", MOD, id="x")
    assert "Cancel all 3 task(s) `x` on main?" in prompt.text
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    assert [b["label"] for b in live.buttons(message_id)] == ["Confirm", "Cancel"]

    wrong = await live.press(message_id, "Confirm", NOBODY)
    assert wrong.ephemeral and "Only the person who ran the command" in wrong.text
    assert await live.services.servers["main"].pack.count("x") == 3

    right = await live.press(message_id, "Confirm", MOD)
    assert "Cancelled 3 task(s) `x` on main." in right.text
    assert all(b.get("disabled") for b in live.buttons(message_id))
    assert await live.services.servers["main"].pack.count("x") == 0


async def test_clear_cancel_and_timeout(live: Harness, mc: Server) -> None:
    await live.run("schedule", MOD, run="say y", time=1000, unit="tick", id="y")
    refused = await live.run("clear", MOD)  # clearing every task is for admins
    assert refused.text == "You need the admin role to use /clear.", refused.text
    prompt = await live.run("clear", ADMIN)
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    cancelled = await live.press(message_id, "Cancel", ADMIN)
    assert "Cancelled; nothing was changed." in cancelled.text
    assert await live.services.servers["main"].pack.count("y") == 1

    prompt = await live.run("clear", ADMIN)
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    await live.discord.wait_for(lambda: all(b.get("disabled") for b in live.buttons(message_id)))
    assert "No answer in time" in live.message(message_id)["content"]
    assert await live.services.servers["main"].pack.count("y") == 1

    prompt = await live.run("clear", ADMIN)
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    done = await live.press(message_id, "Confirm", ADMIN)
    assert "Removed 1 task(s) from main." in done.text


async def test_autocomplete_offers_live_ids_at_most_25(live: Harness, mc: Server) -> None:
    for i in range(30):
        await live.run("schedule", MOD, run="say z", time=1000, unit="tick", id=f"job{i}")
    choices = await live.autocomplete("cancel", "id", MOD, id="job")
    assert 1 <= len(choices) <= 25
    assert all(c["value"].startswith("job") for c in choices)
    narrow = await live.autocomplete("cancel", "id", MOD, id="job2")
    assert {c["value"] for c in narrow} == {"job2", *(f"job2{i}" for i in range(10))}
    # every command on one task shares the same id autocomplete (bot/discord/slash/cog_helpers.py)
    for name in ("cancel_all", "pause", "resume", "show"):
        offered = await live.autocomplete(name, "id", MOD, id="job2")
        assert [c["value"] for c in offered] == [c["value"] for c in narrow], name
    servers = await live.autocomplete("cancel", "server", MOD, id="job1", server="")
    assert [c["value"] for c in servers] == ["main"]


def reads_of_task_lists(sent: list[str]) -> list[str]:
    """The commands among `sent` that read the pack's task lists (their ids or their counts)."""
    return [t for t in sent if any(f"doom.schedule:data {w}[" in t for w in TASK_LISTS)]


async def test_autocomplete_shows_no_task_to_a_user_without_the_role(
    live: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await live.run("schedule", MOD, run="say z", time=1000, unit="tick", id="secret_job")
    sent = sent_to(live, monkeypatch)
    assert await live.autocomplete("cancel", "id", NOBODY, id="secret") == []
    assert reads_of_task_lists(sent) == []  # refused before the server is asked for ids
    offered = await live.autocomplete("cancel", "id", MOD, id="secret")
    assert [c["value"] for c in offered] == ["secret_job"]
    assert reads_of_task_lists(sent) != []  # what a moderator's keystroke asks, seen above


async def test_list_pages_and_shows_etas(live: Harness, mc: Server) -> None:
    for i in range(23):
        await live.run("schedule", MOD, run=f"say {i}", time=100 + i, unit="tick", id=f"p{i:02d}")
    reply = await live.run("list", MOD)
    [embed] = reply.embeds
    assert embed["title"] == "queue on main: 23 task(s)"
    assert embed["footer"]["text"] == "page 1 of 3"
    assert "`p00`" in embed["description"] and "<t:" in embed["description"]
    message_id = reply.messages[-1].message_id
    assert message_id is not None
    turned = await live.press(message_id, "Next", MOD)
    assert turned.embeds[-1]["footer"]["text"] == "page 2 of 3"
    assert "`p10`" in turned.embeds[-1]["description"]
    refused = await live.press(message_id, "Next", NOBODY)
    assert refused.ephemeral


async def test_pause_resume_show_cancel_time(live: Harness, mc: Server) -> None:
    await live.run("schedule", MOD, run="say later", time=200, unit="tick", id="later")
    assert "Paused `later`." in (await live.run("pause", MOD, id="later")).text
    shown = await live.run("show", MOD, id="later")
    assert shown.embeds and shown.embeds[0]["title"] == "Task `later`"
    assert "paused" in str(shown.embeds[0]["fields"])
    await asyncio.to_thread(mc.step, 300)
    assert "Resumed `later`." in (await live.run("resume", MOD, id="later")).text
    assert "No paused task `later`" in (await live.run("resume", MOD, id="later")).text
    assert "Cancelled `later`." in (await live.run("cancel", MOD, id="later")).text
    assert "No task `later`" in (await live.run("cancel", MOD, id="later")).text
    assert "No task `later`" in (await live.run("show", MOD, id="later")).text
    timed = await live.run("time", MOD)
    fields = {f["name"]: f["value"] for f in timed.embeds[0]["fields"]}
    assert fields["game time"] == f"{mc.game_time} ticks"


async def test_schedule_dynamic_and_at(live: Harness, mc: Server) -> None:
    reply = await live.run("schedule_dynamic", MOD, run="say dyn", time=5, unit="second")
    assert "Scheduled `discord-" in reply.text
    at = mc.game_time + 50
    reply = await live.run("schedule", MOD, run="say at", at=at, id="abs")
    assert "Scheduled `abs`" in reply.text
    both = await live.run("schedule", MOD, run="say x", at=at, time=5, unit="tick")
    assert both.ephemeral and "Give either `time`" in both.text


async def queue_of(live: Harness) -> list[tuple[str, str, int]]:
    tasks, _ = await live.services.servers["main"].pack.list_tasks("queue", limit=50)
    return [(t.id, t.run, t.due) for t in tasks]


async def test_a_typo_shows_the_moderator_a_caret_and_changes_nothing(
    live: Harness, mc: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    await live.run("schedule", MOD, run="say keep", time=1000, unit="tick", id="keep")
    before = await queue_of(live)
    sent = sent_to(live, monkeypatch)
    for command in ("schedule", "schedule_dynamic"):
        options = {"id": "typo"} if command == "schedule" else {}
        reply = await live.run(
            command, MOD, run="gamemode creatvie @a", time=5, unit="tick", **options
        )
        [response] = reply.messages
        assert reply.ephemeral and response.kind == "response"
        assert response.data["content"] == (
            "That command does not parse: `creatvie` does not fit here (expected gamemode)\n"
            "```\ngamemode creatvie @a\n         ^\n```"
        )
    # refused before anything of it reached the server
    assert [t for t in sent if "creatvie" in t] == []
    assert await queue_of(live) == before


async def test_deny_listed_commands_are_refused_however_deep(
    live: Harness, mc: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = await queue_of(live)
    sent = sent_to(live, monkeypatch)
    hidden = [
        "op Steve",
        "execute as @a run op Steve",
        "execute as @a at @s if entity @s run execute run op Steve",
        "execute if entity @a run return run op Steve",
    ]
    for run in hidden:
        reply = await live.run("schedule", MOD, run=run, time=5, unit="tick", id="bad")
        [response] = reply.messages
        assert reply.ephemeral
        where = "" if run == "op Steve" else f" (inside `{run}`)"
        assert response.data["content"] == (
            f"Refused: `op` is on this server's deny-list{where}. An admin allows it by taking "
            "it out of DOOM_DENY_COMMANDS, or for one server with that server's ALLOW_COMMANDS "
            "(e.g. DOOM_SERVERS__0__ALLOW_COMMANDS=op)."
        )
    broken = await live.run("schedule", MOD, run="tp @a ~ ~", time=5, unit="tick", id="bad")
    assert broken.ephemeral and "tp @a ~ ~\n         ^" in broken.text
    assert [t for t in sent if "Steve" in t or "tp @a" in t] == []
    assert await queue_of(live) == before


@pytest.mark.slow
async def test_status_and_setup(live: Harness, mc: Server) -> None:
    status = await live.run("status", ADMIN)
    fields = {f["name"]: f["value"] for f in status.embeds[0]["fields"]}
    assert fields["RCON"].startswith("ok") and fields["event source"] == "log"
    assert fields["pack version"] == pack_version_of(bundled_datapack()) and fields["queue"] == "0"
    # the checker's basis: the version the log reports, else the newest tree, said aloud
    reported = version_from_logs(mc.log_path)
    checked = fields["commands checked"]
    assert "1.21 tree, function permission level 2" in checked
    if reported is None:
        assert checked.startswith("Minecraft unknown") and "newest" in fields["warning"]
    else:
        assert checked.startswith(f"Minecraft {reported} (from the server's log)")
        assert "warning" not in fields
    setup = await live.run("setup", ADMIN)
    assert "doom.schedule" in setup.text and "Not verified" not in setup.text


async def test_show_attaches_a_long_command(live: Harness, mc: Server) -> None:
    run = "say " + "a" * 1196
    assert (
        "Scheduled `long`"
        in (await live.run("schedule", MOD, run=run, time=99, unit="tick", id="long")).text
    )
    shown = await live.run("show", MOD, id="long")
    [embed] = shown.embeds
    assert (
        len(embed["description"]) < 1100 and "the whole command is attached" in embed["description"]
    )
    [(name, content)] = [f for s in shown.sent for f in s.files]
    assert name == "long.txt" and content == run.encode()


def paced_posts(live: Harness) -> None:
    """Discord's 5 posts per channel in 5 s, in a 4 s window: still longer than the commands
    that queue the posts take on two busy cores (2 s was not, once), and a test waits 4 s for
    the rest, not 5."""
    live.discord.rate_limits = RateLimits({"POST /channels/{channel_id}/messages": (5, 4.0)})


@pytest.mark.slow
async def test_every_mutation_is_audited(live: Harness, mc: Server) -> None:
    paced_posts(live)
    await live.run("schedule", MOD, run="say a", time=500, unit="tick", id="au")
    await live.run("schedule_dynamic", MOD, run="say b", time=500, unit="tick")
    await live.run("pause", MOD, id="au")
    await live.run("resume", MOD, id="au")
    await live.run("cancel", MOD, id="au")
    await live.run("schedule", MOD, run="say a", time=500, unit="tick", id="au")
    prompt = await live.run("cancel_all", MOD, id="au")
    assert prompt.messages[-1].message_id is not None
    await live.press(prompt.messages[-1].message_id, "Confirm", MOD)
    await live.run("time", MOD)  # reads are not mutations
    await live.run("list", MOD)
    rows = await live.services.audit.mutations(server="main")
    actions = [r.action for r in reversed(rows)]
    assert actions == [
        "schedule",
        "schedule_dynamic",
        "pause",
        "resume",
        "cancel",
        "schedule",
        "cancel_all",
    ]
    # the channel takes 5 messages per window: the replies above did not wait for the last posts
    assert len(live.posts(AUDIT_CHANNEL)) < len(actions)
    await live.bot.audit_posted()
    posted = [p.payload["embeds"][0]["title"] for p in live.posts(AUDIT_CHANNEL)]
    assert posted == [f"/{a}" for a in actions]  # all of them, in order


@pytest.mark.slow
async def test_close_posts_the_audit_entries_still_queued(live: Harness, mc: Server) -> None:
    live.bot.audit_drain = 10.0  # the bot's own default: shutdown waits for the paced posts
    paced_posts(live)
    for i in range(7):
        await live.run("schedule", MOD, run=f"say {i}", time=500, unit="tick", id=f"q{i}")
    assert len(live.posts(AUDIT_CHANNEL)) < 7  # five per window: some still queued
    await live.bot.close()
    posted = [p.payload["embeds"][0]["description"] for p in live.posts(AUDIT_CHANNEL)]
    assert len(posted) == 7 and all(f"`q{i}`" in d for i, d in enumerate(posted)), posted

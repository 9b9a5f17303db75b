"""Triggers (bot.triggers) on the whole bot and the local Discord against mcsim with the real pack
over TCP RCON, on the real clock: each kind fires once per occurrence, is alerted in the alert
channel, keeps its cool-down, and a log line's text never becomes a command."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot import errors
from bot.events.event import load_cursor, save_cursor
from bot.operations import registry
from bot.services import build_services
from bot.store.db import StoreUnavailable
from bot.testkit.harness import ADMIN, ALERT_CHANNEL, MOD, Harness, make_settings
from bot.testkit.servers import server_config
from bot.times.clock import ManualClock
from bot.triggers.watcher import TriggerWatcher
from mcsim.server import Server
from tests.console.typed import typed_by
from tests.fixtures import sent_to, start_bot

PASSWORD = "triggers-in-game-Pw"
# run as the trigger's player where a step names none: `@s` is that player
WELCOME = """
- run: scoreboard players add @s wc 1
  at: 0
"""
COUNTED = """
- run: scoreboard players add fired wc 1
  at: 0
"""


async def _bot(mcsim: Callable[..., Server], tmp_path: Path) -> tuple[Server, Harness]:
    server = mcsim(password=PASSWORD)
    server.run("scoreboard objectives add wc dummy")
    return server, await start_bot(server, tmp_path, PASSWORD)


def _watcher(harness: Harness) -> TriggerWatcher:
    return harness.bot.ops.trigger_watcher()


async def _op(harness: Harness, name: str, options: dict[str, Any], user: Any = MOD) -> Any:
    return await registry.run(harness.bot.ops, typed_by(user)(), name, options)


async def _until(check: Callable[[], bool], seconds: float = 15) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not so after {seconds} s")


def _alerts(harness: Harness, title: str) -> list[dict[str, Any]]:
    return [
        embed
        for post in harness.posts(ALERT_CHANNEL)
        for embed in post.payload.get("embeds", [])
        if embed.get("title") == title
    ]


FIRED = "Trigger fired: its program started"


async def test_a_join_runs_the_program_as_that_player_once_with_its_cooldown(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server, harness = await _bot(mcsim, tmp_path)
    try:
        await _op(harness, "program save", {"name": "welcome", "steps": WELCOME})
        added = await _op(
            harness,
            "trigger add",
            {"name": "hello", "kind": "join", "program": "welcome", "cooldown": "10s"},
        )
        assert added.facts["kind"] == "join" and added.facts["cooldown_seconds"] == 10
        watcher = _watcher(harness)
        await _until(lambda: any(t.name == "hello" for t in watcher._triggers))
        server.join("Steve")
        await _until(lambda: server.score("Steve", "wc") == 1)
        # a second join inside the cool-down, and lines players write, fire nothing
        server.join("Alex")
        server.run("say Bob joined the game", as_player="Steve")
        server.run("me Bob joined the game", as_player="Steve")
        await _until(lambda: len(_alerts(harness, FIRED)) == 1)
        await asyncio.sleep(1.0)
        assert server.score("Alex", "wc") is None and server.score("Bob", "wc") is None
        assert watcher.fired == 1
        [alert] = _alerts(harness, FIRED)
        fields = {f["name"]: f["value"] for f in alert["fields"]}
        assert "hello" in fields["trigger"] and "Steve" in fields["player"]
        listed = await _op(harness, "trigger list", {})
        [facts] = listed.facts["triggers"]
        assert facts["fired_today"] == 1 and facts["last_fired"] is not None
        runs = await _op(harness, "program list", {})
        assert len(runs.facts["runs"]) == 1
    finally:
        await harness.close()


async def test_a_log_line_read_again_after_a_restart_fires_nothing_more(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    """The bot stops with its log place saved before the join line (as a crash before the next
    save leaves it): started again, it reads the line again, and the firing is not repeated."""
    server, harness = await _bot(mcsim, tmp_path)
    key = "log:main"
    try:
        await _op(harness, "program save", {"name": "welcome", "steps": WELCOME})
        await _op(harness, "trigger add", {"name": "hello", "kind": "join", "program": "welcome"})
        await _until(lambda: bool(_watcher(harness)._triggers))
        tailer: Any = harness.services.servers["main"].events.inner
        await tailer._save(tailer._live, force=True)  # the place before the join, saved
        before = await load_cursor(harness.services.audit, key)
        server.join("Steve")
        await _until(lambda: server.score("Steve", "wc") == 1)
    finally:
        await harness.close()
    assert before is not None
    config = make_settings(tmp_path, [server_config(server, PASSWORD)], log_poll_interval=0.02)
    services = await build_services(config)
    for attempt in range(3):  # the last bot's connections may take seconds to let go of the file
        try:
            await save_cursor(services.audit, key, before)  # as if the stop came before a save
            break
        except StoreUnavailable:
            if attempt == 2:
                raise
            await asyncio.sleep(2)
    seen: list[str] = []

    async def spy(message: str, place: str, backlog: bool) -> None:
        seen.append(message)

    services.servers["main"].events.inner.on_line.append(spy)  # type: ignore[union-attr]
    harness = await Harness(config, services).start()
    try:
        await _until(lambda: "Steve joined the game" in seen)
        await asyncio.sleep(0.5)
        assert server.score("Steve", "wc") == 1
        listed = await _op(harness, "trigger list", {})
        assert listed.facts["triggers"][0]["fired_today"] == 1
        assert _watcher(harness).fired == 0
        assert len((await _op(harness, "program list", {})).facts["runs"]) == 1
    finally:
        await harness.close()


async def test_a_log_pattern_is_admins_and_its_text_never_runs(
    mcsim: Callable[..., Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, harness = await _bot(mcsim, tmp_path)
    try:
        await _op(harness, "program save", {"name": "welcome", "steps": WELCOME})
        pattern = {
            "name": "boss",
            "kind": "log",
            "program": "welcome",
            "pattern": "The dragon was slain by {player}*",
        }
        with pytest.raises(errors.NotAllowed):
            await _op(harness, "trigger add", pattern, user=MOD)
        for bad, said in (
            ("*", "fixed text"),
            ("<{player}> hi there", "chat"),
            ("{player} and {player} met", "once"),
        ):
            with pytest.raises(errors.ValidationError) as refused:
                await _op(harness, "trigger add", {**pattern, "pattern": bad}, user=ADMIN)
            assert said in str(refused.value.text), refused.value.text
        await _op(harness, "trigger add", pattern, user=ADMIN)
        await _until(lambda: bool(_watcher(harness)._triggers))
        # a player says the very text, and a name with a command after it: neither fires it
        server.join("Steve")
        server.run("say The dragon was slain by Steve", as_player="Steve")
        server.log_line("The dragon was slain by @a[tag=x]; op Steve")
        await asyncio.sleep(1.0)
        assert _watcher(harness).fired == 0
        sent = sent_to(harness, monkeypatch)
        server.log_line("The dragon was slain by Steve; /op Steve")
        await _until(lambda: server.score("Steve", "wc") == 1)
        assert _watcher(harness).fired == 1
        # the program's one saved step went to the server, and nothing of the line did
        assert not [c for c in sent if "op Steve" in c or "slain" in c], sent
        tried = await _op(
            harness,
            "trigger test",
            {"name": "boss", "line": "The dragon was slain by Alex with a bow"},
        )
        assert tried.facts["fires"] is True and tried.facts["player"] == "Alex"
        assert tried.facts["steps"][0]["as_player"] == "Alex"
        missed = await _op(
            harness, "trigger test", {"name": "boss", "line": "<Alex> The dragon was slain by Alex"}
        )
        assert missed.facts["fires"] is False
        assert _watcher(harness).fired == 1  # a test fires nothing
    finally:
        await harness.close()


async def test_the_player_count_crossing_up_fires_once_per_crossing(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server, harness = await _bot(mcsim, tmp_path)
    watcher = _watcher(harness)
    watcher.presence_interval = 0.05
    try:
        await _op(harness, "program save", {"name": "party", "steps": COUNTED})
        await _op(
            harness,
            "trigger add",
            {
                "name": "crowd",
                "kind": "players",
                "program": "party",
                "players": 2,
                "direction": "up",
                "cooldown": "10s",
            },
        )
        await _until(lambda: "main" in watcher._counts)  # the first look learned the count
        server.join("Steve")
        await asyncio.sleep(0.3)
        assert server.score("fired", "wc") is None
        server.join("Alex")
        await _until(lambda: server.score("fired", "wc") == 1)
        server.join("Bob")  # still above: no crossing
        server.leave("Bob")
        server.leave("Alex")  # down: not this trigger's direction
        await asyncio.sleep(0.3)
        server.join("Alex")  # up again, inside the cool-down: held
        await asyncio.sleep(0.5)
        assert server.score("fired", "wc") == 1 and watcher.fired == 1
        server.leave("Alex")
        await asyncio.sleep(10)
        server.join("Alex")  # up again, after the cool-down
        await _until(lambda: server.score("fired", "wc") == 2)
        assert watcher.fired == 2
    finally:
        await harness.close()


async def test_a_server_start_fires_after_the_crash_guard_once_per_start(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    """The server crashes and starts again: the trigger fires once the crash guard compared
    (the program's step runs on the started server); a second start inside the cool-down fires
    nothing; a restart of the bot alone is no start of the server."""
    server, harness = await _bot(mcsim, tmp_path)
    port = server.rcon_port
    servers = [server]

    def restart() -> Server:
        servers[-1].crash()
        again = Server(server.world, rcon_port=port, rcon_password=PASSWORD)
        again.start()
        servers.append(again)
        return again

    try:
        await _op(harness, "program save", {"name": "party", "steps": COUNTED})
        await _op(
            harness,
            "trigger add",
            {"name": "boot", "kind": "started", "program": "party", "cooldown": "10s"},
        )
        server.save(flush=True)  # the objective is in the save the crash goes back to
        await _until(lambda: bool(_watcher(harness)._triggers))
        again = restart()
        await _until(lambda: again.score("fired", "wc") == 1, 30)
        await _until(lambda: len(_alerts(harness, FIRED)) == 1)
        again.save(flush=True)
        third = restart()  # inside the cool-down
        guard = harness.services.servers["main"].guard
        assert guard is not None
        await asyncio.sleep(1.0)
        await guard.compared()
        await asyncio.sleep(1.0)
        assert third.score("fired", "wc") == 1 and _watcher(harness).fired == 1
    finally:
        await harness.close()
    harness = await start_bot(servers[-1], tmp_path, PASSWORD)
    try:
        await asyncio.sleep(1.0)
        assert _watcher(harness).fired == 0
        listed = await _op(harness, "trigger list", {})
        assert listed.facts["triggers"][0]["fired_today"] == 1
    finally:
        await harness.close()
        for each in servers[1:]:
            each.stop()


async def _event(harness: Harness, start: str = "in 2h") -> int:
    reply = await harness.run("event create", MOD, name="Build Battle", start=start)
    assert "made" in reply.text, reply.text
    return int(harness.discord.scheduled.live()[-1]["id"])


async def test_enough_interested_members_start_the_program_at_the_events_start(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    _server, harness = await _bot(mcsim, tmp_path)
    try:
        discord_id = await _event(harness)
        await _op(harness, "program save", {"name": "party", "steps": COUNTED})
        added = await _op(
            harness,
            "trigger add",
            {
                "name": "crowd",
                "kind": "interest",
                "program": "party",
                "event": "1",
                "interested": 2,
            },
        )
        assert added.facts["kind"] == "interest"
        watcher = _watcher(harness)
        watcher.interest_interval = 0  # ask Discord for the count at each look
        await watcher.refresh()
        await harness.discord.scheduled.interest(discord_id, 8001)
        await watcher.look_at_interest()
        assert watcher.fired == 0  # one of two
        await harness.discord.scheduled.interest(discord_id, 8002)
        await _until(lambda: watcher.fired == 1)
        await watcher.look_at_interest()
        await harness.discord.scheduled.interest(discord_id, 8003)
        await watcher.look_at_interest()
        assert watcher.fired == 1  # once for this start
        event = await harness.bot.ops.guild_events.store.get(1)  # type: ignore[union-attr]
        assert event is not None
        [run] = (await _op(harness, "program list", {})).facts["runs"]
        assert run["start"] == event.start.isoformat()
        await _until(lambda: len(_alerts(harness, FIRED)) == 1)
    finally:
        await harness.close()


@pytest.mark.parametrize("if_not", ["cancel", "postpone"])
async def test_too_few_interested_by_the_deadline_cancels_or_postpones_the_event(
    mcsim: Callable[..., Server], tmp_path: Path, if_not: str
) -> None:
    _server, harness = await _bot(mcsim, tmp_path)
    try:
        discord_id = await _event(harness)
        await _op(harness, "program save", {"name": "party", "steps": COUNTED})
        await _op(
            harness,
            "trigger add",
            {
                "name": "crowd",
                "kind": "interest",
                "program": "party",
                "event": "Build Battle",
                "interested": 3,
                "deadline": "1h",
                "if_not": if_not,
            },
        )
        watcher = _watcher(harness)
        watcher.interest_interval = 0
        await watcher.refresh()
        await harness.discord.scheduled.interest(discord_id, 8001)
        store = harness.bot.ops.guild_events.store  # type: ignore[union-attr]
        first = await store.get(1)
        assert first is not None
        watcher.clock = ManualClock(first.start - timedelta(minutes=61))
        await watcher.look_at_interest()
        assert (await store.get(1)).start == first.start  # type: ignore[union-attr]
        for moved in range(1, 5):
            row = await store.get(1)
            assert row is not None
            watcher.clock = ManualClock(row.start - timedelta(minutes=59))  # past its deadline
            await watcher.look_at_interest()
            await watcher.look_at_interest()  # decided once
            after = await store.get(1)
            assert after is not None
            if if_not == "cancel" or moved > 3:
                assert after.state == "cancelled"
                assert not harness.discord.scheduled.live()
                break
            assert after.start == first.start + timedelta(days=moved)
            assert after.state != "cancelled"
        title = "Event cancelled: too few interested by the deadline"
        await _until(lambda: len(_alerts(harness, title)) == 1)
        postponed = _alerts(harness, "Event postponed: too few interested by the deadline")
        await asyncio.sleep(0.2)
        assert len(postponed) == (3 if if_not == "postpone" else 0)
        assert watcher.fired == 0
    finally:
        await harness.close()


async def test_a_firing_recorded_before_a_stop_starts_its_program_once(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    """A stop between a firing's record and its run: the firing waits in the database, the
    next look (of this process or another) starts its run, once however often it looks."""
    server, harness = await _bot(mcsim, tmp_path)
    try:
        await _op(harness, "program save", {"name": "welcome", "steps": WELCOME})
        await _op(harness, "trigger add", {"name": "hello", "kind": "join", "program": "welcome"})
        watcher = _watcher(harness)
        await watcher.stop()  # no look of its own meanwhile: this test looks
        server.join("Steve")
        [trigger] = await watcher.store.all()
        fired = await watcher.store.fire(trigger, "line:x:1", watcher.clock.now(), "Steve")
        assert fired.fire is not None
        await asyncio.gather(watcher.start_pending(), watcher.start_pending())
        await watcher.start_pending()
        assert await watcher.store.pending() == []
        [run] = (await _op(harness, "program list", {})).facts["runs"]
        assert run["state"] in ("running", "done")
        await _until(lambda: server.score("Steve", "wc") == 1)
        await asyncio.sleep(0.5)
        assert server.score("Steve", "wc") == 1
    finally:
        await harness.close()


async def test_a_program_bound_to_an_event_follows_its_moves_and_its_cancel(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    """Without `interested` an interest trigger binds the program to the event's start: the run
    is made at once for that start; moved, the old run is cancelled and one made for the new
    start; cancelled, its run is cancelled. Each alerted."""
    _server, harness = await _bot(mcsim, tmp_path)
    try:
        await _event(harness)
        await _op(harness, "program save", {"name": "party", "steps": COUNTED})
        added = await _op(
            harness,
            "trigger add",
            {"name": "bound", "kind": "interest", "program": "party", "event": "1"},
        )
        assert "at the start of event #1" in added.text
        watcher = _watcher(harness)
        await watcher.refresh()
        await watcher.look_at_interest()
        store = harness.bot.ops.guild_events.store  # type: ignore[union-attr]
        first = await store.get(1)
        assert first is not None
        [run] = (await _op(harness, "program list", {})).facts["runs"]
        assert run["start"] == first.start.isoformat() and run["state"] == "running"
        moved = await harness.run("event edit", MOD, event="1", start="in 3h")
        assert "now runs" in moved.text, moved.text
        await watcher.look_at_interest()
        await watcher.look_at_interest()
        later = await store.get(1)
        assert later is not None and later.start > first.start
        runs = {
            r["start"]: r["state"] for r in (await _op(harness, "program list", {})).facts["runs"]
        }
        assert runs == {first.start.isoformat(): "cancelled", later.start.isoformat(): "running"}
        gone = await harness.run("event cancel", MOD, event="1")
        assert "cancelled" in gone.text, gone.text
        await watcher.look_at_interest()
        states = [r["state"] for r in (await _op(harness, "program list", {})).facts["runs"]]
        assert states == ["cancelled", "cancelled"]
        title = "Event moved or cancelled: its program's run cancelled"
        await _until(lambda: len(_alerts(harness, title)) == 2)
        assert watcher.fired == 2
    finally:
        await harness.close()


async def test_a_join_on_a_server_without_its_log_is_seen_by_list(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    """A server whose events come over RCON only (no log read): a join is a name `list` did not
    show at the last look; the first look only learns who is on."""
    server, harness = await _bot(mcsim, tmp_path)
    services = harness.services.servers["main"]
    services.events.inner.on_line.clear()  # type: ignore[union-attr]  # as with no log source
    services.event_kind = "rcon"
    watcher = _watcher(harness)
    watcher.presence_interval = 0.05
    try:
        server.join("Early")  # on before the trigger: no news
        await _op(harness, "program save", {"name": "welcome", "steps": WELCOME})
        await _op(
            harness,
            "trigger add",
            {"name": "hello", "kind": "join", "program": "welcome", "player": "steve"},
        )
        await _until(lambda: "main" in watcher._online)
        server.join("Alex")  # not the player it waits for
        server.join("Steve")
        await _until(lambda: server.score("Steve", "wc") == 1)
        await asyncio.sleep(0.5)
        assert watcher.fired == 1
        assert server.score("Alex", "wc") is None and server.score("Early", "wc") is None
    finally:
        await harness.close()


async def test_adding_a_trigger_checks_its_programs_commands_and_its_kinds_options(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    _server, harness = await _bot(mcsim, tmp_path)
    try:
        bad = "[{run: 'op @a', at: 0}]"  # a command the bot's rules refuse
        await _op(harness, "program save", {"name": "risky", "steps": bad})
        with pytest.raises(errors.ValidationError) as refused:
            await _op(harness, "trigger add", {"name": "t", "kind": "join", "program": "risky"})
        assert refused.value.field == "program" and "Step 1" in str(refused.value.text)
        await _op(harness, "program save", {"name": "welcome", "steps": WELCOME})
        with pytest.raises(errors.ValidationError) as wrong:
            await _op(
                harness,
                "trigger add",
                {"name": "t", "kind": "join", "program": "welcome", "event": "1"},
            )
        assert wrong.value.field == "event", wrong.value.text
        assert (await _op(harness, "trigger list", {})).facts["triggers"] == []
    finally:
        await harness.close()

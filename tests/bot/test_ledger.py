"""The ledger (bot.store.ledger) and the crash guard (bot.background.crash_guard) on mcsim with
the real pack over TCP RCON. A crash is mcsim's Server.crash(): the world on disk is that of the
last save, as after a SIGKILL (tests/mcsim/test_crash.py); the server is started again on it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.background.crash_guard import ALERT_TYPE, CrashGuard
from bot.config import ServerConfig
from bot.errors import ServerUnavailable
from bot.events.event import Event
from bot.minecraft.pack_client import PackClient
from bot.minecraft.rcon import RconClient
from bot.store.db import Database, StoreUnavailable
from bot.store.ledger import Entry, Ledger
from mcsim.server import Server
from tests.bot.pack_sim import PASSWORD, AcceptAll, make_world
from tests.fixtures import said_in_logs

WAIT = 30.0


@dataclass
class Rig:
    world: Path
    server: Server
    port: int
    db: Database
    ledger: Ledger
    pack: PackClient
    guard: CrashGuard

    def restart(self, *, crash: bool) -> None:
        """Crash (nothing saved since the last save) or stop, then start on the same port."""
        if crash:
            self.server.crash()
        else:
            self.server.stop()
        self.server = Server(self.world, rcon_port=self.port, rcon_password=PASSWORD)
        self.server.start()

    def queue(self, which: str = "queue") -> list[tuple[str, int]]:
        tasks = self.server.storage("doom.schedule:data").get(which)
        assert isinstance(tasks, list)
        return sorted((str(t["id"]), int(t["due"])) for t in tasks)

    def runs(self, word: str) -> int:
        """How often `say <word>` ran, in latest.log and every rolled log."""
        return said_in_logs(self.world, word)


async def make_rig(tmp_path: Path, *, retain: int = 12_000) -> Rig:
    world = make_world(tmp_path / "world")
    server = Server(world, rcon_port=0, rcon_password=PASSWORD)
    server.start()
    port = server.rcon_port
    assert port is not None
    config = ServerConfig(name="sim", rcon_port=port, rcon_password=PASSWORD)  # type: ignore[arg-type]
    rcon = RconClient("127.0.0.1", port, PASSWORD, timeout=10, backoff_initial=0.01)
    pack = PackClient(rcon, config, AcceptAll())
    db = Database(tmp_path / "bot.sqlite3")
    ledger = Ledger(db, "sim", retain=retain)
    pack.recorder = ledger

    async def no_wait(_: float) -> None:
        await asyncio.sleep(0)

    guard = CrashGuard(ledger, pack, sleep=no_wait)
    return Rig(world, server, port, db, ledger, pack, guard)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    r = await make_rig(tmp_path)
    try:
        yield r
    finally:
        await r.guard.stop()
        await r.pack.rcon.close()
        await r.db.close()
        r.server.stop()


async def test_a_record_the_database_cannot_take_is_said_in_words_and_the_task_stays_queued(
    rig: Rig, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database away while a task is scheduled and paused: the server has the task (the
    bot's answers say so), and the record's failure is a warning in words, no traceback."""

    async def away(*_: object) -> None:
        raise StoreUnavailable("The bot's database cannot be reached.")

    monkeypatch.setattr(rig.ledger, "scheduled", away)
    monkeypatch.setattr(rig.ledger, "operated", away)
    with caplog.at_level(logging.WARNING, logger="bot.minecraft.pack_client"):
        await rig.pack.schedule("say a", 100, "t", "a")
        assert await rig.pack.pause("a")
    assert [t[0] for t in rig.queue("paused")] == ["a"]
    said = [r for r in caplog.records if r.name == "bot.minecraft.pack_client"]
    assert [r.levelno for r in said] == [logging.WARNING, logging.WARNING]
    assert all("cannot be reached" in r.getMessage() and r.exc_info is None for r in said)


async def test_every_acknowledged_change_is_in_the_record(rig: Rig) -> None:
    rig.server.step(10)
    await rig.pack.schedule("say a", 100, "t", "a", retry=2, retry_delay=5)
    await rig.pack.schedule("say b", 1, "s", "b", interval=2)
    dyn = await rig.pack.schedule_dynamic("say d", 50, "t", "dyn")
    rig.server.step(5)
    assert await rig.pack.pause("a")
    assert not await rig.pack.cancel_one("nothing-has-this-id")  # not acknowledged: no row
    rig.server.run('function doom.schedule:schedule {run:"say g",time:300,unit:"t",id:"g"}')
    assert await rig.pack.cancel_one("g")  # a task made in game, cancelled by the bot
    entries = {e.task_id: e for e in await rig.ledger.entries()}
    assert set(entries) == {"a", "b", dyn, "g"}
    a = entries["a"]
    assert (a.state, a.last_op, a.acked_at, a.remaining, a.own) == ("paused", "pause", 10, 95, True)
    assert a.request["retry"] == 2 and a.request["retry_delay"] == 5 and a.request["run"] == "say a"
    assert (entries["b"].interval, entries["b"].due) == (40, 30)
    assert entries[dyn].request["prefix"] == "dyn" and entries[dyn].due == 60
    assert (entries["g"].state, entries["g"].own) == ("cancelled", False)
    assert await rig.pack.resume("a")
    a = next(e for e in await rig.ledger.entries() if e.task_id == "a")
    assert (a.state, a.due) == ("queue", 15 + 95)
    assert await rig.pack.clear() == 3
    assert {e.state for e in await rig.ledger.entries()} == {"cancelled"}
    assert await rig.ledger.unsettled_clears() == [(15, 4)]


async def test_a_crash_is_repaired_and_one_alert_lists_it(rig: Rig) -> None:
    s = rig.server
    s.step(100)
    # before the save: kept by the world
    for task_id, delay in (("keep", 400), ("tocancel", 400), ("topause", 400), ("ranbefore", 20)):
        await rig.pack.schedule(f"say {task_id}", delay, "t", task_id)
    await rig.pack.schedule("say toresume", 400, "t", "toresume")
    assert await rig.pack.pause("toresume")
    s.run('function doom.schedule:schedule {run:"say ingame",time:400,unit:"t",id:"ingame"}')
    s.run("save-all")  # game time 100
    # after the save: what the crash will take away (the first two at the save's own tick)
    await rig.pack.schedule("say lost1", 300, "t", "lost1")
    await rig.pack.schedule("say lost2", 250, "t", "lost2")
    s.step(10)
    await rig.pack.schedule("say lostsoon", 5, "t", "lostsoon")  # runs before the crash
    assert await rig.pack.cancel_one("tocancel")
    assert await rig.pack.pause("topause")
    assert await rig.pack.resume("toresume")
    s.step(30)  # game time 140: ranbefore (due 120) and lostsoon (due 115) ran
    assert rig.runs("ranbefore") == 1 and rig.runs("lostsoon") == 1
    assert await rig.pack.get_time() == 140

    rig.restart(crash=True)
    assert s is not rig.server and rig.server.game_time == 100
    assert ("tocancel", 500) in rig.queue() and ("lost1", 400) not in rig.queue()
    sink: asyncio.Queue[Event] = asyncio.Queue()
    rig.guard.alerts.subscribe(sink)
    rig.guard.notice_start()  # what the log tailer calls on the start-up line
    report = await rig.guard.check()
    assert report is not None

    # toresume was paused at 100 with 400 left: resumed again at 100, due at 500
    assert rig.queue() == sorted(
        [("keep", 500), ("lost1", 400), ("lost2", 350), ("toresume", 500), ("ingame", 500)]
    )
    assert [t for t, _ in rig.queue("paused")] == ["topause"]
    assert report.texts()["rescheduled"] == [
        "lost1 (due 400)",
        "lost2 (due 350)",
    ]
    assert report.texts()["cancelled"] == ["tocancel (cancel_one)"]
    assert report.texts()["paused"] == ["topause"] and report.texts()["resumed"] == ["toresume"]
    assert report.texts()["not_rerun"] == ["ranbefore (due 120)"]
    assert "failed" not in report.texts()
    alert = sink.get_nowait()
    assert sink.empty()  # one alert
    assert alert.type == ALERT_TYPE and alert.server == "sim"
    assert "lost1 (due 400" in str(alert.details["scheduled again"])

    # a second look finds nothing to do: nothing is added twice
    rig.guard.notice_start()
    again = await rig.guard.check()
    assert again is not None and not again
    rig.server.step(500)
    for word in ("keep", "lost1", "lost2", "toresume", "ingame", "ranbefore", "lostsoon"):
        assert rig.runs(word) == 1, word
    assert rig.runs("tocancel") == 0 and rig.runs("topause") == 0


async def test_a_normal_restart_restores_nothing_and_posts_nothing(rig: Rig) -> None:
    rig.server.step(20)
    await rig.pack.schedule("say a", 300, "t", "a")
    await rig.pack.schedule("say b", 300, "t", "b")
    assert await rig.pack.pause("b")
    rig.server.step(10)
    rig.restart(crash=False)  # stop saves everything
    sink: asyncio.Queue[Event] = asyncio.Queue()
    rig.guard.alerts.subscribe(sink)
    rig.guard.notice_start()
    report = await rig.guard.check()
    assert report is not None and not report
    assert sink.empty()
    assert rig.queue() == [("a", 320)] and [t for t, _ in rig.queue("paused")] == ["b"]
    _, _, pending = await rig.ledger.marks()
    assert pending is None


async def test_tasks_made_in_game_are_left_alone(rig: Rig) -> None:
    rig.server.run('function doom.schedule:schedule {run:"say g1",time:200,unit:"t",id:"g1"}')
    rig.server.run("save-all")
    await rig.pack.schedule("say mine", 200, "t", "mine")
    rig.server.run('function doom.schedule:schedule {run:"say g2",time:200,unit:"t",id:"g2"}')
    rig.server.step(5)
    rig.restart(crash=True)
    # made in game after the restart, before the bot looks: reuses the lost serial of `mine`
    rig.server.run('function doom.schedule:schedule {run:"say g3",time:90,unit:"t",id:"g3"}')
    rig.guard.notice_start()
    report = await rig.guard.check()
    assert report is not None and report.texts() == {"rescheduled": ["mine (due 200)"]}
    # g2 was made in game after the save: the crash took it and the bot does not invent it
    assert rig.queue() == [("g1", 200), ("g3", 90), ("mine", 200)]


async def test_rcon_reconnecting_to_a_server_whose_time_went_back_restores(rig: Rig) -> None:
    rig.pack.rcon.on_reconnect.append(rig.guard.notice_reconnect)
    rig.guard.start()
    await asyncio.wait_for(rig.guard.idle.wait(), WAIT)
    rig.server.step(50)
    rig.server.run("save-all")
    rig.server.step(50)
    await rig.pack.schedule("say late", 100, "t", "late")  # the bot saw game time 100
    rig.restart(crash=True)
    rig.guard.idle.clear()
    # the bot's next command finds the old connection dead, the one after reconnects
    with pytest.raises(ServerUnavailable):
        await rig.pack.get_time()
    assert await rig.pack.get_time() == 50  # reconnected: the guard looks
    await asyncio.wait_for(rig.guard.idle.wait(), WAIT)
    assert rig.guard.last_report is not None
    assert "its game time went back" in str(rig.guard.last_report.reason)
    assert rig.queue() == [("late", 200)]


@pytest.mark.parametrize("where", ["submit", "read_back", "input"])
async def test_an_interrupted_restore_resumes_without_doubling(rig: Rig, where: str) -> None:
    rig.server.run("save-all")
    for name in ("x", "y", "z"):
        await rig.pack.schedule(f"say {name}", 200, "t", name)
    rig.server.step(3)
    rig.restart(crash=True)
    # made in game before the bot looks: the tasks put in again get other serials than before
    rig.server.run('function doom.schedule:schedule {run:"say g",time:500,unit:"t",id:"g"}')
    rcon = rig.pack.rcon
    real = rcon.command
    dropped: list[str] = []
    hits = {
        "submit": lambda text: text == "function doom.schedule:submit",
        "read_back": lambda text: text.startswith("data get storage doom.schedule:data queue[{n:"),
        "input": lambda text: text.startswith("data modify storage doom.schedule:in task"),
    }

    async def drop(text: str) -> str:
        reply = await real(text)
        # "submit": the server ran it and its answer is lost; "read_back": the answer came
        # (the ledger has the new task) and the connection drops on the next read; "input":
        # the request is written and the call that queues it is never sent
        if hits[where](text) and len(dropped) < 2:
            dropped.append(text)
            rcon._drop("test: the connection dropped")
            raise ServerUnavailable("The connection dropped; the command may or may not have run.")
        return reply

    rcon.command = drop  # type: ignore[method-assign]
    rig.guard.notice_start()
    if where != "input":
        # after a drop the pack client reads the pack's outcome record (each submit that ran
        # is known to have run), and a queued task whose read-back dropped is queued all the
        # same: the restore goes on and puts each task in once
        report = await rig.guard.check()
        assert report is not None and len(dropped) == 2
        assert rig.queue() == [("g", 500), ("x", 200), ("y", 200), ("z", 200)]
        assert report.texts()["rescheduled"] == [f"{w} (due 200)" for w in "xyz"]
        return
    with pytest.raises(ServerUnavailable):
        await rig.guard.check()
    assert len(dropped) == 1 and rig.queue() == [("g", 500)]
    _, _, pending = await rig.ledger.marks()
    assert pending is not None  # still to finish
    with pytest.raises(ServerUnavailable):
        await rig.guard.check()
    assert rig.queue() == [("g", 500)]
    report = await rig.guard.check()
    assert report is not None
    assert rig.queue() == [("g", 500), ("x", 200), ("y", 200), ("z", 200)]  # each once
    assert report.texts()["rescheduled"] == [f"{w} (due 200)" for w in "xyz"]
    live = [e for e in await rig.ledger.entries() if e.state == "queue"]
    assert sorted(e.task_id for e in live) == ["x", "y", "z"]  # one row each follows its task
    again = await rig.guard.check()
    assert again is None  # nothing pending any more
    rig.guard.notice_start()
    assert not await rig.guard.check()
    rig.server.step(300)
    assert [rig.runs(w) for w in "xyz"] == [1, 1, 1]


@pytest.mark.parametrize("change", ["schedule", "pause"])
async def test_a_change_made_while_the_guard_compares_is_compared_whole(
    rig: Rig, change: str
) -> None:
    await rig.pack.schedule("say kept", 300, "t", "kept")
    rig.server.run("save-all")
    await rig.pack.schedule("say lost", 200, "t", "lost")  # after the save: the crash takes it
    rig.server.step(3)
    rig.restart(crash=True)
    reading, changed = asyncio.Event(), asyncio.Event()
    real_entries = rig.ledger.entries

    async def entries_after_a_pause() -> list[Entry]:
        # the restore has read the server's lists and now reads the record: a change of the
        # bot's that lands in between is what this test makes
        reading.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5):
                await changed.wait()
        return await real_entries()

    rig.ledger.entries = entries_after_a_pause  # type: ignore[method-assign]
    rig.guard.notice_start()
    check = asyncio.ensure_future(rig.guard.check())
    await asyncio.wait_for(reading.wait(), WAIT)
    rig.ledger.entries = real_entries  # type: ignore[method-assign]
    if change == "schedule":
        made = asyncio.ensure_future(rig.pack.schedule("say during", 100, "t", "during"))
    else:
        made = asyncio.ensure_future(rig.pack.pause("kept"))
    made.add_done_callback(lambda _: changed.set())
    report = await asyncio.wait_for(check, WAIT)
    await asyncio.wait_for(made, WAIT)
    assert report is not None and "failed" not in report.texts(), report.texts()
    assert report.texts()["rescheduled"] == ["lost (due 200)"]
    if change == "schedule":
        assert ("during", 100) in rig.queue()  # queued once the restore was done, at 0
        assert [t for t, _ in rig.queue()].count("during") == 1  # not put in a second time
    else:
        assert [t for t, _ in rig.queue("paused")] == ["kept"]
    rig.server.step(400)
    assert rig.runs("lost") == 1 and rig.runs("during") == (change == "schedule")
    assert rig.runs("kept") == (change == "schedule")


async def test_the_record_stays_bounded(tmp_path: Path) -> None:
    rig = await make_rig(tmp_path, retain=100)
    try:
        for i in range(30):
            await rig.pack.schedule(f"say t{i}", 5, "t", f"t{i}")
        await rig.pack.schedule("say long", 10_000, "t", "long")
        assert await rig.ledger.count() == 31
        rig.server.step(200)
        await rig.pack.schedule("say next", 10_000, "t", "next")  # a write prunes
        assert {e.task_id for e in await rig.ledger.entries()} == {"long", "next"}
    finally:
        await rig.pack.rcon.close()
        await rig.db.close()
        rig.server.stop()


async def test_a_repeating_task_does_not_repeat_the_boundaries_that_ran(rig: Rig) -> None:
    rig.server.step(10)
    await rig.pack.schedule("say every", 40, "t", "every", interval=40)  # due 50, 90, 130, ...
    rig.server.run("save-all")  # game time 10
    rig.server.step(100)  # 50 and 90 ran
    assert await rig.pack.get_time() == 110 and rig.runs("every") == 2
    rig.restart(crash=True)
    rig.guard.notice_start()
    report = await rig.guard.check()
    assert report is not None
    assert report.texts()["not_rerun"] == ["every (due 50)"]
    assert report.texts()["rescheduled"] == ["every (due 130)"]
    assert rig.queue() == [("every", 130)]
    rig.server.step(200)  # game time 210: the boundaries 130, 170, 210
    assert rig.runs("every") == 5  # one run per boundary from 50 to 210, none twice


async def test_the_packs_events_move_the_record(rig: Rig) -> None:
    await rig.pack.schedule("function nope:missing", 2, "t", "boom", retry=1, retry_delay=3)
    await rig.pack.schedule("nonsense here", 2, "t", "bad")
    await rig.pack.schedule("say fine", 400, "t", "fine")
    rig.server.step(3)  # boom fails once (retry, due again 3 ticks later), bad is invalid
    events = await rig.pack.events_after(-1)
    # a task the bot made has a key: the pack says each run just before its command
    assert [(e.type, e.task_id) for e in events] == [
        ("ran", "boom"),
        ("retry", "boom"),
        ("ran", "bad"),
        ("invalid", "bad"),
    ]
    for event in events:
        await rig.ledger.apply_event(event)
    rows = {e.task_id: e for e in await rig.ledger.entries()}
    assert (rows["boom"].state, rows["bad"].state, rows["fine"].state) == ("queue", "done", "queue")
    assert rows["boom"].due == events[1].game_time + 1 + 3
    assert [t.due for t in await rig.pack.instances("boom")] == [rows["boom"].due]
    rig.server.step(5)
    later = await rig.pack.events_after(events[-1].seq)
    assert [(e.type, e.task_id) for e in later] == [("ran", "boom"), ("retry_exhausted", "boom")]
    for event in later:
        await rig.ledger.apply_event(event)
    rows = {e.task_id: e for e in await rig.ledger.entries()}
    assert rows["boom"].state == "done"


async def test_a_key_the_log_said_a_run_of_is_known_without_its_acknowledgement(
    rig: Rig,
) -> None:
    # the server ran a hand-over's task and died before its answer: the record has no
    # acknowledgement, but the log's ran line says the server had it (so it is not sent again)
    assert not await rig.ledger.knows("w9d1")
    await rig.ledger.apply_event(Event("sim", 7, "ran", "w9", 120, {"k": "w9d1"}))
    assert await rig.ledger.knows("w9d1")
    assert not await rig.ledger.knows("w9d2")  # another run of the same row is not


async def test_a_run_said_before_its_acknowledgement_applies_once_it_is_recorded(
    rig: Rig,
) -> None:
    # a hand-over's task runs in the tick of its own RCON call, so the log's ran line can be read
    # before the answer is recorded: the record keeps the line and applies it to the new row
    await rig.ledger.apply_event(Event("sim", 7, "ran", "w9", 120, {"k": "w9d1"}))
    request = {"run": "say x", "key": "w9d1"}
    await rig.ledger.scheduled(request, {"n": 5, "due": 120, "time": 120, "id": "w9"})
    [row] = [e for e in await rig.ledger.entries() if e.bkey == "w9d1"]
    assert (row.state, row.ran_at) == ("done", 120)  # ran: a crash must not put it back


async def test_a_lookup_waits_until_the_guard_has_compared(rig: Rig) -> None:
    rig.pack.compared = rig.guard.compared
    rig.guard.start()
    await asyncio.wait_for(rig.guard.idle.wait(), WAIT)
    rig.guard.notice_reconnect()  # a reconnect: a check is due, so the record may be behind
    looked = asyncio.ensure_future(rig.pack.acknowledged("nothing"))
    idle_when_answered: list[bool] = []
    looked.add_done_callback(lambda _: idle_when_answered.append(rig.guard.idle.is_set()))
    assert await asyncio.wait_for(looked, WAIT) is False
    assert idle_when_answered == [True]  # answered only once the guard had looked

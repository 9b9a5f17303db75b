"""The crash guard compares a server that keeps ticking: a check after an earlier one released
the pack (a second start-up line of the same start, a reconnect) finds the pack running its due
tasks. Seen in the chaos trials over SFTP (a slower read of the log): wall-clock runs handed over
just after the restart ran between the guard's catch-up with the log and its read of the pack's
lists, so they were in no list and their `ran` lines not yet in the record; the guard put them
in again and they ran twice.

mcsim in-process, stepped by the test, so the order is fixed: one server tick, in which a
handed-over task runs, right after the guard read the log to its end, or right after it read the
pack's lists. The guard's log reader stands for the tailer's `caught_up`: every line written so
far is read and recorded."""

from __future__ import annotations

from pathlib import Path

from bot.events.event import parse_log_line
from bot.minecraft.pack_tasks import TASK_LISTS, Task
from tests.bot.test_ledger import Rig, make_rig


class LogReader:
    """The pack's events of latest.log up to its current end, handed to the guard's record as
    the server's event stream hands them; with `tick` set, one server tick after the read."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.offset = 0
        self.tick = False

    async def caught_up(self) -> None:
        log_path = self.rig.server.log_path
        assert log_path is not None
        data = log_path.read_bytes()
        end = data.rfind(b"\n") + 1
        for line in data[self.offset : end].decode().splitlines():
            event = parse_log_line("sim", line)
            if event is not None:
                await self.rig.guard.saw_event(event)
        self.offset = end
        if self.tick:
            self.tick = False
            self.rig.server.step(1)  # the server ticks on right after the log was read


async def handed_over_then_checked(rig: Rig, *, tick_after_log: bool) -> None:
    """A wall-clock run handed over (due now, under its bot key), not yet run; then a check
    that compares in full (a start-up line) and ten more ticks."""
    rig.server.step(20)
    reader = LogReader(rig)
    await reader.caught_up()  # the log so far: the start-up, nothing of the pack's tasks
    await rig.pack.schedule("say run-w1", 0, "tick", "w1", key="w1d1")
    assert [t for t, _ in rig.queue()] == ["w1"]
    reader.tick = tick_after_log
    rig.guard.caught_up = reader.caught_up
    rig.guard.notice_start()
    report = await rig.guard.check()
    rig.server.step(10)
    await reader.caught_up()
    assert rig.runs("run-w1") == 1
    assert report is not None and not report, report.texts()  # nothing to restore
    [row] = [e for e in await rig.ledger.entries() if e.bkey == "w1d1"]
    assert row.state == "done"


async def test_a_task_run_after_the_log_was_read_is_not_put_in_again(tmp_path: Path) -> None:
    rig = await make_rig(tmp_path)
    try:
        await handed_over_then_checked(rig, tick_after_log=True)
    finally:
        await close(rig)


async def test_a_task_run_after_the_lists_were_read_is_not_taken_out(tmp_path: Path) -> None:
    # listed when read, then run: its run, recorded meanwhile, is no saved copy to take out
    rig = await make_rig(tmp_path)
    list_tasks = rig.pack.list_tasks
    ticked: list[str] = []

    async def list_then_tick(which: str, **kw: int) -> tuple[list[Task], int]:
        page = await list_tasks(which, **kw)
        if which == TASK_LISTS[-1] and not ticked:
            ticked.append(which)
            rig.server.step(1)  # the server ticks on right after the lists were read
        return page

    rig.pack.list_tasks = list_then_tick  # type: ignore[method-assign]
    try:
        await handed_over_then_checked(rig, tick_after_log=False)
    finally:
        await close(rig)


async def close(rig: Rig) -> None:
    await rig.guard.stop()
    await rig.pack.rcon.close()
    await rig.db.close()
    rig.server.stop()

"""The crash guard compares a server that keeps ticking: a check after an earlier one released
the pack (a second start-up line of the same start, a reconnect) finds the pack running its due
tasks. A task that runs after the guard read the log to its end and before it reads the pack's
lists is in no list; its `ran` line is in the log but not yet in the record. Seen in the chaos
trials over SFTP (a slower read of the log): wall-clock runs handed over just after the restart
were put in again by that second check and ran twice.

mcsim in-process, stepped by the test, so the order is fixed: the guard's log reader (it stands
for the tailer's `caught_up`: every line written so far is read and recorded) is followed by one
server tick, in which the handed-over task runs."""

from __future__ import annotations

from pathlib import Path

from bot.events.event import parse_log_line
from tests.bot.test_ledger import Rig, make_rig


class LogReader:
    """The pack's events of latest.log up to its current end, handed to the guard's record as
    the server's event stream hands them; then, once, one server tick."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.offset = 0
        self.ticked = False

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
        if not self.ticked:
            self.ticked = True
            self.rig.server.step(1)  # the server ticks on right after the log was read


async def test_a_task_run_after_the_log_was_read_is_not_put_in_again(tmp_path: Path) -> None:
    rig = await make_rig(tmp_path)
    try:
        rig.server.step(20)
        reader = LogReader(rig)
        await reader.caught_up()  # the log so far: the start-up, nothing of the pack's tasks
        reader.ticked = False
        # a wall-clock run handed over (due now, under its bot key), not yet run
        await rig.pack.schedule("say run-w1", 0, "tick", "w1", key="w1d1")
        assert [t for t, _ in rig.queue()] == ["w1"]
        rig.guard.caught_up = reader.caught_up
        rig.guard.notice_start()  # a start-up line: compare in full
        report = await rig.guard.check()
        rig.server.step(20)
        assert rig.runs("run-w1") == 1
        assert report is not None and not report, report.texts()  # nothing to restore
        [row] = [e for e in await rig.ledger.entries() if e.bkey == "w1d1"]
        assert row.state == "done"
    finally:
        await rig.guard.stop()
        await rig.pack.rcon.close()
        await rig.db.close()
        rig.server.stop()

"""Tasks in doubt after a crash: runs the bot cannot know happened or not.

With the log the guard knows every run: the pack says `ran` in latest.log before the command
runs, and a crash does not roll the log back. The ring buffer (the `rcon` source) is rolled back
with the world, so a run is known only once the poller has read its `ran` event (the ledger
records it before the poller's cursor moves past it). What the server ran after the poller's
last whole read and before it stopped is lost with the ring: the window of doubt, from the game
time of that read to the latest game time the server could have reached (bot.store.ledger
measures it: the poll interval, at the highest tick rate the bot saw lately). A task of the bot
that was due in it (or before it with no `ran` read) and whose run no read brought is in doubt,
and so is a wall-clock hand-over whose answer was lost when the server died, once the server is
found back from an older save (the rollback took its mark; bot.wallclock.delivery). Its
policy decides:

- `skip` (the default): it is not run again. A reward given twice or an announcement made twice
  cannot be taken back; a run skipped is named in the alert, and a moderator runs it again with
  one command (`/run_now`).
- `run`: it runs again (at its own due tick, or at once when that is past), for a task whose
  second run does no harm and whose missing run would (a `worldborder set`, a `weather clear`
  before an event).

The guard posts one alert (type ``in_doubt_after_crash``) naming each task in doubt and what
was done with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from bot.background.restore_diff import RestoreDiff, next_due
from bot.events.event import Event
from bot.i18n import N_, Joined, Text, lazy
from bot.store.ledger import Entry, Pending

__all__ = [
    "DOUBT_TYPE",
    "ON_DOUBT",
    "DoubtReport",
    "Window",
    "decide_doubt",
    "doubt_label",
    "in_doubt",
    "made_after_restart",
    "window_of",
]

DOUBT_TYPE: Final = "in_doubt_after_crash"
ON_DOUBT: Final = ("skip", "run")  # the policies; the first is the default
_LABELS: Final = {
    "skipped": N_("may have run before the crash, not run again"),
    "run": N_("may have run before the crash, run again"),
    "failed": N_("could not be handled"),
}


def doubt_label(kind: str) -> str:
    """What was done with a task in doubt (`skipped`, `run`, `failed`), as an alert names it."""
    return _LABELS[kind]


@dataclass(frozen=True)
class Window:
    """Game times: every run up to `after` was read; the server may have run up to `until`.
    `made_after`: keys of rows made once the bot had lost sight of the server (never in doubt:
    they may be of the timeline after the restart)."""

    after: int
    until: int
    made_after: frozenset[int] = frozenset()


def window_of(pending: Pending, made_after: frozenset[int]) -> Window:
    """The window the ledger measured when the restore became pending; a ring never read whole
    doubts every run the bot saw the time of and got no `ran` for."""
    if pending.doubt_until is None:
        return Window(-1, pending.last_time, made_after)
    return Window(pending.doubt_after or -1, pending.doubt_until, made_after)


def made_after_restart(made: frozenset[int], rows: Iterable[Entry], now: int) -> frozenset[int]:
    """Of the rows made since the bot lost sight of the server, those that may be of the
    timeline after the restart: one the server acknowledged at a game time the restarted world
    has not reached yet was made before the crash (its answer read after a failed read)."""
    return frozenset(e.key for e in rows if e.key in made and e.acked_at <= now)


def in_doubt(e: Entry, window: Window, first_key: int) -> bool:
    """A task of the bot, made before the restart, not known to have run, due in the window."""
    return (
        e.own
        and e.bkey is not None
        and e.state == "queue"
        and e.key <= first_key
        and e.key not in window.made_after
        and e.due <= window.until
    )


@dataclass
class DoubtReport:
    """What was done with each task in doubt, by kind (keys of _LABELS)."""

    window: Window | None = None
    done: dict[str, list[Text]] = field(default_factory=dict)

    def add(self, kind: str, text: Text) -> None:
        items = self.done.setdefault(kind, [])
        if text not in items:
            items.append(text)

    def __bool__(self) -> bool:
        return any(self.done.values())

    def event(self, server: str, seq: int, game_time: int) -> Event:
        details: dict[str, Text] = {
            _LABELS[kind]: Joined(items) for kind, items in self.done.items() if items
        }
        if self.window is not None:
            details[N_("why")] = lazy(
                "the events the server made from game time {after} to {until} were lost with "
                "the crash (the last poll interval before it stopped); whether these ran is "
                "unknown",
                after=max(self.window.after, 0),
                until=self.window.until,
            )
        total = sum(len(v) for v in self.done.values())
        return Event(
            server, seq, DOUBT_TYPE, f"{total} task(s)", game_time, MappingProxyType(details)
        )


def decide_doubt(
    e: Entry, diff: RestoreDiff, now: int, window: Window, report: DoubtReport
) -> None:
    """Put the task's policy into the diff: its saved copy out (skip) or left (run), a task the
    rollback lost put in again (run), a repeating one at its next boundary after the window
    (skip) or at the one in doubt (run)."""
    i = diff.find(e)
    task = diff.present[i] if i is not None else None
    if e.interval is None:
        if e.on_doubt == "run":
            if i is None:
                diff.adds.append((e, e.due, False, None))
                diff.doubted.add(e.key)
            when = e.due if task is None else task.due
            report.add("run", lazy("{id} (due {due})", id=e.task_id, due=when))
            return
        label = lazy("{id} (due {due})", id=e.task_id, due=e.due)
        if i is not None:
            diff.remove(i, "in_doubt", label)  # the guard names it in this report, not the other
        else:
            report.add("skipped", label)
        diff.finished.append(e)
        return
    target = e.due if e.on_doubt == "run" else next_due(e, now, window.until)
    if i is not None:
        diff.remove(i, "in_doubt", "")
    diff.adds.append((e, target, False, i))
    diff.doubted.add(e.key)
    kind = "run" if e.on_doubt == "run" else "skipped"
    report.add(
        kind, lazy("{id} (due {due}, next run {next})", id=e.task_id, due=e.due, next=target)
    )

"""The crash guard's comparison: the pack's lists as read after a restart, which of them the
ledger's record claims, and what to change to make them agree (bot.background.crash_guard
applies it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from bot.events.event import Event
from bot.i18n import N_, Joined, Text
from bot.minecraft.pack_tasks import Task
from bot.store.ledger import Entry

__all__ = [
    "ALERT_TYPE",
    "RESTORE_LABELS",
    "RestoreDiff",
    "RestoreReport",
    "next_due",
    "would_rerun",
]

ALERT_TYPE: Final = "restored_after_crash"
RESTORE_LABELS: Final = {
    "rescheduled": N_("scheduled again"),
    "cancelled": N_("cancelled again"),
    "paused": N_("paused again"),
    "resumed": N_("resumed again"),
    "not_rerun": N_("ran before the crash, kept from running again"),
    "failed": N_("could not be restored"),
}


@dataclass
class RestoreReport:
    """What one restore did, by kind (keys of RESTORE_LABELS), as `id (detail)` texts: lazy, so the
    alert says them in its channel's language (bot.discord.app.DoomBot.channel_locale)."""

    game_time: int = 0
    reason: Text = ""
    done: dict[str, list[Text]] = field(default_factory=dict)

    def add(self, kind: str, text: Text) -> None:
        items = self.done.setdefault(kind, [])
        if text not in items:  # a restore resumed after a drop says each thing once
            items.append(text)

    def discard(self, kind: str, text: Text) -> None:
        if text in self.done.get(kind, []):
            self.done[kind].remove(text)

    def __bool__(self) -> bool:
        return any(self.done.values())

    def texts(self) -> dict[str, list[str]]:
        """Every item in the current locale, by kind."""
        return {kind: [str(i) for i in items] for kind, items in self.done.items()}

    def event(self, server: str, seq: int) -> Event:
        details: dict[str, Text] = {
            RESTORE_LABELS[kind]: Joined(items) for kind, items in self.done.items() if items
        }
        details[N_("why")] = self.reason  # N_: the alerts cog translates names as it shows them
        total = sum(len(v) for v in self.done.values())
        return Event(
            server, seq, ALERT_TYPE, f"{total} task(s)", self.game_time, MappingProxyType(details)
        )


def would_rerun(e: Entry, now: int, seen: int, due: int | None = None) -> bool:
    """A one-off task whose due tick the bot saw pass (so it ran) and that the rolled-back
    game time has not reached yet: left in, it would run a second time."""
    tick = e.due if due is None else due
    return e.interval is None and now < tick <= seen


def next_due(e: Entry, now: int, seen: int) -> int:
    if e.state == "offline":
        return now + 1  # it was parked for its player: due at once, parked again if away
    if e.interval is None or e.due > seen:
        return e.due
    # repeating: the boundaries up to what the bot saw ran before the crash
    passed = (seen - e.due) // e.interval + 1
    return e.due + passed * e.interval


class RestoreDiff:
    """The difference the crash guard restores: the pack's lists as read, which of them the
    ledger's record claims, and what to change (removals, pauses, resumes, adds) to agree."""

    def __init__(self, present: list[Task]) -> None:
        self.present = present
        self.claimed: set[int] = set()
        self.removals: dict[int, tuple[str, Text]] = {}
        self.pauses: list[int] = []
        self.resumes: list[int] = []
        # (row, due tick, pause it after, the index of a saved copy that must be out first)
        self.adds: list[tuple[Entry, int, bool, int | None]] = []
        self.finished: list[Entry] = []
        self.replaced: list[Entry] = []
        self.gone: set[int] = set()
        self.doubted: set[int] = set()  # rows in doubt (their adds are said in that alert)
        self._by_n: dict[int, list[int]] = {}
        self._by_id: dict[str, list[int]] = {}
        self._by_k: dict[str, list[int]] = {}
        for i, task in enumerate(present):
            self._by_n.setdefault(task.n, []).append(i)
            if task.k is not None:
                self._by_k.setdefault(task.k, []).append(i)
            self._by_id.setdefault(task.id, []).append(i)

    def find(self, e: Entry, *, claimed_ok: bool = False) -> int | None:
        found = self._by_k.get(e.bkey, []) if e.bkey is not None else self._by_n.get(e.n, [])
        for i in found:
            if e.same_task(self.present[i]) and (claimed_ok or i not in self.claimed):
                if not claimed_ok:
                    self.claimed.add(i)
                return i
        return None

    def instances(self, task_id: str) -> list[int]:
        return list(self._by_id.get(task_id, []))

    def reused(self, e: Entry) -> bool:
        """Another task holds this row's serial now: the row's task was lost (serials are
        unique in one timeline, and a rollback hands them out again)."""
        return any(not e.same_task(self.present[i]) for i in self._by_n.get(e.n, []))

    def remove(self, i: int, kind: str, why: Text) -> None:
        self.removals.setdefault(i, (kind, why))

    def first(self, task_id: str, lists: tuple[str, ...]) -> int | None:
        for i in self._by_id.get(task_id, []):
            if i not in self.gone and self.present[i].list in lists:
                return i
        return None

    def unclaimed_like(self, e: Entry, due: int) -> Task | None:
        for i in self._by_id.get(e.task_id, []):
            task = self.present[i]
            if (
                i not in self.claimed
                and i not in self.gone
                and task.run == e.run
                and task.due == due
            ):
                self.claimed.add(i)
                return task
        return None

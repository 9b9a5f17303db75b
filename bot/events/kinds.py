"""What each event type means to a reader, for every face that shows events (the alerts cog's
embeds and summaries, the dashboard's event feed): its title and colour, the short word a
summary line uses, and its details as name and value in the reader's language."""

from __future__ import annotations

__all__ = ["ALERTS", "KINDS", "NOTICES", "shown_details", "title_of"]

from typing import TYPE_CHECKING

from bot.i18n import N_, Lazy, _, lazy

if TYPE_CHECKING:
    from bot.events.event import Event

# event type -> (title, colour); other types (retry, ...) are not alerts
ALERTS: dict[str, tuple[Lazy, int]] = {
    "retry_exhausted": (lazy("Task failed: no retries left"), 0xED4245),
    "offline": (lazy("Task waiting: its player went offline"), 0xFEE75C),
    "restored": (lazy("Task resumed: its player is back"), 0x57F287),
    "invalid": (lazy("Task removed: its command does not parse"), 0xED4245),
    "dropped": (lazy("Task removed: the entity it runs as is gone"), 0xED4245),
    # a task's conditions (`require`) not met when it was due: skipped, or waited out
    "skipped": (lazy("Task skipped: its conditions were not met"), 0xFEE75C),
    "waited": (lazy("Task waited for its conditions as long as allowed"), 0xFEE75C),
    # the wall-clock scheduler's (bot.wallclock.scheduler); their game time is -1 (none)
    "wallclock_missed": (lazy("Planned task missed"), 0xED4245),
    "wallclock_skipped": (lazy("Planned runs skipped"), 0xFEE75C),
    "wallclock_late": (lazy("Planned task ran late"), 0xFEE75C),
    "wallclock_failed": (lazy("Planned task refused by the server"), 0xED4245),
    "wallclock_waiting": (lazy("Planned task waiting: its player is offline"), 0xFEE75C),
    # the triggers' (bot.triggers.watcher)
    "trigger_fired": (lazy("Trigger fired: its program started"), 0x5865F2),
    "trigger_limited": (lazy("Trigger held: its day's limit is reached"), 0xFEE75C),
    "trigger_refused": (lazy("Trigger fired, but its program could not start"), 0xED4245),
    "trigger_postponed": (lazy("Event postponed: too few interested by the deadline"), 0xFEE75C),
    "trigger_cancelled": (lazy("Event cancelled: too few interested by the deadline"), 0xED4245),
    "trigger_withdrawn": (lazy("Event moved or cancelled: its program's run cancelled"), 0xFEE75C),
    "restored_after_crash": (
        lazy("Server came back from its last save: tasks restored"),
        0xFEE75C,
    ),
    # the crash guard's, with the ring-buffer source (bot.background.doubt)
    "in_doubt_after_crash": (lazy("Tasks in doubt after a crash"), 0xED4245),
    # the health checks' (bot.background.health), each with its all clear
    "health_tps": (lazy("Server running slowly: TPS low"), 0xFEE75C),
    "health_tps_clear": (lazy("All clear: TPS back to normal"), 0x57F287),
    "health_unreachable": (lazy("Server unreachable over RCON"), 0xED4245),
    "health_unreachable_clear": (lazy("All clear: the server answers again"), 0x57F287),
    "health_pack": (lazy("Data pack missing or damaged"), 0xED4245),
    "health_pack_clear": (lazy("All clear: the data pack is whole again"), 0x57F287),
    "health_stuck": (lazy("Planned run stuck: handed over, not run"), 0xFEE75C),
    "health_stuck_clear": (lazy("All clear: the planned run left the queue"), 0x57F287),
    "health_silent": (lazy("Events not arriving: the event source is silent"), 0xED4245),
    "health_silent_clear": (lazy("All clear: events arrive again"), 0x57F287),
}
# the events that are no alert, as the dashboard's feed titles them
NOTICES: dict[str, Lazy] = {
    "retry": lazy("Task failed: it will be tried again"),
    "ran": lazy("Task ran"),
}
# the alert types as a summary names them
KINDS: dict[str, Lazy] = {
    "retry_exhausted": lazy("out of retries"),
    "offline": lazy("offline"),
    "restored": lazy("restored"),
    "invalid": lazy("invalid"),
    "dropped": lazy("dropped"),
    "skipped": lazy("conditions not met"),
    "waited": lazy("waited out"),
    "wallclock_missed": lazy("missed"),
    "wallclock_skipped": lazy("skipped"),
    "wallclock_late": lazy("late"),
    "wallclock_failed": lazy("refused"),
    "wallclock_waiting": lazy("waiting for its player"),
    "trigger_fired": lazy("trigger fired"),
    "trigger_limited": lazy("trigger held"),
    "trigger_refused": lazy("trigger refused"),
    "trigger_postponed": lazy("event postponed"),
    "trigger_cancelled": lazy("event cancelled"),
    "trigger_withdrawn": lazy("run withdrawn"),
    "restored_after_crash": lazy("restored after a crash"),
    "in_doubt_after_crash": lazy("in doubt after a crash"),
    "health_tps": lazy("TPS low"),
    "health_tps_clear": lazy("TPS normal"),
    "health_unreachable": lazy("unreachable"),
    "health_unreachable_clear": lazy("reachable"),
    "health_pack": lazy("pack damaged"),
    "health_pack_clear": lazy("pack whole"),
    "health_stuck": lazy("stuck"),
    "health_stuck_clear": lazy("no longer stuck"),
    "health_silent": lazy("events silent"),
    "health_silent_clear": lazy("events arriving"),
}


# the pack's own fields (datapack core/event/line) as a reader names them
_PACK_NAMES: dict[str, str] = {
    "by": N_("runs as"),
    "retry": N_("retries left"),
    "players": N_("players online"),
    "then": N_("after the wait"),
    "trigger": N_("trigger"),
    "program": N_("program"),
    "because": N_("because"),
    "per_day": N_("firings a day"),
    "why": N_("why"),
    "event": N_("event"),
    "interested": N_("interested"),
    "start": N_("start"),
}
# the pack's reason words, said as a moderator would
_PACK_VALUES: dict[tuple[str, str], Lazy] = {
    ("why", "too_few"): lazy("fewer players online than it requires"),
    ("why", "too_many"): lazy("more players online than it allows"),
    ("why", "not_online"): lazy("its player is not online"),
    ("then", "run"): lazy("run anyway"),
    ("then", "skip"): lazy("skipped"),
}
# the run's key (`k`) is the bot's bookkeeping: kept in the event's details (the API), not shown
_HIDDEN = frozenset({"k"})


def title_of(event: Event) -> str:
    """The event's title in the current language (an alert's as the alert channel says it);
    a type nobody named yet is itself."""
    found = ALERTS.get(event.type)
    if found is not None:
        return str(found[0])
    notice = NOTICES.get(event.type)
    return str(notice) if notice is not None else event.type


def shown_details(event: Event) -> list[tuple[str, str]]:
    """The event's details as (name, value) in the current language. Names and fixed reasons
    are marked N_() where they are made (scheduler, crash guard); a lazy value is said now, a
    plain one may be a marked reason (a pack event's values are not in the catalog: kept)."""
    shown = []
    for key, value in event.details.items():
        if key in _HIDDEN:
            continue
        if isinstance(value, Lazy):
            text = str(value)
        else:
            word = _PACK_VALUES.get((key, value))
            text = str(word) if word is not None else _(value) if value else value
        shown.append((_(_PACK_NAMES.get(key, key)), text))
    return shown

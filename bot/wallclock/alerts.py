"""The wall-clock scheduler's alerts: each missed, skipped, late, failed or waiting run is an
:class:`~bot.events.event.Event` (`wallclock_*`) among its server's alerts, which join that server's
event stream (bot.events.guarded): the alerts cog posts it and the dashboard's live feed shows
it, like the pack's own events."""

from __future__ import annotations

__all__ = ["ALERT_TYPES", "EVENT_BACKLOG", "Alerts"]

import itertools
import logging
from datetime import datetime
from types import MappingProxyType

from bot.events.bot_alerts import BotAlerts
from bot.events.event import Event
from bot.i18n import N_, Text
from bot.i18n.formats import stamp
from bot.store.schedules import Schedule

log = logging.getLogger(__name__)

ALERT_TYPES = (
    "wallclock_missed",
    "wallclock_skipped",
    "wallclock_late",
    "wallclock_failed",
    "wallclock_waiting",
)
EVENT_BACKLOG = 1000


class Alerts:
    """Says what went wrong with a row's run: the alerts of each server, each an Event."""

    def __init__(self) -> None:
        self._of: dict[str, BotAlerts] = {}  # server -> its alerts (see of())
        self._event_seq = itertools.count(1)

    # the alerts cog shows a detail's name and a fixed reason translated: marked here for it
    _DETAIL_NAMES = (
        N_("schedule"),
        N_("due"),
        N_("late"),
        N_("skipped"),
        N_("player"),
        N_("reason"),
    )

    def of(self, server: str) -> BotAlerts:
        """The alerts of one server; an alert made before anyone reads it waits there (the
        newest EVENT_BACKLOG)."""
        found = self._of.get(server)
        if found is None:
            found = self._of[server] = BotAlerts(EVENT_BACKLOG)
        return found

    def alert(self, row: Schedule, kind: str, due: datetime, **details: Text) -> None:
        fields = {"schedule": f"#{row.id}", "due": stamp(due), **details}
        event = Event(
            row.server, next(self._event_seq), kind, row.task_id, -1, MappingProxyType(fields)
        )
        log.warning("%s %s on %s: %s", kind, row.task_id, row.server, details)
        self.of(row.server).emit(event)

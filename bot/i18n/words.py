"""The stored state and outcome words (English, as the database keeps them) as a reader sees them.

The rows keep ``active``, ``paused``, ``ran``, ``waiting_player``... so queries, logs and the
dashboard's JSON never depend on a language; only where a person reads one is it translated. A
single word means different things in different places (``paused`` a schedule's state, a run's
outcome), so each is looked up with a context (``pgettext``). An unknown word is shown as stored.
"""

from __future__ import annotations

__all__ = ["event_state", "run_outcome", "schedule_state"]

from bot.i18n import ngettext, pgettext


def schedule_state(state: str) -> str:
    """A planned (wall-clock) schedule's state: active, paused, done, cancelled, missed."""
    words = {
        "active": pgettext("schedule state", "active"),
        "paused": pgettext("schedule state", "paused"),
        "done": pgettext("schedule state", "done"),
        "cancelled": pgettext("schedule state", "cancelled"),
        "missed": pgettext("schedule state", "missed"),
    }
    return words.get(state, state)


def run_outcome(outcome: str) -> str:
    """What became of one run: ran, queued, waiting_player, paused, sending, missed,
    ``skipped <n>``, or ``failed: <code>`` (the pack's error code stays as it is, it is an id)."""
    if outcome.startswith("failed: "):
        return pgettext("run outcome", "failed: {code}", code=outcome.removeprefix("failed: "))
    count = outcome.removeprefix("skipped ")
    if count != outcome and count.isdigit():
        return ngettext("skipped {n} run", "skipped {n} runs", int(count))
    words = {
        "ran": pgettext("run outcome", "ran"),
        "queued": pgettext("run outcome", "queued"),
        "waiting_player": pgettext("run outcome", "waiting for its player"),
        "paused": pgettext("run outcome", "paused"),
        "sending": pgettext("run outcome", "sending"),
        "missed": pgettext("run outcome", "missed"),
        "skipped": pgettext("run outcome", "skipped"),
        "failed": pgettext("run outcome", "failed"),
        "cancelled": pgettext("run outcome", "cancelled"),
        # a hand-over whose answer a crash took, not sent again (bot.background.doubt)
        "in_doubt": pgettext("run outcome", "in doubt after a crash, not sent again"),
        # a game-time task's runs, as the pack's events say them
        "retry": pgettext("run outcome", "failed, retrying"),
        "retry_exhausted": pgettext("run outcome", "failed, no retries left"),
        "offline": pgettext("run outcome", "waiting for its player"),
        "dropped": pgettext("run outcome", "dropped: its entity is gone"),
        "invalid": pgettext("run outcome", "removed: its command does not parse"),
        "waited": pgettext("run outcome", "waited for its conditions as long as allowed"),
    }
    return words.get(outcome, outcome)


def event_state(state: str) -> str:
    """A Discord event's state as /event keeps it: scheduled, active, completed, cancelled."""
    words = {
        "creating": pgettext("event state", "being made"),
        "scheduled": pgettext("event state", "scheduled"),
        "active": pgettext("event state", "running"),
        "completed": pgettext("event state", "completed"),
        "cancelled": pgettext("event state", "cancelled"),
        "gone": pgettext("event state", "gone"),
    }
    return words.get(state, state)

"""Stopping background tasks so that they stay stopped.

Python 3.11 can lose a cancellation: when `asyncio.timeout`/`wait_for` or a lock hand-off
completes in the same step as the cancel, the task goes on (cpython gh-86296, fixed in 3.12),
and a loop task then waits on its next event for ever (a test session hung on a crash guard
"cancelling" inside `await self._wake.wait()`). :func:`cancel_and_wait` cancels again until the
task ends.
"""

from __future__ import annotations

__all__ = ["cancel_and_wait"]

import asyncio
import logging

log = logging.getLogger(__name__)

ATTEMPTS = 20


async def cancel_and_wait(*tasks: asyncio.Task[object] | None, grace: float = 0.5) -> None:
    """Cancel `tasks` and wait until each has ended, cancelling again a task that swallowed
    its cancellation; results and exceptions are dropped (the tasks report their own)."""
    pending = {t for t in tasks if t is not None and not t.done()}
    for attempt in range(ATTEMPTS):
        if not pending:
            return
        if attempt:
            log.warning("%d task(s) went on after being cancelled; cancelling again", len(pending))
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=grace)
    log.error("tasks would not stop: %s", ", ".join(t.get_name() for t in pending))

"""Stopping background tasks so that they stay stopped.

A cancellation can be lost: in Python 3.11 `wait_for` returns the inner result when it
completes in the same step as the cancel (cpython gh-86296, fixed in 3.12), and any code that
catches CancelledError too widely does the same. A loop task then waits on its next event for
ever: a CI session hung with a crash guard "cancelling" inside `await self._wake.wait()` (which
of the two it was is not known). :func:`cancel_and_wait` cancels again until the task ends.
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

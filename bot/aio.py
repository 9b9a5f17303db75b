"""Stopping background tasks so that they stay stopped, and stopping the bot on a signal.

A cancellation can be lost: in Python 3.11 `wait_for` returns the inner result when it
completes in the same step as the cancel (cpython gh-86296, fixed in 3.12), and any code that
catches CancelledError too widely does the same. A loop task then waits on its next event for
ever (a crash guard left "cancelling" inside `await self._wake.wait()`, say).
:func:`cancel_and_wait` cancels again until the task ends.

:func:`run_until_stopped` is asyncio.run for the long-running commands, where SIGTERM (what
`docker stop` sends) and SIGINT (Ctrl-C) are the same clean stop: the main task is cancelled, its
clean-up runs (cogs, services, the database), and the process ends with 0 within STOP_BUDGET
seconds even when a server is frozen or unreachable.
"""

from __future__ import annotations

__all__ = [
    "STOP_BUDGET",
    "Stopped",
    "cancel_and_wait",
    "run_until_stopped",
    "stop_whole",
    "tell_hooks",
]

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

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
            log.warning(
                "%d task(s) went on after being cancelled; cancelling again: %s",
                len(pending),
                ", ".join(sorted(t.get_name() for t in pending)),
            )
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=grace)
    log.error("tasks would not stop: %s", ", ".join(t.get_name() for t in pending))


async def stop_whole(task: asyncio.Task[object], limit: float) -> None:
    """Cancel `task` once and wait up to `limit` seconds for its clean-up to end, even if this
    task is cancelled meanwhile (a clean-up that saves to the database must not be left running
    while the caller's own stop goes on to close that database; a cancel repeated every half
    second would cut it short). Past `limit`, or if it lost the cancel, as cancel_and_wait. A
    cancel of this task that came meanwhile is raised after."""
    task.cancel()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    cancelled = False
    while not task.done() and loop.time() < deadline:
        try:
            await asyncio.wait({task}, timeout=deadline - loop.time())
        except asyncio.CancelledError:
            cancelled = True
    await cancel_and_wait(task)
    if cancelled:
        raise asyncio.CancelledError


STOP_BUDGET = 5.0  # seconds from the signal to the end of the process (docker stop gives 10)
_CUT = 3.0  # seconds of clean-up before it is cancelled again (a hung close is cut short)
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stopped(Exception):
    """The command was stopped by this signal and cleaned up (raised by run_until_stopped)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def run_until_stopped(main: Coroutine[Any, Any, int]) -> int:
    """asyncio.run(main), stopped cleanly by SIGTERM or SIGINT: raises Stopped once main's
    clean-up ran. A second signal, or clean-up still running after _CUT seconds, cancels it
    again; past STOP_BUDGET - 0.5 seconds the process exits with 0 anyway, so a stop is never
    left waiting on a frozen server (committed writes are on disk: bot.store.db syncs them)."""
    caught: list[int] = []

    async def runner() -> int:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def stop(signum: int) -> None:
            if not caught:
                log.info("%s: stopping", signal.Signals(signum).name)
                loop.call_later(_CUT, task.cancel)
                _last_resort(STOP_BUDGET - 0.5)
            caught.append(signum)
            task.cancel()

        # signal handlers can only be set in the main thread (a test may run this in another)
        handled = _SIGNALS if threading.current_thread() is threading.main_thread() else ()
        for signum in handled:
            loop.add_signal_handler(signum, stop, signum)
        try:
            return await main
        except asyncio.CancelledError:
            if not caught:
                raise
            return 0
        finally:
            for signum in handled:
                loop.remove_signal_handler(signum)

    code = asyncio.run(runner())
    if caught:
        raise Stopped(caught[0])
    return code


def _last_resort(seconds: float) -> None:
    """Exit with 0 after `seconds` if the clean stop has not ended the process by then (a daemon
    thread: a process that ended in time never waits for it)."""

    def leave() -> None:
        log.warning("the clean stop took over %.1f s: exiting now", seconds)
        logging.shutdown()
        os._exit(0)

    timer = threading.Timer(seconds, leave)
    timer.daemon = True
    timer.start()


async def tell_hooks(hooks: list[Callable[..., Awaitable[None]]], *args: Any, what: str) -> None:
    """Await each hook with `args`; one that fails is logged (as `what`), never the caller's
    failure, and the others are still told."""
    for hook in list(hooks):
        try:
            await hook(*args)
        except Exception:
            log.warning("%s failed", what, exc_info=True)

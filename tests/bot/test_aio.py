"""cancel_and_wait: a task that lost its cancellation (what Python 3.11's timeout races do) is
cancelled again until it ends; well-behaved tasks end at the first cancel."""

from __future__ import annotations

import asyncio

import pytest

from bot.aio import cancel_and_wait


async def test_a_task_that_swallows_its_cancellation_is_cancelled_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.Event().wait()  # waits for ever, as a loop task between events
            except asyncio.CancelledError:
                swallowed += 1
                if swallowed > 2:
                    raise

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await cancel_and_wait(task, grace=0.05)
    assert task.done() and task.cancelled() and swallowed == 3
    assert "went on after being cancelled" in caplog.text


async def test_plain_tasks_and_none_end_at_the_first_cancel(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tasks = [asyncio.create_task(asyncio.sleep(3600)) for _ in range(3)]
    done = asyncio.create_task(asyncio.sleep(0))
    await done
    await cancel_and_wait(*tasks, None, done)
    assert all(t.cancelled() for t in tasks) and not done.cancelled()
    assert "cancelling again" not in caplog.text

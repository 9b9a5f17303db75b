"""The background look the programs' runner, the repeats and the triggers share: `look` every
`interval` seconds, and at once when woken, until cancelled; a look that fails is logged and
the next one tries again (the database away a moment is a BotError, said in words)."""

from __future__ import annotations

__all__ = ["look_every"]

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bot.errors import BotError

log = logging.getLogger(__name__)


async def look_every(
    look: Callable[[], Awaitable[None]], wake: asyncio.Event, interval: float, what: str
) -> None:
    while True:
        try:
            await look()
        except BotError as exc:
            log.warning("looking at %s failed: %s", what, exc)
        except Exception:
            log.warning("looking at %s failed", what, exc_info=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), interval)
        wake.clear()
